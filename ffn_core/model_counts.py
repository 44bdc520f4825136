"""Published models counted whole: embeddings, every block, norms, head and pooler, from ffn_core.presets.

One block's count (modules against formulas) is ffn_core.params; this module multiplies it by the
model's depth and adds what sits outside the blocks, again from meta-device modules (no memory, no
random numbers), and takes apart why a model's FFN share is what it is.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import torch
from torch import nn

from ffn_core import params, presets

MAX_VOCAB = 262144
MAX_LAYERS = 256


def _embedding(n: int, d_model: int) -> nn.Embedding:
    # from_pretrained skips reset_parameters, whose normal_ on meta costs ~2 s on first use.
    return nn.Embedding.from_pretrained(torch.empty(n, d_model, device=params.META), freeze=False)


@dataclass(frozen=True)
class ModelCount(presets.PublishedTotal):
    """A whole model: its block times n_layers, plus embeddings, norms, head and pooler."""

    id: str
    name: str
    n_layers: int
    block: params.Split
    embedding_params: int  # token embeddings, learned positions, BERT's token types
    norm_params: int  # two per block plus one more (final norm, or BERT's embedding norm)
    head_params: int  # an output matrix of its own (untied); 0 when tied or absent
    pooler_params: int  # BERT's pooler
    total: int
    published_total: int
    published_text: str
    config: presets.Source  # where the shape comes from
    published: presets.Source  # where the published total comes from

    @property
    def attention_total(self) -> int:
        """Attention parameters over all layers."""
        return self.n_layers * self.block.attention_params

    @property
    def ffn_total(self) -> int:
        """FFN parameters over all layers."""
        return self.n_layers * self.block.ffn_params

    @property
    def ffn_share_of_model(self) -> float:
        """FFN parameters over all layers as a share of the whole model's total."""
        return self.ffn_total / self.total

    def parts(self) -> tuple[tuple[str, int], ...]:
        """(part, params) for each non-empty part of the whole model."""
        rows = (
            ("embeddings", self.embedding_params),
            ("attention", self.attention_total),
            ("ffn", self.ffn_total),
            ("norms", self.norm_params),
            ("head", self.head_params),
            ("pooler", self.pooler_params),
        )
        return tuple(row for row in rows if row[1] > 0)

    def to_frame(self) -> pd.DataFrame:
        """Long data, one row per part of the whole model: part, params, share of the total."""
        frame = pd.DataFrame(self.parts(), columns=["part", "params"])
        frame["share"] = frame["params"] / self.total
        return frame


def model(preset_id: str, norms: bool = True) -> ModelCount:
    """Count a preset's whole model from meta-device modules (embeddings, blocks, head; norms optional)."""
    if not isinstance(norms, bool):
        raise ValueError("norms must be a boolean")
    p = presets.get(preset_id)
    params.check_int("vocab", p.vocab, 1, MAX_VOCAB)
    params.check_int("n_layers", p.n_layers, 1, MAX_LAYERS)
    one = params.block(p.d_model, p.d_ff, p.n_heads, p.n_kv_heads, p.bias, p.glu, p.norm)
    rows = (p.vocab, p.n_positions, p.type_vocab)
    embedding_params = sum(params.numel(_embedding(n, p.d_model)) for n in rows if n > 0)
    norm_params = p.n_layers * one.norm_params + params.numel(params.norm_module(p.d_model, p.norm)) if norms else 0
    head_params = 0 if p.tied else params.numel(nn.Linear(p.d_model, p.vocab, bias=False, device=params.META))
    pooler_params = params.numel(nn.Linear(p.d_model, p.d_model, bias=True, device=params.META)) if p.pooler else 0
    total = embedding_params + p.n_layers * one.block_params + norm_params + head_params + pooler_params
    return ModelCount(
        id=p.id,
        name=p.name,
        n_layers=p.n_layers,
        block=one,
        embedding_params=embedding_params,
        norm_params=norm_params,
        head_params=head_params,
        pooler_params=pooler_params,
        total=total,
        published_total=p.published_total,
        published_text=p.published_text,
        config=p.config,
        published=p.published,
    )


@dataclass(frozen=True)
class Catalogue:
    """Every preset counted: a table for the page and long data for the charts."""

    models: tuple[ModelCount, ...]

    def to_frame(self) -> pd.DataFrame:
        """One row per model: shape, per-block counts and FFN share, whole-model total and published total."""
        return pd.DataFrame([
            {
                "id": m.id,
                "name": m.name,
                "d_model": m.block.d_model,
                "d_ff": m.block.d_ff,
                "n_layers": m.n_layers,
                "n_heads": m.block.n_heads,
                "n_kv_heads": m.block.n_kv_heads,
                "glu": m.block.glu,
                "bias": m.block.bias,
                "attention_params": m.block.attention_params,
                "ffn_params": m.block.ffn_params,
                "ffn_share": m.block.ffn_share,
                "total_params": m.total,
                "published_total": m.published_text,
                "total_gap": m.total_gap,
                "source": m.config.name,
                "source_url": m.config.url,
            }
            for m in self.models
        ])

    def parts_frame(self) -> pd.DataFrame:
        """Long data, one row per (model, part) of the whole model, for a stacked bar."""
        return pd.concat(
            [m.to_frame().assign(id=m.id, name=m.name) for m in self.models], ignore_index=True
        )


def catalogue() -> Catalogue:
    """All presets, counted."""
    return Catalogue(tuple(model(p.id) for p in presets.PRESETS))


@dataclass(frozen=True)
class Causes:
    """A model's FFN share of one block, taken apart: its attention and its FFN width, each alone and together.

    The base is the lesson's block at the model's d and heads: full multi-head attention and the
    lesson's width (4·d, or 8/3·d for a gated FFN, which keeps 8d²).
    """

    id: str
    name: str
    group: int  # query heads per key/value head (1: full multi-head attention)
    expansion: float  # the model's d_ff / d
    base_expansion: str  # "4" or "8/3"
    base_share: float
    gqa_share: float  # the model's grouped-query attention, the lesson's width
    wide_share: float  # full multi-head attention, the model's width
    share: float  # the model's block as published


def causes(preset_id: str) -> Causes:
    """Count a preset's block four ways: base, its GQA alone, its d_ff alone, both (the model itself)."""
    p = presets.get(preset_id)
    base_expansion = "8/3" if p.glu else "4"
    base_d_ff = params.d_ff_for(p.d_model, base_expansion)

    def share(d_ff: int, n_kv_heads: int) -> float:
        return params.block(p.d_model, d_ff, p.n_heads, n_kv_heads, p.bias, p.glu, p.norm).ffn_share

    return Causes(
        id=p.id,
        name=p.name,
        group=p.n_heads // p.n_kv_heads,
        expansion=p.d_ff / p.d_model,
        base_expansion=base_expansion,
        base_share=share(base_d_ff, p.n_heads),
        gqa_share=share(base_d_ff, p.n_kv_heads),
        wide_share=share(p.d_ff, p.n_heads),
        share=share(p.d_ff, p.n_kv_heads),
    )


def report() -> list[dict]:
    """The report's model_presets rows: each preset's shape and its one-block split."""
    rows = []
    for m in catalogue().models:
        b = m.block
        rows.append({
            "id": m.id,
            "name": m.name,
            "d_model": b.d_model,
            "d_ff": b.d_ff,
            "glu": b.glu,
            "n_heads": b.n_heads,
            "n_kv_heads": b.n_kv_heads,
            "bias": b.bias,
            "attention_params": b.attention_params,
            "ffn_params": b.ffn_params,
            "ffn_share": b.ffn_share,
        })
    return rows
