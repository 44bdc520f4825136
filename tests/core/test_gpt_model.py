"""The GPT's shape: its parameter count, causality, and each block against a hand-written forward."""
import math

import torch

from ffn_core.gpt import model

CONFIG = model.GPTConfig(vocab_size=997, block_size=16)


def hand_layer_norm(x, ln):
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + ln.eps) * ln.weight + ln.bias


def hand_attention(x, attn, n_head):
    T, C = x.shape
    hs = C // n_head
    qkv = x @ attn.c_attn.weight.T + attn.c_attn.bias
    q, k, v = qkv[:, :C], qkv[:, C : 2 * C], qkv[:, 2 * C :]
    heads = []
    for h in range(n_head):
        cols = slice(h * hs, (h + 1) * hs)
        scores = q[:, cols] @ k[:, cols].T / math.sqrt(hs)
        scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
        heads.append(torch.softmax(scores, dim=-1) @ v[:, cols])
    return torch.cat(heads, dim=-1) @ attn.c_proj.weight.T + attn.c_proj.bias


def hand_ffn(x, f):
    h = torch.clamp(x @ f.w_1.weight.T + f.w_1.bias, min=0)
    return h @ f.w_2.weight.T + f.w_2.bias


def hand_block(x, block, n_head):
    x = x + hand_attention(hand_layer_norm(x, block.ln_1), block.attn, n_head)
    return x + hand_ffn(hand_layer_norm(x, block.ln_2), block.ffn)


def trained_like(seed: int = 3) -> model.GPT:
    """A float64 model whose norms and biases are not at their init values, so every term is tested."""
    m = model.GPT(CONFIG).double()
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in m.parameters():
            p.add_(0.05 * torch.randn(p.shape, generator=g, dtype=p.dtype))
    return m


def test_parameter_count_matches_the_formula():
    m = model.GPT(CONFIG)
    V, T, d, f, L = CONFIG.vocab_size, CONFIG.block_size, CONFIG.d_model, CONFIG.d_ff, CONFIG.n_layer
    per_block = 2 * 2 * d + (3 * d * d + 3 * d) + (d * d + d) + (d * f + f) + (f * d + d)
    expected = V * d + T * d + L * per_block + 2 * d  # the head is the token embedding: counted once
    assert sum(p.numel() for p in m.parameters()) == expected
    assert expected < 1_500_000
    assert m.head.weight is m.wte.weight


def test_block_equals_hand_written_steps():
    m = trained_like()
    x = torch.randn(9, CONFIG.d_model, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    for block in m.blocks:
        got = block(x[None])[0]
        assert torch.allclose(got, hand_block(x, block, CONFIG.n_head), atol=1e-12, rtol=0)


def test_model_equals_hand_written_forward():
    m = trained_like()
    idx = torch.randint(0, CONFIG.vocab_size, (2, 11), generator=torch.Generator().manual_seed(2))
    for row in range(2):
        x = m.wte.weight[idx[row]] + m.wpe.weight[: idx.shape[1]]
        for block in m.blocks:
            x = hand_block(x, block, CONFIG.n_head)
        logits = hand_layer_norm(x, m.ln_f) @ m.wte.weight.T
        assert torch.allclose(m(idx)[row], logits, atol=1e-10, rtol=0)


def test_later_tokens_never_change_earlier_logits():
    m = model.GPT(CONFIG).eval()
    g = torch.Generator().manual_seed(4)
    idx = torch.randint(0, CONFIG.vocab_size, (1, 12), generator=g)
    base = m(idx)
    for t in (3, 7, 11):
        changed = idx.clone()
        changed[0, t:] = torch.randint(0, CONFIG.vocab_size, (12 - t,), generator=g)
        out = m(changed)
        assert torch.allclose(out[0, :t], base[0, :t], atol=1e-6, rtol=0)
        assert not torch.allclose(out[0, t], base[0, t], atol=1e-3)


def test_init_comes_from_the_seed_only():
    before = torch.get_rng_state()
    a, b = model.GPT(CONFIG), model.GPT(CONFIG)
    assert torch.equal(torch.get_rng_state(), before)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    c = model.GPT(model.GPTConfig(vocab_size=997, block_size=16, seed=1))
    assert not torch.equal(a.wte.weight, c.wte.weight)
    # GPT-2's scales: N(0, 0.02), the residual projections 0.02/sqrt(2 L).
    assert abs(float(a.wte.weight.detach().std()) - 0.02) < 1e-3
    assert abs(float(a.blocks[0].ffn.w_2.weight.detach().std()) - 0.02 / math.sqrt(2 * CONFIG.n_layer)) < 5e-4
    assert float(a.blocks[0].ffn.w_1.bias.detach().abs().max()) == 0.0


def test_gelu_option():
    m = model.GPT(model.GPTConfig(vocab_size=50, block_size=8, act="gelu"))
    assert isinstance(m.blocks[0].ffn.act, torch.nn.GELU)
    assert m(torch.zeros(1, 8, dtype=torch.long)).shape == (1, 8, 50)


def test_importing_the_package_runs_nothing():
    from tests.conftest import fresh_import

    lines = fresh_import("from ffn_core.gpt import corpus, evaluate, facts, model, train, vocab, weights",
                         ("streamlit", "altair", "sympy"))
    assert lines == ["[]"]  # one line: no module prints on import, and none of those loaded
