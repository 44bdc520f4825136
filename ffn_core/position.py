"""Position-wise: the FFN transforms each token alone; self-attention mixes them."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import pandas as pd
import torch
from torch import nn

from ffn_core import attention, ffn

MAX_TOKENS = 32
MAX_D_MODEL = 128
MAX_D_FF = 512
MAX_HEADS = 8
# The exact Jacobian takes n·d backward passes over all n tokens, so its cost grows as (n·d)²·d_ff:
# n·d ≤ 1024 keeps the worst case near a second on one thread (8 × 128, 16 × 64 or 32 × 32 tokens × dims).
MAX_TOKENS_X_D = 1024
PERMUTATIONS = ("random", "reverse", "roll")

Matrix = tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class Setting:
    """What measure() and block_influence() draw their FFN, attention and tokens from; their results echo it."""

    n_tokens: int
    d_model: int
    d_ff: int
    act: str
    n_heads: int
    causal: bool
    seed: int


class _InfluenceMaps:
    """A result's influence maps: for each name in MAPS, the field `<name>_influence` that _influences fills."""

    MAPS: ClassVar[tuple[str, ...]]

    def to_frame(self) -> pd.DataFrame:
        """Long influence data, one row per (model, i, j): model a name of MAPS, i the output token, j the input
        token, influence = ||∂y_i/∂x_j||_F."""
        rows = [
            {"model": model, "i": i, "j": j, "influence": value}
            for model in self.MAPS
            for i, row in enumerate(getattr(self, f"{model}_influence"))
            for j, value in enumerate(row)
        ]
        return pd.DataFrame(rows)


@dataclass(frozen=True)
class PositionWise(Setting, _InfluenceMaps):
    MAPS = ("ffn", "attention")

    permutation: tuple[int, ...]
    moved: int  # positions whose token the permutation changed
    rowwise_max_abs_diff: float
    permutation_max_abs_diff: float
    permutation_row_diffs: tuple[float, ...]
    attention_rowwise_max_abs_diff: float
    attention_permutation_max_abs_diff: float
    ffn_influence: Matrix
    attention_influence: Matrix
    ffn_off_diagonal_fraction: float
    attention_off_diagonal_fraction: float


def _check(n_tokens: int, d_model: int, d_ff: int, act: str, n_heads: int, perm: str) -> None:
    if not 2 <= n_tokens <= MAX_TOKENS:
        raise ValueError(f"n_tokens must be in [2, {MAX_TOKENS}]")
    if not 2 <= d_model <= MAX_D_MODEL:
        raise ValueError(f"d_model must be in [2, {MAX_D_MODEL}]")
    if n_tokens * d_model > MAX_TOKENS_X_D:
        raise ValueError(f"n_tokens × d_model must be at most {MAX_TOKENS_X_D}")
    if not 1 <= d_ff <= MAX_D_FF:
        raise ValueError(f"d_ff must be in [1, {MAX_D_FF}]")
    if not 1 <= n_heads <= MAX_HEADS or d_model % n_heads:
        raise ValueError(f"n_heads must be in [1, {MAX_HEADS}] and divide d_model")
    if act not in ffn.ACTIVATIONS:
        raise ValueError(f"act must be one of {ffn.ACTIVATIONS}")
    if perm not in PERMUTATIONS:
        raise ValueError(f"perm must be one of {PERMUTATIONS}")


def permutation(n: int, kind: str, generator: torch.Generator) -> torch.Tensor:
    """A permutation of n ≥ 2 token positions that moves at least one: random, reversed, or rolled by one."""
    if kind == "reverse":
        return torch.arange(n - 1, -1, -1)
    if kind == "roll":
        return torch.arange(n).roll(1)
    # The identity would pass the permutation check with nothing moved (1 draw in n!: half the
    # seeds at n = 2), so it is drawn again; the generator keeps the result fixed by the seed.
    while True:
        p = torch.randperm(n, generator=generator)
        if n < 2 or not torch.equal(p, torch.arange(n)):
            return p


