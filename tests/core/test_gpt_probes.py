"""The trained GPT's probes against independent references: a plain loop over layers, hand-zeroed weights,
the edit's rank, a hand count of active neurons, numel() sums."""
import copy

import pytest
import torch

from ffn_core.gpt import ablation, ask, attribution, corpus, edit, evaluate, neurons, split, weights
from ffn_core.gpt import vocab as gpt_vocab


@pytest.fixture(scope="module")
def model():
    return weights.load()


def _prompts(n: int = 6):
    """A few corpus prompts of different relations and both languages."""
    out, seen = [], set()
    for p in corpus.prompts("all"):
        if (p.fact.relation, p.lang) not in seen:
            seen.add((p.fact.relation, p.lang))
            out.append(p)
    return out[:n]


def _hand_attribution(model, words, answer):
    """Each part's term on the answer's logit through ln_f with its scale frozen, by hooks on the real forward pass."""
    m = copy.deepcopy(model).to(torch.float64)
    outputs = {}
    hooks = []
    for i, block in enumerate(m.blocks):
        hooks.append(block.attn.register_forward_hook(lambda _m, _i, o, i=i: outputs.__setitem__(("attn", i), o[0, -1])))
        # The FFN's output is its W2's (b2 included).
        hooks.append(block.ffn.w_2.register_forward_hook(lambda _m, _i, o, i=i: outputs.__setitem__(("ffn", i), o[0, -1])))
    hooks.append(m.ln_f.register_forward_hook(lambda _m, inputs, _o: outputs.__setitem__("final", inputs[0][0, -1])))
    v = gpt_vocab.vocab()
    idx = torch.tensor([v.encode(list(words))])
    token = v.encode([answer])[0]
    with torch.no_grad():
        logit = float(m(idx)[0, -1, token])
        embedding = m.wte(idx)[0, -1] + m.wpe.weight[idx.shape[1] - 1]
    for h in hooks:
        h.remove()
    x = outputs["final"]
    scale = 1.0 / torch.sqrt(((x - x.mean()) ** 2).mean() + m.ln_f.eps)
    w, gamma = m.head.weight[token].detach(), m.ln_f.weight.detach()

    def term(part):
        total = 0.0
        for j in range(part.shape[0]):  # one feature at a time: w_j · γ_j · (p_j − mean p) · s
            total += float(w[j] * gamma[j] * (part[j] - part.mean()) * scale)
        return total

    parts = {"embedding": term(embedding)}
    for i in range(len(m.blocks)):
        parts[f"attn{i}"] = term(outputs[("attn", i)])
        parts[f"ffn{i}"] = term(outputs[("ffn", i)])
    constant = float(w @ m.ln_f.bias.detach()) + (float(m.head.bias[token]) if m.head.bias is not None else 0.0)
    return logit, parts, constant


@pytest.mark.parametrize("index", range(3))
def test_attribution_sums_to_the_logit_like_a_plain_loop(model, index):
    p = _prompts()[index]
    res = attribution.attribute(model, p.words, p.answer)
    logit, parts, constant = _hand_attribution(model, p.words, p.answer)
    # The stated tolerance: with the scale frozen and the centring exact, the sum is exact up to float64 rounding.
    assert abs(sum(parts.values()) + constant - logit) <= 1e-9
    assert res.max_abs_residual <= 1e-9
    assert res.logit == pytest.approx(logit, abs=1e-9)
    assert res.embedding == pytest.approx(parts["embedding"], abs=1e-9)
    for i in range(len(model.blocks)):
        assert res.attn[i] == pytest.approx(parts[f"attn{i}"], abs=1e-9)
        assert res.ffn[i] == pytest.approx(parts[f"ffn{i}"], abs=1e-9)
    assert res.constant == pytest.approx(constant, abs=1e-9)
    # The float64 copy computes what the shipped float32 model computes.
    with torch.no_grad():
        shipped = float(model(torch.tensor([gpt_vocab.vocab().encode(list(p.words))]))[0, -1, gpt_vocab.vocab().encode([p.answer])[0]])
    assert res.logit == pytest.approx(shipped, abs=1e-4)


def test_logit_lens_ends_at_the_models_prediction(model):
    p = _prompts()[1]
    res = attribution.attribute(model, p.words, p.answer)
    nxt = ask.next_token(model, p.words, p.answer)
    assert len(res.lens) == len(model.blocks) + 1
    assert res.lens[-1].top_token == nxt.tokens[0]
    assert res.lens[-1].answer_prob == pytest.approx(nxt.answer_prob, abs=1e-6)
    assert res.lens[-1].answer_rank == nxt.answer_rank


