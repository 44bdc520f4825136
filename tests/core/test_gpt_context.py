"""One word's vector block by block: checked against a forward pass written out by hand and a cosine
computed in a plain Python loop."""
import copy
import math

import pytest
import torch

from ffn_core.gpt import context, corpus, model as gpt_model, vocab, weights


@pytest.fixture(scope="module")
def model():
    return weights.load()




def full_states(model, words, index):
    """The whole sentence through the model's own modules in float64, read at `index` after each stage."""
    m = copy.deepcopy(model).double()
    with torch.no_grad():
        ids = torch.tensor([vocab.vocab().encode(list(words))])
        x = m.wte(ids) + m.wpe(torch.arange(len(words)))
        after = [x[0, index]]
        for block in m.blocks:
            x = x + block.attn(block.ln_1(x))
            after.append(x[0, index])
            x = x + block.ffn(block.ln_2(x))
            after.append(x[0, index])
    return torch.stack(after)


def loop_cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def test_states_match_the_models_own_blocks(model):
    words = ("Paris", "is", "the", "capital", "of", "France", ".")
    ctx = context.Context(words, 5, "x")
    got = context.states(model, ctx)
    assert got.dtype == torch.float64 and got.shape == (1 + 2 * len(model.blocks), model.config.d_model)
    m = copy.deepcopy(model).double()  # float64, the whole sentence, the model's own modules
    with torch.no_grad():
        ids = torch.tensor([vocab.vocab().encode(list(words))])
        x = m.wte(ids) + m.wpe(torch.arange(len(words)))
        after = [x[0, 5]]
        for block in m.blocks:
            x = x + block.attn(block.ln_1(x))
            after.append(x[0, 5])
            x = x + block.ffn(block.ln_2(x))
            after.append(x[0, 5])
        # The last stage is what Block.forward gives: the blocks written out above are the model's.
        y = m.wte(ids) + m.wpe(torch.arange(len(words)))
        for block in m.blocks:
            y = block(y)
        assert torch.allclose(y[0, 5], after[-1], atol=1e-12)
        assert torch.allclose(got, torch.stack(after).detach(), atol=1e-10)
    # The embedding stage is the token's row plus the position's row, exactly.
    token = vocab.vocab().index["France"]
    assert torch.equal(got[0], (model.wte.weight[token].double() + model.wpe.weight[5].double()))


def test_cosines_match_a_plain_loop(model):
    contexts = context.word_contexts("France")
    sim = context.compare(model, contexts)
    vectors = [context.states(model, c) for c in contexts]
    for s in (0, 3, len(sim.stages) - 1):
        for i in range(len(contexts)):
            for j in range(len(contexts)):
                want = loop_cosine(vectors[i][s].tolist(), vectors[j][s].tolist())
                assert sim.cosine[s][i][j] == pytest.approx(want, abs=1e-12)
    assert sim.stages == context.stage_names(4) and sim.stages[1] == "attn 1" and sim.stages[-1] == "ffn 4"


def test_word_contexts_are_the_answer_first_sentences():
    contexts = context.word_contexts("France")
    assert [c.label for c in contexts] == [f"{r}.{lang}" for lang in corpus.LANGS for r in corpus.RELATIONS]
    by_label = {c.label: c for c in contexts}
    assert by_label["capital.en"].words[:6] == ("Paris", "is", "the", "capital", "of", "France")
    assert by_label["capital.ko"].words[:4] == ("파리", "는", "프랑스", "의")
    for c in contexts:
        assert c.words[c.index] in ("France", "프랑스")
    # A country without a capital or a language in the table has fewer sentences.
    assert {c.label.split(".")[0] for c in context.word_contexts("Singapore")} == {"continent", "currency"}


def test_a_word_with_nothing_before_it_is_the_same_vector_in_every_sentence(model):
    # Causal attention: the first word reads only itself, so whole sentences that start with it agree there.
    starts = [s.words for s in corpus.sentences() if s.words[0] == "프랑스"][:4]
    assert len(starts) == 4 and len({w[2] for w in starts}) > 1
    first = full_states(model, starts[0], 0)
    for words in starts[1:]:
        assert torch.allclose(full_states(model, words, 0), first, atol=1e-12)
    sim = context.compare(model, [context.Context(w, 0, str(i)) for i, w in enumerate(starts)])
    assert all(x == pytest.approx(1.0, abs=1e-12) for stage in sim.cosine for row in stage for x in row)


def test_words_after_the_position_do_not_reach_it(model):
    # Two sentences that differ only after position 5: the whole-sentence pass agrees there, and so
    # does the truncated pass context.states runs.
    a = ("Paris", "is", "the", "capital", "of", "France", ".")
    b = ("Paris", "is", "the", "capital", "of", "France", "is")
    assert torch.allclose(full_states(model, a, 5), full_states(model, b, 5), atol=1e-12)
    assert torch.allclose(context.states(model, context.Context(b, 5, "b")), full_states(model, b, 5), atol=1e-10)
    # Position 6 does see the different word.
    assert not torch.allclose(full_states(model, a, 6)[-1], full_states(model, b, 6)[-1])


def test_role_contexts_pair_two_countries_in_one_form(model):
    roles = context.role_contexts("capital.en.1", ("France", "Germany"))
    assert [c.label for c in roles] == ["word:France", "word:Germany", "last:France", "last:Germany"]
    assert roles[0].words == ("France", "'s", "capital", "city", "is") and roles[0].index == 0
    assert roles[2].index == len(roles[2].words) - 1
    sim = context.compare(model, roles)
    # The last word is the same token at the same position: identical after the embedding.
    assert sim.pair(2, 3)[0] == pytest.approx(1.0, abs=1e-12)
    assert sim.pair(2, 3)[-1] < 1 - 1e-6
    assert context.role_contexts("capital.en.1", ("Singapore",)) == ()
