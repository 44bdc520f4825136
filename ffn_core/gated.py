"""The gated FFN, FFN_GLU(x) = W₂(act(W₁x) ⊙ W₃x) (Shazeer 2020; SwiGLU in LLaMA, Mistral, Qwen; GeGLU in Gemma).

Three measurements on ffn.FFN(glu=True), float64:
- the activation removed, W₂(W₁x ⊙ W₃x) is a quadratic form of x, not a matrix: the best affine map's
  error on fresh inputs, beside the plain FFN's one-matrix residual (ffn_core.collapse);
- at d_ff = 8/3·d its three matrices hold the 8d² weights of a plain FFN at 4·d (counted from modules);
- for one token, what the gate does to each hidden unit: the units it turns down (pre-activation below 0),
  how much those still pass under SiLU and GELU (ReLU passes nothing), and the signs the value gives back.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd
import torch

from ffn_core import collapse, ffn, params, reproducible_matmul

D_MODELS = (24, 48, 96)  # multiples of 3, so 8/3·d is whole and the count is exactly 8d²
MAX_D_MODEL = 96  # the fixed-order residual at 4·d = 384 stays near a tenth of a second
GATES: tuple[ffn.Activation, ...] = ("silu", "gelu", "relu")
FIT_ACTS: tuple[ffn.Activation, ...] = ("none", *GATES)
N_TOKENS = 256  # tokens over which the turned-down fraction is averaged


def d_ff_glu(d_model: int) -> int:
    """8/3·d rounded to the nearest whole unit (exact for d a multiple of 3)."""
    return params.d_ff_for(d_model, "8/3")


@dataclass(frozen=True)
class Gate:
    """One gate activation on one token: what it passes of each hidden unit."""

    act: str
    turned_down: float  # share of units whose gate pre-activation W₁x is below 0
    leak: float  # share of Σ|h_i| carried by the turned-down units (0 for ReLU)
    negative: float  # share of units with h_i = act(W₁x)_i·(W₃x)_i < 0
    mean_turned_down: float  # turned_down averaged over N_TOKENS tokens


@dataclass(frozen=True)
class Gated:
    d_model: int
    d_ff: int  # the gated FFN's width, 8/3·d
    act: str  # the gate's activation of the fit ("none": bilinear)
    seed: int
    # The fit: best single affine map on fresh inputs, relative to the output's spread.
    gated_fit_error: float
    plain_fit_error: float  # the plain FFN at 4·d with the same activation
    plain_collapse_residual: float  # the plain linear FFN replaced by W₂W₁, max |difference|
    output_scale: float
    # The counts, sum(p.numel()) of real modules without biases.
    gated_params: int
    plain_params: int
    gated_4d_params: int  # three matrices at 4·d: 12d²
    attention_params: int  # 4d², for the block's share
    # The gate on one token.
    token: int
    relu_active: float  # the plain ReLU FFN with the same W₁: share of units with W₁x > 0
    gates: tuple[Gate, ...]
    pre: tuple[float, ...]  # W₁x of the token, unit by unit
    value: tuple[float, ...]  # W₃x

    def gate(self, act: str) -> Gate:
        return next(g for g in self.gates if g.act == act)

    def to_frame(self) -> pd.DataFrame:
        """Long: for each gate and hidden unit, the pre-activation z = (W₁x)_i, act(z) and h_i = act(z)·(W₃x)_i."""
        z = torch.tensor(self.pre, dtype=torch.float64)
        v = torch.tensor(self.value, dtype=torch.float64)
        rows = []
        for g in GATES:
            a = ffn.activation(g)(z)
            rows += [{"gate": g, "unit": i, "z": zi, "gate_value": ai, "h": ai * vi, "down": zi < 0}
                     for i, (zi, ai, vi) in enumerate(zip(z.tolist(), a.tolist(), v.tolist()))]
        return pd.DataFrame(rows)

    def fractions_frame(self) -> pd.DataFrame:
        """One row per gate: turned down, leak, negative; and the plain ReLU FFN's active share."""
        rows = [{"gate": g.act, "turned_down": g.turned_down, "leak": g.leak, "negative": g.negative}
                for g in self.gates]
        return pd.DataFrame(rows)


def _check(d_model: int, act: str, token: int) -> None:
    if not 3 <= d_model <= MAX_D_MODEL:
        raise ValueError(f"d_model must be in [3, {MAX_D_MODEL}]")
    if act not in FIT_ACTS:
        raise ValueError(f"act must be one of {FIT_ACTS}")
    if not 0 <= token < N_TOKENS:
        raise ValueError(f"token must be in [0, {N_TOKENS - 1}]")


