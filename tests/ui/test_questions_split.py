"""Page 1's questions: each answer is what the page shows for the block and the model on screen, and the sentence
under it was written for that answer (never the 2/3 claim when the block is off 2/3)."""
from hypothesis import example, given

from ffn_core import model_counts, params, presets
from tests.question_checks import assert_sound, korean_is_korean, shown_number
from tests.ui.test_lessons_split import blocks
from ui.base import i18n
from ui.questions import explain
from ui.questions import split as questions
from ui.verdicts import split as verdicts


def _asked(b):
    s = params.split(b["d"], b["expansion"], b["heads"], b["kv"], b["bias"], b["glu"])
    return s, questions.block(s, b["expansion"])


def _verdict(s, b):
    full = params.split(b["d"], b["expansion"], b["heads"], b["heads"], b["bias"], b["glu"])
    return verdicts.judge_block(s, b["expansion"], full.attention_params)


@given(blocks())
@example(dict(d=512, expansion="2", heads=8, kv=8, bias=False, glu=False))  # the expansion=2: off 2/3
@example(dict(d=512, expansion="1", heads=8, kv=8, bias=False, glu=False))  # attention bigger
def test_block_questions_are_answered_by_the_block_on_screen(b):
    s, asked = _asked(b)
    by_key = assert_sound(asked, "split", [_verdict(s, b)])
    # The page's metric: f"{s.ffn_share:.2%}".
    share = by_key["questions.split_share"]
    assert abs(share.answer - shown_number(f"{s.ffn_share:.2%}")) <= 0.005
    # "Exactly 2/3" only when the integers say so: 3·FFN = 2·block.
    exact = 3 * s.ffn_params == 2 * s.block_params
    assert share.why.key.endswith("two_thirds" if exact else "off")
    # Which part is bigger, from the two metrics the page shows (counted from the modules).
    attention, ffn = shown_number(f"{s.attention_params:,}"), shown_number(f"{s.ffn_params:,}")
    expected = "ffn" if ffn > attention else "attention" if attention > ffn else "even"
    assert by_key["questions.split_bigger"].answer == expected


def test_at_expansion_two_the_share_is_not_called_two_thirds():
    b = dict(d=512, expansion="2", heads=8, kv=8, bias=False, glu=False)
    s, asked = _asked(b)
    share = {a.question.key: a for a in asked}["questions.split_share"]
    said = {lang: explain(i18n.Translator(lang), share) for lang in i18n.LANGS}
    assert "50%" in said["en"] and "not 2/3" in said["en"]
    assert "50%" in said["ko"] and "2/3이 아닙니다" in said["ko"]
    assert share.why.key == "questions.split_share_why_off"


def test_at_the_lesson_block_the_ffn_is_bigger_though_attention_is_the_famous_part():
    _, asked = _asked(dict(d=512, expansion="4", heads=8, kv=8, bias=False, glu=False))
    by_key = {a.question.key: a for a in asked}
    assert by_key["questions.split_bigger"].answer == "ffn"
    assert abs(by_key["questions.split_share"].answer - 200 / 3) < 1e-9
    assert by_key["questions.split_share"].why.key == "questions.split_share_why_two_thirds"
    korean_is_korean(asked)


@given(blocks(), blocks())
def test_other_block_settings_ask_again(a, b):
    ids_a = {x.id for x in _asked(a)[1]}
    ids_b = {x.id for x in _asked(b)[1]}
    assert (ids_a == ids_b) == (a == b)


def test_every_model_question_is_answered_by_its_metric():
    ids = set()
    for model_id in presets.IDS:
        m = model_counts.model(model_id)
        asked = questions.model(m)
        by_key = assert_sound([asked], "split")
        assert abs(by_key["questions.split_model"].answer - shown_number(f"{m.ffn_share_of_model:.2%}")) <= 0.005
        ids.add(asked.id)
    assert len(ids) == len(presets.IDS)
