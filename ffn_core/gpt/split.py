"""The trained GPT's own parameter split, counted from its modules: embeddings, attention, FFN, norms, head."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from torch import nn

from ffn_core import ffn
from ffn_core.gpt import model as gpt_model

PARTS = ("embeddings", "attention", "ffn", "norms", "head")


@dataclass(frozen=True)
class Split:
    d_model: int
    d_ff: int
    n_layers: int
    vocab_size: int
    counts: tuple[tuple[str, int], ...]  # (part, parameters), in PARTS order
    tied: bool  # the head reuses the token embedding's matrix (counted once, under embeddings)

    @property
    def total(self) -> int:
        return sum(n for _, n in self.counts)

    def count(self, part: str) -> int:
        return dict(self.counts)[part]

    @property
    def ffn_share_of_blocks(self) -> float:
        """FFN / (attention + FFN): page 1's 2/3 (8d² against 4d², plus biases)."""
        return self.count("ffn") / (self.count("ffn") + self.count("attention"))

    @property
    def ffn_share(self) -> float:
        """FFN / every parameter: with a vocabulary this size, the embeddings and head take their part."""
        return self.count("ffn") / self.total

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"part": [p for p, _ in self.counts], "params": [n for _, n in self.counts],
                             "share": [n / self.total for _, n in self.counts]})


def _part(module: nn.Module, model: gpt_model.GPT) -> str | None:
    if isinstance(module, ffn.FFN):
        return "ffn"
    if isinstance(module, gpt_model.CausalSelfAttention):
        return "attention"
    if isinstance(module, nn.LayerNorm):
        return "norms"
    if isinstance(module, nn.Embedding):
        return "embeddings"
    if module is model.head:
        return "head"
    return None


def split(model: gpt_model.GPT) -> Split:
    """Count every parameter once (a tied tensor counts where it first appears), by the module that owns it."""
    counts = dict.fromkeys(PARTS, 0)
    seen: set[int] = set()
    for module in model.modules():
        part = _part(module, model)
        if part is None:
            continue
        for p in module.parameters():
            if id(p) not in seen:
                seen.add(id(p))
                counts[part] += p.numel()
    uncounted = [name for name, p in model.named_parameters() if id(p) not in seen]
    if uncounted:
        raise ValueError(f"parameters outside every part: {uncounted}")
    c = model.config
    tied = model.head.weight is model.wte.weight
    return Split(c.d_model, c.d_ff, c.n_layer, c.vocab_size, tuple(counts.items()), tied)
