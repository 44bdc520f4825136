"""The mixture of experts: E expert FFNs and a router that sends each token to its top k.

MoE(x) = Σ_{i ∈ topk(p(x))} p_i(x)·FFN_i(x), p(x) = softmax(W_r x), as in the Switch Transformer
(Fedus et al. 2021, §2.1): the chosen experts' router probabilities weight their outputs. (GShard's top-2
and Mixtral renormalise the k chosen probabilities to sum to 1; with k = 1 that would leave the router
no gradient, so the project's trained model keeps Switch's form.)

Every expert is the project's ffn.FFN. The router reads one token at a time, so the layer stays
position-wise: measured here as page 2 measures the FFN (row by row, permuted, the Jacobian's blocks).
Load balance: Switch's auxiliary loss E·Σ_i f_i·P_i (f_i the share of routed slots expert i receives,
P_i its mean router probability), 1 when both are uniform.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import torch
from torch import nn

from ffn_core import ffn, params, position

MAX_EXPERTS = 16
MAX_D_MODEL = 128
MAX_D_FF = 512
MAX_TOKENS = 1024
TOKENS_INFLUENCE = 8  # tokens of the Jacobian check, as page 2's default


class MoE(nn.Module):
    """E expert FFNs and a linear router; each token goes to its top-k experts."""

    def __init__(self, d_model: int, d_ff: int, n_experts: int, k: int, act: ffn.Activation = "relu",
                 bias: bool = True, seed: int = 0, dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        if not 1 <= k <= n_experts:
            raise ValueError("k must be in [1, n_experts]")
        self.k = k
        generator = torch.Generator().manual_seed(seed)
        seeds = torch.randint(0, 2**62, (n_experts + 1,), generator=generator).tolist()
        self.router = ffn.Linear(d_model, n_experts, bias=False, dtype=dtype)
        ffn.init_linear(self.router, "default", torch.Generator().manual_seed(seeds[0]))
        self.experts = nn.ModuleList(
            ffn.FFN(d_model, d_ff, act=act, bias=bias, seed=s, dtype=dtype) for s in seeds[1:]
        )

    def route(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Router probabilities (..., E), the chosen experts (..., k) and their weights (..., k)."""
        probs = torch.softmax(self.router(x), dim=-1)
        weights, chosen = probs.topk(self.k, dim=-1)
        return probs, chosen, weights

    def forward(self, x: torch.Tensor, drop: int | None = None) -> torch.Tensor:
        """The layer's output; `drop` zeroes one expert's contribution (the tokens routed to it lose that term)."""
        _, chosen, weights = self.route(x)
        flat = x.reshape(-1, x.shape[-1])
        chosen, weights = chosen.reshape(-1, self.k), weights.reshape(-1, self.k)
        out = torch.zeros_like(flat)
        for e, expert in enumerate(self.experts):
            if e == drop:
                continue
            rows, slot = (chosen == e).nonzero(as_tuple=True)
            if rows.numel():
                out.index_add_(0, rows, weights[rows, slot, None] * expert(flat[rows]))
        return out.reshape(x.shape)


def load_balance_loss(probs: torch.Tensor, chosen: torch.Tensor, n_experts: int) -> torch.Tensor:
    """Switch Transformer's auxiliary loss E·Σ_i f_i·P_i over tokens (n, E) and choices (n, k)."""
    f = torch.bincount(chosen.reshape(-1), minlength=n_experts).to(probs.dtype) / chosen.numel()
    return n_experts * (f * probs.mean(dim=0)).sum()


@dataclass(frozen=True)
class Routing:
    """How one k sends the tokens: counts per expert, the balance loss, the active weights per token."""

    k: int
    tokens_per_expert: tuple[int, ...]  # slots routed to each expert (n_tokens·k in all)
    mean_prob: tuple[float, ...]  # P_i, the router's mean probability per expert
    balance_loss: float
    max_over_mean: float  # the busiest expert's load over the mean load
    active_params: int  # router + k experts, what one token's output is computed with


@dataclass(frozen=True)
class MoEResult:
    d_model: int
    d_ff: int
    n_experts: int
    k: int
    n_tokens: int
    seed: int
    total_params: int  # sum(p.numel()) of the router and every expert
    expert_params: int  # one expert
    router_params: int
    routings: tuple[Routing, ...]  # k = 1, then k = 2 (when E ≥ 2), then the chosen k if neither
    rowwise_max_abs_diff: float
    permutation_max_abs_diff: float
    off_diagonal_fraction: float  # share of the token-to-token influence off the diagonal
    influence: tuple[tuple[float, ...], ...]
    loop_max_abs_diff: float  # the batched forward against an explicit loop over tokens and experts

    def routing(self, k: int) -> Routing:
        return next(r for r in self.routings if r.k == k)

    @property
    def active_params(self) -> int:
        return self.routing(self.k).active_params

    def to_frame(self) -> pd.DataFrame:
        """One row per (k, expert): tokens routed there and the router's mean probability."""
        return pd.DataFrame([{"k": r.k, "expert": e, "tokens": n, "mean_prob": p}
                             for r in self.routings
                             for e, (n, p) in enumerate(zip(r.tokens_per_expert, r.mean_prob))])