def fit_error(net: ffn.FFN, x_fit: torch.Tensor, x_test: torch.Tensor) -> tuple[float, float]:
    """The best affine map's relative error on fresh inputs (‖error‖ / ‖output − mean‖) and the output's scale."""
    a, c = collapse.best_affine_fit(x_fit, net(x_fit))
    y = net(x_test)
    err = y - collapse.one_matrix(a, c, x_test)
    spread = (y - y.mean(dim=0)).norm()
    return float(err.norm() / spread) if spread > 0 else math.nan, float(y.abs().max())


def gate_on(act: ffn.Activation, z: torch.Tensor, value: torch.Tensor, all_z: torch.Tensor) -> Gate:
    """What one gate does to a token's hidden units: z = W₁x (d_ff,), value = W₃x, all_z (tokens, d_ff)."""
    h = ffn.activation(act)(z) * value
    down = z < 0
    total = h.abs().sum()
    return Gate(
        act=act,
        turned_down=float(down.double().mean()),
        leak=float(h[down].abs().sum() / total) if total > 0 else 0.0,
        negative=float((h < 0).double().mean()),
        mean_turned_down=float((all_z < 0).double().mean()),
    )


@torch.no_grad()
def measure(d_model: int = 96, act: str = "none", token: int = 0, seed: int = 0) -> Gated:
    """The gated FFN at 8/3·d beside the plain one at 4·d: the linear fit, the counts, the gate on one token."""
    _check(d_model, act, token)
    g = torch.Generator().manual_seed(seed)
    glu_seed, plain_seed = (int(s) for s in torch.randint(0, 2**62, (2,), generator=g))
    m_glu, m_plain = d_ff_glu(d_model), 4 * d_model
    gated = ffn.FFN(d_model, m_glu, act=act, bias=False, glu=True, seed=glu_seed, dtype=torch.float64)  # type: ignore[arg-type]
    plain = ffn.FFN(d_model, m_plain, act=act, bias=False, seed=plain_seed, dtype=torch.float64)  # type: ignore[arg-type]
    x_fit = torch.randn(collapse.N_FIT, d_model, generator=g, dtype=torch.float64)
    x_test = torch.randn(collapse.N_TEST, d_model, generator=g, dtype=torch.float64)
    gated_error, scale = fit_error(gated, x_fit, x_test)
    plain_error, _ = fit_error(plain, x_fit, x_test)
    linear = ffn.FFN(d_model, m_plain, act="none", bias=False, seed=plain_seed, dtype=torch.float64)
    w, b = collapse.collapsed(linear)
    residual = (reproducible_matmul.ffn(linear, x_test) - collapse.one_matrix(w, b, x_test)).abs().max()

    tokens = torch.randn(N_TOKENS, d_model, generator=g, dtype=torch.float64)
    all_z = gated.w_1(tokens)  # (tokens, d_ff)
    z, value = all_z[token], gated.w_3(tokens[token])
    return Gated(
        d_model=d_model,
        d_ff=m_glu,
        act=act,
        seed=seed,
        gated_fit_error=gated_error,
        plain_fit_error=plain_error,
        plain_collapse_residual=float(residual),
        output_scale=scale,
        gated_params=params.numel(gated),
        plain_params=params.numel(plain),
        gated_4d_params=params.numel(params.ffn_module(d_model, m_plain, glu=True, bias=False)),
        attention_params=params.numel(params.attention_module(d_model, 1, 1, bias=False)),
        token=token,
        relu_active=float((z > 0).double().mean()),
        gates=tuple(gate_on(a, z, value, all_z) for a in GATES),
        pre=tuple(z.tolist()),
        value=tuple(value.tolist()),
    )


def report(seed: int = 0) -> dict:
    """The gated_ffn figures: d = 96 (8/3·d = 256), the bilinear fit, the counts, SiLU's gate on token 0."""
    res = measure(96, "none", 0, seed)
    silu = measure(96, "silu", 0, seed)
    return {
        "d_model": res.d_model,
        "d_ff": res.d_ff,
        "bilinear_fit_error": res.gated_fit_error,
        "plain_collapse_residual": res.plain_collapse_residual,
        "silu_fit_error": silu.gated_fit_error,
        "gated_params": res.gated_params,
        "plain_params": res.plain_params,
        "gated_4d_params": res.gated_4d_params,
        "ffn_share": res.gated_params / (res.gated_params + res.attention_params),
        "relu_active_fraction": res.relu_active,
        "gates": {g.act: {"turned_down": g.turned_down, "leak": g.leak, "negative": g.negative,
                          "mean_turned_down": g.mean_turned_down} for g in res.gates},
    }
