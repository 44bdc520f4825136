"""The FFN as a key-value memory: FFN(x) = Σ_i relu(k_i·x + b_i)·v_i + b_2.

k_i is row i of W1 (a key: how well x matches pattern i), v_i is column i of W2 (the value written
when it matches). The sum is exact; we measure its residual in float64 (the seed: 3.3e-16), then ask
how many neurons carry the output of one token, before and after training on the memorisation task.

Concentration, defined: project each neuron's vector a_i·v_i on the output's direction ŷ = y/‖y‖;
sort the projections from largest to smallest; the count for 50% (90%) is the smallest number of
neurons whose projections add up to at least 0.5·‖y‖ (0.9·‖y‖). Projections can be negative
(neurons cancel each other), so the cumulative curve may overshoot 1 before it settles.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import pandas as pd
import torch

from ffn_core import ffn, memory_training, reproducible_matmul

SHARES = (0.5, 0.9)


@dataclass(frozen=True)
class State:
    """One token's decomposition in one FFN (untrained or trained)."""

    max_abs_residual: float
    output_norm: float
    bias_projection: float
    coefficient: tuple[float, ...]
    norm: tuple[float, ...]
    projection: tuple[float, ...]
    active: int
    n_for_50: int | None
    n_for_90: int | None
    mean_n_for_50: float
    mean_n_for_90: float
    counts_50: tuple[int, ...]  # per stored key; 0 where the key's projections never reach the share
    counts_90: tuple[int, ...]
    loss: float
    recall: float


@dataclass(frozen=True)
class Concentration:
    """Neurons for a share of ‖y‖ before and after training, on the same keys: those that reach it both times."""

    share: float
    keys: int  # keys that reach the share before and after training
    mean_before: float  # nan when no key does
    mean_after: float
    never_before: int  # keys whose projections never add up to the share (neurons cancel too much)
    never_after: int


@dataclass(frozen=True)
class KeyValue:
    """The decomposition before and after training, for one stored key."""

    d_model: int
    d_ff: int
    n_keys: int
    steps: int
    token: int
    untrained: State
    trained: State

    @property
    def max_abs_residual(self) -> float:
        return max(self.untrained.max_abs_residual, self.trained.max_abs_residual)

    def concentration(self, share: float = 0.9) -> Concentration:
        """Mean neurons for `share` of ‖y‖ before → after, counted on the keys that reach it both times."""
        if share not in SHARES:
            raise ValueError(f"share must be one of {SHARES}")
        before = self.untrained.counts_50 if share == 0.5 else self.untrained.counts_90
        after = self.trained.counts_50 if share == 0.5 else self.trained.counts_90
        both = [(a, b) for a, b in zip(before, after) if a > 0 and b > 0]
        nan = float("nan")
        return Concentration(
            share=share,
            keys=len(both),
            mean_before=sum(a for a, _ in both) / len(both) if both else nan,
            mean_after=sum(b for _, b in both) / len(both) if both else nan,
            never_before=sum(a == 0 for a in before),
            never_after=sum(b == 0 for b in after),
        )

    def to_frame(self) -> pd.DataFrame:
        """Long rows: state, neuron, coefficient, norm, projection, rank by projection, cumulative share."""
        frames = []
        for name, s in (("untrained", self.untrained), ("trained", self.trained)):
            df = pd.DataFrame(
                {"state": name, "neuron": range(self.d_ff), "coefficient": s.coefficient,
                 "norm": s.norm, "projection": s.projection}
            )
            df = df.sort_values("projection", ascending=False, kind="stable").reset_index(drop=True)
            df["rank"] = range(1, self.d_ff + 1)
            df["cumulative_share"] = df["projection"].cumsum() / s.output_norm
            frames.append(df)
        return pd.concat(frames, ignore_index=True)


def explicit_sum(model: ffn.FFN, x: torch.Tensor) -> torch.Tensor:
    """b_2 + Σ_i relu(k_i·x + b_i)·v_i, one neuron at a time, for every token in x (n, d).

    Every product is summed in a fixed order (ffn_core.reproducible_matmul), as is the FFN output it is
    compared with, so the residual's digits are the same on every server and thread count.
    """
    v, b_2 = model.w_2.weight, model.w_2.bias  # v: (d, m), column i is v_i
    a = torch.relu(reproducible_matmul.linear(x, model.w_1))  # (n, m): column i is relu(k_i·x + b_i)
    total = torch.zeros(x.shape[0], v.shape[0], dtype=x.dtype) if b_2 is None else b_2.expand(x.shape[0], -1).clone()
    for i in range(v.shape[1]):
        total += torch.outer(a[:, i], v[:, i])
    return total


