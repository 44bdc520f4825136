"""Page 2's questions: each answer is what the page shows for the tokens on screen."""
from hypothesis import given

from ffn_core import position
from tests.question_checks import assert_sound, korean_is_korean, shown_number
from tests.ui.test_lessons_position import FEWER, controls
from ui.questions import position as questions
from ui.verdicts import position as verdicts


def _measure(s):
    return position.measure(s["n"], s["d"], 4 * s["d"], s["act"], s["heads"], s["causal"], s["perm"], s["seed"])


def _share(x: float) -> str:  # the page's formatter
    return "0" if x == 0 else f"{x:.1%}"


@FEWER
@given(controls())
def test_position_questions_are_answered_by_the_page(s):
    res = _measure(s)
    asked = questions.ask(res)
    by_key = assert_sound(asked, "position", [verdicts.judge(res)])
    assert abs(by_key["questions.position_ffn_off"].answer
               - shown_number(_share(res.ffn_off_diagonal_fraction))) <= 0.05
    assert abs(by_key["questions.position_attention_off"].answer
               - shown_number(_share(res.attention_off_diagonal_fraction))) <= 0.05
    # Shuffling: attention's outputs follow the shuffle exactly when its shuffled output differs only by rounding.
    follows = res.attention_permutation_max_abs_diff <= 1e-12
    assert by_key["questions.position_shuffle"].answer == ("follows" if follows else "changes")
    # Independent of the answer: a causal mask ties tokens to positions, so moving any token changes the output.
    if s["causal"] and res.moved > 0:
        assert by_key["questions.position_shuffle"].answer == "changes"
        assert by_key["questions.position_shuffle"].why.key == "questions.position_shuffle_why_changes_causal"
    other = _measure({**s, "seed": (s["seed"] + 1) % 10000})
    assert {a.id for a in asked}.isdisjoint(a.id for a in questions.ask(other))


def test_without_a_mask_attention_just_follows_the_shuffle():
    asked = questions.ask(position.measure(8, 64, 256, "gelu", 1, False, "random", 0))
    by_key = {a.question.key: a for a in asked}
    assert by_key["questions.position_shuffle"].answer == "follows"
    assert by_key["questions.position_ffn_off"].answer == 0
    korean_is_korean(asked)


@FEWER
@given(controls())
def test_block_question_is_answered_by_the_block_on_screen(s):
    blk = position.block_influence(s["n"], s["d"], 4 * s["d"], s["act"], s["heads"], s["causal"], s["seed"])
    settings = {k: s[k] for k in ("n", "d", "act", "heads", "causal", "seed")}
    (asked,) = questions.block(blk, settings)
    assert_sound([asked], "position", [verdicts.judge_block(blk)])
    assert abs(asked.answer - shown_number(_share(blk.block_off_diagonal_fraction))) <= 0.05
    # The sentence of the expected picture (the FFN keeps to itself, the block mixes) only when measured so.
    mixes = blk.ffn_off_diagonal_fraction == 0 and blk.block_off_diagonal_fraction > 0
    assert asked.why.key.endswith("mixes" if mixes else "odd")


def test_the_residual_keeps_most_of_each_token_though_the_block_mixes():
    blk = position.block_influence(8, 64, 256, "relu", 1, False, 0)
    (asked,) = questions.block(blk, {"n": 8})
    # Between the FFN's 0% and attention's 84%: the typical guesses "0" and "as much as attention" both miss.
    assert 10 < asked.answer < 50
    korean_is_korean([asked])
