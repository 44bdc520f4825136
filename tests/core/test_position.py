"""Position-wise: explicit loops and permutations, exact Jacobian blocks, attention as the contrast."""
import math

import pytest
import torch

from ffn_core import attention, ffn, position


def _x(n: int, d: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(n, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _block_norms_by_hand(f, x: torch.Tensor) -> torch.Tensor:
    """The whole (n·d)×(n·d) Jacobian, cut into d×d blocks with explicit loops."""
    n, d = x.shape
    jac = torch.autograd.functional.jacobian(lambda v: f(v.view(n, d)).reshape(-1), x.reshape(-1))
    out = torch.zeros(n, n, dtype=torch.float64)
    for i in range(n):
        for j in range(n):
            out[i, j] = jac[i * d : (i + 1) * d, j * d : (j + 1) * d].norm()
    return out


@pytest.mark.parametrize("act", ["none", "relu", "gelu", "silu"])
def test_ffn_influence_is_diagonal_and_matches_the_full_jacobian(act):
    f = ffn.FFN(6, 24, act=act, seed=1, dtype=torch.float64)
    x = _x(5, 6)
    got = position.influence(f, x)
    assert torch.allclose(got, _block_norms_by_hand(f, x), rtol=0, atol=1e-12)
    off = got[~torch.eye(5, dtype=torch.bool)]
    assert torch.all(off == 0)  # exactly, not approximately
    assert torch.all(got.diagonal() > 0)


def test_attention_influence_is_dense_and_matches_the_full_jacobian():
    a = attention.SelfAttention(8, n_heads=2, seed=3, dtype=torch.float64)
    x = _x(5, 8, seed=1)
    got = position.influence(a, x)
    assert torch.allclose(got, _block_norms_by_hand(a, x), rtol=0, atol=1e-12)
    assert torch.all(got > 1e-6)


def test_causal_attention_influence_is_lower_triangular():
    a = attention.SelfAttention(8, n_heads=1, causal=True, seed=3, dtype=torch.float64)
    got = position.influence(a, _x(6, 8))
    assert torch.all(got.triu(1) == 0)
    lower = torch.ones(6, 6, dtype=torch.bool).tril()
    assert torch.all(got[lower] > 1e-6)


def test_attention_against_a_per_head_loop():
    d, h, n = 8, 2, 4
    a = attention.SelfAttention(d, n_heads=h, seed=5, dtype=torch.float64)
    x = _x(n, d, seed=2)
    w_q, w_k, w_v, w_o = (layer.weight.detach() for layer in (a.w_q, a.w_k, a.w_v, a.w_o))
    heads = []
    for k in range(h):
        cols = slice(k * d // h, (k + 1) * d // h)
        q, kk, v = x @ w_q[cols].T, x @ w_k[cols].T, x @ w_v[cols].T
        heads.append(torch.softmax(q @ kk.T / math.sqrt(d // h), dim=-1) @ v)
    by_hand = torch.cat(heads, dim=1) @ w_o.T
    with torch.no_grad():
        assert torch.allclose(a(x), by_hand, rtol=0, atol=1e-13)
        weights = a.weights(x)
    assert torch.allclose(weights.sum(-1), torch.ones(h, n, dtype=torch.float64))


def test_ffn_row_loop_and_permutation_by_hand():
    # The property the page claims, checked here without position.measure.
    f = ffn.FFN(16, 64, act="gelu", seed=2, dtype=torch.float64)
    x = _x(7, 16, seed=4)
    perm = [3, 6, 0, 1, 5, 2, 4]
    with torch.no_grad():
        whole = f(x)
        rows = torch.stack([f(x[i]) for i in range(7)])
        permuted = f(x[perm])
    assert (whole - rows).abs().max() <= 1e-12
    for k, src in enumerate(perm):
        assert (permuted[k] - whole[src]).abs().max() <= 1e-12


@pytest.mark.parametrize("seed", range(5))
def test_report_is_exact_for_the_first_seeds(seed):
    rep = position.report(seed)
    assert set(rep) == {"n_tokens", "d_model", "rowwise_max_abs_diff", "permutation_max_abs_diff"}
    assert (rep["n_tokens"], rep["d_model"]) == (8, 64)
    assert 0 <= rep["rowwise_max_abs_diff"] <= 1e-12
    assert 0 <= rep["permutation_max_abs_diff"] <= 1e-12


@pytest.mark.parametrize("act", ["none", "relu", "gelu", "silu"])
def test_measure_ffn_position_wise_attention_not(act):
    res = position.measure(6, 16, 64, act, n_heads=2, seed=1)
    assert res.rowwise_max_abs_diff <= 1e-12
    assert res.permutation_max_abs_diff <= 1e-12
    assert res.ffn_off_diagonal_fraction == 0.0
    assert 0.5 < res.attention_off_diagonal_fraction < 1
    # Attention applied to one token at a time sees only that token: a different result.
    assert res.attention_rowwise_max_abs_diff > 1e-3
    # Without a mask or positions, attention is permutation-equivariant too; mixing is the difference.
    assert res.attention_permutation_max_abs_diff <= 1e-12


def test_causal_mask_breaks_attention_equivariance():
    res = position.measure(8, 16, 64, "relu", causal=True, perm="reverse", seed=0)
    assert res.attention_permutation_max_abs_diff > 1e-3
    assert res.permutation_max_abs_diff <= 1e-12
    upper = [res.attention_influence[i][j] for i in range(8) for j in range(i + 1, 8)]
    assert all(v == 0 for v in upper)


def test_permutations():
    g = torch.Generator().manual_seed(0)
    assert position.permutation(4, "reverse", g).tolist() == [3, 2, 1, 0]
    assert position.permutation(4, "roll", g).tolist() == [3, 0, 1, 2]
    assert sorted(position.permutation(9, "random", g).tolist()) == list(range(9))
    res = position.measure(5, 8, 16, perm="reverse")
    assert res.permutation == (4, 3, 2, 1, 0)
    assert len(res.permutation_row_diffs) == 5


def test_off_diagonal_fraction():
    m = torch.tensor([[1.0, 1.0], [0.0, 2.0]])
    assert position.off_diagonal_fraction(m) == pytest.approx(0.25)
    assert position.off_diagonal_fraction(torch.eye(3)) == 0.0


def test_frame_and_plain_values():
    res = position.measure(4, 8, 32, seed=2)
    frame = res.to_frame()
    assert len(frame) == 2 * 4 * 4
    assert set(frame["model"]) == {"ffn", "attention"}
    row = frame[(frame["model"] == "attention") & (frame["i"] == 1) & (frame["j"] == 3)]
    assert row["influence"].item() == res.attention_influence[1][3]
    assert all(isinstance(v, float) for r in res.ffn_influence for v in r)


def test_same_seed_same_result_and_no_global_rng():
    before = torch.get_rng_state()
    a = position.measure(4, 8, 32, "gelu", seed=9)
    assert torch.equal(before, torch.get_rng_state())
    assert a == position.measure(4, 8, 32, "gelu", seed=9)
    assert a != position.measure(4, 8, 32, "gelu", seed=10)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_tokens": 1},
        {"n_tokens": 33, "d_model": 8},
        {"d_model": 129, "n_tokens": 2},
        {"n_tokens": 32, "d_model": 64},  # n·d over the Jacobian budget
        {"d_ff": 513},
        {"n_heads": 3},
        {"act": "tanh"},
        {"perm": "shuffle"},
    ],
)
def test_bounds(kwargs):
    with pytest.raises(ValueError):
        position.measure(**kwargs)


def test_attention_rejects_heads_that_do_not_divide():
    with pytest.raises(ValueError):
        attention.SelfAttention(10, n_heads=4)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_permutation_is_never_the_identity(n):
    for seed in range(40):
        g = torch.Generator().manual_seed(seed)
        p = position.permutation(n, "random", g).tolist()
        assert sorted(p) == list(range(n)) and p != list(range(n))


def test_block_mixes_tokens_through_attention():
    res = position.block_influence(5, 8, 32, "gelu", 2, False, 3)
    ffn_map = torch.tensor(res.ffn_influence)
    assert (ffn_map - torch.diag(torch.diag(ffn_map))).abs().max() == 0
    assert res.block_off_diagonal_fraction > 0.05
    causal = position.block_influence(5, 8, 32, "gelu", 2, True, 3)
    assert all(causal.block_influence[i][j] == 0 for i in range(5) for j in range(i + 1, 5))


def test_sequential_is_the_same_module():
    res = position.sequential_check(3, 5, 8, 32, seed=1)
    assert (res.input_shape, res.hidden_shape, res.output_shape) == ((3, 5, 8), (3, 5, 32), (3, 5, 8))
    assert res.max_abs_diff <= 1e-12
