"""The trained-GPT verdicts over the pages' control space: every sentence exists and renders in both
languages, and each ✓/✗ follows its stated rule from the numbers."""
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from ffn_core.gpt import ablation, ask, edit, split
from tests.lesson_checks import assert_readable
from ui.base import text
from ui.base.text import Term
from ui.verdicts import gpt as verdicts

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
share = st.floats(0.0, 1.0, allow_nan=False)
term = st.floats(-50.0, 50.0, allow_nan=False)
word = st.sampled_from(["Paris", "파리", "New Delhi", "euro", "—"])


def _ok(verdict, key):
    return next(c.ok for c in verdict.claims if c.key == key)


@SETTINGS
@given(share, share | st.just(math.nan), st.integers(1, 3000), st.integers(0, 500), word | st.none(), word)
def test_ask(seen, heldout, n_seen, n_heldout, answer, top):
    v = verdicts.ask(ask.Accuracy(seen, heldout, n_seen, n_heldout, rows=()), answer, top)
    assert_readable(v)
    assert _ok(v, "gpt.claim_seen") == (seen >= verdicts.KNOWS)
    assert _ok(v, "gpt.claim_heldout") == (not math.isnan(heldout) and heldout >= verdicts.GENERALISES)
    assert any(c.key == "gpt.claim_prompt" for c in v.claims) == (answer is not None)
    if answer is not None:
        assert _ok(v, "gpt.claim_prompt") == (answer == top)
    assert v.takeaway.endswith("generalises") == (_ok(v, "gpt.claim_seen") and _ok(v, "gpt.claim_heldout"))


@SETTINGS
@given(word, st.floats(0, 1e-6) | st.just(math.inf), term, st.lists(term, min_size=1, max_size=6),
       st.data(), st.integers(0, 6) | st.none())
def test_layers(answer, residual, embedding, attn, data, first):
    ffn = data.draw(st.lists(term, min_size=len(attn), max_size=len(attn)))
    v = verdicts.layers(answer, residual, embedding, attn, ffn, first)
    assert_readable(v)
    assert _ok(v, "gpt.claim_sum") == (residual <= verdicts.SUM_TOLERANCE)
    assert _ok(v, "gpt.claim_ffn_writes") == (sum(ffn) > sum(attn))
    best = max(max(attn), max(ffn))
    assert v.takeaway_values["best"] == best
    assert isinstance(v.takeaway_values["part"], Term)


@SETTINGS
@given(word, st.lists(term, min_size=0, max_size=8), term, st.integers(1, 4096))
def test_neurons(answer, top, total, m):
    v = verdicts.neurons(answer, top, total, m, "L2·#44", "Paris, Rome")
    assert_readable(v)
    few = total > 0 and sum(top) >= verdicts.FEW_NEURONS * total
    assert _ok(v, "gpt.claim_few") == few
    assert v.takeaway == ("gpt.takeaway_neurons_few" if few else "gpt.takeaway_neurons_spread")


@SETTINGS
@given(st.integers(1, 10**7), st.integers(0, 10**7), st.integers(0, 10**7), st.integers(0, 10**4))
def test_parameter_split(ffn, attention, embeddings, norms):
    counts = (("embeddings", embeddings), ("attention", attention), ("ffn", ffn), ("norms", norms), ("head", 0))
    parts = split.Split(d_model=64, d_ff=256, n_layers=4, vocab_size=512, counts=counts, tied=True)
    v = verdicts.parameter_split(parts)
    assert_readable(v)
    assert v.takeaway_values["total"] == ffn + attention + embeddings + norms
    assert _ok(v, "gpt.claim_two_thirds") == (abs(ffn / (ffn + attention) - 2 / 3) <= verdicts.TWO_THIRDS_SLACK)
    keys = v.takeaway.split()
    # "two thirds of every block" and "the largest single part" are said only where they hold
    assert ("gpt.takeaway_split_blocks" in keys) == (abs(ffn / (ffn + attention) - 2 / 3) <= verdicts.TWO_THIRDS_SLACK)
    assert ("gpt.takeaway_split_largest" in keys) == (ffn > max(attention, embeddings, norms))


@SETTINGS
@given(st.sampled_from(ablation.targets(4)), share | st.sampled_from([1.0, 0.9996]), share | st.just(1.0), share, share,
       st.sampled_from(ablation.HOWS))
