"""Page 8's checkpoint and word-in-context verdicts over the whole control space: every sentence renders in
both languages and each ✓/✗ follows its rule from the numbers. The page-level sweep at the end runs the
verdicts on the real measurements at every shipped checkpoint, every country and both languages."""
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ffn_core.gpt import context, corpus, weights
from tests.lesson_checks import assert_readable
from ui.base import i18n
from ui.base.text import Term
from ui.verdicts import gpt_checkpoints as verdicts

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)
share = st.floats(0.0, 1.0, allow_nan=False)
term = st.floats(-40.0, 40.0, allow_nan=False)
cos = st.floats(-1.0, 1.0, allow_nan=False)
word = st.sampled_from(["Paris", "파리", "France", "프랑스", "New Delhi", "의", "—"])
steps = st.sampled_from([0, 50, 100, 200, 300, 400, 500, 700, 900, 1200]) | st.none()
STAGES = 1 + 2 * 4


def _ok(verdict, key):
    return next(c.ok for c in verdict.claims if c.key == key)


def _keys(verdict):
    return [c.key for c in verdict.claims]


@SETTINGS
@given(st.integers(0, 1200), word | st.none(), word, share, share, share | st.just(math.nan),
       st.none() | st.tuples(share, share), st.lists(term, min_size=4, max_size=4), st.lists(term, min_size=4, max_size=4))
def test_checkpoint(step, answer, top, prob, seen, heldout, logged, attn, ffn):
    v = verdicts.checkpoint(step, answer, top, prob, seen, heldout, logged, attn, ffn)
    assert_readable(v)
    assert ("gptmemory.claim_answers" in _keys(v)) == (answer is not None)
    if answer is not None:
        assert _ok(v, "gptmemory.claim_answers") == (top == answer)
    assert ("gptmemory.claim_log" in _keys(v)) == (logged is not None)
    if logged is not None:
        agree = not math.isnan(heldout) and abs(seen - logged[0]) <= 2e-3 and abs(heldout - logged[1]) <= 2e-3
        assert _ok(v, "gptmemory.claim_log") == agree
    assert _ok(v, "gptmemory.claim_ffn_more") == (sum(ffn) > sum(attn))
    phase = "early" if seen < 0.5 else "forming" if seen < 0.9 else "known"
    assert v.takeaway.split()[0] == f"gptmemory.takeaway_{phase}"
    lags = not math.isnan(heldout) and heldout < seen - 0.05
    assert v.takeaway.split()[1].endswith("lags" if lags else "keeps")


@SETTINGS
@given(steps, steps, steps, share | st.none(), st.lists(steps, min_size=4, max_size=4),
       st.lists(term, min_size=4, max_size=4))
def test_curve(seen_90, heldout_90, template_90, heldout_at, onsets, final):
    heldout_at = None if seen_90 is None else (heldout_at if heldout_at is not None else 0.5)
    v = verdicts.curve(seen_90, heldout_90, template_90, heldout_at, onsets, final)
    assert_readable(v)
    assert _ok(v, "gptmemory.claim_grammar_first") == (
        template_90 is not None and (seen_90 is None or template_90 < seen_90))
    if seen_90 is None:
        assert _ok(v, "gptmemory.claim_seen_never") is False
    else:
        assert _ok(v, "gptmemory.claim_seen_first") == (heldout_90 is None or seen_90 < heldout_90)
    if any(s is not None for s in onsets):
        assert v.takeaway == "gptmemory.takeaway_onset"
        first = min(s for s in onsets if s is not None)
        assert v.takeaway_values["step"] == first
        assert onsets[v.takeaway_values["block"] - 1] == first
        big = v.takeaway_values["big"]
        assert onsets[big - 1] is not None
        assert final[big - 1] == max(f for f, s in zip(final, onsets) if s is not None)
    else:
        assert v.takeaway == "gptmemory.takeaway_onset_none"


@SETTINGS
@given(word, st.lists(cos, min_size=STAGES, max_size=STAGES) | st.just([]),
       st.none() | st.lists(cos, min_size=STAGES, max_size=STAGES))