def _check(d_model: int, d_ff: int, n_experts: int, k: int, n_tokens: int) -> None:
    if not 2 <= d_model <= MAX_D_MODEL:
        raise ValueError(f"d_model must be in [2, {MAX_D_MODEL}]")
    if not 1 <= d_ff <= MAX_D_FF:
        raise ValueError(f"d_ff must be in [1, {MAX_D_FF}]")
    if not 1 <= n_experts <= MAX_EXPERTS:
        raise ValueError(f"n_experts must be in [1, {MAX_EXPERTS}]")
    if not 1 <= k <= n_experts:
        raise ValueError("k must be in [1, n_experts]")
    if not TOKENS_INFLUENCE <= n_tokens <= MAX_TOKENS:
        raise ValueError(f"n_tokens must be in [{TOKENS_INFLUENCE}, {MAX_TOKENS}]")


def loop_forward(layer: MoE, x: torch.Tensor) -> torch.Tensor:
    """The same layer written as a reader would: token by token, expert by expert, no batching."""
    out = torch.zeros_like(x)
    for t in range(x.shape[0]):
        probs = torch.softmax(layer.router(x[t]), dim=-1)
        for e in probs.topk(layer.k).indices.tolist():
            out[t] += probs[e] * layer.experts[e](x[t])
    return out


def routing(layer: MoE, x: torch.Tensor, k: int, expert_params: int) -> Routing:
    """Route tokens x (n, d) to their top k under this layer's router."""
    probs = torch.softmax(layer.router(x), dim=-1)
    chosen = probs.topk(k, dim=-1).indices
    n_experts = probs.shape[-1]
    counts = torch.bincount(chosen.reshape(-1), minlength=n_experts)
    return Routing(
        k=k,
        tokens_per_expert=tuple(counts.tolist()),
        mean_prob=tuple(probs.mean(dim=0).tolist()),
        balance_loss=float(load_balance_loss(probs, chosen, n_experts)),
        max_over_mean=float(counts.max() / counts.double().mean()),
        active_params=params.numel(layer.router) + k * expert_params,
    )


@torch.no_grad()
def measure(d_model: int = 64, d_ff: int = 256, n_experts: int = 8, k: int = 2, n_tokens: int = 256,
            seed: int = 0) -> MoEResult:
    """A random MoE layer: its weights total and active, how it routes n tokens with k = 1 and 2, and that it is position-wise."""
    _check(d_model, d_ff, n_experts, k, n_tokens)
    g = torch.Generator().manual_seed(seed)
    layer_seed = int(torch.randint(0, 2**62, (1,), generator=g))
    layer = MoE(d_model, d_ff, n_experts, k, seed=layer_seed, dtype=torch.float64)
    x = torch.randn(n_tokens, d_model, generator=g, dtype=torch.float64)
    expert = params.numel(layer.experts[0])
    ks = sorted({1, min(2, n_experts), k})
    y = layer(x)
    few = x[:TOKENS_INFLUENCE]
    by_row = torch.cat([layer(few[i : i + 1]) for i in range(TOKENS_INFLUENCE)])
    p = position.permutation(TOKENS_INFLUENCE, "random", g)
    perm_diff = (layer(few[p]) - layer(few)[p]).abs().max()
    with torch.enable_grad():
        infl = position.influence(layer, few)
    return MoEResult(
        d_model=d_model,
        d_ff=d_ff,
        n_experts=n_experts,
        k=k,
        n_tokens=n_tokens,
        seed=seed,
        total_params=params.numel(layer),
        expert_params=expert,
        router_params=params.numel(layer.router),
        routings=tuple(routing(layer, x, kk, expert) for kk in ks),
        rowwise_max_abs_diff=float((layer(few) - by_row).abs().max()),
        permutation_max_abs_diff=float(perm_diff),
        off_diagonal_fraction=position.off_diagonal_fraction(infl),
        influence=tuple(tuple(r) for r in infl.tolist()),
        loop_max_abs_diff=float((y[:TOKENS_INFLUENCE] - loop_forward(layer, few)).abs().max()),
    )


def report(seed: int = 0) -> dict:
    """The toy layer's figures (8 experts, top 2); ffn_core/report.py adds the published configurations and the
    trained MoE GPT's."""
    res = measure(seed=seed)
    return {
        "d_model": res.d_model,
        "d_ff": res.d_ff,
        "n_experts": res.n_experts,
        "k": res.k,
        "total_params": res.total_params,
        "active_params": res.active_params,
        "rowwise_max_abs_diff": res.rowwise_max_abs_diff,
        "permutation_max_abs_diff": res.permutation_max_abs_diff,
        "off_diagonal_fraction": res.off_diagonal_fraction,
        "routing": [{"k": r.k, "tokens_per_expert": list(r.tokens_per_expert), "balance_loss": r.balance_loss,
                     "max_over_mean": r.max_over_mean} for r in res.routings],
    }
