"""superposition.py against independent references: the model's own modules read by hooks, and sums in plain loops."""
import numpy as np
import pytest
import torch

from ffn_core.gpt import corpus, superposition, trace, vocab, weights


@pytest.fixture(scope="module")
def model():
    return weights.load()


@pytest.fixture(scope="module")
def hidden(model):
    return superposition.prompt_hidden(model)


def _hooked_last_hidden(model, words):
    """Each block's activation output at the prompt's last word, one prompt alone, read by hooks on act."""
    seen = []
    handles = [b.ffn.act.register_forward_hook(lambda _m, _i, o: seen.append(o[0, -1].clone())) for b in model.blocks]
    try:
        with torch.no_grad():
            model(torch.tensor([vocab.vocab().encode(list(words))]))
    finally:
        for h in handles:
            h.remove()
    return torch.stack(seen)


def test_prompt_hidden_is_each_prompt_alone(model, hidden):
    prompts = corpus.prompts("all")
    assert hidden.shape == (len(prompts), len(model.blocks), model.config.d_ff)
    for i in (0, 7, len(prompts) // 2, len(prompts) - 1):
        assert torch.allclose(hidden[i], _hooked_last_hidden(model, prompts[i].words), atol=1e-5)


def test_participation_ratio_and_k90_against_plain_loops(model, hidden):
    d = superposition.directions(model, hidden)
    assert d.width == model.config.d_ff and d.samples == len(corpus.prompts("all"))
    for layer in (0, len(model.blocks) - 1):
        x = hidden[:, layer].double().numpy()
        c = np.cov(x, rowvar=False, bias=True)
        trace_c, frob = 0.0, 0.0
        for i in range(c.shape[0]):
            trace_c += c[i, i]
            for j in range(c.shape[1]):
                frob += c[i, j] * c[i, j]
        assert d.participation[layer] == pytest.approx(trace_c ** 2 / frob, rel=1e-9)
        eig = sorted(np.linalg.eigvalsh(c), reverse=True)
        total, running, k = sum(max(e, 0.0) for e in eig), 0.0, 0
        while running < superposition.VARIANCE * total:
            running += max(eig[k], 0.0)
            k += 1
        assert d.k90[layer] == k
        assert 1 <= d.participation[layer] <= d.width and 1 <= d.k90[layer] <= d.width


def test_one_neuron_over_the_corpus(model, hidden):
    layer, index = 4, int(hidden[:, 3].mean(0).argmax())
    p = superposition.neuron(model, layer, index, "Paris", hidden)
    prompts = corpus.prompts("all")
    # The strongest prompts, by a loop over every prompt's activation.
    a = [float(hidden[i, layer - 1, index]) for i in range(len(prompts))]
    best = sorted(range(len(a)), key=lambda i: -a[i])[: superposition.N_FIRING]
    assert list(p.activations) == pytest.approx([a[i] for i in best])
    assert p.answers == tuple(prompts[i].answer for i in best)
    assert p.relations == tuple(prompts[i].fact.relation for i in best)
    assert p.fires_on == pytest.approx(sum(x > 0 for x in a) / len(a))
    # The value read on the vocabulary, and the answer's place, by a loop over the words.
    m64 = trace.float64(model)
    value = m64.blocks[layer - 1].ffn.w_2.weight[:, index]
    scores = trace.value_logits(m64, value[None])[0].tolist()
    words = vocab.vocab().tokens
    ranked = sorted(range(len(words)), key=lambda i: -scores[i])
    assert p.writes == tuple(words[i] for i in ranked[: superposition.N_WRITES])
    paris = vocab.vocab().index["Paris"]
    assert p.answer_rank == 1 + sum(1 for s in scores if s > scores[paris])
    assert p.distinct == (len(set(p.answers)), len(set(p.relations)), len(set(p.langs)))


def test_kinds_follow_the_table():
    k = superposition.kinds()
    assert (k["France"], k["Paris"], k["Europe"], k["French"], k["euro"], k["의"]) == (
        "country", "capital", "continent", "language", "currency", "template")
    # Luxembourg is both; the table's first reading (the country) names it.
    assert k["Luxembourg"] == "country" and set(k.values()) <= set(superposition.KINDS)
