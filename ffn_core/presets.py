"""Published configurations of real transformers, with the source of every number beside it."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, TypeVar

Norm = Literal["layernorm", "rmsnorm"]


@dataclass(frozen=True)
class Source:
    """Where a number comes from: a document's name, as cited (a config file, a paper and its table), and its address.

    Names and addresses are not translated; the page's sentences around them come from the locales.
    """

    name: str
    url: str


@dataclass(frozen=True)
class Preset:
    """One model's shape as its config states it; d_ff is the published value, never recomputed."""

    id: str
    name: str
    d_model: int
    d_ff: int
    n_layers: int
    n_heads: int
    n_kv_heads: int
    vocab: int
    n_positions: int  # learned position embeddings; 0 where positions are rotary (RoPE)
    type_vocab: int  # BERT's segment (token-type) embeddings; 0 elsewhere
    tied: bool  # no output matrix of its own: shared with the token embedding (GPT-2) or none (BertModel)
    bias: bool  # biases on every attention and FFN projection
    glu: bool  # gated FFN with three matrices (SwiGLU)
    norm: Norm  # LayerNorm (weight and bias) or RMSNorm (weight only)
    pooler: bool  # BERT's pooler, a d×d dense layer with bias on the [CLS] token
    published_total: int
    published_text: str
    config: Source  # where the shape numbers come from
    published: Source  # where the published total comes from


def _hf_config(repo: str, fields: str) -> Source:
    return Source(f"{repo} config.json ({fields})", f"https://huggingface.co/{repo}/blob/main/config.json")


# n_inner is null in GPT-2's configs, which Hugging Face's GPT2MLP (and nanoGPT) read as 4·n_embd.
_GPT2_FIELDS = "n_embd, n_layer, n_head, vocab_size, n_positions, n_inner"
_GPT2_TOTAL = Source("openai/gpt-2 download_model.py (checkpoints 124M, 355M, 774M, 1558M)",
                     "https://github.com/openai/gpt-2/blob/master/download_model.py")
_BERT_FIELDS = ("hidden_size, intermediate_size, num_hidden_layers, num_attention_heads, vocab_size, "
                "max_position_embeddings, type_vocab_size")
_BERT_TOTAL = Source("Devlin et al. 2018, BERT, §3", "https://arxiv.org/abs/1810.04805")
_LLAMA_FIELDS = ("hidden_size, intermediate_size, num_hidden_layers, num_attention_heads, num_key_value_heads, "
                 "vocab_size, tie_word_embeddings")
# LLaMA-2 7B and 13B have LLaMA-1's shapes, and its paper (Touvron et al. 2023a, Table 2) prints their
# sizes as 6.7B and 13.0B; the LLaMA-2 paper only names them 7B, 13B, 70B (70B's is nominal).
_LLAMA1_TOTAL = Source("Touvron et al. 2023a, LLaMA, Table 2", "https://arxiv.org/abs/2302.13971")
_LLAMA2_TOTAL = Source("Touvron et al. 2023b, Llama 2", "https://arxiv.org/abs/2307.09288")

# What every model of a family shares; a row below gives the rest.
_GPT2 = dict(vocab=50257, n_positions=1024, type_vocab=0, tied=True, bias=True, glu=False, norm="layernorm", pooler=False)
_BERT = dict(vocab=30522, n_positions=512, type_vocab=2, tied=True, bias=True, glu=False, norm="layernorm", pooler=True)
_LLAMA = dict(vocab=32000, n_positions=0, type_vocab=0, tied=False, bias=False, glu=True, norm="rmsnorm", pooler=False)


def _family(shared: dict, fields: str, rows: tuple[tuple, ...]) -> tuple[Preset, ...]:
    """A family's models from rows (id, name, d_model, d_ff, n_layers, n_heads, n_kv_heads, published_total,
    published_text, Hugging Face repo, source of the total)."""
    return tuple(Preset(*shape, **shared, published_total=total, published_text=text,  # type: ignore[arg-type]
                        config=_hf_config(repo, fields), published=source)
                 for *shape, total, text, repo, source in rows)


