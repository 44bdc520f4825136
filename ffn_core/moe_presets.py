"""Published mixture-of-experts models, counted from their configs: every parameter, and those one token uses.

Each row holds the numbers of the model's config.json as published (the source beside it), and the totals
its authors state. The count is the config's arithmetic, part by part (embeddings, attention, norms, router,
routed and shared experts, the dense FFNs of the first layers, the output head), never the published figure.
"Active" is what one token's forward pass multiplies by: everything but the routed experts it was not sent to,
the token embedding included (Mixtral's 12.9B counts it; without it the count would be 12.75B).
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ffn_core.presets import PublishedTotal, Source, by_id


@dataclass(frozen=True)
class MLA:
    """DeepSeek's multi-head latent attention: queries and keys/values through low-rank latents."""

    q_lora_rank: int
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int


@dataclass(frozen=True)
class MoEPreset:
    id: str
    name: str
    d_model: int  # hidden_size
    n_layers: int  # num_hidden_layers
    n_heads: int
    n_kv_heads: int
    head_dim: int
    vocab: int
    expert_d_ff: int  # moe_intermediate_size (Mixtral: intermediate_size)
    n_experts: int  # routed experts per MoE layer
    k: int  # num_experts_per_tok
    n_shared: int  # shared experts every token uses (DeepSeek)
    dense_layers: int  # first_k_dense_replace: layers with a dense FFN instead of experts
    dense_d_ff: int  # those layers' intermediate_size
    qk_norm: bool  # RMSNorm on each head's query and key (Qwen3)
    router_bias: bool  # DeepSeek-V3's e_score_correction_bias, one per expert
    mla: MLA | None
    published_total: int
    published_active: int
    published_text: str
    config: Source
    published: Source


def _hf(repo: str, fields: str) -> Source:
    return Source(f"{repo} config.json ({fields})", f"https://huggingface.co/{repo}/blob/main/config.json")


PRESETS: tuple[MoEPreset, ...] = (
    MoEPreset("mixtral-8x7b", "Mixtral 8×7B", 4096, 32, 32, 8, 128, 32000, 14336, 8, 2, 0, 0, 0, False, False,
              None, 46_700_000_000, 12_900_000_000, "46.7B / 12.9B",
              _hf("mistralai/Mixtral-8x7B-v0.1", "hidden_size, intermediate_size, num_hidden_layers, "
                  "num_attention_heads, num_key_value_heads, num_local_experts, num_experts_per_tok, vocab_size, "
                  "tie_word_embeddings false"),
              Source("Mistral AI, Mixtral of experts (46.7B total, 12.9B per token)",
                     "https://mistral.ai/news/mixtral-of-experts/")),
    MoEPreset("deepseek-v3", "DeepSeek-V3", 7168, 61, 128, 128, 128, 129280, 2048, 256, 8, 1, 3, 18432, False,
              True, MLA(1536, 512, 128, 64, 128), 671_000_000_000, 37_000_000_000, "671B / 37B",
              _hf("deepseek-ai/DeepSeek-V3", "hidden_size, intermediate_size, moe_intermediate_size, "
                  "num_hidden_layers, first_k_dense_replace, n_routed_experts, n_shared_experts, num_experts_per_tok, "
                  "num_attention_heads, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim, "
                  "vocab_size; the multi-token-prediction layer is outside the 671B"),
              Source("DeepSeek-AI 2024, DeepSeek-V3 Technical Report, abstract (671B total, 37B activated)",
                     "https://arxiv.org/abs/2412.19437")),
    MoEPreset("qwen3-235b-a22b", "Qwen3-235B-A22B", 4096, 94, 64, 4, 128, 151936, 1536, 128, 8, 0, 0, 0, True,
              False, None, 235_000_000_000, 22_000_000_000, "235B / 22B",
              _hf("Qwen/Qwen3-235B-A22B", "hidden_size, moe_intermediate_size, num_hidden_layers, "
                  "num_attention_heads, num_key_value_heads, head_dim, num_experts, num_experts_per_tok, vocab_size, "
                  "tie_word_embeddings false"),
              Source("Qwen Team 2025, Qwen3 Technical Report, Table 2 (235B total, 22B activated)",
                     "https://arxiv.org/abs/2505.09388")),
)
IDS: tuple[str, ...] = tuple(p.id for p in PRESETS)


