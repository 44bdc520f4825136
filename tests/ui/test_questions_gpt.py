"""Page 7's questions: each answer is what the page shows for the prompt on screen (numbers drawn over their
whole range, then the shipped model at a few prompts of the corpus)."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ffn_core.gpt import ask, attribution, corpus, weights
from ffn_core.gpt.ask import Accuracy
from tests.question_checks import assert_sound, korean_is_korean, shown_number
from ui.base.text import pct
from ui.questions import gpt as questions

share = st.floats(0.0, 1.0, allow_nan=False)
term = st.floats(-50.0, 50.0, allow_nan=False)
word = st.sampled_from(["Paris", "파리", "New Delhi", "euro", "Rome"])


def _acc(seen: float = 1.0, heldout: float = 1.0, n_seen: int = 10, n_heldout: int = 10) -> Accuracy:
    return Accuracy(seen, heldout, n_seen, n_heldout, ())


@given(st.lists(word, min_size=1, max_size=6).map(tuple), word | st.none(), word,
       st.lists(term, min_size=1, max_size=6), st.data())
def test_prompt_questions_follow_the_numbers(words, answer, top, attn, data):
    ffn = data.draw(st.lists(term, min_size=len(attn), max_size=len(attn)))
    asked = questions.prompt(words, answer, top, _acc(), attn, ffn)
    by_key = assert_sound(asked, "gpt")
    if answer is None:
        assert "questions.gpt_top" not in by_key
    else:
        assert by_key["questions.gpt_top"].answer == ("yes" if top == answer else "no")
    # The page's metrics: f"{sum(attn):+.3f}" and f"{sum(ffn):+.3f}"; the claim compares the sums themselves.
    if abs(sum(ffn) - sum(attn)) > 1e-3:
        more = shown_number(f"{sum(ffn):+.3f}") > shown_number(f"{sum(attn):+.3f}")
        assert by_key["questions.gpt_writes"].answer == ("ffn" if more else "attn")


@given(share, share, st.integers(1, 3000), st.integers(1, 500))
def test_heldout_question_is_the_metric(seen, heldout, n_seen, n_heldout):
    (asked,) = questions.heldout(_acc(seen, heldout, n_seen, n_heldout))
    assert_sound([asked], "gpt")
    shown = pct(heldout)  # the page's metric
    if shown[0].isdigit():
        assert abs(asked.answer - shown_number(shown)) <= 0.05


@pytest.fixture(scope="module")
def model():
    m = weights.load()
    for p in m.parameters():
        p.requires_grad_(False)
    return m


PROMPTS = [p for p in corpus.prompts("all")]


@settings(max_examples=6, deadline=None)
@given(st.sampled_from(PROMPTS))
def test_the_shipped_model_answers_the_prompt_questions(model, prompt):
    nxt = ask.next_token(model, prompt.words, prompt.answer)
    attr = attribution.attribute(model, prompt.words, prompt.answer)
    asked = questions.prompt(prompt.words, prompt.answer, nxt.tokens[0], _acc(), attr.attn, attr.ffn)
    by_key = assert_sound(asked, "gpt")
    assert by_key["questions.gpt_top"].answer == ("yes" if nxt.tokens[0] == prompt.answer else "no")
    # Independent of the attribution's parts: the logit they add up to, minus the embedding and the constant.
    writes = by_key["questions.gpt_writes"].answer
    assert writes == ("ffn" if sum(attr.ffn) > sum(attr.attn) else "attn")
    assert math.isclose(attr.embedding + sum(attr.attn) + sum(attr.ffn) + attr.constant, attr.logit, abs_tol=1e-6)
    korean_is_korean(asked)
