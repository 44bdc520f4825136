"""Superposition, measured: one neuron serves many facts, and a layer's neurons share few directions.

A neuron that pushes up one prompt's answer is rarely "the neuron for" that answer. Read over the
whole corpus, its key fires on prompts of many different facts, and its value vector pushes up many
words at once, the answer often far down the list: the neuron is polysemantic, one unit in several
features (Elhage et al. 2022, "Toy Models of Superposition"). `neuron` measures that for one neuron.

`directions` measures the other side, per block: how many directions the FFN's hidden vectors
actually spread over, at the last word of every corpus prompt (where the answer is read), against
the layer's width. The participation ratio
of the hidden vectors' covariance C, (Σλ)² / Σλ² = tr(C)² / ‖C‖²_F, is the number of equally strong
directions that would give the same spread (d_ff if every neuron varied alone and alike, 1 if all
moved together); k90 is the fewest principal directions holding 90% of the variance.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import torch

from ffn_core.gpt import corpus, neurons, trace
from ffn_core.gpt import facts as gpt_facts
from ffn_core.gpt import model as gpt_model
from ffn_core.gpt import vocab as gpt_vocab

N_FIRING = 20  # the corpus prompts that fire a neuron hardest, read for what they ask
N_WRITES = 10  # the words its value vector pushes up most
KINDS = ("country", "capital", "continent", "language", "currency", "template")
VARIANCE = 0.9


@functools.cache
def kinds() -> dict[str, str]:
    """Each vocabulary word's kind in the fact table, both languages; every other word is "template"."""
    out: dict[str, str] = {}
    for row in gpt_facts.COUNTRIES:
        for kind, names in (("country", (row.en, row.ko)), ("capital", (row.capital, row.capital_ko))):
            for name in names:
                if name is not None:
                    out.setdefault(name, kind)
    for kind, table in (("continent", gpt_facts.CONTINENTS), ("language", gpt_facts.LANGUAGES),
                        ("currency", gpt_facts.CURRENCIES)):
        for en, ko in table.items():
            out.setdefault(en, kind)
            out.setdefault(ko, kind)
    return {w: out.get(w, "template") for w in gpt_vocab.vocab().tokens}


@dataclass(frozen=True)
class Polysemantic:
    """One neuron read over the corpus: which prompts fire it, what its value writes."""

    layer: int  # 1-based block
    index: int
    prompts: tuple[str, ...]  # the N_FIRING corpus prompts with the largest a_i at their last word, strongest first
    activations: tuple[float, ...]
    answers: tuple[str, ...]  # each of those prompts' answer
    relations: tuple[str, ...]
    langs: tuple[str, ...]
    fires_on: float  # share of the corpus prompts with a_i > 0 at their last word
    writes: tuple[str, ...]  # the N_WRITES words its value vector pushes up most
    kinds: tuple[str, ...]  # each of those words' kind (KINDS)
    answer: str
    answer_rank: int  # where `answer` stands among the words the value pushes up (1 = first)
    vocab: int

    @property
    def distinct(self) -> tuple[int, int, int]:
        """Different answers, relations and languages among the prompts that fire it hardest."""
        return len(set(self.answers)), len(set(self.relations)), len(set(self.langs))


def prompt_hidden(model: gpt_model.GPT) -> torch.Tensor:
    """Every block's FFN hidden vector at the last word of every corpus prompt: (prompts, n_layer, d_ff), one pass."""
    return neurons.batched_last_hidden(model, corpus.prompts("all"))


@torch.no_grad()
def neuron(model: gpt_model.GPT, layer: int, index: int, answer: str, hidden: torch.Tensor | None = None) -> Polysemantic:
    """Block `layer`'s (1-based) neuron `index` over every corpus prompt, its value read against `answer`.

    hidden: prompt_hidden(model), when the caller keeps it."""
    prompts = corpus.prompts("all")
    a = (prompt_hidden(model) if hidden is None else hidden)[:, layer - 1, index]
    top = a.topk(min(N_FIRING, len(prompts)))
    chosen = [prompts[i] for i in top.indices.tolist()]
    m64 = trace.float64(model)
    value = m64.blocks[layer - 1].ffn.w_2.weight[:, index]
    scores = trace.value_logits(m64, value[None])[0]
    v = gpt_vocab.vocab()
    order = scores.argsort(descending=True)
    writes = tuple(v.decode(order[:N_WRITES].tolist()))
    token = v.index[answer]
    return Polysemantic(
        layer=layer, index=index, prompts=tuple(" ".join(p.words) for p in chosen),
        activations=tuple(float(x) for x in top.values), answers=tuple(p.answer for p in chosen),
        relations=tuple(p.fact.relation for p in chosen), langs=tuple(p.lang for p in chosen),
        fires_on=float((a > 0).double().mean()), writes=writes, kinds=tuple(kinds()[w] for w in writes),
        answer=answer, answer_rank=int((scores > scores[token]).sum()) + 1, vocab=len(v),
    )


@dataclass(frozen=True)
class Directions:
    """Per block, how many directions the FFN's hidden vectors use at the corpus prompts' last words, against the width."""

    width: int  # d_ff: the neurons of one block
    d_model: int
    samples: int  # the corpus prompts
    participation: tuple[float, ...]  # per block: tr(C)² / ‖C‖²_F of the hidden vectors' covariance
    k90: tuple[int, ...]  # per block: fewest principal directions holding VARIANCE of the variance


def directions(model: gpt_model.GPT, hidden: torch.Tensor | None = None) -> Directions:
    """The covariance of each block's hidden vectors over the corpus prompts' last words (float64) and its spread.

    hidden: prompt_hidden(model), when the caller keeps it."""
    h = (prompt_hidden(model) if hidden is None else hidden).to(torch.float64)
    participation, k90 = [], []
    for layer in range(h.shape[1]):
        x = h[:, layer] - h[:, layer].mean(0)
        c = x.T @ x / x.shape[0]
        eig = torch.linalg.eigvalsh(c).clamp_min(0).flip(0)
        participation.append(float(eig.sum() ** 2 / (eig ** 2).sum()))
        share = eig.cumsum(0) / eig.sum()
        k90.append(int((share < VARIANCE).sum()) + 1)
    return Directions(model.config.d_ff, model.config.d_model, h.shape[0], tuple(participation), tuple(k90))