# One row per model: adding a model is adding a row here (its sources included), nothing else.
PRESETS: tuple[Preset, ...] = (
    *_family(_GPT2, _GPT2_FIELDS, (
        ("gpt2-small", "GPT-2 small", 768, 3072, 12, 12, 12, 124_000_000, "124M", "openai-community/gpt2", _GPT2_TOTAL),
        ("gpt2-medium", "GPT-2 medium", 1024, 4096, 24, 16, 16, 355_000_000, "355M", "openai-community/gpt2-medium",
         _GPT2_TOTAL),
        ("gpt2-large", "GPT-2 large", 1280, 5120, 36, 20, 20, 774_000_000, "774M", "openai-community/gpt2-large",
         _GPT2_TOTAL),
        ("gpt2-xl", "GPT-2 XL", 1600, 6400, 48, 25, 25, 1_558_000_000, "1558M", "openai-community/gpt2-xl", _GPT2_TOTAL),
    )),
    *_family(_BERT, _BERT_FIELDS, (
        ("bert-base", "BERT-base", 768, 3072, 12, 12, 12, 110_000_000, "110M", "google-bert/bert-base-uncased",
         _BERT_TOTAL),
        ("bert-large", "BERT-large", 1024, 4096, 24, 16, 16, 340_000_000, "340M", "google-bert/bert-large-uncased",
         _BERT_TOTAL),
    )),
    *_family(_LLAMA, _LLAMA_FIELDS, (
        ("llama2-7b", "LLaMA-2 7B", 4096, 11008, 32, 32, 32, 6_700_000_000, "6.7B", "meta-llama/Llama-2-7b-hf",
         _LLAMA1_TOTAL),
        ("llama2-13b", "LLaMA-2 13B", 5120, 13824, 40, 40, 40, 13_000_000_000, "13.0B", "meta-llama/Llama-2-13b-hf",
         _LLAMA1_TOTAL),
        # d_ff 28672 is Meta's rule with params.json's ffn_dim_multiplier 1.3 and multiple_of 4096 (llama_d_ff).
        ("llama2-70b", "LLaMA-2 70B", 8192, 28672, 80, 64, 8, 70_000_000_000, "70B", "meta-llama/Llama-2-70b-hf",
         _LLAMA2_TOTAL),
        # Its paper (Jiang et al. 2023, Table 1) gives the same shape: dim 4096, n_layers 32, head_dim 128,
        # hidden_dim 14336, n_heads 32, n_kv_heads 8, vocab 32000.
        ("mistral-7b", "Mistral 7B", 4096, 14336, 32, 32, 8, 7_300_000_000, "7.3B", "mistralai/Mistral-7B-v0.1",
         Source("Mistral AI, Announcing Mistral 7B", "https://mistral.ai/news/announcing-mistral-7b/")),
    )),
)

IDS: tuple[str, ...] = tuple(p.id for p in PRESETS)


class _Named(Protocol):
    @property
    def id(self) -> str: ...


Item = TypeVar("Item", bound=_Named)


def by_id(items: Sequence[Item], item_id: str, kind: str) -> Item:
    """The item of `items` with this id; ValueError naming every id for an unknown one."""
    for item in items:
        if item.id == item_id:
            return item
    raise ValueError(f"unknown {kind} {item_id!r}; expected one of {tuple(i.id for i in items)}")


def get(preset_id: str) -> Preset:
    """The preset with this id; ValueError for an unknown id."""
    return by_id(PRESETS, preset_id, "preset")


class PublishedTotal:
    """A count of a model's parameters beside the total its authors published (rounded, as they wrote it)."""

    total: int
    published_total: int

    @property
    def total_gap(self) -> float:
        """Relative gap between our count and the published (rounded) total."""
        return self.total / self.published_total - 1


def llama_d_ff(d_model: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None) -> int:
    """Meta's rule for LLaMA's SwiGLU width: 2/3 of 4·d, times a multiplier, rounded up to a multiple."""
    # Meta's llama model.py FeedForward, float arithmetic included, so the rule reproduces the configs.
    hidden = int(2 * (4 * d_model) / 3)
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)
