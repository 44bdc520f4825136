"""Page 5's fit with a gate: y = Σ_i v_i·act(w_i·x + b_i)·(u_i·x + e_i) + c against y = Σ_i v_i·act(w_i·x + b_i) + c.

The gated unit multiplies its activation by a second linear map of the input, as W₂(act(W₁x) ⊙ W₃x) does
in a transformer. On one input a plain unit holds 3 weights (w, b, v) and a gated one 5 (w, b, u, e, v),
so 3m + 1 = 5k + 1 puts a plain width m = 5j beside a gated width k = 3j at exactly the same count.

Both kinds are trained by the same program, so the comparison is the architecture's, not the optimiser's:
the output layer (v, c) solved by least squares at every step (variable projection, as page 5's "pieces"
training does), Adam on the hidden weights, several restarts from kinks spread over the range, the best
restart kept. float64 throughout.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import torch

from ffn_core import adam
from ffn_core.sweep import net1d, targets

# j = 1, 2, 4, 8: plain widths 5, 10, 20, 40 against gated widths 3, 6, 12, 24 (16, 31, 61, 121 weights).
JS = (1, 2, 4, 8)
MAX_J = 8
STEPS = 150
RESTARTS = 3
LR = 0.05
# A ten-thousandth of the target's span: below it a fit's error is invisible (a pixel on a chart is ~1/300),
# and the trainings' last digits (three restarts, 150 steps) decide which of two such fits is lower.
FLOOR = 1e-4
RIDGE = 1e-10  # keeps the normal equations solvable when two units coincide; far below any RMSE shown
KINDS = ("plain", "gated")


def plain_width(j: int) -> int:
    return 5 * j


def gated_width(j: int) -> int:
    return 3 * j


def params(kind: str, width: int) -> int:
    """Weights of a width-m network on one input: 3 per plain unit, 5 per gated unit, one output bias."""
    return (3 if kind == "plain" else 5) * width + 1


def features(gate: torch.Tensor, hidden: tuple[torch.Tensor, ...], mask: torch.Tensor, x: torch.Tensor,
             act: str) -> torch.Tensor:
    """Each unit's output before v, every network at once: (B, M) weights, (N,) x -> (B, N, M).

    gate (B,) is 1 for a gated network, 0 for a plain one (whose second factor is then 1); padding units are 0.
    """
    w, b, u, e = hidden
    z = x[None, :, None] * w[:, None, :] + b[:, None, :]
    second = x[None, :, None] * u[:, None, :] + e[:, None, :]
    second = gate[:, None, None] * second + (1 - gate[:, None, None])
    return net1d.act_fn(act, z) * second * mask[:, None, :]


def solve_output(h: torch.Tensor, mask: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """The least-squares (v, c) for fixed features h (B, N, M): coefficients (B, M + 1), c last; padding solves to 0."""
    design = torch.cat([h, torch.ones_like(h[..., :1])], dim=-1)  # (B, N, M+1)
    gram = design.transpose(1, 2) @ design
    used = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=-1)
    scale = (gram.diagonal(dim1=1, dim2=2) * used).sum(-1) / used.sum(-1)
    gram = gram + torch.diag_embed(RIDGE * scale[:, None] * used + (1 - used))
    rhs = design.transpose(1, 2) @ y[None, :, None]
    return torch.linalg.solve(gram, rhs)[..., 0]


def _init(widths: list[int], x_range: tuple[float, float], restarts: int,
          g: torch.Generator) -> tuple[list[torch.Tensor], torch.Tensor]:
    """Every (network, restart) row: kinks spread over the range with jitter, signs at random (page 5's start)."""
    lo, hi = x_range
    m_max = max(widths)
    rows = [m for m in widths for _ in range(restarts)]
    mask = torch.zeros(len(rows), m_max, dtype=torch.float64)
    kinks = torch.zeros(len(rows), m_max, dtype=torch.float64)
    for r, m in enumerate(rows):
        mask[r, :m] = 1
        kinks[r, :m] = torch.linspace(lo, hi, m + 2, dtype=torch.float64)[1:-1]
        spacing = (hi - lo) / (m + 1)
        kinks[r, :m] += (torch.rand(m, generator=g, dtype=torch.float64) - 0.5) * spacing
    w = torch.where(torch.rand(len(rows), m_max, generator=g) < 0.5, -1.0, 1.0).to(torch.float64) * mask
    b = -w * kinks
    u = 0.5 * torch.randn(len(rows), m_max, generator=g, dtype=torch.float64) * mask
    e = mask.clone()
    return [w, b, u, e], mask


@dataclass(frozen=True)
class NetFit:
    """One network's best restart: its RMSE on the grid and its curve."""

    kind: str
    width: int
    params: int
    rmse: float
    curve: tuple[float, ...]


def train(nets: tuple[tuple[str, int], ...], x: torch.Tensor, y: torch.Tensor, act: str, seed: int,
          steps: int = STEPS, restarts: int = RESTARTS) -> tuple[NetFit, ...]:
    """Train every (kind, width) network, `restarts` times each, as one tensor program; keep each one's best."""
    g = torch.Generator().manual_seed(seed)
    hidden, mask = _init([m for _, m in nets], (float(x[0]), float(x[-1])), restarts, g)
    gate = torch.tensor([1.0 if kind == "gated" else 0.0 for kind, _ in nets for _ in range(restarts)],
                        dtype=torch.float64)
    for p in hidden:
        p.requires_grad_(True)
    state = adam.moments(hidden)
    for t in range(1, steps + 1):
        h = features(gate, tuple(hidden), mask, x, act)
        coef = solve_output(h.detach(), mask, y)  # the envelope theorem: at the optimal (v, c) no gradient flows through it
        out = (h * coef[:, None, :-1]).sum(-1) + coef[:, None, -1]
        mse = ((out - y) ** 2).mean(-1)
        # Adam is elementwise and each row's loss sees only its own weights: one run per network, step for step.
        # A plain network's u and e get zero gradients and never move.
        grads = torch.autograd.grad(mse.sum(), hidden)
        adam.step(hidden, grads, state, t, LR)
    with torch.no_grad():
        h = features(gate, tuple(hidden), mask, x, act)
        coef = solve_output(h, mask, y)
        out = (h * coef[:, None, :-1]).sum(-1) + coef[:, None, -1]
        rmse = ((out - y) ** 2).mean(-1).sqrt().view(len(nets), restarts)
        best = rmse.argmin(dim=1)
    curves = out.view(len(nets), restarts, -1)
    return tuple(NetFit(kind, m, params(kind, m), float(rmse[i, best[i]]), tuple(curves[i, best[i]].tolist()))
                 for i, (kind, m) in enumerate(nets))


@dataclass(frozen=True)
class GatedSweep:
    """Plain and gated networks at equal weight counts on one target."""

    target: str
    label: str
    act: str
    seed: int
    x: tuple[float, ...]
    y: tuple[float, ...]
    plain: tuple[NetFit, ...]
    gated: tuple[NetFit, ...]
    floor: float  # an RMSE below this is too small for any chart to show: two such fits count as the same

    def ratios(self) -> tuple[float, ...]:
        """Gated RMSE over plain RMSE at each weight count (below 1: the gate bought accuracy)."""
        return tuple(g.rmse / p.rmse if p.rmse > 0 else float("inf") for p, g in zip(self.plain, self.gated))

    def rmse_frame(self) -> pd.DataFrame:
        """One row per network: kind, width, params, rmse."""
        return pd.DataFrame([{"kind": f.kind, "width": f.width, "params": f.params, "rmse": f.rmse}
                             for f in (*self.plain, *self.gated)])

    def curves_frame(self, params: int) -> pd.DataFrame:
        """Long: the target and both networks' curves at one weight count."""
        rows = [{"kind": "target", "x": xi, "y": yi} for xi, yi in zip(self.x, self.y)]
        for f in (*self.plain, *self.gated):
            if f.params == params:
                rows += [{"kind": f.kind, "x": xi, "y": yi} for xi, yi in zip(self.x, f.curve)]
        return pd.DataFrame(rows)


def fit(target: str = targets.DEFAULT, js: tuple[int, ...] = JS, act: str = "relu", seed: int = 0,
        x_range: tuple[float, float] = (-2.0, 2.0), points: int = 256, steps: int = STEPS,
        restarts: int = RESTARTS) -> GatedSweep:
    """Fit the target with plain width 5j and gated width 3j for each j: the same weights, the same training."""
    if act not in net1d.ACTS:
        raise ValueError(f"act must be one of {net1d.ACTS}")
    clean = tuple(sorted({int(j) for j in js}))
    if not clean or clean[0] < 1 or clean[-1] > MAX_J:
        raise ValueError(f"j must be in [1, {MAX_J}]")
    key = targets.key(target)
    x = targets.grid(x_range, points)
    y = targets.values(key, x)
    nets = tuple(("plain", plain_width(j)) for j in clean) + tuple(("gated", gated_width(j)) for j in clean)
    fits = train(nets, x, y, act, seed, steps, restarts)
    plain, gated = fits[: len(clean)], fits[len(clean):]
    return GatedSweep(key, targets.label(key), act, seed, tuple(x.tolist()), tuple(y.tolist()), plain, gated,
                      FLOOR * float(y.max() - y.min()))
