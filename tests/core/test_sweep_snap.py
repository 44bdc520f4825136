"""Snapping trained kinks onto a target's own corners makes the fits that can be exact exact, at every seed."""
from __future__ import annotations

import pytest
import torch
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from ffn_core.sweep import net1d, snap, sweep, targets


@settings(max_examples=6, deadline=None, phases=(Phase.explicit, Phase.generate))
@given(seed=st.integers(0, 9999), width=st.sampled_from((2, 3, 5, 8)))
def test_abs_is_exact_at_every_seed_from_width_two(seed, width):
    # |x| is two ReLU pieces; the sampled grid has no point at 0, so only a kink exactly at 0 fits it.
    res = sweep.fit_widths("abs", widths=(width,), seed=seed)
    fit = res.fits[0]
    assert fit.exact, (seed, width, fit.rmse)
    x = torch.tensor(res.x, dtype=torch.float64)
    independent = sweep.evaluate("abs", fit.w, fit.b, fit.v, fit.c)  # the network as returned, recomputed
    assert independent.rmse <= res.exact_tol
    assert float((torch.tensor(fit.curve, dtype=torch.float64) - x.abs()).abs().max()) < 1e-9


def test_width_one_cannot_be_exact_and_is_not_called_so():
    fit = sweep.fit_widths("abs", widths=(1,), seed=0).fits[0]
    assert not fit.exact and fit.rmse > 0.1  # one kink makes a bent line, never a V with both arms


def test_snap_moves_near_kinks_onto_the_corner_and_opposes_pairs():
    w = torch.tensor([[1.0, 1.0, -2.0]], dtype=torch.float64)
    b = torch.tensor([[-0.004, 0.003, 2.0 * 1.5]], dtype=torch.float64)  # kinks 0.004, -0.003, 1.5
    mask = torch.ones_like(w)
    ws, bs = snap.snap_kinks(w, b, mask, (0.0,), tol=0.01)
    k = net1d.kinks(ws, bs)[0].tolist()
    assert k[0] == 0.0 and k[1] == 0.0 and abs(k[2] - 1.5) < 1e-12  # the far kink stays
    assert ws[0, 0] * ws[0, 1] < 0  # both sides of the corner
    assert ws[0].abs().tolist() == w[0].abs().tolist()


def test_snapping_never_makes_a_fit_worse():
    x = targets.grid(sweep.X_RANGE, sweep.POINTS)
    y = torch.sin(3 * x) + x.abs()
    g = torch.Generator().manual_seed(3)
    w = torch.randn(4, 6, generator=g, dtype=torch.float64)
    b = torch.randn(4, 6, generator=g, dtype=torch.float64) * 0.01
    mask = torch.ones_like(w)
    v0, c0 = net1d.solve_output(w, b, mask, x, y, "relu")
    before = ((net1d.forward(w, b, v0, c0, mask, x, "relu") - y) ** 2).mean(-1)
    ws, bs, vs, cs = snap.snap_fit(w, b, mask, x, y, (0.0,))
    after = ((net1d.forward(ws, bs, vs, cs, mask, x, "relu") - y) ** 2).mean(-1)
    assert bool((after <= before + 1e-15).all())


def test_known_corners_are_the_targets_own():
    x = targets.grid((-2.0, 2.0), 9)  # 0 is a grid point: |x| bends on it, a step jumps onto it
    assert targets.kinks("abs", x) == (0.0,)
    assert targets.kinks("step", x) == (-0.5, 0.0)
    x = targets.grid((-2.0, 2.0), 256)
    assert targets.kinks("abs", x) == (0.0,)
    below, above = float(x[127]), float(x[128])
    assert below < 0 < above and targets.kinks("step", x) == (below, above)
    assert len(targets.kinks("sawtooth", x)) == 4  # jumps at -1 and 1, a point on each side
    assert targets.kinks("sin3x", x) == ()
    assert targets.kinks("abs", targets.grid((0.5, 2.0), 64)) == ()


@pytest.mark.parametrize(("target", "widths"), [("step", (2, 8, 32)), ("sawtooth", (32,))])
def test_jumps_are_fitted_exactly_once_wide_enough(target, widths):
    # A jump between two grid points is a steep ramp: two kinks, so a step needs 2. The sawtooth needs 4
    # and its slope; at m = 8 or 16 some seeds' training leaves too few kinks near the jumps to snap.
    for seed in range(3):
        res = sweep.fit_widths(target, widths=widths, seed=seed)
        assert all(f.exact_on_grid for f in res.fits), (target, seed, [f.rmse for f in res.fits])  # between the points a jump is a ramp


def test_a_corner_training_left_bare_is_given_neurons_and_the_fit_is_exact():
    # Where training leaves kinks follows the CPU's rounding: a fit must not need one near each corner to
    # be exact. Here every kink sits far from the sawtooth's four corners (its two jumps as ramps).
    x = targets.grid(sweep.X_RANGE, sweep.POINTS)
    y = targets.values("sawtooth", x)
    corners = targets.kinks("sawtooth", x)
    w = torch.tensor([[1.0, -1.0] * 6], dtype=torch.float64)
    b = -w * torch.linspace(-1.9, -1.6, 12, dtype=torch.float64)
    mask = torch.ones_like(w)
    tol = sweep.EXACT_REL * float(y.abs().max())
    v0, c0 = net1d.solve_output(w, b, mask, x, y, "relu")
    assert ((net1d.forward(w, b, v0, c0, mask, x, "relu") - y) ** 2).mean().sqrt() > 0.1  # far from exact
    ws, bs, vs, cs = snap.snap_fit(w, b, mask, x, y, corners, exact_rmse=tol)
    assert ((net1d.forward(ws, bs, vs, cs, mask, x, "relu") - y) ** 2).mean().sqrt() <= tol
    on = net1d.kinks(ws, bs)[0]
    assert all(min(abs(float(k) - c) for c in corners) < 1e-12 for k in on)
    # two on each corner at least, facing both ways
    for c in corners:
        here = [float(ws[0, i]) for i in range(12) if abs(float(on[i]) - c) < 1e-12]
        assert len(here) >= 2 and min(here) < 0 < max(here)
    # the snaps by reach alone leave them bare: no kink is within their farthest reach of a corner
    spacing = float(x[1] - x[0])
    assert min(abs(float(k) - c) for k in net1d.kinks(w, b)[0] for c in corners) > max(snap.SNAP_POINTS) * spacing