def neurons_for(projection: torch.Tensor, output_norm: torch.Tensor, share: float) -> torch.Tensor:
    """Per row: smallest count of largest projections summing to ≥ share·‖y‖; 0 where none does."""
    cumulative = projection.sort(dim=-1, descending=True).values.cumsum(dim=-1)  # (n, m)
    reached = cumulative >= share * output_norm.unsqueeze(-1)
    first = reached.float().argmax(dim=-1) + 1
    return torch.where(reached.any(dim=-1), first, torch.zeros_like(first))


def decompose(model: ffn.FFN, x: torch.Tensor, target: torch.Tensor, token: int) -> State:
    """The decomposition of token `token` and the concentration over all keys, in float64."""
    model = model.to(torch.float64)
    x = x.to(torch.float64)
    with torch.no_grad():
        y = model(x)  # (n, d)
        residual = (reproducible_matmul.ffn(model, x) - explicit_sum(model, x)).abs().max().item()
        a = model.hidden(x)  # (n, m): a_i = relu(k_i·x + b_i)
        y_norm = y.norm(dim=1)  # (n,)
        y_hat = y / y_norm.unsqueeze(1)
        projection = a * (y_hat @ model.w_2.weight)  # (n, m): (a_i v_i)·ŷ
        counts = {s: neurons_for(projection, y_norm, s) for s in SHARES}
        means = {s: counts[s][counts[s] > 0].double().mean().item() for s in SHARES}
        b_2 = model.w_2.bias
        contributions = a[token].unsqueeze(1) * model.w_2.weight.T  # (m, d): row i is a_i v_i
        loss = memory_training.loss_of(y, target.to(torch.float64), "memorise").item()
        recall = memory_training.recall(y, target.to(torch.float64), "memorise")
    count = {s: int(counts[s][token]) or None for s in SHARES}
    return State(
        max_abs_residual=residual,
        output_norm=y_norm[token].item(),
        bias_projection=0.0 if b_2 is None else (b_2 @ y_hat[token]).item(),
        coefficient=tuple(a[token].tolist()),
        norm=tuple(contributions.norm(dim=1).tolist()),
        projection=tuple(projection[token].tolist()),
        active=int((a[token] > 0).sum()),
        n_for_50=count[0.5],
        n_for_90=count[0.9],
        mean_n_for_50=means[0.5],
        mean_n_for_90=means[0.9],
        counts_50=tuple(counts[0.5].tolist()),
        counts_90=tuple(counts[0.9].tolist()),
        loss=loss,
        recall=recall,
    )


class Memory(NamedTuple):
    """An untrained FFN and the same FFN after memorising n random pairs, with those pairs."""

    untrained: ffn.FFN
    trained: ffn.FFN
    x: torch.Tensor
    target: torch.Tensor
    steps: int


def memorise_pairs(
    d: int = 64, m: int = 256, n: int = 128, steps: int = memory_training.DEFAULT_STEPS, seed: int = 0
) -> Memory:
    """Train the FFN on n random key-value pairs (relu, full-batch Adam); keep the untrained one beside it."""
    # Only the trained module is used here: no curve, so no probing along the way.
    run = memory_training.train_module(n, d, m, steps, "memorise", "relu", seed=seed, points=1)
    return Memory(ffn.FFN(d, m, act="relu", seed=seed), run.model, run.x, run.target, steps)


def read_token(memory: Memory, token: int = 0) -> KeyValue:
    """Decompose both FFNs on stored key `token`; the modules are converted to float64 in place."""
    n = memory.x.shape[0]
    if not 0 <= token < n:
        raise ValueError(f"token must be in 0..{n - 1}")
    return KeyValue(
        d_model=memory.x.shape[1],
        d_ff=memory.trained.w_1.out_features,
        n_keys=n,
        steps=memory.steps,
        token=token,
        untrained=decompose(memory.untrained, memory.x, memory.target, token),
        trained=decompose(memory.trained, memory.x, memory.target, token),
    )


def measure(
    d: int = 64, m: int = 256, n: int = 128, steps: int = memory_training.DEFAULT_STEPS, token: int = 0, seed: int = 0
) -> KeyValue:
    """Decompose an FFN into its m key-value pairs, untrained and after memorising n random pairs."""
    if not 0 <= token < n:
        raise ValueError(f"token must be in 0..{n - 1}")
    return read_token(memorise_pairs(d, m, n, steps, seed), token)


def report(seed: int = 0) -> dict:
    """The key_value keys of the report contract: the seed's random-init FFN, d = 64, m = 256."""
    res = measure(d=64, m=256, steps=0, seed=seed)
    return {"d_model": res.d_model, "d_ff": res.d_ff, "max_abs_residual": res.max_abs_residual}