def get(preset_id: str) -> MoEPreset:
    """The MoE preset with this id; ValueError for an unknown id."""
    return by_id(PRESETS, preset_id, "MoE preset")


def attention(p: MoEPreset) -> int:
    """One layer's attention: grouped-query projections (with Qwen3's per-head norms), or DeepSeek's MLA."""
    if p.mla is None:
        q, kv = p.n_heads * p.head_dim, p.n_kv_heads * p.head_dim
        return 2 * p.d_model * q + 2 * p.d_model * kv + (2 * p.head_dim if p.qk_norm else 0)
    m = p.mla
    q_head = m.qk_nope_head_dim + m.qk_rope_head_dim
    return (p.d_model * m.q_lora_rank + m.q_lora_rank  # q_a_proj and its norm
            + m.q_lora_rank * p.n_heads * q_head  # q_b_proj
            + p.d_model * (m.kv_lora_rank + m.qk_rope_head_dim) + m.kv_lora_rank  # kv_a_proj_with_mqa and its norm
            + m.kv_lora_rank * p.n_heads * (m.qk_nope_head_dim + m.v_head_dim)  # kv_b_proj
            + p.n_heads * m.v_head_dim * p.d_model)  # o_proj


def swiglu(d_model: int, d_ff: int) -> int:
    """Three matrices, no biases: gate, up, down."""
    return 3 * d_model * d_ff


@dataclass(frozen=True)
class MoECount(PublishedTotal):
    id: str
    name: str
    embeddings: int  # token embedding and the untied output head
    attention: int  # every layer
    norms: int
    router: int  # every MoE layer
    experts: int  # every routed expert of every MoE layer
    shared: int  # shared experts and the first layers' dense FFNs
    experts_active: int  # the k routed experts one token uses, every MoE layer
    total: int
    active: int
    published_total: int
    published_active: int
    published_text: str
    config: Source
    published: Source

    @property
    def active_share(self) -> float:
        return self.active / self.total

    @property
    def active_gap(self) -> float:
        return self.active / self.published_active - 1


def count(p: MoEPreset) -> MoECount:
    """The model's parameters from its config's numbers: all of them, and the ones one token uses."""
    moe_layers = p.n_layers - p.dense_layers
    embeddings = 2 * p.vocab * p.d_model
    attn = p.n_layers * attention(p)
    norms = (2 * p.n_layers + 1) * p.d_model
    router = moe_layers * p.n_experts * (p.d_model + (1 if p.router_bias else 0))
    expert = swiglu(p.d_model, p.expert_d_ff)
    experts = moe_layers * p.n_experts * expert
    shared = moe_layers * p.n_shared * expert + p.dense_layers * swiglu(p.d_model, p.dense_d_ff)
    experts_active = moe_layers * p.k * expert
    always = embeddings + attn + norms + router + shared
    return MoECount(p.id, p.name, embeddings, attn, norms, router, experts, shared, experts_active,
                    always + experts, always + experts_active, p.published_total, p.published_active,
                    p.published_text, p.config, p.published)


def frame() -> pd.DataFrame:
    """One row per model: total and active, counted and published."""
    return pd.DataFrame([{"id": c.id, "name": c.name, "total": c.total, "active": c.active,
                          "active_share": c.active_share, "published": c.published_text}
                         for c in map(count, PRESETS)])


def report() -> list[dict]:
    return [{"id": c.id, "name": c.name, "total": c.total, "active": c.active,
             "published_total": c.published_total, "published_active": c.published_active,
             "active_share": c.active_share} for c in map(count, PRESETS)]
