"""Page 8's questions: each answer is what the page shows for the prompt on screen (numbers drawn over their
whole range, then the shipped model at a few prompts of the corpus)."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ffn_core.gpt import ask, attribution, corpus
from ffn_core.gpt.ask import Accuracy
from tests.question_checks import assert_sound, korean_is_korean, shown_number
from ui.base import i18n
from ui.base.text import pct
from ui.gpt import checkpoints
from ui.questions import explain
from ui.questions import gpt as questions
from ui.verdicts import gpt as verdicts

share = st.floats(0.0, 1.0, allow_nan=False)
term = st.floats(-50.0, 50.0, allow_nan=False)
word = st.sampled_from(["Paris", "파리", "New Delhi", "euro", "Rome"])


def _acc(seen: float = 1.0, heldout: float = 1.0, n_seen: int = 10, n_heldout: int = 10) -> Accuracy:
    return Accuracy(seen, heldout, n_seen, n_heldout, ())


@given(st.lists(word, min_size=1, max_size=6).map(tuple), word | st.none(), word,
       st.lists(term, min_size=1, max_size=6), st.data())
def test_prompt_questions_follow_the_numbers(words, answer, top, attn, data):
    ffn = data.draw(st.lists(term, min_size=len(attn), max_size=len(attn)))
    asked = questions.prompt(words, answer, top, attn, ffn)
    target = answer if answer is not None else top
    by_key = assert_sound(asked, "gpt", [verdicts.layers(target, 0.0, 0.0, attn, ffn, None)])
    # The page's metrics: f"{sum(attn):+.3f}" and f"{sum(ffn):+.3f}"; the claim compares the sums themselves.
    if abs(sum(ffn) - sum(attn)) > 1e-3:
        more = shown_number(f"{sum(ffn):+.3f}") > shown_number(f"{sum(attn):+.3f}")
        assert by_key["questions.gpt_writes"].answer == ("ffn" if more else "attn")
    writes = by_key["questions.gpt_writes"]
    assert writes.why.key == f"questions.gpt_writes_why_{writes.answer}"


ANSWERS = sorted({w for f in corpus.FACTS for w in (f.answer("en"), f.answer("ko"))})


@given(st.integers(0, 5000), st.sampled_from(ANSWERS) | st.none(),
       st.sampled_from(ANSWERS) | st.sampled_from(["is", "the", "의", "는"]), share)
def test_checkpoint_question_names_what_the_model_put_first(step, answer, top, prob):
    asked = questions.checkpoint(step, ("The", "capital", "of", "France", "is"), answer, top, prob)
    if answer is None:
        assert asked == ()
        return
    (one,) = asked
    assert_sound(asked, "gpt")
    relations = {f.relation for f in corpus.FACTS if answer in (f.answer("en"), f.answer("ko"))}
    same_kind = any(f.relation in relations and top in (f.answer("en"), f.answer("ko")) for f in corpus.FACTS)
    assert one.answer == ("right" if top == answer else "kind" if same_kind else "other")
    assert one.why.key == f"questions.gpt_step_why_{one.answer}"


def test_at_step_300_the_model_names_another_capital():
    """The page's default checkpoint: not Paris and not noise, a capital of the wrong country."""
    prompt = next(p for p in corpus.prompts("all") if p.lang == "en" and p.fact.country == "France"
                  and p.fact.relation == "capital")
    snap = checkpoints.snapshot(300, tuple(prompt.words), prompt.answer)
    (asked,) = questions.checkpoint(300, prompt.words, prompt.answer, snap.next.tokens[0], snap.next.probs[0])
    assert_sound([asked], "gpt")
    assert snap.next.tokens[0] != "Paris" and asked.answer == "kind"
    korean_is_korean([asked])


@given(share, share, st.integers(1, 3000), st.integers(1, 500))
def test_heldout_question_is_the_metric(seen, heldout, n_seen, n_heldout):
    (asked,) = questions.heldout(_acc(seen, heldout, n_seen, n_heldout))
    assert_sound([asked], "gpt")
    shown = pct(heldout)  # the page's metric
    if shown[0].isdigit():
        assert abs(asked.answer - shown_number(shown)) <= 0.05


PROMPTS = [p for p in corpus.prompts("all")]


@settings(max_examples=6, deadline=None)
@given(st.sampled_from(PROMPTS))
def test_the_shipped_model_answers_the_prompt_questions(shipped_gpt, prompt):
    attr = attribution.attribute(shipped_gpt, prompt.words, prompt.answer)
    nxt = ask.next_token(shipped_gpt, prompt.words, prompt.answer)
    asked = questions.prompt(prompt.words, prompt.answer, nxt.tokens[0], attr.attn, attr.ffn)
    by_key = assert_sound(asked, "gpt", [verdicts.layers(prompt.answer, attr.max_abs_residual, attr.embedding,
                                                        attr.attn, attr.ffn, None)])
    # Independent of the attribution's parts: the logit they add up to, minus the embedding and the constant.
    writes = by_key["questions.gpt_writes"].answer
    assert writes == ("ffn" if sum(attr.ffn) > sum(attr.attn) else "attn")
    assert math.isclose(attr.embedding + sum(attr.attn) + sum(attr.ffn) + attr.constant, attr.logit, abs_tol=1e-6)
    korean_is_korean(asked)


def test_where_attention_writes_more_the_sentence_says_so(shipped_gpt):
    """The issue's case: Japan's currency asked in Korean. Whichever part writes more, the sentence names it."""
    prompt = next(p for p in corpus.prompts("all") if p.lang == "ko" and p.fact.country == "Japan"
                  and p.fact.relation == "currency")
    attr = attribution.attribute(shipped_gpt, prompt.words, prompt.answer)
    (asked,) = questions.prompt(prompt.words, prompt.answer, prompt.answer, attr.attn, attr.ffn)
    said = explain(i18n.Translator("en"), asked)
    if sum(attr.attn) >= sum(attr.ffn):
        assert asked.answer == "attn" and "attention writes more" in said
    else:
        assert asked.answer == "ffn" and "the FFNs write more" in said