def test_ablation(target, seen_before, seen_after, template_before, template_after, how):
    v = verdicts.ablation(target, target, ablation.Scores(seen_before, 0.5, template_before, (0.3,) * 4),
                         ablation.Scores(seen_after, 0.4, template_after, (0.2,) * 4), how)
    assert_readable(v)
    if target == "none":
        assert v.claims == () and v.takeaway == "gptsurgery.takeaway_none"
        return
    assert _ok(v, "gptsurgery.claim_facts_fall") == (
        seen_before > 0 and seen_before - seen_after >= verdicts.SEVERE * seen_before)
    assert _ok(v, "gptsurgery.claim_grammar_holds") == (
        template_before - template_after < seen_before - seen_after)
    how_key, facts, grammar = v.takeaway.split()
    # The takeaway names the kind of ablation run: attention is only ever zeroed.
    assert how_key == f"gptsurgery.takeaway_how_{'mean' if how == 'mean' and target.startswith('ffn') else 'zero'}"
    assert facts.startswith(f"gptsurgery.takeaway_{'attn' if target.startswith('attn') else 'ffn'}_")
    # What the sentence says of the facts agrees with the figures it shows (one decimal).
    # ("from 100% to 100%" was said of a change the page's rounding hid.)
    shown = text.pct(seen_before, 1), text.pct(seen_after, 1)
    if shown[0] == shown[1]:
        assert facts.endswith("_none")
    elif seen_after > seen_before:
        assert facts.endswith("_rose")
    else:
        assert facts.rsplit("_", 1)[1] in ("most", "some", "little")
    shown_t = text.pct(template_before, 1), text.pct(template_after, 1)
    if shown_t[0] == shown_t[1]:
        assert grammar == "gptsurgery.takeaway_grammar_same"
    elif template_after > template_before:
        assert grammar == "gptsurgery.takeaway_grammar_rose"
    else:
        assert grammar not in ("gptsurgery.takeaway_grammar_same", "gptsurgery.takeaway_grammar_rose")


@SETTINGS
@given(st.integers(1, 4), share, share, share | st.none(), st.integers(0, 3000), st.integers(0, 3000), st.booleans())
def test_edit(layer, before, edited, other_lang, changed, others, unchanged):
    changed = min(changed, others)
    res = edit.Edit(
        country="France", relation="capital", lang="en", template="capital.en.0", scope="template", layer=layer,
        method="covariance", old_answer="Paris", new_answer="Rome", new_answer_other="로마", edited=(before, edited),
        other_templates=None, other_lang=None if other_lang is None else (0.0, other_lang),
        other_prompts_changed=changed, other_prompts=others, other_facts_changed=changed // 2, other_facts=600,
        delta_norm=1.0, weight_norm=10.0, rows=())
    v = verdicts.edit(res, "The capital of France is", unchanged)
    assert_readable(v)
    assert _ok(v, "gptsurgery.claim_rank") is None  # rank one by construction: stated, and measured by the tests
    assert _ok(v, "gptsurgery.claim_took") == (edited >= 0.5)
    assert _ok(v, "gptsurgery.claim_local") == ((changed / others if others else 0.0) <= verdicts.LOCAL)
    assert _ok(v, "gptsurgery.claim_unchanged") == unchanged
    assert any(c.key == "gptsurgery.claim_other_lang" for c in v.claims) == (other_lang is not None)
    if edited < 0.5:
        assert v.takeaway == "gptsurgery.takeaway_edit_failed"


@SETTINGS
@given(st.integers(0, 5000), st.lists(share, min_size=1, max_size=6), st.data(), st.floats(0, 0.01) | st.none())
def test_sparsity(step, start, data, gap):
    now = data.draw(st.lists(share, min_size=len(start), max_size=len(start)))
    v = verdicts.sparsity(step, start, now, gap)
    assert_readable(v)
    fell = [b < a for a, b in zip(start, now)]
    assert _ok(v, "gptsurgery.claim_sparser") == all(fell)
    assert any(c.key == "gptsurgery.claim_log" for c in v.claims) == (gap is not None)
    if gap is not None:
        assert _ok(v, "gptsurgery.claim_log") == (gap <= verdicts.LOG_TOLERANCE)
    expected = "all" if all(fell) else "some" if any(fell) else "none"
    assert v.takeaway == f"gptsurgery.takeaway_sparse_{expected}"
    assert 1 <= v.takeaway_values["block"] <= len(now)


@SETTINGS
@given(st.integers(1, 20), st.integers(1, 4), st.integers(1, 2), st.integers(1, 978),
       st.lists(st.floats(1.0, 512.0, allow_nan=False), min_size=4, max_size=4), st.lists(st.integers(1, 512), min_size=4, max_size=4))
def test_superposition(answers, relations, langs, rank, participation, k90):
    v = verdicts.superposition("L4·#216", "Paris", (answers, relations, langs), 20, rank, 978, participation, k90, 512, 628)
    assert_readable(v)
    assert _ok(v, "gpt.claim_poly_fires") == (answers > 1)
    assert _ok(v, "gpt.claim_poly_writes") == (rank > 1)
    assert _ok(v, "gpt.claim_directions") == (max(participation) <= verdicts.FEW_DIRECTIONS * 512)
    assert v.takeaway == ("gpt.takeaway_poly" if answers > 1 and rank > 1 else "gpt.takeaway_mono")
    assert v.takeaway_values["most"] == max(participation)
