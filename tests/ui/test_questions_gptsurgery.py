"""Page 8's questions: each answer is what the page shows for the ablation, the edit and the checkpoint on screen
(numbers drawn over their whole range, then the shipped model at the page's defaults)."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dataclasses

from ffn_core.gpt import ablation, corpus, edit, weights
from ffn_core.gpt.ablation import Scores
from tests.question_checks import assert_sound, korean_is_korean, shown_number
from ui.base.text import pct
from ui.questions import gptsurgery as questions

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
    by_key = assert_sound(asked, "gptsurgery")
    # The page's metric: f"{pct(before)} → {pct(after)}".
    shown_after = pct(seen1)
    if shown_after[0].isdigit():
        assert abs(by_key["questions.gptsurgery_facts_after"].answer - shown_number(shown_after)) <= 0.05
    fact_drop, grammar_drop = seen0 - seen1, template0 - template1
    expected = "facts" if fact_drop > grammar_drop else "grammar" if grammar_drop > fact_drop else "same"
    assert by_key["questions.gptsurgery_falls"].answer == expected


@pytest.fixture(scope="module")
def an_edit(model):
    return edit.edit(model, "France", "capital", "en", corpus.template_id("capital", "en", 0), "Rome", layer=1,
                     method="covariance")


@given(share | st.none(), st.integers(1, N_LAYERS), st.sampled_from(edit.METHODS))
def test_edit_question_follows_the_other_language(an_edit, other_lang, layer, method):
    res = dataclasses.replace(an_edit, other_lang=None if other_lang is None else (0.0, other_lang), layer=layer,
                              method=method)
    asked = questions.edit(res, "the capital of France is")
    if other_lang is None:
        assert asked == ()
        return
    (one,) = asked
    assert_sound(asked, "gptsurgery")
    assert one.answer == ("yes" if other_lang >= 0.5 else "no")


@given(st.integers(0, 10**6), st.lists(share, min_size=1, max_size=6), st.data())
def test_sparsity_question_is_block_ones_metric(step, start, data):
    now = data.draw(st.lists(share, min_size=len(start), max_size=len(start)))
    (asked,) = questions.sparsity(step, start, now, None)
    assert_sound([asked], "gptsurgery")
    # The page's metric: f"{start:.3f} → {now:.3f}" for block 1.
    assert abs(asked.answer / 100 - shown_number(f"{now[0]:.3f}")) <= 5e-4


def test_with_every_ffn_zeroed_the_grammar_falls_further(model):
    """The page's default ablation, measured: the answer is read from the scores, and at the default it is grammar."""
    base = ablation.scores(model)
    after = ablation.scores(ablation.ablated(model, "ffn_all"))
    asked = questions.ablation("ffn_all", "every FFN", base, after)
    by_key = assert_sound(asked, "gptsurgery")
    assert by_key["questions.gptsurgery_falls"].answer == "grammar"
    assert base.template - after.template > base.seen - after.seen
    korean_is_korean(asked)
