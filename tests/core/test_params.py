"""ffn_core.params against independent references: real CPU modules and hand-written shape sums."""
from __future__ import annotations

import json
import pickle
import resource
from fractions import Fraction

import pytest
import torch
from torch import nn

from ffn_core import ffn, params

def _cpu_attention(d: int, h: int, h_kv: int, bias: bool) -> int:
    # Real CPU layers (skip_init keeps the global generator untouched), counted by numel.
    d_h = d // h
    layers = [
        nn.utils.skip_init(nn.Linear, d, h * d_h, bias=bias),
        nn.utils.skip_init(nn.Linear, d, h_kv * d_h, bias=bias),
        nn.utils.skip_init(nn.Linear, d, h_kv * d_h, bias=bias),
        nn.utils.skip_init(nn.Linear, h * d_h, d, bias=bias),
    ]
    return sum(p.numel() for layer in layers for p in layer.parameters())


def _cpu_ffn(d: int, d_ff: int, glu: bool, bias: bool) -> int:
    module = ffn.FFN(d, d_ff, act="silu" if glu else "relu", bias=bias, glu=glu)
    assert all(p.device.type == "cpu" for p in module.parameters())
    return sum(p.numel() for p in module.parameters())


def _shape_sum(shapes: list[tuple[int, ...]]) -> int:
    total = 0
    for shape in shapes:
        size = 1
        for n in shape:
            size *= n
        total += size
    return total


GRID = [
    (d, h, h_kv, d_ff, bias, glu)
    for d, heads in ((8, (1, 2, 8)), (48, (1, 3, 4, 12)), (96, (4, 8)))
    for h in heads
    for h_kv in [k for k in range(1, h + 1) if h % k == 0]
    for d_ff in (1, 3 * d + 1)
    for bias in (False, True)
    for glu in (False, True)
]


@pytest.mark.parametrize("d, h, h_kv, d_ff, bias, glu", GRID)
def test_modules_formula_and_cpu_modules_agree(d, h, h_kv, d_ff, bias, glu):
    s = params.block(d, d_ff, h, h_kv, bias=bias, glu=glu)
    d_h = d // h
    attention_shapes = [(d, h * d_h), (d, h_kv * d_h), (d, h_kv * d_h), (h * d_h, d)]
    if bias:
        attention_shapes += [(h * d_h,), (h_kv * d_h,), (h_kv * d_h,), (d,)]
    ffn_shapes = [(d, d_ff), (d_ff, d)] + ([(d, d_ff)] if glu else [])
    if bias:
        ffn_shapes += [(d_ff,), (d,)] + ([(d_ff,)] if glu else [])
    assert s.attention_params == s.attention_formula == _shape_sum(attention_shapes) == _cpu_attention(d, h, h_kv, bias)
    assert s.ffn_params == s.ffn_formula == _shape_sum(ffn_shapes) == _cpu_ffn(d, d_ff, glu, bias)
    assert s.agree
    assert s.to_frame()["params"].sum() == s.attention_params + s.ffn_params


def test_seed_figures_exact():
    s = params.split(512, "4", 8, 8, bias=False, glu=False)
    assert s.d_ff == 2048
    assert s.attention_params == 1_048_576 == 4 * 512**2
    assert s.ffn_params == 2_097_152 == 8 * 512**2
    assert s.ffn_share_exact() == Fraction(2, 3)


@pytest.mark.parametrize("d", [64, 100, 768, 4096, 8192])
def test_share_is_two_thirds_at_expansion_4_without_glu(d):
    assert params.split(d, "4", 4, 4).ffn_share_exact() == Fraction(2, 3)


@pytest.mark.parametrize("d", [96, 768, 1536, 3072])
def test_swiglu_at_eight_thirds_keeps_8d2_exactly_when_3_divides_d(d):
    s = params.split(d, "8/3", 8, 8, glu=True)
    assert s.d_ff * 3 == 8 * d
    assert s.ffn_params == 8 * d * d
    assert s.ffn_share_exact() == Fraction(2, 3)


@pytest.mark.parametrize("d", [64, 512, 640, 4096, 8192])
def test_swiglu_at_eight_thirds_rounds_d_ff_to_nearest(d):
    s = params.split(d, "8/3", 8, 8, glu=True)
    assert abs(Fraction(s.d_ff) - Fraction(8 * d, 3)) <= Fraction(1, 2)
    # rounding d_ff by at most 1/2 moves 3·d·d_ff by at most 1.5·d away from 8d²
    assert abs(s.ffn_params - 8 * d * d) <= Fraction(3, 2) * d
    assert s.ffn_params != 8 * d * d  # 3 does not divide these d: the 8d² is approximate, and we say so


def test_d_ff_rounding():
    assert params.d_ff_for(512, "8/3") == 1365  # 1365.33
    assert params.d_ff_for(640, "8/3") == 1707  # 1706.67
    assert params.d_ff_for(3, "1/2") == 2  # 1.5 rounds half up
    assert params.d_ff_for(512, "4") == 2048


@pytest.mark.parametrize("bad", ["0", "-1", "9", "abc", "1/0", "<script>", "", "nan", "inf"])
def test_bad_expansion_raises(bad):
    with pytest.raises(ValueError):
        params.parse_expansion(bad)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(d_model=8193, d_ff=8, n_heads=1, n_kv_heads=1),
        dict(d_model=0, d_ff=8, n_heads=1, n_kv_heads=1),
        dict(d_model=64, d_ff=65537, n_heads=1, n_kv_heads=1),
        dict(d_model=64, d_ff=8, n_heads=3, n_kv_heads=1),  # 3 does not divide 64
        dict(d_model=64, d_ff=8, n_heads=8, n_kv_heads=3),  # 3 does not divide 8
        dict(d_model=64, d_ff=8, n_heads=8, n_kv_heads=16),
        dict(d_model=True, d_ff=8, n_heads=1, n_kv_heads=1),
        dict(d_model=64.0, d_ff=8, n_heads=1, n_kv_heads=1),
        dict(d_model=64, d_ff=8, n_heads=1, n_kv_heads=1, norm="batchnorm"),
    ],
)
def test_bounds(kwargs):
    with pytest.raises(ValueError):
        params.block(**kwargs)


def test_large_blocks_live_on_meta_and_draw_nothing():
    rng_before = torch.random.get_rng_state()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    # 3·8192·65536 float32 weights would be 6.4 GB if they were real.
    module = params.ffn_module(8192, 65536, glu=True, bias=True)
    attention = params.attention_module(8192, 64, 8, bias=True)
    s = params.split(8192, "8", 64, 8, bias=True, glu=True)
    assert all(p.is_meta for p in list(module.parameters()) + list(attention.parameters()))
    assert s.ffn_params == 3 * 8192 * 65536 + 2 * 65536 + 8192
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before < 200_000
    assert torch.equal(rng_before, torch.random.get_rng_state())


def test_results_pickle():
    s = params.split()
    assert pickle.loads(pickle.dumps(s)) == s


def test_report_contract():
    r = params.report(seed=0)
    json.dumps(r)
    assert set(r) == {"d_model", "expansion", "attention_params", "ffn_params", "ffn_share"}
    assert r == {
        "d_model": 512,
        "expansion": 4,
        "attention_params": 1_048_576,
        "ffn_params": 2_097_152,
        "ffn_share": 2 / 3,
    }
    assert params.report(seed=3) == r
