"""Where one transformer block's parameters sit: attention (W_q, W_k, W_v, W_o) against the FFN.

Every count is taken twice, from real torch modules (sum of p.numel()) and by closed formula.
The modules live on the meta device: shapes without memory, so d = 8192 costs nothing and no
random number is drawn. Norms are counted on their own and kept out of the FFN share.
Whole published models (embeddings, every block, head) are counted in ffn_core.model_counts.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pandas as pd
import torch
from torch import nn
from torch.overrides import TorchFunctionMode

from ffn_core import ffn

MAX_D_MODEL = 8192
MAX_D_FF = 65536
MAX_HEADS = 128
MAX_EXPANSION = Fraction(8)
# 8/3 keeps a gated FFN at 8d² (Shazeer 2020); 3.5 is LLaMA-2 70B's and Mistral 7B's d_ff / d.
EXPANSIONS: tuple[str, ...] = ("1", "2", "8/3", "3", "3.5", "4", "8")
NORMS: tuple[str, ...] = ("layernorm", "rmsnorm")
META = torch.device("meta")


class _OnMeta(TorchFunctionMode):
    """Sends every tensor that names a device to the meta device.

    ffn.FFN builds its layers on the CPU (torch.empty with a device argument); under this
    (thread-local) mode they stay shapes only, so a d = 8192 FFN costs no memory.
    """

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = dict(kwargs or {})
        if func is torch.empty_like:
            # empty_like's meta kernel is Python and imports sympy (~3 s, ~40 MB); empty is native.
            like = args[0]
            return torch.empty(like.shape, dtype=kwargs.get("dtype") or like.dtype, device=META)
        if "device" in kwargs:
            kwargs["device"] = META
        return func(*args, **kwargs)


def parse_expansion(expansion: str) -> Fraction:
    """The expansion d_ff/d as an exact fraction ("8/3" → 8/3); ValueError unless 0 < e ≤ 8."""
    try:
        value = Fraction(str(expansion))
    except (ValueError, ZeroDivisionError) as error:
        raise ValueError(f"expansion must look like '4' or '8/3', not {expansion!r}") from error
    if not 0 < value <= MAX_EXPANSION:
        raise ValueError(f"expansion must be in (0, {MAX_EXPANSION}], not {expansion!r}")
    return value


def d_ff_for(d_model: int, expansion: str) -> int:
    """d_ff = expansion·d rounded to the nearest integer (halves up); exact when expansion·d is whole."""
    check_int("d_model", d_model, 1, MAX_D_MODEL)
    return max(1, math.floor(parse_expansion(expansion) * d_model + Fraction(1, 2)))


def attention_formula(d_model: int, n_heads: int, n_kv_heads: int, bias: bool) -> int:
    """W_q, W_o: d·(h·d_h) each; W_k, W_v: d·(h_kv·d_h) each; biases h·d_h + 2·h_kv·d_h + d."""
    head_dim = d_model // n_heads
    d_q = n_heads * head_dim
    d_kv = n_kv_heads * head_dim
    weights = 2 * d_model * d_q + 2 * d_model * d_kv
    biases = d_q + 2 * d_kv + d_model if bias else 0
    return weights + biases


def ffn_formula(d_model: int, d_ff: int, glu: bool, bias: bool) -> int:
    """Plain: 2·d·d_ff (+ d_ff + d biases); GLU: 3·d·d_ff (+ 2·d_ff + d biases)."""
    matrices = 3 if glu else 2
    biases = (matrices - 1) * d_ff + d_model if bias else 0
    return matrices * d_model * d_ff + biases


def attention_module(d_model: int, n_heads: int, n_kv_heads: int, bias: bool) -> nn.ModuleDict:
    """Grouped-query attention's four projections on the meta device; K and V map to h_kv·d_h."""
    _check_heads(d_model, n_heads, n_kv_heads)
    head_dim = d_model // n_heads
    return nn.ModuleDict({
        "w_q": nn.Linear(d_model, n_heads * head_dim, bias=bias, device=META),
        "w_k": nn.Linear(d_model, n_kv_heads * head_dim, bias=bias, device=META),
        "w_v": nn.Linear(d_model, n_kv_heads * head_dim, bias=bias, device=META),
        "w_o": nn.Linear(n_heads * head_dim, d_model, bias=bias, device=META),
    })


def ffn_module(d_model: int, d_ff: int, glu: bool, bias: bool) -> ffn.FFN:
    """The shared ffn.FFN built on the meta device (SiLU with GLU, as SwiGLU; ReLU without)."""
    check_int("d_model", d_model, 1, MAX_D_MODEL)
    check_int("d_ff", d_ff, 1, MAX_D_FF)
    with _OnMeta():
        return ffn.FFN(d_model, d_ff, act="silu" if glu else "relu", bias=bias, glu=glu)


def norm_module(d_model: int, norm: str) -> nn.Module:
    """One LayerNorm (weight and bias, 2·d) or RMSNorm (weight, d) on the meta device."""
    if norm == "layernorm":
        return nn.LayerNorm(d_model, device=META)
    if norm == "rmsnorm":
        return nn.RMSNorm(d_model, device=META)
    raise ValueError(f"norm must be one of {NORMS}, not {norm!r}")