def test_next_token_is_the_softmax_of_the_model(model):
    p = _prompts()[2]
    nxt = ask.next_token(model, p.words, p.answer)
    v = gpt_vocab.vocab()
    with torch.no_grad():
        probs = torch.softmax(model(torch.tensor([v.encode(list(p.words))]))[0, -1].double(), -1)
    order = probs.argsort(descending=True)[:10].tolist()
    assert list(nxt.tokens) == v.decode(order)
    assert list(nxt.probs) == pytest.approx(probs[order].tolist(), abs=1e-6)
    assert list(nxt.probs) == sorted(nxt.probs, reverse=True)
    answer_id = v.encode([p.answer])[0]
    assert nxt.answer_rank == 1 + sum(1 for q in probs.tolist() if q > probs[answer_id])


def test_accuracy_equals_evaluate(model):
    keys = neurons.corpus_keys(model)
    prompts = corpus.prompts("all")
    assert list(keys.predictions) == evaluate.predictions(model, prompts)
    acc = ask.accuracy(model, keys.predictions)
    e = evaluate.evaluate(model)  # the shared definitions, from the corpus sentences the prompts are cut from
    assert acc.seen == pytest.approx(e.fact_accuracy_seen, abs=1e-12)
    assert acc.heldout == pytest.approx(e.fact_accuracy_heldout, abs=1e-12)
    assert sum(n for *_, n in acc.rows) == len(prompts)
    assert sum(c for *_, c, _ in acc.rows) == round(acc.seen * acc.n_seen + acc.heldout * acc.n_heldout)


def _hand_zeroed(model, target):
    twin = copy.deepcopy(model)
    blocks = twin.blocks if target == "ffn_all" else [twin.blocks[int(target.split("_")[1]) - 1]]
    with torch.no_grad():
        for block in blocks:
            out = block.ffn.w_2 if target.startswith("ffn") else block.attn.c_proj
            out.weight.zero_()
            if out.bias is not None:
                out.bias.zero_()
    return twin


@pytest.mark.parametrize("target", ["ffn_all", "ffn_2", "attn_1", "attn_4"])
def test_ablation_equals_hand_zeroed_weights(model, target):
    before = {k: v.clone() for k, v in model.state_dict().items()}
    ablated = ablation.ablated(model, target)
    hand = _hand_zeroed(model, target)
    v = gpt_vocab.vocab()
    for p in _prompts():
        idx = torch.tensor([v.encode(list(p.words))])
        with torch.no_grad():
            assert torch.allclose(ablated(idx), hand(idx), atol=1e-6)
    assert all(torch.equal(before[k], t) for k, t in model.state_dict().items())


def test_ablation_scores_equal_hand_zeroed_scores(model):
    hooked = ablation.scores(ablation.ablated(model, "ffn_all"))
    hand = ablation.scores(_hand_zeroed(model, "ffn_all"))
    assert hooked == hand
    assert ablation.ablate(model, "none", hooked).seen == hooked.seen


def test_unknown_ablation_is_refused(model):
    with pytest.raises(ValueError):
        ablation.ablated(model, "ffn_9")


@pytest.mark.parametrize("method", edit.METHODS)
def test_edit_is_rank_one_and_leaves_the_model_alone(model, method):
    before = {k: v.clone() for k, v in model.state_dict().items()}
    fact = next(f for f in corpus.FACTS if f.relation == "capital")
    new = next(f.answer_en for f in corpus.FACTS if f.relation == "capital" and f.answer_en != fact.answer_en)
    prompts = edit.key_prompts(fact, "en", corpus.template_id("capital", "en", 0), "template")
    layer = 1
    edited, change = edit.rank_one(model, layer, prompts, new, method, steps=5)
    assert torch.linalg.matrix_rank(change).item() == 1
    # The copy's weights are float32: its difference carries float32 rounding, so rank is judged at float32's tolerance.
    diff = edited.blocks[layer].ffn.w_2.weight.double() - model.blocks[layer].ffn.w_2.weight.double()
    assert torch.linalg.matrix_rank(diff, rtol=max(diff.shape) * torch.finfo(torch.float32).eps).item() == 1
    changed = [k for k, t in edited.state_dict().items() if not torch.equal(t, before[k])]
    assert changed == [f"blocks.{layer}.ffn.w_2.weight"]
    assert all(torch.equal(before[k], t) for k, t in model.state_dict().items())
    # At the key k*, the edited W2 writes W2·k* + ΔW·k*: the update is what reached the copy's weights.
    k = neurons.batched_last_hidden(model, prompts)[:, layer].double().mean(0)
    delta = change @ k
    assert torch.allclose(edited.blocks[layer].ffn.w_2.weight.double() @ k,
                          model.blocks[layer].ffn.w_2.weight.double() @ k + delta, atol=1e-4)


