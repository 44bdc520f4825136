"""The MoE layer against an explicit loop over tokens and experts, numel() sums and the published totals."""
import pytest
import torch

from ffn_core import ffn, moe, moe_presets


def _layer(k=2, e=4):
    return moe.MoE(8, 16, e, k, seed=1, dtype=torch.float64)


@pytest.mark.parametrize("k", (1, 2, 3))
def test_forward_equals_the_loop(k):
    layer = _layer(k)
    x = torch.randn(20, 8, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    with torch.no_grad():
        assert torch.allclose(layer(x), moe.loop_forward(layer, x), atol=1e-14)


def test_counts_from_modules():
    res = moe.measure(16, 32, 4, 2, 64, 0)
    expert = ffn.FFN(16, 32)
    one = sum(p.numel() for p in expert.parameters())
    assert res.expert_params == one == 2 * 16 * 32 + 32 + 16
    assert res.router_params == 16 * 4
    assert res.total_params == 4 * one + 16 * 4
    assert res.routing(1).active_params == one + 64 and res.routing(2).active_params == 2 * one + 64


def test_routing_counts_and_balance_by_hand():
    res = moe.measure(16, 32, 4, 2, 64, 3)
    for r in res.routings:
        assert sum(r.tokens_per_expert) == 64 * r.k
        f = [n / (64 * r.k) for n in r.tokens_per_expert]
        assert r.balance_loss == pytest.approx(4 * sum(fi * pi for fi, pi in zip(f, r.mean_prob)))
        assert sum(r.mean_prob) == pytest.approx(1.0)
    # Uniform routing scores exactly 1.
    probs = torch.full((8, 4), 0.25, dtype=torch.float64)
    chosen = torch.tensor([[0], [1], [2], [3], [0], [1], [2], [3]])
    assert float(moe.load_balance_loss(probs, chosen, 4)) == pytest.approx(1.0)
    # Everything to one expert, which the router also favours: the loss grows to E·P_0.
    probs = torch.tensor([[0.7, 0.1, 0.1, 0.1]] * 8, dtype=torch.float64)
    assert float(moe.load_balance_loss(probs, torch.zeros(8, 1, dtype=torch.long), 4)) == pytest.approx(4 * 0.7)


def test_still_position_wise():
    res = moe.measure(seed=0)
    assert res.rowwise_max_abs_diff < 1e-14
    assert res.permutation_max_abs_diff < 1e-14
    assert res.off_diagonal_fraction == 0.0
    assert res.loop_max_abs_diff < 1e-14


def test_drop_removes_exactly_one_expert():
    layer = _layer(2)
    x = torch.randn(30, 8, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    with torch.no_grad():
        _, chosen, weights = layer.route(x)
        dropped = layer(x, drop=1)
        for t in range(30):
            ref = sum(w * layer.experts[e](x[t]) for e, w in zip(chosen[t].tolist(), weights[t]) if e != 1)
            assert torch.allclose(dropped[t], ref if torch.is_tensor(ref) else torch.zeros(8, dtype=torch.float64),
                                  atol=1e-14)


@pytest.mark.parametrize("preset", moe_presets.PRESETS, ids=moe_presets.IDS)
def test_published_totals(preset):
    c = moe_presets.count(preset)
    # Published figures are rounded (46.7B, 671B, 235B): our count must land within their rounding, or 2% for "37B".
    assert abs(c.total_gap) < 0.005, (c.total, c.published_total)
    assert abs(c.active_gap) < 0.02, (c.active, c.published_active)
    assert c.total == c.embeddings + c.attention + c.norms + c.router + c.experts + c.shared
    assert c.active == c.total - c.experts + c.experts_active


def test_mixtral_by_modules():
    # Mixtral's layer as modules on the meta device: attention (GQA), eight SwiGLU experts, the router, two norms.
    from ffn_core import params
    p = moe_presets.get("mixtral-8x7b")
    attn = params.numel(params.attention_module(p.d_model, p.n_heads, p.n_kv_heads, False))
    expert = params.numel(params.ffn_module(p.d_model, p.expert_d_ff, True, False))
    layer = attn + 8 * expert + 8 * p.d_model + 2 * p.d_model
    total = p.n_layers * layer + 2 * p.vocab * p.d_model + p.d_model
    assert moe_presets.count(p).total == total
    assert round(total / 1e9, 1) == 46.7
    assert round(moe_presets.count(p).active / 1e9, 1) == 12.9


def test_bad_input():
    for bad in ({"n_experts": 0}, {"k": 9}, {"d_model": 1000}, {"n_tokens": 2}):
        with pytest.raises(ValueError):
            moe.measure(**bad)
