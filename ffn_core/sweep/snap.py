"""Snap a trained ReLU network's kinks onto the target's own kinks, then re-solve the output layer.

Training moves kinks by gradient steps, so a kink meant to sit on |x|'s corner at 0 ends a hair beside
it (1e-3 of the range), and on a sampled grid that hair costs an error of 1e-6 to 1e-5: a fit that can
be exact is not. Where the target's kinks are known (targets.KINKS), a kink within SNAP_POINTS grid
spacings of one is moved onto it; two neurons snapped onto the same kink get opposite signs (w → -w
keeps the kink, and relu(z) and relu(-z) together make every line through it), and the output layer
is solved again by least squares. The snapped network is kept only where its error is lower.

Training can also leave a corner with no kink near it at all: where the trained kinks end up follows the
CPU's rounding (torch's vector kernels), so one machine's fit is exact and another's is not. The targets
with known corners are straight between them on the grid, so a network whose every kink sits on a corner,
two at least on each (one facing each way), fits them exactly whatever training left. A row still short of
exact after the snaps is given that network (`recruit`) where it does better. Where the target jumps, a
fit exact on the grid is a ramp between the two points around the jump, and a ramp that training ends a
hair before the jump's own x also meets the target halfway between those points: exact or not between the
points would then follow the rounding too. There every row takes the corners' network where it fits the
grid exactly: the ramp from point to point, the one the page's lesson draws.

Training also makes straight lines out of two neurons of opposite signs whose kinks nearly meet
(relu(z) - relu(-z) = z); a hair between the kinks leaves the line bent by that hair. Such a pair
within the same tolerance is given one kink, their mean, so the line is straight.
"""
from __future__ import annotations

from collections.abc import Sequence

import torch

from ffn_core.sweep import net1d

# A kink this many grid spacings from one of the target's may be meant for it: each reach is tried, from
# near to far, and each row keeps the best (a far kink the training left stranded is still a kink to spare).
SNAP_POINTS = (3.0, 10.0, 30.0)


