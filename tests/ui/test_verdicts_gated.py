"""The gated page's bilinear sentences: "the best affine map is about the mean" comes only with an error near
100% (verdicts.MEAN, 95% to 110%), and over the page's controls with the activation off it always does."""
import dataclasses
import math

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ffn_core import collapse, ffn, gated
from tests.lesson_checks import assert_readable
from ui.registry import catalog, rules
from ui.verdicts import gated as verdicts

CONTROLS = {c.key: c for c in catalog.CONTROLS["gated"]}


def _bilinear(d: int, seed: int) -> gated.Gated:
    return gated.measure(d, "none", 0, seed)  # the token changes only the gate section, not the fit


def test_the_band_says_about_the_mean():
    lo, hi = verdicts.MEAN
    assert 0.95 <= lo <= 1 <= hi <= 1.10
    # With no linear part to find, the fit's cost on fresh inputs is about √(1 + (d + 1)/N_FIT): inside the band
    # at every d the page offers, with room for the test set's own noise.
    for d in CONTROLS["d"].options_for({}):
        assert lo + 0.03 < math.sqrt(1 + (d + 1) / collapse.N_FIT) < hi - 0.03, d


@settings(max_examples=12, deadline=None)  # each example fits two FFNs by least squares: ~0.3 s
@given(d=st.sampled_from(CONTROLS["d"].options_for({})),
       seed=st.integers(int(CONTROLS["seed"].lo), int(CONTROLS["seed"].hi)))
@example(d=96, seed=0)  # the page's default
@example(d=24, seed=9999)
def test_about_the_mean_is_said_exactly_when_the_error_is_near_100_percent(d, seed):
    res = _bilinear(d, seed)
    v = verdicts.judge(res)
    keys = v.takeaway.split()
    near = verdicts.MEAN[0] <= res.gated_fit_error <= verdicts.MEAN[1]
    assert ("gated.takeaway_bilinear_mean" in keys) == (near and res.gated_fit_error > rules.NONLINEAR)
    # and over the page's controls it is: a quadratic of centred, symmetric tokens has no linear part
    assert near and "gated.takeaway_bilinear_mean" in keys and "gated.takeaway_bilinear" in keys
    assert_readable(v)


def test_the_mean_sentence_is_left_out_when_the_error_leaves_the_band():
    res = _bilinear(24, 0)
    for error, said in ((0.5, False), (0.949, False), (1.02, True), (1.2, False)):
        keys = verdicts.judge(_with_error(res, error)).takeaway.split()
        assert "gated.takeaway_bilinear" in keys
        assert ("gated.takeaway_bilinear_mean" in keys) == said, error


def _with_error(res: gated.Gated, error: float) -> gated.Gated:
    return dataclasses.replace(res, gated_fit_error=error)


@pytest.mark.parametrize("d", [24, 96])
def test_a_quadratic_of_symmetric_tokens_is_even(d):
    # What the sentence rests on: W₂(W₁x ⊙ W₃x) gives x and −x the same output, to rounding.
    net = ffn.FFN(d, gated.d_ff_glu(d), act="none", bias=False, glu=True, seed=0, dtype=torch.float64)
    x = torch.randn(64, d, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    with torch.no_grad():
        y, y_minus = net(x), net(-x)
    assert torch.allclose(y, y_minus, rtol=0, atol=1e-12 * float(y.abs().max()))
