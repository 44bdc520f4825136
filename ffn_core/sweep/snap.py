"""Snap a trained ReLU network's kinks onto the target's own kinks, then re-solve the output layer.

Training moves kinks by gradient steps, so a kink meant to sit on |x|'s corner at 0 ends a hair beside
it (1e-3 of the range), and on a sampled grid that hair costs an error of 1e-6 to 1e-5: a fit that can
be exact is not. Where the target's kinks are known (targets.KINKS), a kink within SNAP_POINTS grid
spacings of one is moved onto it; two neurons snapped onto the same kink get opposite signs (w → -w
keeps the kink, and relu(z) and relu(-z) together make every line through it), and the output layer
is solved again by least squares. The snapped network is kept only where its error is lower.

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


def snap_fit(w: torch.Tensor, b: torch.Tensor, mask: torch.Tensor, x: torch.Tensor, y: torch.Tensor,
             corners: Sequence[float], between: tuple[torch.Tensor, torch.Tensor] | None = None,
             ) -> tuple[torch.Tensor, ...]:
    """The ReLU networks (w, b, v, c) after snapping, row by row the better of snapped and as trained.

    `between`: the target's points between the grid's (x, y), where known. Two kinks on either side of a
    corner with no grid point between them fit the grid to rounding error as well as one kink on the corner
    does, so on the grid alone rounding would choose; between the points only the corner is exact.
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
    return w, b, v, c
