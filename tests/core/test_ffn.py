"""The shared FFN module against the formula written out by hand."""
import math

import pytest
import torch

from ffn_core import ffn


def _x(n: int, d: int, seed: int = 1) -> torch.Tensor:
    return torch.randn(n, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


@pytest.mark.parametrize("act", ffn.ACTIVATIONS)
def test_forward_is_the_formula(act):
    net = ffn.FFN(6, 24, act=act, seed=3, dtype=torch.float64)
    x = _x(5, 6)
    w1, b1, w2, b2 = net.w_1.weight, net.w_1.bias, net.w_2.weight, net.w_2.bias
    fns = {"none": lambda z: z, "relu": lambda z: z.clamp_min(0),
           "gelu": lambda z: 0.5 * z * (1 + torch.erf(z / math.sqrt(2))), "silu": lambda z: z / (1 + torch.exp(-z))}
    expected = (fns[act](x @ w1.T + b1)) @ w2.T + b2
    assert torch.allclose(net(x), expected, atol=1e-14, rtol=0)


def test_glu_has_three_matrices_and_gates():
    net = ffn.FFN(8, 16, act="silu", glu=True, bias=False, dtype=torch.float64)
    assert sum(p.numel() for p in net.parameters()) == 3 * 8 * 16
    x = _x(4, 8)
    a = x @ net.w_1.weight.T
    expected = (a * torch.sigmoid(a) * (x @ net.w_3.weight.T)) @ net.w_2.weight.T
    assert torch.allclose(net(x), expected, atol=1e-14, rtol=0)


def test_same_seed_same_weights_and_the_global_generator_is_untouched():
    before = torch.random.get_rng_state()
    a, b, c = (ffn.FFN(16, 64, seed=s) for s in (7, 7, 8))
    assert torch.equal(torch.random.get_rng_state(), before)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    assert not torch.equal(a.w_1.weight, c.w_1.weight)


@pytest.mark.parametrize(("init", "std"), [("default", 1 / math.sqrt(3 * 256)), ("xavier", math.sqrt(2 / (256 + 1024))),
                                           ("normal", 0.02), ("kaiming", math.sqrt(2 / 256))])
def test_init_schemes_have_their_spread(init, std):
    w = ffn.FFN(256, 1024, init=init, seed=0).w_1.weight
    assert w.std().item() == pytest.approx(std, rel=0.02)
    assert abs(w.mean().item()) < 0.02 * std * 10


def test_unknown_names_are_refused():
    with pytest.raises(ValueError):
        ffn.FFN(4, 8, act="tanh")
    with pytest.raises(ValueError):
        ffn.FFN(4, 8, init="orthogonal")