def influence(f: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """I[i, j] = ||∂f(X)_i / ∂x_j||_F for a map of (n, d) to (n, d), one output token's Jacobian at a time.

    f must map a batch (b, n, d) sequence by sequence, as the FFN and the attention layer do.
    """
    n, d = x.shape
    rows = []
    for i in range(n):
        # d copies of X in one batch, copy k asking for output feature k of token i: one backward
        # pass gives the block row (d, n, d) of the Jacobian. torch.func's vmap would batch the
        # backward alone, but its first use (and autograd.grad's grad_outputs) imports sympy:
        # ~0.7 s and ~40 MB for the process.
        copies = x.detach().expand(d, n, d).clone().requires_grad_(True)
        (jac,) = torch.autograd.grad(f(copies)[:, i, :].diagonal().sum(), copies)
        rows.append(jac.pow(2).sum(dim=(0, 2)).sqrt())
    return torch.stack(rows)  # (n, n)


def off_diagonal_fraction(m: torch.Tensor) -> float:
    """Share of a non-negative matrix's total that lies off its diagonal."""
    total = m.sum()
    off = m[~torch.eye(m.shape[0], dtype=torch.bool)].sum()  # summed directly: total − trace would leave rounding
    return float(off / total) if total > 0 else 0.0


def _matrix(m: torch.Tensor) -> Matrix:
    return tuple(tuple(row) for row in m.tolist())


def _influences(**maps: torch.Tensor) -> dict[str, Matrix | float]:
    """Each named influence matrix as `<name>_influence` and its `<name>_off_diagonal_fraction`, the result's fields."""
    out: dict[str, Matrix | float] = {}
    for name, m in maps.items():
        out[f"{name}_influence"] = _matrix(m)
        out[f"{name}_off_diagonal_fraction"] = off_diagonal_fraction(m)
    return out


def _layers(s: Setting) -> tuple[torch.Generator, ffn.FFN, attention.SelfAttention, torch.Tensor]:
    """The seed's FFN, attention and tokens (n, d), and its generator for whatever is drawn next.

    Child seeds from the one local generator, so the FFN, attention and inputs are not drawn from
    the same stream; measure() and block_influence() share them, so both show the same layers.
    """
    g = torch.Generator().manual_seed(s.seed)
    ffn_seed, attn_seed = (int(k) for k in torch.randint(0, 2**62, (2,), generator=g))
    f = ffn.FFN(s.d_model, s.d_ff, act=s.act, seed=ffn_seed, dtype=torch.float64)  # type: ignore[arg-type]
    a = attention.SelfAttention(s.d_model, s.n_heads, causal=s.causal, seed=attn_seed, dtype=torch.float64)
    x = torch.randn(s.n_tokens, s.d_model, generator=g, dtype=torch.float64)  # (n, d)
    return g, f, a, x


def measure(
    n_tokens: int = 8,
    d_model: int = 64,
    d_ff: int = 256,
    act: str = "relu",
    n_heads: int = 1,
    causal: bool = False,
    perm: str = "random",
    seed: int = 0,
) -> PositionWise:
    """Check the FFN is position-wise (row by row, permutation) and compare its token influence with attention's."""
    _check(n_tokens, d_model, d_ff, act, n_heads, perm)
    setting = Setting(n_tokens, d_model, d_ff, act, n_heads, causal, seed)
    g, f, a, x = _layers(setting)
    p = permutation(n_tokens, perm, g)

    with torch.no_grad():
        y = f(x)
        by_row = torch.cat([f(x[i : i + 1]) for i in range(n_tokens)])
        perm_diff = (f(x[p]) - y[p]).abs()  # (n, d)
        y_attn = a(x)
        attn_by_row = torch.cat([a(x[i : i + 1]) for i in range(n_tokens)])
        attn_perm_diff = (a(x[p]) - y_attn[p]).abs().max()

    i_ffn = influence(f, x)
    i_attn = influence(a, x)
    return PositionWise(
        **vars(setting),
        permutation=tuple(p.tolist()),
        moved=int((p != torch.arange(n_tokens)).sum()),
        rowwise_max_abs_diff=float((y - by_row).abs().max()),
        permutation_max_abs_diff=float(perm_diff.max()),
        permutation_row_diffs=tuple(perm_diff.amax(dim=1).tolist()),
        attention_rowwise_max_abs_diff=float((y_attn - attn_by_row).abs().max()),
        attention_permutation_max_abs_diff=float(attn_perm_diff),
        **_influences(ffn=i_ffn, attention=i_attn),
    )


@dataclass(frozen=True)
class BlockInfluence(Setting, _InfluenceMaps):
    """Influence through a block, attention then FFN with residuals (no layer norm), beside its FFN alone."""

    MAPS = ("ffn", "block")

    block_influence: Matrix
    ffn_influence: Matrix
    block_off_diagonal_fraction: float
    ffn_off_diagonal_fraction: float


def block_influence(
    n_tokens: int = 8,
    d_model: int = 64,
    d_ff: int = 256,
    act: str = "relu",
    n_heads: int = 1,
    causal: bool = False,
    seed: int = 0,
) -> BlockInfluence:
    """Token-to-token influence of h = x + Attn(x), y = h + FFN(h): the block mixes though its FFN does not.

    The same weights and tokens as measure() with the same arguments; the FFN's map is taken at
    its own input h, where the block applies it.
    """
    _check(n_tokens, d_model, d_ff, act, n_heads, "random")
    setting = Setting(n_tokens, d_model, d_ff, act, n_heads, causal, seed)
    _, f, a, x = _layers(setting)

    def block(t: torch.Tensor) -> torch.Tensor:
        h = t + a(t)
        return h + f(h)

    with torch.no_grad():
        h = x + a(x)
    i_block = influence(block, x)
    i_ffn = influence(f, h)
    return BlockInfluence(**vars(setting), **_influences(block=i_block, ffn=i_ffn))


@dataclass(frozen=True)
class SequentialCheck:
    """The FFN as nn.Sequential(nn.Linear, nn.GELU, nn.Linear) on a [batch, seq, d] input."""

    input_shape: tuple[int, ...]
    hidden_shape: tuple[int, ...]
    output_shape: tuple[int, ...]
    max_abs_diff: float


def sequential_check(batch: int = 2, seq: int = 8, d_model: int = 64, d_ff: int = 256, seed: int = 0,
                     act: ffn.Activation = "relu") -> SequentialCheck:
    """Run the project's FFN and nn.Sequential with the same weights on one [batch, seq, d] input; float64."""
    g = torch.Generator().manual_seed(seed)
    f = ffn.FFN(d_model, d_ff, act=act, bias=True, seed=seed, dtype=torch.float64)
    # nn.Linear draws its own start values from the global generator; they are overwritten here.
    seq_ffn = nn.Sequential(nn.Linear(d_model, d_ff, dtype=torch.float64), ffn.activation(act),
                            nn.Linear(d_ff, d_model, dtype=torch.float64))
    with torch.no_grad():
        for mine, theirs in ((f.w_1, seq_ffn[0]), (f.w_2, seq_ffn[2])):
            theirs.weight.copy_(mine.weight)
            theirs.bias.copy_(mine.bias)
        x = torch.randn(batch, seq, d_model, generator=g, dtype=torch.float64)  # [batch, seq, d]
        hidden = seq_ffn[1](seq_ffn[0](x))  # [batch, seq, d_ff]
        y = seq_ffn(x)  # [batch, seq, d]
        diff = (y - f(x)).abs().max()
    return SequentialCheck(tuple(x.shape), tuple(hidden.shape), tuple(y.shape), float(diff))


def report(seed: int = 0) -> dict:
    """The position_wise figures of the report contract (8 tokens, d = 64, m = 256, ReLU)."""
    res = measure(8, 64, 256, "relu", seed=seed)
    return {
        "n_tokens": res.n_tokens,
        "d_model": res.d_model,
        "rowwise_max_abs_diff": res.rowwise_max_abs_diff,
        "permutation_max_abs_diff": res.permutation_max_abs_diff,
    }