def numel(module: nn.Module) -> int:
    """sum(p.numel()) over a module's parameters."""
    return sum(p.numel() for p in module.parameters())


@dataclass(frozen=True)
class Split:
    """One block's parameters: attention and FFN from modules and by formula, norms apart."""

    d_model: int
    d_ff: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    bias: bool
    glu: bool
    norm: str
    attention_params: int  # sum(p.numel()) of W_q, W_k, W_v, W_o (and their biases)
    ffn_params: int  # sum(p.numel()) of W_1, W_2 (and W_3 with GLU) and biases
    norm_params: int  # the block's two norms, outside the share
    attention_formula: int
    ffn_formula: int
    components: tuple[tuple[str, str, int], ...]  # (part, matrix, params) from the modules

    @property
    def agree(self) -> bool:
        """Module counts equal the formulas, for attention and for the FFN."""
        return self.attention_params == self.attention_formula and self.ffn_params == self.ffn_formula

    @property
    def block_params(self) -> int:
        """Attention plus FFN, the denominator of the share (norms left out)."""
        return self.attention_params + self.ffn_params

    def ffn_share_exact(self) -> Fraction:
        """FFN / (attention + FFN) as an exact fraction (2/3 at the seed's setting)."""
        return Fraction(self.ffn_params, self.block_params)

    @property
    def ffn_share(self) -> float:
        """FFN / (attention + FFN) as a float."""
        return self.ffn_params / self.block_params

    def to_frame(self) -> pd.DataFrame:
        """Long data, one row per matrix: part (attention/ffn), matrix, params, share of the block."""
        frame = pd.DataFrame(self.components, columns=["part", "matrix", "params"])
        frame["share"] = frame["params"] / self.block_params
        return frame


def block(
    d_model: int,
    d_ff: int,
    n_heads: int,
    n_kv_heads: int,
    bias: bool = False,
    glu: bool = False,
    norm: str = "layernorm",
) -> Split:
    """Count one block from meta-device modules and by formula (attention + FFN; norms apart)."""
    check_int("d_ff", d_ff, 1, MAX_D_FF)
    _check_heads(d_model, n_heads, n_kv_heads)
    if not isinstance(bias, bool) or not isinstance(glu, bool):
        raise ValueError("bias and glu must be booleans")
    attention = attention_module(d_model, n_heads, n_kv_heads, bias)
    feed_forward = ffn_module(d_model, d_ff, glu, bias)
    norm_params = 2 * numel(norm_module(d_model, norm))
    components = tuple(
        (part, name, numel(child))
        for part, module in (("attention", attention), ("ffn", feed_forward))
        for name, child in module.named_children()
        if numel(child) > 0
    )
    return Split(
        d_model=d_model,
        d_ff=d_ff,
        n_heads=n_heads,
        n_kv_heads=n_kv_heads,
        head_dim=d_model // n_heads,
        bias=bias,
        glu=glu,
        norm=norm,
        attention_params=numel(attention),
        ffn_params=numel(feed_forward),
        norm_params=norm_params,
        attention_formula=attention_formula(d_model, n_heads, n_kv_heads, bias),
        ffn_formula=ffn_formula(d_model, d_ff, glu, bias),
        components=components,
    )


def split(
    d_model: int = 512,
    expansion: str = "4",
    n_heads: int = 8,
    n_kv_heads: int = 8,
    bias: bool = False,
    glu: bool = False,
    norm: str = "layernorm",
) -> Split:
    """The block at d_ff = expansion·d (rounded to the nearest integer); expansion may be "8/3"."""
    return block(d_model, d_ff_for(d_model, expansion), n_heads, n_kv_heads, bias, glu, norm)


def report(seed: int = 0) -> dict:
    """The report's parameter_split figures at the seed's setting: d = 512, expansion 4, no biases."""
    del seed  # counting draws no random numbers; the argument keeps every report() alike
    s = split(512, "4", 8, 8, bias=False, glu=False)
    return {
        "d_model": s.d_model,
        "expansion": int(Fraction(s.d_ff, s.d_model)),
        "attention_params": s.attention_params,
        "ffn_params": s.ffn_params,
        "ffn_share": s.ffn_share,
    }


def check_int(name: str, value: int, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high}], not {value!r}")


def _check_heads(d_model: int, n_heads: int, n_kv_heads: int) -> None:
    check_int("d_model", d_model, 1, MAX_D_MODEL)
    check_int("n_heads", n_heads, 1, min(MAX_HEADS, d_model))
    check_int("n_kv_heads", n_kv_heads, 1, n_heads)
    if d_model % n_heads:
        raise ValueError(f"n_heads ({n_heads}) must divide d_model ({d_model})")
    if n_heads % n_kv_heads:
        raise ValueError(f"n_kv_heads ({n_kv_heads}) must divide n_heads ({n_heads})")
