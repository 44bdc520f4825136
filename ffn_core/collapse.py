"""Linear collapse: without its activation the FFN is one d×d matrix, W = W2·W1, b = W2·b1 + b2."""
from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd
import torch

from ffn_core import ffn, reproducible_matmul

MAX_D_MODEL = 256
MAX_D_FF = 1024
# Enough inputs that a least-squares fit of the (d+1)·d affine map is well posed at d = MAX_D_MODEL,
# and a fresh set of the same size to judge it on (an in-sample error would flatter the fit).
N_FIT = 2048
N_TEST = 1024


class _Spectrum:
    """What a result says of the one matrix its layers multiply into: its singular values and its rank."""

    # Fields of the dataclasses below: this base declares them only so that to_frame reads typed attributes.
    singular_values: tuple[float, ...]  # in descending order
    rank: int

    def to_frame(self) -> pd.DataFrame:
        """Singular values of the product one row each, in descending order, flagged if counted by the rank."""
        return pd.DataFrame(
            {
                "index": range(1, len(self.singular_values) + 1),
                "singular_value": self.singular_values,
                "counted": [i < self.rank for i in range(len(self.singular_values))],
            }
        )


@dataclass(frozen=True)
class Collapse(_Spectrum):
    d_model: int
    d_ff: int
    act: str
    bias: bool
    seed: int
    rank: int
    rank_bound: int
    singular_values: tuple[float, ...]
    effective_rank: float
    two_layer_params: int
    single_matrix_params: int
    max_abs_residual: float
    fit_relative_error: float
    fit_max_abs_error: float
    output_scale: float


def _check(d_model: int, d_ff: int, act: str) -> None:
    if not 2 <= d_model <= MAX_D_MODEL:
        raise ValueError(f"d_model must be in [2, {MAX_D_MODEL}]")
    if not 1 <= d_ff <= MAX_D_FF:
        raise ValueError(f"d_ff must be in [1, {MAX_D_FF}]")
    if act not in ffn.ACTIVATIONS:
        raise ValueError(f"act must be one of {ffn.ACTIVATIONS}")


def collapsed(net: ffn.FFN) -> tuple[torch.Tensor, torch.Tensor]:
    """The single affine map (W2·W1, W2·b1 + b2) that a linear FFN equals."""
    w_1, w_2 = net.w_1.weight, net.w_2.weight  # (m, d), (d, m)
    w = reproducible_matmul.matmul(w_2, w_1)  # (d, d)
    b = torch.zeros(w.shape[0], dtype=w.dtype)
    if net.w_1.bias is not None:
        b = reproducible_matmul.matmul(w_2, net.w_1.bias.unsqueeze(1)).squeeze(1) + net.w_2.bias
    return w, b