def test_contexts(w, within, across):
    v = verdicts.contexts(w, within, across)
    assert_readable(v)
    assert v.claims[0].ok is None  # the embedding is token + position: a stated fact
    if not within:
        assert _keys(v) == ["gptmemory.fact_embedding"]
        return
    assert _ok(v, "gptmemory.claim_drift") == (within[-1] < within[0])
    changes = [b - a for a, b in zip(within, within[1:])]
    attn = sum(abs(c) for c in changes[0::2])
    ffn = sum(abs(c) for c in changes[1::2])
    assert _ok(v, "gptmemory.claim_ffn_moves") == (ffn > attn)
    assert ("gptmemory.claim_languages" in _keys(v)) == bool(across)
    if across:
        assert _ok(v, "gptmemory.claim_languages") == (across[-1] > across[0])
    biggest = max(range(len(changes)), key=lambda i: abs(changes[i]))
    assert v.takeaway_values["block"] == biggest // 2 + 1
    assert isinstance(v.takeaway_values["kind"], Term)
    assert v.takeaway_values["kind"].key.endswith("attn" if biggest % 2 == 0 else "ffn")
    assert v.takeaway.endswith("apart" if changes[biggest] < 0 else "together")


@SETTINGS
@given(word, word, st.lists(cos, min_size=STAGES, max_size=STAGES) | st.just([]),
       st.lists(cos, min_size=STAGES, max_size=STAGES))
def test_roles(w, other, own, last):
    v = verdicts.roles(w, other, own, last)
    assert_readable(v)
    assert v.claims[0].ok is None
    if not own:
        assert v.takeaway == "gptmemory.takeaway_roles_missing"
        return
    assert _ok(v, "gptmemory.claim_roles_alike") == (own[-1] > own[0])
    assert _ok(v, "gptmemory.claim_roles_last") == (last[-1] < own[-1])


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_verdicts_on_the_real_measurements_render_for_every_country(lang):
    # Every country the page offers, on the final model, through the page's own pairing of sentences.
    from ui.gpt import sections
    from ffn_core.gpt import context as ctx

    model = weights.load()
    for country in sorted({f.country for f in corpus.FACTS})[::9]:
        sim = ctx.compare(model, ctx.word_contexts(country))
        within, across = sections.context_pairs(sim.labels, lang)
        v = verdicts.contexts(country, sections.mean_by_stage(sim, within), sections.mean_by_stage(sim, across) or None)
        assert_readable(v)
        # Same relation across languages: every across pair is (x.en, x.ko); within pairs share a language.
        assert all(sim.labels[i].split(".")[0] == sim.labels[j].split(".")[0] for i, j in across)
        assert all(sim.labels[i].split(".")[1] == sim.labels[j].split(".")[1] for i, j in within)
        assert len(within) == sum(k * (k - 1) // 2 for k in (
            sum(1 for label in sim.labels if label.endswith(f".{x}")) for x in corpus.LANGS))


lens_word = st.sampled_from(["is", ".", "이다", "는", "Luxembourg"])


@SETTINGS
@given(word, word, word, st.lists(st.tuples(cos, cos, cos, lens_word, lens_word), min_size=STAGES, max_size=STAGES)
       | st.just([]))
def test_two_meanings(w, capital, country, stages):
    cosine, like_country, like_city, lens_country, lens_city = (list(x) for x in zip(*stages)) if stages else ([],) * 5
    v = verdicts.two_meanings(w, capital, country, cosine, like_country, like_city, lens_country, lens_city)
    assert_readable(v)
    if not stages:
        assert v.claims == () and v.takeaway == "gptmemory.takeaway_two_missing"
        return
    assert next(c for c in v.claims if c.key == "gptmemory.fact_two_embedding").ok is None
    assert _ok(v, "gptmemory.claim_two_apart") == (cosine[-1] < cosine[0])
    assert _ok(v, "gptmemory.claim_two_roles") == (like_city[-1] > cosine[-1] and like_country[-1] > cosine[-1])
    assert _ok(v, "gptmemory.claim_two_lens") == (lens_country[-1] != lens_city[-1])
    first, lens = v.takeaway.split()
    assert first == ("gptmemory.takeaway_two_apart" if cosine[-1] < cosine[0] else "gptmemory.takeaway_two_together")
    split = next((i for i, (a, b) in enumerate(zip(lens_country, lens_city)) if a != b), None)
    assert lens == ("gptmemory.takeaway_two_lens_never" if split is None else "gptmemory.takeaway_two_lens")
    if split:
        assert v.takeaway_values["split_block"] == (split + 1) // 2


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_the_two_meaning_word_on_the_shipped_model(lang):
    res = context.two_meanings(weights.load(), lang)
    v = verdicts.two_meanings(res.words[res.country], res.reference[res.city], res.reference[res.country], res.cosine,
                              res.like_country, res.like_city, res.lens_country, res.lens_city)
    assert_readable(v)
    # What the section teaches holds on the model shipped: the blocks part the two places, each reads as its role.
    assert all(c.ok in (None, True) for c in v.claims)
