"""The gated-FFN page's questions: each answer is what the page measures and shows."""
from hypothesis import given, settings
from hypothesis import strategies as st

from ffn_core import gated
from ffn_core.sweep import gated as gated_sweep
from tests.question_checks import assert_sound, korean_is_korean
from ui.questions import gated as questions
from ui.registry import rules
from ui.verdicts import gated as verdicts


@settings(max_examples=10, deadline=None)  # each example fits two FFNs by least squares: ~0.3 s
@given(d=st.sampled_from(gated.D_MODELS), act=st.sampled_from(gated.FIT_ACTS), token=st.integers(0, gated.N_TOKENS - 1),
       seed=st.integers(0, 9999))
def test_gated_questions_are_answered_by_the_page(d, act, token, seed):
    res = gated.measure(d, act, token, seed)
    asked = questions.ask(res)
    by_key = assert_sound(asked, "gated", [verdicts.judge(res)])
    assert 2 <= len(asked) <= 4
    if act == "none":
        assert by_key["questions.gated_linear"].answer == ("no" if res.gated_fit_error > 0.01 else "yes")
    else:
        assert abs(by_key["questions.gated_fit"].answer - 100 * res.gated_fit_error) < 1e-9
    assert by_key["questions.gated_weights"].answer == "same"  # d a multiple of 3: 8d² both
    assert abs(by_key["questions.gated_down"].answer - 100 * res.gate("silu").turned_down) < 1e-9
    other = gated.measure(d, act, (token + 1) % gated.N_TOKENS, seed)
    assert {a.id for a in asked}.isdisjoint(a.id for a in questions.ask(other))


@settings(max_examples=3, deadline=None)
@given(target=st.sampled_from(("sin3x", "square", "abs")), act=st.sampled_from(("relu", "gelu")), seed=st.integers(0, 99))
def test_width_question_is_answered_by_the_page(target, act, seed):
    res = gated_sweep.fit(target, (1,), act, seed)
    (asked,) = questions.width(res)
    assert_sound([asked], "gated", [verdicts.judge_width(res)])
    assert asked.answer == rules.gate_outcome(res.plain[-1].rmse, res.gated[-1].rmse, res.floor)
    assert asked.values["params"] == res.plain[-1].params == res.gated[-1].params


def test_the_default_asks_in_korean():
    korean_is_korean(questions.ask(gated.measure()))
