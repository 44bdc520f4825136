"""The kept corpus pass against the whole passes it replaces, on the shipped weights: every ablation
target's scores, the prompts' predictions, each block's key covariance and the edits' measurements.

The references are the plain paths (a hooked copy of the model, a deep-copied edited model, a pass
over the prompts), run on whatever checkpoint is shipped, so no number is pinned here.
"""
import dataclasses

import pytest
import torch

from ffn_core.gpt import ablation, corpus, edit, evaluate, prefixes, states, vocab, weights


@pytest.fixture(scope="module")
def kept(shipped_gpt):
    return states.corpus_states(shipped_gpt)


def test_kept_pass_scores_as_the_whole_pass(shipped_gpt, kept):
    assert ablation.kept_scores(kept) == ablation.scores(shipped_gpt)
    assert kept.predictions == tuple(evaluate.predictions(shipped_gpt, corpus.prompts("all")))


def test_kept_inputs_are_the_blocks_inputs(shipped_gpt, kept):
    # Every block's input at every corpus token, read from its prefix, is the whole pass's bit for bit.
    for b, (_, path), inputs in zip(evaluate.corpus_batches(), prefixes.corpus(), kept.inputs):
        seen = states.whole_pass_inputs(shipped_gpt, b.ids)
        assert len(seen) == len(inputs) == len(shipped_gpt.blocks)
        for mine, theirs in zip(inputs, seen):
            assert torch.equal(mine[path], theirs)


def test_prefixes_cover_the_corpus():
    for b, (part, path) in zip(evaluate.corpus_batches(), prefixes.corpus()):
        assert torch.equal(part.tokens[path], b.ids)
        assert torch.equal(part.positions[path], torch.arange(b.ids.shape[1]).expand_as(b.ids))
        # One prefix per distinct start of a sentence, and the tokens they stand for are the batch's.
        starts = {tuple(row[:t + 1]) for row in b.ids.tolist() for t in range(b.ids.shape[1])}
        assert part.size == len(starts)
        assert part.size + int(part.extra.sum()) == b.ids.numel()


def test_prompt_prefixes_are_the_prompts():
    prompts = corpus.prompts("all")
    v = vocab.vocab()
    seen = set()
    for p in prefixes.prompts():
        whole, _ = prefixes.corpus()[p.batch]
        for place, last in zip(p.index.tolist(), p.last.tolist()):
            node = int(p.members[last])
            assert int(whole.tokens[node]) == v.encode([prompts[place].words[-1]])[0]
            assert int(whole.positions[node]) == len(prompts[place].words) - 1
            seen.add(place)
    assert seen == set(range(len(prompts)))


@pytest.mark.parametrize("target", ablation.targets(len(weights.load().blocks)))
def test_every_ablation_equals_the_hooked_copy(shipped_gpt, kept, target):
    # Equal, not close: the same operations on the same numbers from the ablated block up.
    assert ablation.scores_from(shipped_gpt, kept, target) == ablation.scores(ablation.ablated(shipped_gpt, target))


def test_unknown_ablation_is_refused(shipped_gpt, kept):
    with pytest.raises(ValueError):
        ablation.scores_from(shipped_gpt, kept, "ffn_99")


@pytest.mark.parametrize("layer", range(1, len(weights.load().blocks) + 1))
def test_key_covariance_from_the_kept_pass(shipped_gpt, kept, layer):
    # Two float32 passes of different batch shapes (prefix grids, prompt batches) differ in the last bits:
    # measured up to 2e-8 on entries of size ~1e-2 to 1e1.
    assert torch.allclose(states.key_covariance(shipped_gpt, kept, layer - 1),
                          edit.key_covariance(shipped_gpt, layer - 1), rtol=1e-6, atol=1e-7)


def _cases(shipped_gpt):
    # Every block with both methods, over facts and languages spread across the corpus.
    capitals = [f for f in corpus.FACTS if f.relation == "capital"]
    n = len(shipped_gpt.blocks)
    out = []
    for i in range(2 * n):
        fact, lang = capitals[(i * 7) % len(capitals)], ("en", "ko")[i % 2]
        others = capitals[(i * 5 + len(capitals) // 2) % len(capitals):] + capitals
        new = next(f.answer(lang) for f in others if f.answer(lang) != fact.answer(lang))
        out.append((fact.country, lang, new, 1 + i % n, edit.METHODS[(i // n) % 2]))
    return out


@pytest.mark.parametrize("case", range(2 * len(weights.load().blocks)))
def test_edit_on_the_kept_pass_equals_the_edited_copy(shipped_gpt, kept, case):
    country, lang, new, layer, method = _cases(shipped_gpt)[case]
    template = corpus.template_id("capital", lang, 0)
    cov = edit.key_covariance(shipped_gpt, layer - 1) if method == "covariance" else None
    old = dataclasses.asdict(edit.edit(shipped_gpt, country, "capital", lang, template, new, layer, method,
                                       covariance=cov))
    now = dataclasses.asdict(edit.edit(shipped_gpt, country, "capital", lang, template, new, layer, method, kept=kept))
    # ‖ΔW2‖ goes through a covariance summed in another order: equal to float64 rounding, not bit for bit.
    assert now.pop("delta_norm") == pytest.approx(old.pop("delta_norm"), rel=1e-6)
    assert now == old


def test_the_kept_ffn_means_are_the_whole_pass_average(shipped_gpt, kept):
    # Two computations: W2·mean(h) + b2 from the kept pass's hidden sums, and the whole pass's FFN outputs averaged.
    whole = ablation.ffn_means(shipped_gpt)
    for mine, theirs in zip(kept.ffn_mean, whole):
        assert torch.allclose(mine, theirs, atol=1e-5, rtol=1e-5)
    # And block 1's by an explicit loop over a few corpus sentences' tokens gives a vector of the same kind:
    # its mean FFN output over those tokens, from hooks on the model's own modules.
    seen = []
    w_2 = shipped_gpt.blocks[0].ffn.w_2
    handle = w_2.register_forward_hook(lambda _m, _i, o: seen.append(o.reshape(-1, o.shape[-1])))
    try:
        tokens = 0
        for b in evaluate.corpus_batches():
            shipped_gpt(b.ids)
            tokens += b.ids.numel()
    finally:
        handle.remove()
    total = torch.zeros(shipped_gpt.config.d_model, dtype=torch.float64)
    for rows in seen:
        for row in rows:
            total += row.double()
    assert torch.allclose((total / tokens).float(), kept.ffn_mean[0], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("target", [t for t in ablation.targets(len(weights.load().blocks)) if t.startswith("ffn")])
def test_every_mean_ablation_equals_the_hooked_copy(shipped_gpt, kept, target):
    # The FFN writes its corpus mean at every position: equal, not close, with the same mean vectors.
    got = ablation.scores_from(shipped_gpt, kept, target, how="mean")
    assert got == ablation.scores(ablation.ablated(shipped_gpt, target, kept.ffn_mean))
    # A different experiment from zeroing: the blocks above read another input.
    assert got != ablation.scores_from(shipped_gpt, kept, target)


def test_mean_ablation_is_for_ffns_and_known_kinds_only(shipped_gpt, kept):
    with pytest.raises(ValueError):
        ablation.scores_from(shipped_gpt, kept, "attn_1", how="mean")
    with pytest.raises(ValueError):
        ablation.scores_from(shipped_gpt, kept, "ffn_1", how="half")
