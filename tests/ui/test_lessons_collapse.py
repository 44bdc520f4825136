"""The linear-collapse verdicts agree with the numbers they cite, over the page's whole control space."""
from hypothesis import example, given
from hypothesis import strategies as st

from ffn_core import collapse, ffn
from tests.lesson_checks import Branches, assert_readable
from ui.registry import rules
from ui.verdicts import collapse as verdicts

MS = (4, 8, 16, 32, 64, 128, 256, 512, 1024)
NARROW = (0, 1, 2, 4, 8, 16, 32)
COLLAPSE = Branches("nonlinear", "linear", "bottleneck")


@COLLAPSE.required
@given(d=st.integers(1, 16).map(lambda k: 8 * k), m=st.sampled_from(MS), act=st.sampled_from(ffn.ACTIVATIONS),
       bias=st.booleans(), seed=st.integers(0, 9999))
@example(d=64, m=256, act="relu", bias=True, seed=0)  # the page's default: nonlinear
@example(d=64, m=256, act="none", bias=True, seed=0)  # no activation, wide: linear
@example(d=128, m=4, act="none", bias=False, seed=1)  # no activation, narrow: a bottleneck
def test_collapse_verdict_agrees_with_its_numbers(d, m, act, bias, seed):
    res = collapse.measure(d, m, act, bias, seed)
    v = verdicts.judge(res)
    keys = v.takeaway.split()
    by_key = {c.key: c for c in v.claims}
    if act != "none":
        # No claim about W₂W₁'s rank once an activation sits between the layers.
        assert "collapse.fact_rank" not in by_key
        claim = by_key["collapse.claim_nonlinear"]
        assert claim.ok == (res.fit_relative_error > rules.NONLINEAR)
        assert ("collapse.takeaway_nearly_linear" in keys) == (not claim.ok)
        if "collapse.takeaway_nonlinear" in keys:
            COLLAPSE.reach("nonlinear")
            assert res.two_layer_params > res.single_matrix_params
    else:
        fact = by_key["collapse.fact_rank"]
        assert fact.ok is None and fact.values["rank"] <= fact.values["bound"] == min(d, m)
        assert by_key["collapse.claim_replace"].ok == (res.max_abs_residual <= rules.EXACT)
        if by_key["collapse.claim_replace"].ok:
            # "Widening bought nothing" only when m > d; "the same functions" never when m < d.
            assert ("collapse.takeaway_wide" in keys) == (m > d)
            assert ("collapse.takeaway_square" in keys) == (m == d)
            assert ("collapse.takeaway_bottleneck" in keys) == (m < d)
            if m < d:
                COLLAPSE.reach("bottleneck")
                assert v.takeaway_values["lost"] == d - res.rank >= d - m
            if "collapse.takeaway_linear" in keys:
                COLLAPSE.reach("linear")
                assert res.two_layer_params > res.single_matrix_params
    assert_readable(v)


@given(d=st.integers(1, 16).map(lambda k: 8 * k), layers=st.integers(2, collapse.MAX_LAYERS),
       narrow=st.sampled_from(NARROW), bias=st.booleans(), seed=st.integers(0, 9999))
def test_stack_verdict_agrees_with_its_numbers(d, layers, narrow, bias, seed):
    widths = collapse.hidden_widths(d, layers, narrow)
    res = collapse.stack(d, widths, bias, seed)
    v = verdicts.judge_stack(res)
    claim, fact = v.claims
    assert claim.values["layers"] == layers
    assert claim.ok == (res.max_abs_residual <= rules.EXACT)
    assert fact.ok is None and res.rank <= fact.values["bound"] == min(d, *widths)
    # "The narrow layer caps the product" needs a narrowest width below d, and the rank it names.
    assert ("collapse.takeaway_stack_narrow" in v.takeaway) == (claim.ok and min(widths) < d)
    assert_readable(v)
