"""The gated-FFN verdicts agree with the numbers they cite, over the page's control space."""
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ffn_core import gated
from ffn_core.sweep import gated as gated_sweep, targets
from tests.lesson_checks import Branches, assert_readable
from ui.registry import rules
from ui.verdicts import gated as verdicts

GATED = Branches("bilinear", "nonlinear")
WIDTH = Branches("buys", "not")


@GATED.required
@settings(max_examples=10, deadline=None)  # each example fits two FFNs by least squares: ~0.3 s
@given(d=st.sampled_from(gated.D_MODELS), act=st.sampled_from(gated.FIT_ACTS), token=st.integers(0, gated.N_TOKENS - 1),
       seed=st.integers(0, 9999))
@example(d=96, act="none", token=0, seed=0)  # the page's default
@example(d=48, act="silu", token=3, seed=1)
def test_gated_verdict_agrees_with_its_numbers(d, act, token, seed):
    res = gated.measure(d, act, token, seed)
    v = verdicts.judge(res)
    by_key = {c.key: c for c in v.claims}
    keys = v.takeaway.split()
    if act == "none":
        claim = by_key["gated.claim_bilinear"]
        assert claim.ok == (res.gated_fit_error > rules.NONLINEAR and res.plain_collapse_residual <= rules.EXACT)
        assert ("gated.takeaway_bilinear" in keys) == (res.gated_fit_error > rules.NONLINEAR)
        if claim.ok:
            GATED.reach("bilinear")
            assert claim.values["error"] > 0.01 and claim.values["residual"] <= 1e-12
    else:
        claim = by_key["gated.claim_nonlinear"]
        assert claim.ok == (res.gated_fit_error > rules.NONLINEAR)
        if "gated.takeaway_nonlinear" in keys:
            GATED.reach("nonlinear")
            assert claim.values["error"] > 0.01
        # "further from any linear map than the plain FFN" is said exactly when its error is the larger
        assert ("gated.takeaway_nonlinear" in keys) == (res.gated_fit_error > rules.NONLINEAR
                                                        and res.gated_fit_error > res.plain_fit_error)
        assert ("gated.takeaway_nonlinear_closer" in keys) == (res.gated_fit_error > rules.NONLINEAR
                                                               and res.gated_fit_error <= res.plain_fit_error)
    counts = by_key["gated.fact_params"]
    assert counts.ok is None and counts.values["gated"] == counts.values["plain"] == counts.values["eight"] == 8 * d * d
    relu = by_key["gated.fact_relu"]
    assert relu.ok is None and relu.values["down"] + relu.values["active"] == pytest.approx(1.0)
    half = by_key["gated.claim_half"]
    assert half.ok == (0.4 <= res.gate("silu").mean_turned_down <= 0.6)
    assert v.takeaway_values["leak_silu"] > v.takeaway_values["leak_gelu"] >= 0
    assert_readable(v)


def _width(target, act, most, seed):
    return gated_sweep.fit(target, tuple(j for j in gated_sweep.JS if j <= most), act, seed)


@WIDTH.required
@settings(max_examples=4, deadline=None)
@given(target=st.sampled_from(tuple(targets.BUILTIN)), act=st.sampled_from(("relu", "gelu")),
       most=st.sampled_from((1, 2)), seed=st.integers(0, 9999))
@example(target="square", act="relu", most=2, seed=0)  # parabolas on both sides of a kink: the gate buys
@example(target="sin3x", act="relu", most=1, seed=0)
def test_width_verdict_agrees_with_its_numbers(target, act, most, seed):
    res = _width(target, act, most, seed)
    v = verdicts.judge_width(res)
    fact, claim = v.claims
    assert fact.ok is None
    assert [p.params for p in res.plain] == [g.params for g in res.gated]
    outcomes = [rules.gate_outcome(p.rmse, g.rmse, res.floor) for p, g in zip(res.plain, res.gated)]
    for o, p, g in zip(outcomes, res.plain, res.gated):
        if o == "better":
            assert g.rmse < 0.8 * p.rmse
        elif o == "worse":
            assert g.rmse > 1.25 * p.rmse
    assert claim.values["better"] == outcomes.count("better") and claim.values["worse"] == outcomes.count("worse")
    assert claim.ok == (outcomes.count("better") > len(outcomes) / 2)
    if claim.ok:
        WIDTH.reach("buys")
        assert v.takeaway == "gated.takeaway_width_buys"
    else:
        WIDTH.reach("not")
        assert v.takeaway != "gated.takeaway_width_buys"
        if v.takeaway == "gated.takeaway_width_nothing":
            assert set(outcomes) == {"same"}
    assert_readable(v)
