"""Page 9's questions: each answer is what the page shows for the ablation, the edit and the checkpoint on screen
(numbers drawn over their whole range, then the shipped model at the page's defaults)."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dataclasses

from ffn_core.gpt import ablation, corpus, edit, weights
from ffn_core.gpt.ablation import Scores
from tests.question_checks import assert_sound, korean_is_korean, shown_number
from ui.base import i18n
from ui.base.text import pct
from ui.questions import explain
from ui.questions import gptsurgery as questions
from ui.verdicts import gpt as verdicts

N_LAYERS = 4


@pytest.fixture(scope="module")
def model():
    return weights.load()
share = st.floats(0.0, 1.0, allow_nan=False)
targets = st.sampled_from(ablation.targets(N_LAYERS))


@given(targets, share, share, share, share)
def test_ablation_questions_follow_the_page_metrics(target, seen0, seen1, template0, template1):
    asked = questions.ablation(target, target, Scores(seen0, 0.5, template0, ()), Scores(seen1, 0.5, template1, ()))
    if target == "none":
        assert asked == ()
        return
    verdict = verdicts.ablation(target, target, Scores(seen0, 0.5, template0, ()), Scores(seen1, 0.5, template1, ()))
    by_key = assert_sound(asked, "gptsurgery", [verdict])
    # The page's metric: f"{pct(before)} → {pct(after)}".
    shown_after = pct(seen1)
    if shown_after[0].isdigit():
        assert abs(by_key["questions.gptsurgery_facts_after"].answer - shown_number(shown_after)) <= 0.05
    fact_drop, grammar_drop = seen0 - seen1, template0 - template1
    expected = "facts" if fact_drop > grammar_drop else "grammar" if grammar_drop > fact_drop else "same"
    assert by_key["questions.gptsurgery_falls"].answer == expected
    drop = seen0 - seen1
    case = "kept" if drop <= 0 else "fell" if drop >= 0.5 * seen0 else "held"
    assert by_key["questions.gptsurgery_facts_after"].why.key == f"questions.gptsurgery_facts_after_why_{case}"


def test_a_block_that_holds_no_facts_is_not_said_to_lose_half():
    """The issue's target=ffn_3 case: 100% → 100% is "lost none", never "takes out at least half"."""
    asked = questions.ablation("ffn_3", "block 3's FFN", Scores(1.0, 0.5, 0.999, ()), Scores(1.0, 0.5, 0.98, ()))
    by_key = {a.question.key: a for a in asked}
    assert by_key["questions.gptsurgery_facts_after"].why.key == "questions.gptsurgery_facts_after_why_kept"
    assert by_key["questions.gptsurgery_falls"].answer == "grammar"
    assert "lost none" in explain(i18n.Translator("en"), by_key["questions.gptsurgery_facts_after"])


@pytest.fixture(scope="module")
def an_edit(model):
    return edit.edit(model, "France", "capital", "en", corpus.template_id("capital", "en", 0), "Rome", layer=1,
                     method="covariance")


@given(share | st.none(), st.integers(1, N_LAYERS), st.sampled_from(edit.METHODS),
       st.floats(0.0, 50.0, allow_nan=False), st.floats(1e-3, 50.0, allow_nan=False))
def test_edit_questions_follow_the_edit(an_edit, other_lang, layer, method, delta, weight):
    res = dataclasses.replace(an_edit, other_lang=None if other_lang is None else (0.0, other_lang), layer=layer,
                              method=method, delta_norm=delta, weight_norm=weight)
    asked = questions.edit(res, "the capital of France is")
    by_key = assert_sound(asked, "gptsurgery", [verdicts.edit(res, "the capital of France is", True)])
    if other_lang is None:
        assert "questions.gptsurgery_other_lang" not in by_key
    else:
        assert by_key["questions.gptsurgery_other_lang"].answer == ("yes" if other_lang >= 0.5 else "no")
    if delta / weight > questions.EDIT_SIZE.hi:  # past the range a guess can take: not asked
        assert "questions.gptsurgery_edit_size" not in by_key
        return
    size = by_key["questions.gptsurgery_edit_size"]
    assert abs(size.answer - delta / weight) <= 1e-12 * max(1.0, size.answer)
    assert size.why.key.endswith("large" if delta / weight >= 0.5 else "small")


def test_the_default_edit_is_about_as_large_as_the_matrix(an_edit):
    """A rank-one edit is no small nudge: at the page's default its norm is close to the matrix's own."""
    size = next(a for a in questions.edit(an_edit, "the capital of France is")
                if a.question.key == "questions.gptsurgery_edit_size")
    assert 0.3 < size.answer < 3
    assert not size.question.is_right(0.05, size.answer) and size.question.is_right(1.0, size.answer)
    korean_is_korean([size])


def test_with_every_ffn_zeroed_the_grammar_falls_further(model):
    """The page's default ablation, measured: the answer is read from the scores, and at the default it is grammar."""
    base = ablation.scores(model)
    after = ablation.scores(ablation.ablated(model, "ffn_all"))
    asked = questions.ablation("ffn_all", "every FFN", base, after)
    by_key = assert_sound(asked, "gptsurgery", [verdicts.ablation("ffn_all", "every FFN", base, after)])
    assert by_key["questions.gptsurgery_falls"].answer == "grammar"
    assert base.template - after.template > base.seen - after.seen
    korean_is_korean(asked)
