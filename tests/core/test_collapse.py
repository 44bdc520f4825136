"""Linear collapse: W2·W1 against hand-built references, rank bounds, the seed's figures."""
import math

import pytest
import torch

from ffn_core import collapse, ffn


def _net(d: int, m: int, act: str = "none", bias: bool = True, seed: int = 0) -> ffn.FFN:
    return ffn.FFN(d, m, act=act, bias=bias, seed=seed, dtype=torch.float64)


def test_collapsed_matrix_is_the_sum_of_outer_products():
    net = _net(6, 10)
    w, b = collapse.collapsed(net)
    w_1, b_1 = net.w_1.weight.detach(), net.w_1.bias.detach()
    w_2, b_2 = net.w_2.weight.detach(), net.w_2.bias.detach()
    by_hand = torch.zeros(6, 6, dtype=torch.float64)
    for i in range(10):  # neuron i: column i of W2 times row i of W1
        by_hand += torch.outer(w_2[:, i], w_1[i])
    bias_by_hand = b_2.clone()
    for i in range(10):
        bias_by_hand += w_2[:, i] * b_1[i]
    assert torch.allclose(w, by_hand, rtol=0, atol=1e-14)
    assert torch.allclose(b, bias_by_hand, rtol=0, atol=1e-14)


def test_collapsed_matrix_is_what_the_linear_ffn_does_to_basis_vectors():
    net = _net(5, 7)
    w, b = collapse.collapsed(net)
    with torch.no_grad():
        at_zero = net(torch.zeros(1, 5, dtype=torch.float64))[0]
        columns = net(torch.eye(5, dtype=torch.float64)) - at_zero  # row k = W·e_k
    assert torch.allclose(b, at_zero, rtol=0, atol=1e-14)
    assert torch.allclose(w, columns.T, rtol=0, atol=1e-14)


@pytest.mark.parametrize("seed", range(5))
def test_report_reproduces_the_seed_figures(seed):
    rep = collapse.report(seed)
    assert set(rep) == {"d_model", "d_ff", "rank", "two_layer_params", "single_matrix_params", "max_abs_residual"}
    assert (rep["d_model"], rep["d_ff"], rep["rank"]) == (64, 256, 64)
    assert rep["two_layer_params"] == 32_768
    assert rep["single_matrix_params"] == 4_096
    assert 0 <= rep["max_abs_residual"] <= 1e-12


def test_parameter_counts_match_the_modules_numel():
    for bias in (False, True):
        res = collapse.measure(64, 256, "none", bias=bias, seed=0)
        two = sum(p.numel() for p in _net(64, 256, bias=bias).parameters())
        one = 64 * 64 + (64 if bias else 0)
        assert res.two_layer_params == two
        assert res.single_matrix_params == one
    assert collapse.measure(64, 256, bias=True).two_layer_params == 32_768 + 256 + 64


@pytest.mark.parametrize("bias", [False, True])
def test_one_matrix_replaces_both_layers_without_activation(bias):
    res = collapse.measure(32, 128, "none", bias=bias, seed=3)
    assert res.max_abs_residual <= 1e-12
    assert res.output_scale > 0.1  # the residual is small against outputs of a real size
    assert res.fit_relative_error <= 1e-10


@pytest.mark.parametrize("act", ["relu", "gelu", "silu"])
def test_no_single_affine_map_fits_an_activation(act):
    res = collapse.measure(32, 128, act, bias=True, seed=1)
    assert res.fit_relative_error > 0.1
    assert res.max_abs_residual > 0.1  # W2·W1 is not the function any more


@pytest.mark.parametrize(("d", "m"), [(64, 256), (64, 64), (64, 16), (8, 3), (16, 1)])
def test_rank_never_exceeds_min_d_m(d, m):
    res = collapse.measure(d, m, "none", seed=2)
    assert res.rank_bound == min(d, m)
    assert res.rank <= min(d, m)
    # Random weights: full rank up to the bound, in the expansion and the bottleneck alike.
    assert res.rank == min(d, m)


def test_bottleneck_leaves_zero_singular_values():
    res = collapse.measure(64, 16, "none", seed=0)
    s = res.singular_values
    assert res.rank == 16
    assert len(s) == 64
    assert list(s) == sorted(s, reverse=True)
    assert min(s[:16]) > 1e-3
    assert max(s[16:]) < 1e-12 * s[0]
    frame = res.to_frame()
    assert len(frame) == 64
    assert int(frame["counted"].sum()) == 16


def test_singular_values_match_numpy_free_reference():
    res = collapse.measure(8, 32, "none", seed=4)
    w, _ = collapse.collapsed(_net(8, 32, bias=False, seed=4))
    # Singular values are the square roots of the eigenvalues of WᵀW.
    eig = torch.linalg.eigvalsh(w.T @ w).flip(0).clamp(min=0).sqrt()
    assert torch.allclose(torch.tensor(res.singular_values, dtype=torch.float64), eig, atol=1e-12)


def test_effective_rank():
    assert collapse.effective_rank(torch.ones(7, dtype=torch.float64)) == pytest.approx(7)
    assert collapse.effective_rank(torch.tensor([1.0, 0.0, 0.0], dtype=torch.float64)) == pytest.approx(1)
    res = collapse.measure(64, 256, seed=0)
    assert 1 < res.effective_rank < res.rank


def test_same_seed_same_result_and_no_global_rng():
    before = torch.get_rng_state()
    a = collapse.measure(16, 32, "relu", bias=True, seed=7)
    b = collapse.measure(16, 32, "relu", bias=True, seed=7)
    assert torch.equal(before, torch.get_rng_state())
    assert a == b
    assert collapse.measure(16, 32, "relu", bias=True, seed=8) != a


def test_result_is_plain_values():
    res = collapse.measure(8, 16, "gelu", seed=0)
    assert all(isinstance(v, float) for v in res.singular_values)
    assert isinstance(res.rank, int) and isinstance(res.max_abs_residual, float)
    assert not math.isnan(res.fit_relative_error)


@pytest.mark.parametrize(
    ("d", "m", "act"), [(1, 8, "none"), (257, 8, "none"), (8, 0, "none"), (8, 1025, "none"), (8, 8, "tanh")]
)
def test_bounds(d, m, act):
    with pytest.raises(ValueError):
        collapse.measure(d, m, act)


def test_fit_sample_is_the_measured_fit():
    res = collapse.measure(16, 32, "relu", False, 3)
    sample = collapse.fit_sample(16, 32, "relu", False, 3, points=1024)
    actual, predicted = torch.tensor(sample.actual), torch.tensor(sample.predicted)
    # The same layer, inputs and fit: the largest error of feature 0 is within the measured largest error.
    assert (actual - predicted).abs().max() <= res.fit_max_abs_error + 1e-12
    assert (actual - predicted).abs().max() > 0.01
    assert len(sample.to_frame()) == 1024
