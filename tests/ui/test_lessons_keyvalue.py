"""The key-value page's verdict agrees with the numbers it cites, over the page's whole control space."""
from __future__ import annotations

import functools
import math

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from ffn_core import keyvalue, memory_training
from tests.lesson_checks import Branches, assert_readable
from ui.verdicts import keyvalue as verdicts

space = st.fixed_dictionaries({
    "d": st.sampled_from(range(16, 129, 16)),
    "m": st.sampled_from((32, 64, 128, 256, 512)),
    "n": st.sampled_from((16, 32, 64, 128, 256)),
    "steps": st.sampled_from((0, 50, 100, 200, 400)),
    "seed": st.integers(0, 9999),
    "token": st.integers(0, 255),
})


@functools.lru_cache(maxsize=None)
def _memory(d: int, m: int, n: int, steps: int, seed: int) -> keyvalue.Memory:
    return keyvalue.memorise_pairs(d, m, n, steps, seed)


STEPS = Branches("untrained", "trained")


@STEPS.required
@settings(max_examples=6)
@given(space)
@example({"d": 16, "m": 32, "n": 16, "steps": 0, "seed": 0, "token": 0})
@example({"d": 16, "m": 32, "n": 16, "steps": 50, "seed": 0, "token": 0})
def test_keyvalue_verdict_agrees_with_its_numbers(s: dict) -> None:
    assume(s["token"] < s["n"])  # the page stops with a message otherwise
    assume(s["n"] * s["d"] * s["m"] * s["steps"] <= memory_training.MAX_WORK)  # likewise
    res = keyvalue.read_token(_memory(s["d"], s["m"], s["n"], s["steps"], s["seed"]), s["token"])
    v = verdicts.judge(res)
    assert_readable(v)
    claims = {c.key: c for c in v.claims}
    keys = v.takeaway.split()
    values = v.takeaway_values

    assert claims["keyvalue.claim_sum"].ok == (max(res.untrained.max_abs_residual, res.trained.max_abs_residual) <= 1e-12)
    before, after = res.untrained.counts_90, res.trained.counts_90
    common = [k for k in range(s["n"]) if before[k] and after[k]]
    never = (before.count(0), after.count(0))
    STEPS.reach("untrained" if s["steps"] == 0 else "trained")
    if s["steps"] == 0:
        # one module twice: stated, never ticked or crossed
        assert before == after and claims["keyvalue.fact_untrained"].ok is None
        assert set(claims) == {"keyvalue.claim_sum", "keyvalue.fact_untrained"}
        assert ("keyvalue.takeaway_never_untrained" in keys) == (never[0] > 0)
        return

    # "recalls all its pairs" only when every key's output is nearest its own value
    recalled = round(res.trained.recall * s["n"])
    assert claims["keyvalue.claim_recall"].ok == (recalled == s["n"])
    assert ("keyvalue.takeaway_recalled_all" in keys) == (res.trained.recall == 1.0)
    assert ("keyvalue.takeaway_recalled_some" in keys) == (res.trained.recall < 1.0)
    assert values["recalled"] == recalled

    # "concentrates" only when the mean over the same keys fell
    if not common:
        assert "keyvalue.claim_concentration" not in claims and "keyvalue.fact_no_common_keys" in claims
    else:
        mb = sum(before[k] for k in common) / len(common)
        ma = sum(after[k] for k in common) / len(common)
        assert math.isclose(values["before"], mb) and math.isclose(values["after"], ma)
        assert values["keys"] == len(common)
        assert claims["keyvalue.claim_concentration"].ok == (ma < mb)
        assert ("keyvalue.takeaway_concentrated" in keys) == (ma < mb)
        assert ("keyvalue.takeaway_spread" in keys) == (ma >= mb)
    assert ("keyvalue.takeaway_never" in keys) == any(never)
    assert (values["never_before"], values["never_after"]) == never