def one_matrix(w: torch.Tensor, b: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """x·Wᵀ + b in the fixed summation order."""
    return reproducible_matmul.matmul(x, w.T) + b


def effective_rank(s: torch.Tensor) -> float:
    """exp of the entropy of the normalised singular values (Roy & Vetterli, 2007)."""
    p = s / s.sum()
    p = p[p > 0]
    return float(torch.exp(-(p * p.log()).sum()))


def best_affine_fit(x_fit: torch.Tensor, y_fit: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Least-squares A, c minimising ||x·Aᵀ + c − y||_F over the given samples."""
    ones = torch.ones(x_fit.shape[0], 1, dtype=x_fit.dtype)
    sol = torch.linalg.lstsq(torch.cat([x_fit, ones], dim=1), y_fit, driver="gelsd").solution  # (d+1, d)
    return sol[:-1].T, sol[-1]


@torch.no_grad()
def measure(d_model: int = 64, d_ff: int = 256, act: str = "none", bias: bool = False, seed: int = 0) -> Collapse:
    """Collapse an FFN's two layers into one matrix and measure what that costs and what it loses."""
    _check(d_model, d_ff, act)
    g = torch.Generator().manual_seed(seed)
    net = ffn.FFN(d_model, d_ff, act=act, bias=bias, seed=seed, dtype=torch.float64)  # type: ignore[arg-type]
    w, b = collapsed(net)
    s = torch.linalg.svdvals(w)

    x_fit = torch.randn(N_FIT, d_model, generator=g, dtype=torch.float64)
    x_test = torch.randn(N_TEST, d_model, generator=g, dtype=torch.float64)
    # Both sides of every rounding-level figure are summed in a fixed order (ffn_core.reproducible_matmul),
    # so two students with the same settings see the same digits whatever BLAS does on the server.
    y_test = reproducible_matmul.ffn(net, x_test)
    # Only meaningful with act "none": it is the seed's "replace both layers by one matrix" check.
    residual = (y_test - one_matrix(w, b, x_test)).abs().max()

    # Without an activation the best affine map is (W, b) itself, so the fit's error is the residual's
    # rounding; a least-squares solve would only add LAPACK's run-dependent last bits to it.
    a, c = (w, b) if act == "none" else best_affine_fit(x_fit, net(x_fit))
    err = y_test - one_matrix(a, c, x_test)
    spread = (y_test - y_test.mean(dim=0)).norm()

    two_layer = 2 * d_model * d_ff + (d_ff + d_model if bias else 0)
    single = d_model * d_model + (d_model if bias else 0)
    return Collapse(
        d_model=d_model,
        d_ff=d_ff,
        act=act,
        bias=bias,
        seed=seed,
        rank=int(torch.linalg.matrix_rank(w)),
        rank_bound=min(d_model, d_ff),
        singular_values=tuple(s.tolist()),
        effective_rank=effective_rank(s),
        two_layer_params=two_layer,
        single_matrix_params=single,
        max_abs_residual=float(residual),
        fit_relative_error=float(err.norm() / spread) if spread > 0 else math.nan,
        fit_max_abs_error=float(err.abs().max()),
        output_scale=float(y_test.abs().max()),
    )


def report(seed: int = 0) -> dict:
    """The linear_collapse figures of the report contract at the seed's settings (d = 64, m = 256, no biases)."""
    res = measure(64, 256, "none", bias=False, seed=seed)
    return {
        "d_model": res.d_model,
        "d_ff": res.d_ff,
        "rank": res.rank,
        "two_layer_params": res.two_layer_params,
        "single_matrix_params": res.single_matrix_params,
        "max_abs_residual": res.max_abs_residual,
    }


MAX_LAYERS = 8
# The seed text's measured residual of replacing both layers by W₂W₁ (d = 64, m = 256), for the page to set beside ours.
SEED_RESIDUAL = 3.3e-16


@dataclass(frozen=True)
class Stack(_Spectrum):
    """L linear layers d → w₁ → … → d without activations, and the one d×d matrix they multiply into."""

    d_model: int
    widths: tuple[int, ...]  # the hidden widths, in order
    seed: int
    rank: int
    rank_bound: int  # min(d, every hidden width)
    singular_values: tuple[float, ...]
    layer_params: int
    single_matrix_params: int
    max_abs_residual: float
    output_scale: float


def hidden_widths(d: int, layers: int, narrow: int) -> tuple[int, ...]:
    """The hidden widths of a stack of `layers` linear layers: d each, the middle one `narrow` when it is set
    (page 3's stack and its tests)."""
    widths = [d] * (layers - 1)
    if narrow:
        widths[(layers - 1) // 2] = narrow
    return tuple(widths)


def stack(d_model: int = 64, widths: tuple[int, ...] = (256, 256, 256), bias: bool = False, seed: int = 0) -> Stack:
    """Stack len(widths) + 1 linear layers, multiply them into one affine map, and measure the replacement's error."""
    _check(d_model, max(widths, default=1), "none")
    if not 1 <= len(widths) <= MAX_LAYERS - 1 or min(widths) < 1:
        raise ValueError(f"a stack has 2 to {MAX_LAYERS} layers, each hidden width at least 1")
    g = torch.Generator().manual_seed(seed)
    sizes = (d_model, *widths, d_model)
    layers = [ffn.Linear(a, b, bias=bias, dtype=torch.float64) for a, b in zip(sizes, sizes[1:])]
    for layer in layers:
        ffn.init_linear(layer, "default", g)
    with torch.no_grad():
        # Fixed-order products (ffn_core.reproducible_matmul): the residual's digits are the same on every server.
        w = torch.eye(d_model, dtype=torch.float64)
        b = torch.zeros(d_model, dtype=torch.float64)
        for layer in layers:  # x ↦ W x + b, then the next layer: W' (W x + b) + b'
            w = reproducible_matmul.matmul(layer.weight, w)
            b = reproducible_matmul.matmul(layer.weight, b.unsqueeze(1)).squeeze(1) + (layer.bias if layer.bias is not None else 0)
        x = torch.randn(N_TEST, d_model, generator=g, dtype=torch.float64)
        y = x
        for layer in layers:
            y = reproducible_matmul.linear(y, layer)
        residual = (y - one_matrix(w, b, x)).abs().max()
    return Stack(
        d_model=d_model,
        widths=tuple(widths),
        seed=seed,
        rank=int(torch.linalg.matrix_rank(w)),
        rank_bound=min(d_model, *widths),
        singular_values=tuple(torch.linalg.svdvals(w).tolist()),
        layer_params=sum(layer.weight.numel() + (layer.bias.numel() if layer.bias is not None else 0)
                         for layer in layers),
        single_matrix_params=d_model * d_model + (d_model if bias else 0),
        max_abs_residual=float(residual),
        output_scale=float(y.abs().max()),
    )


@dataclass(frozen=True)
class FitSample:
    """One output feature of the layer against the best single affine map's prediction, on fresh inputs."""

    actual: tuple[float, ...]
    predicted: tuple[float, ...]

    def to_frame(self) -> pd.DataFrame:
        """Long data: actual and predicted value of output feature 0, one row per test input."""
        return pd.DataFrame({"predicted": self.predicted, "actual": self.actual})


@torch.no_grad()
def fit_sample(d_model: int = 64, d_ff: int = 256, act: str = "relu", bias: bool = False, seed: int = 0,
               points: int = 300) -> FitSample:
    """The same layer, inputs and least-squares fit as measure() with these arguments, for a scatter of feature 0."""
    _check(d_model, d_ff, act)
    g = torch.Generator().manual_seed(seed)
    net = ffn.FFN(d_model, d_ff, act=act, bias=bias, seed=seed, dtype=torch.float64)  # type: ignore[arg-type]
    x_fit = torch.randn(N_FIT, d_model, generator=g, dtype=torch.float64)
    x_test = torch.randn(N_TEST, d_model, generator=g, dtype=torch.float64)[:points]
    a, c = best_affine_fit(x_fit, net(x_fit))
    return FitSample(actual=tuple(net(x_test)[:, 0].tolist()), predicted=tuple((x_test @ a.T + c)[:, 0].tolist()))
