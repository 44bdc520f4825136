"""The gated FFN against independent references: a hand-written W₂(act(W₁x) ⊙ W₃x), numel() sums, 8d²."""
import pytest
import torch

from ffn_core import collapse, ffn, gated, params
from ffn_core.sweep import gated as gated_sweep


def test_the_module_computes_the_formula():
    net = ffn.FFN(12, 32, act="silu", bias=False, glu=True, seed=3, dtype=torch.float64)
    x = torch.randn(5, 12, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    w1, w2, w3 = net.w_1.weight, net.w_2.weight, net.w_3.weight
    by_hand = torch.stack([w2 @ (torch.nn.functional.silu(w1 @ xi) * (w3 @ xi)) for xi in x])
    assert torch.allclose(net(x), by_hand, rtol=0, atol=1e-13)


@pytest.mark.parametrize("d", gated.D_MODELS)
def test_eight_thirds_keeps_eight_d_squared(d):
    res = gated.measure(d, "none", 0, 0)
    assert res.d_ff * 3 == 8 * d
    glu = ffn.FFN(d, 8 * d // 3, bias=False, glu=True)
    plain = ffn.FFN(d, 4 * d, bias=False)
    assert res.gated_params == sum(p.numel() for p in glu.parameters()) == 8 * d * d
    assert res.plain_params == sum(p.numel() for p in plain.parameters()) == 8 * d * d
    assert res.gated_4d_params == 12 * d * d
    assert res.attention_params == 4 * d * d


def test_without_its_activation_the_gated_ffn_is_not_one_matrix():
    res = gated.measure(96, "none", 0, 0)
    # Gaussian inputs: a quadratic form has no linear part, so the best affine map explains nothing.
    assert res.gated_fit_error > 0.9
    assert res.plain_collapse_residual < 1e-13
    assert res.plain_fit_error < 1e-12


def test_the_quadratic_form_by_hand():
    # Per output: Σ_i W2[o,i]·(w1_i·x)(w3_i·x) = xᵀ A_o x with A_o = Σ_i W2[o,i] w1_i w3_iᵀ.
    net = ffn.FFN(6, 16, act="none", bias=False, glu=True, seed=2, dtype=torch.float64)
    w1, w2, w3 = net.w_1.weight, net.w_2.weight, net.w_3.weight
    x = torch.randn(4, 6, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    for o in range(6):
        a = sum(w2[o, i] * torch.outer(w1[i], w3[i]) for i in range(16))
        assert torch.allclose(net(x)[:, o], torch.einsum("ni,ij,nj->n", x, a, x), atol=1e-13)
    # f(2x) = 4 f(x): homogeneous of degree two, which no affine map but 0 is.
    assert torch.allclose(net(2 * x), 4 * net(x), atol=1e-12)


def test_the_gate_on_one_token():
    res = gated.measure(96, "silu", 5, 0)
    z = torch.tensor(res.pre, dtype=torch.float64)
    v = torch.tensor(res.value, dtype=torch.float64)
    relu = res.gate("relu")
    # The same W₁: ReLU's active units are exactly those the gate does not turn down.
    assert res.relu_active + relu.turned_down == pytest.approx(1.0)
    assert relu.leak == 0.0
    for g in res.gates:
        h = ffn.activation(g.act)(z) * v
        down = (z < 0)
        assert g.turned_down == pytest.approx(float(down.double().mean()))
        assert g.leak == pytest.approx(float(h[down].abs().sum() / h.abs().sum()))
        assert g.negative == pytest.approx(sum(1 for hi in h.tolist() if hi < 0) / len(h))
    # SiLU's negative side dips to −0.28, GELU's to −0.17: SiLU lets more through than GELU, ReLU nothing.
    assert res.gate("silu").leak > res.gate("gelu").leak > 0
    assert 0.4 < res.gate("silu").mean_turned_down < 0.6


def test_report_keys():
    r = gated.report(0)
    assert r["gated_params"] == r["plain_params"] == 8 * 96 * 96
    assert r["ffn_share"] == pytest.approx(2 / 3)
    assert r["bilinear_fit_error"] > 0.9 and r["plain_collapse_residual"] < 1e-13


def test_equal_weights_in_the_width_fit():
    for j in gated_sweep.JS:
        assert gated_sweep.params("plain", gated_sweep.plain_width(j)) == gated_sweep.params("gated", gated_sweep.gated_width(j))


def test_width_fit_against_a_loop():
    res = gated_sweep.fit("square", js=(1,), act="relu", seed=0)
    x = torch.tensor(res.x, dtype=torch.float64)
    y = x * x
    for f in (*res.plain, *res.gated):
        curve = torch.tensor(f.curve, dtype=torch.float64)
        assert f.rmse == pytest.approx(float(((curve - y) ** 2).mean().sqrt()), rel=1e-9)
    # A ReLU-gated unit is quadratic on each side of its kink, so x² is within its reach; a plain one's pieces are straight.
    assert res.gated[0].rmse < 0.1 * res.plain[0].rmse


def test_features_are_the_formula():
    x = torch.linspace(-2, 2, 9, dtype=torch.float64)
    w, b, u, e = (torch.tensor([[0.5, -1.0]], dtype=torch.float64) for _ in range(4))
    mask = torch.ones(1, 2, dtype=torch.float64)
    h = gated_sweep.features(torch.ones(1, dtype=torch.float64), (w, b, u, e), mask, x, "relu")[0]
    for n, xn in enumerate(x.tolist()):
        for i in range(2):
            zi = w[0, i].item() * xn + b[0, i].item()
            assert h[n, i].item() == pytest.approx(max(zi, 0.0) * (u[0, i].item() * xn + e[0, i].item()))
    plain = gated_sweep.features(torch.zeros(1, dtype=torch.float64), (w, b, u, e), mask, x, "relu")[0]
    assert torch.equal(plain, torch.relu(x[:, None] * w[0] + b[0]))


def test_bad_input():
    with pytest.raises(ValueError):
        gated.measure(1000)
    with pytest.raises(ValueError):
        gated.measure(96, "tanh")
    with pytest.raises(ValueError):
        gated_sweep.fit(js=(9,))