def test_edit_measures_on_a_copy(model):
    before = {k: v.clone() for k, v in model.state_dict().items()}
    fact = next(f for f in corpus.FACTS if f.relation == "capital")
    new = next(f.answer_en for f in corpus.FACTS if f.relation == "capital" and f.answer_en != fact.answer_en)
    res = edit.edit(model, fact.country, "capital", "en", corpus.template_id("capital", "en", 0), new, 2, "plain", steps=5)
    assert all(torch.equal(before[k], t) for k, t in model.state_dict().items())
    assert res.other_facts == len(corpus.FACTS) - 1
    assert res.other_prompts == len(corpus.prompts("all")) - sum(p.fact == fact for p in corpus.prompts("all"))
    assert 0 <= res.other_facts_changed <= res.other_facts
    assert res.edited is not None and res.edited[0] == 0.0  # the shipped model never answered the new capital


def test_sparsity_recompute_equals_a_hand_count(model):
    """Active fraction of one checkpoint: every corpus token, one sentence length at a time, counted by hand."""
    step = weights.steps()[-1]
    checkpoint = weights.load(step)
    counts = [0] * len(checkpoint.blocks)
    tokens = 0
    v = gpt_vocab.vocab()
    by_length = {}
    for sentence in corpus.sentences():  # every corpus sentence, held-out ones included, as evaluate counts
        by_length.setdefault(len(sentence.words), []).append(v.encode(list(sentence.words)))
    with torch.no_grad():
        for rows in by_length.values():
            idx = torch.tensor(rows)
            x = checkpoint.wte(idx) + checkpoint.wpe(torch.arange(idx.shape[1]))
            for i, block in enumerate(checkpoint.blocks):
                x = x + block.attn(block.ln_1(x))
                pre = block.ffn.w_1(block.ln_2(x))
                counts[i] += int((pre > 0).sum())
                x = x + block.ffn.w_2(block.ffn.act(pre))
            tokens += idx.numel()
    hand = [c / (tokens * checkpoint.config.d_ff) for c in counts]
    measured = evaluate.active_fraction(checkpoint)
    assert measured == pytest.approx(hand, abs=1e-12)
    assert ablation.scores(model).active == pytest.approx(hand, abs=1e-12)  # the final checkpoint, as the page reads it


def test_parameter_split_counts_every_parameter_once(model):
    s = split.split(model)
    assert s.total == sum(p.numel() for p in model.parameters())
    assert s.count("ffn") == sum(p.numel() for b in model.blocks for p in b.ffn.parameters())
    d, m, n = model.config.d_model, model.config.d_ff, model.config.n_layer
    assert s.count("ffn") == n * (2 * d * m + m + d)  # W1, b1, W2, b2
    assert s.count("attention") == n * (4 * d * d + 4 * d)  # W_qkv, b_qkv, W_o, b_o
    assert s.count("norms") == (2 * n + 1) * 2 * d
    assert s.tied == (model.head.weight is model.wte.weight)


def test_key_readers_are_each_neurons_strongest_prompts(model):
    """The running top-k over batches against a top-k over every prompt's coefficients at once."""
    prompts = corpus.prompts("all")
    keys = neurons.corpus_keys(model)
    hidden = neurons.batched_last_hidden(model, prompts)  # (n_prompts, n_layers, d_ff)
    reference = hidden.topk(neurons.N_PROMPTS, dim=0).values.permute(1, 2, 0)
    assert torch.equal(keys.top_value, reference)
    layer, neuron = 0, int(keys.top_value[0, :, 0].argmax())
    for i, a in zip(keys.top_index[layer, neuron].tolist(), keys.top_value[layer, neuron].tolist()):
        assert hidden[i, layer, neuron].item() == a


def test_key_covariance_is_the_mean_outer_product(model):
    hidden = neurons.batched_last_hidden(model, corpus.prompts("all"))[:, 1].double()
    assert torch.allclose(edit.key_covariance(model, 1), hidden.T @ hidden / hidden.shape[0], atol=1e-10)
