"""Page 3's questions: each answer is what the page shows for W₂W₁ and for the linear stack."""
from hypothesis import given
from hypothesis import strategies as st

from ffn_core import collapse, ffn
from tests.question_checks import assert_sound, korean_is_korean, shown_number
from ui.base import i18n
from ui.questions import collapse as questions
from ui.verdicts import collapse as verdicts

MS = (4, 8, 16, 32, 64, 128, 256, 512, 1024)
NARROW = (0, 1, 2, 4, 8, 16, 32)


def _err(x: float) -> str:  # the page's formatter
    return f"{x:.1e}" if x < 1e-3 else f"{x:.3g}"


@given(d=st.integers(1, 16).map(lambda k: 8 * k), m=st.sampled_from(MS), act=st.sampled_from(ffn.ACTIVATIONS),
       bias=st.booleans(), seed=st.integers(0, 9999))
def test_collapse_questions_are_answered_by_the_page(d, m, act, bias, seed):
    res = collapse.measure(d, m, act, bias, seed)
    asked = questions.ask(res)
    by_key = assert_sound(asked, "collapse", [verdicts.judge(res)])
    if act == "none":
        assert by_key["questions.collapse_rank"].answer == res.rank <= min(d, m)
        # One matrix replaces both layers to rounding: the two layers compute nothing more.
        assert by_key["questions.collapse_wide"].answer == ("no" if res.max_abs_residual <= 1e-12 else "yes")
        assert by_key["questions.collapse_wide"].answer == "no"  # float64: always, whatever the width
    else:
        fit = by_key["questions.collapse_fit"].answer
        assert abs(fit / 100 - shown_number(_err(res.fit_relative_error))) <= 5e-3 * max(1.0, fit / 100)
        assert by_key["questions.collapse_linear"].answer == ("no" if res.fit_relative_error > 0.01 else "yes")
    other = collapse.measure(d, m, act, not bias, seed)
    assert {a.id for a in asked}.isdisjoint(a.id for a in questions.ask(other))


@given(d=st.integers(1, 16).map(lambda k: 8 * k), layers=st.integers(2, collapse.MAX_LAYERS),
       narrow=st.sampled_from(NARROW), bias=st.booleans(), seed=st.integers(0, 9999))
def test_stack_question_is_answered_by_the_page(d, layers, narrow, bias, seed):
    widths = collapse.hidden_widths(d, layers, narrow)
    tower = collapse.stack(d, widths, bias, seed)
    (asked,) = questions.stack(tower, bias)
    assert_sound([asked], "collapse", [verdicts.judge_stack(tower)])
    assert asked.answer == tower.rank <= min(d, *widths)
    assert asked.values["narrow"] == min(widths)


def test_four_times_wider_buys_nothing_without_the_activation():
    asked = questions.ask(collapse.measure(64, 256, "none", False, 0))
    by_key = {a.question.key: a for a in asked}
    assert by_key["questions.collapse_wide"].answer == "no"
    assert by_key["questions.collapse_rank"].answer == 64
    korean_is_korean(asked)


def test_no_option_names_the_answer():
    """The options are bare: "No: they are one d × d matrix" answered the question it was offered for."""
    for lang in i18n.LANGS:
        t = i18n.Translator(lang)
        for option in questions.WIDE.options:
            assert "d × d" not in t(f"{questions.WIDE.key}_opt_{option}")