def snap_kinks(w: torch.Tensor, b: torch.Tensor, mask: torch.Tensor, corners: Sequence[float],
               tol: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(w, b) with every neuron whose kink is within tol of a corner moved onto the nearest corner.

    Neurons snapped onto the same corner alternate their signs, so the first two of them span both sides.
    w, b, mask: (B, M) float64. Neurons with w = 0 never bend and stay as they are.
    """
    w, b = w.clone(), b.clone()
    if not corners:
        return w, b
    _join_pairs(w, b, mask, tol)
    k = net1d.kinks(w, b)
    at = torch.tensor(list(corners), dtype=torch.float64)
    gap = (k[..., None] - at).abs()                                    # (B, M, K)
    dist, nearest = gap.min(-1)
    near = (dist <= tol) & (mask > 0) & (w != 0)
    for row in range(w.shape[0]):
        sign_on: dict[int, float] = {}
        for i in near[row].nonzero().flatten().tolist():
            corner = int(nearest[row, i])
            sign = torch.sign(w[row, i]).item()
            if corner in sign_on:
                sign = -sign_on[corner]  # the next neuron on this corner faces the other way
            sign_on[corner] = sign
            scale = w[row, i].abs()
            w[row, i] = sign * scale
            b[row, i] = -w[row, i] * float(at[corner])
    return w, b


def _join_pairs(w: torch.Tensor, b: torch.Tensor, mask: torch.Tensor, tol: float) -> None:
    # In place: each opposite-signed pair of kinks closer than tol, nearest first, moved to its mean.
    k = net1d.kinks(w, b)
    for row in range(w.shape[0]):
        live = [i for i in range(w.shape[1]) if mask[row, i] > 0 and w[row, i] != 0]
        pairs = sorted((abs(float(k[row, i] - k[row, j])), i, j) for n, i in enumerate(live) for j in live[n + 1:]
                       if float(w[row, i] * w[row, j]) < 0)
        used: set[int] = set()
        for gap, i, j in pairs:
            if gap > tol:
                break
            if i in used or j in used:
                continue
            used |= {i, j}
            mid = 0.5 * float(k[row, i] + k[row, j])
            b[row, i], b[row, j] = -w[row, i] * mid, -w[row, j] * mid


def recruit(w: torch.Tensor, b: torch.Tensor, mask: torch.Tensor,
            corners: Sequence[float]) -> tuple[torch.Tensor, torch.Tensor]:
    """(w, b) with every live neuron moved onto a corner: its nearest, then from the fullest corner to one
    holding fewer than two, until each holds two where the width allows; on each corner the neurons face
    the two ways in turn. w, b, mask: (B, M) float64."""
    w, b = w.clone(), b.clone()
    if not corners:
        return w, b
    at = [float(c) for c in corners]
    k = net1d.kinks(w, b)
    for row in range(w.shape[0]):
        live = [i for i in range(w.shape[1]) if mask[row, i] > 0 and w[row, i] != 0]
        # A kink at ±inf (w = 0 is not live; a huge one is) is nearest the outer corner on its side.
        place = {i: min(range(len(at)), key=lambda j: (abs(float(k[row, i]) - at[j]), j)) for i in live}
        on = [[i for i in live if place[i] == j] for j in range(len(at))]
        while True:
            short = [j for j in range(len(at)) if len(on[j]) < 2]
            full = max(range(len(at)), key=lambda j: (len(on[j]), -j))
            if not short or len(on[full]) <= 2:
                break
            j = short[0]
            i = min(on[full], key=lambda i: (abs(float(k[row, i]) - at[j]), i))
            on[full].remove(i)
            on[j].append(i)
        for j, neurons in enumerate(on):
            for n, i in enumerate(sorted(neurons, key=lambda i: (abs(float(k[row, i]) - at[j]), i))):
                scale = w[row, i].abs()
                w[row, i] = scale if n % 2 == 0 else -scale
                b[row, i] = -w[row, i] * at[j]
    return w, b


def snap_fit(w: torch.Tensor, b: torch.Tensor, mask: torch.Tensor, x: torch.Tensor, y: torch.Tensor,
             corners: Sequence[float], between: tuple[torch.Tensor, torch.Tensor] | None = None,
             exact_rmse: float = 0.0, jumps: bool = False) -> tuple[torch.Tensor, ...]:
    """The ReLU networks (w, b, v, c) after snapping, row by row the better of snapped and as trained.

    `between`: the target's points between the grid's (x, y), where known. Two kinks on either side of a
    corner with no grid point between them fit the grid to rounding error as well as one kink on the corner
    does, so on the grid alone rounding would choose; between the points only the corner is exact.
    `exact_rmse`: the grid error at or below which a fit is exact; rows above it are offered `recruit`.
    `jumps`: the target jumps between two of the corners; every row is offered `recruit`, and takes it where
    it is exact on the grid.
    """
    spacing = float(x[-1] - x[0]) / max(x.numel() - 1, 1)

    def error(w: torch.Tensor, b: torch.Tensor, v: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        mse = ((net1d.forward(w, b, v, c, mask, x, "relu") - y) ** 2).mean(-1)
        if between is not None:
            mse = mse + ((net1d.forward(w, b, v, c, mask, between[0], "relu") - between[1]) ** 2).mean(-1)
        return mse

    v, c = net1d.solve_output(w, b, mask, x, y, "relu")
    best = error(w, b, v, c)
    for reach in SNAP_POINTS:
        ws, bs = snap_kinks(w, b, mask, corners, reach * spacing)
        vs, cs = net1d.solve_output(ws, bs, mask, x, y, "relu")
        after = error(ws, bs, vs, cs)
        better = after < best
        row = better[:, None]
        w, b, v, c = (torch.where(row, ws, w), torch.where(row, bs, b), torch.where(row, vs, v),
                      torch.where(better, cs, c))
        best = torch.where(better, after, best)
    def on_grid(w: torch.Tensor, b: torch.Tensor, v: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return ((net1d.forward(w, b, v, c, mask, x, "relu") - y) ** 2).mean(-1).sqrt()

    short = on_grid(w, b, v, c) > exact_rmse
    offered = torch.ones_like(short) if jumps else short
    if corners and bool(offered.any()):
        ws, bs = recruit(w, b, mask, corners)
        vs, cs = net1d.solve_output(ws, bs, mask, x, y, "relu")
        # Exact on the grid wins over a smaller error between the points: at a jump every fit of the grid
        # is a ramp there, and a fit short of the grid can sit nearer the jump's far side by chance.
        exact = on_grid(ws, bs, vs, cs) <= exact_rmse
        better = offered & (exact | (short & (error(ws, bs, vs, cs) < best)))
        row = better[:, None]
        w, b, v, c = (torch.where(row, ws, w), torch.where(row, bs, b), torch.where(row, vs, v),
                      torch.where(better, cs, c))
    return w, b, v, c
