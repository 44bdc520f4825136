"""One word's vector, block by block: how alike it stays across sentences, and how alike two words become.

A word enters the model as its token vector plus its position's vector. Each block's attention then
adds what it reads from the words before it (only before: the model is causal, so nothing after a
word ever reaches that word's vector), and each block's FFN adds what it makes of the result. Here
the residual stream at one position is kept after every stage (the embedding, then each block's
attention and FFN) for several sentences, and compared by cosine similarity in float64.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import torch

from ffn_core.gpt import corpus, model as gpt_model, trace

# The form "{A} is the capital of {C} ." / "{A} {A|은} {C} 의 수도 이다 .": the country comes after its
# fact's answer, so its vector has something to read in every relation's sentence. In the forms where
# the country comes first, nothing precedes it and its vector is the same in every sentence.
ANSWER_FIRST = 2


@dataclass(frozen=True)
class Context:
    """A sentence and the position of the word to follow in it; label names it on a chart."""

    words: tuple[str, ...]
    index: int
    label: str


def stage_names(n_layer: int) -> tuple[str, ...]:
    """"embedding", then "attn 1", "ffn 1", ... "attn L", "ffn L": where the residual stream is read."""
    return ("embedding", *(f"{part} {layer}" for layer in range(1, n_layer + 1) for part in ("attn", "ffn")))


@torch.no_grad()
def states(model: gpt_model.GPT, context: Context) -> torch.Tensor:
    """The residual stream at context.index after each stage: (1 + 2·n_layer, d_model), float64.

    Only the words up to the index are run: the causal mask makes the later ones irrelevant here.
    """
    m = model if next(model.parameters()).dtype == torch.float64 else trace.float64(model)
    tr = trace.run(m, trace.encode(context.words[: context.index + 1]))
    x = tr.embedding[-1]
    out = [x]
    for a, f in zip(tr.attn, tr.ffn):
        x = x + a[-1]
        out.append(x)
        x = x + f[-1]
        out.append(x)
    return torch.stack(out)


def cosine(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Cosine similarity along the last axis (float64 in, float64 out)."""
    return (a * b).sum(-1) / (a.norm(dim=-1) * b.norm(dim=-1))


@dataclass(frozen=True)
class Similarity:
    """Pairwise cosine similarity of several contexts' vectors at each stage."""

    stages: tuple[str, ...]
    labels: tuple[str, ...]
    cosine: tuple[tuple[tuple[float, ...], ...], ...]  # [stage][i][j]
    norms: tuple[tuple[float, ...], ...]  # [stage][i]: each vector's length

    def pair(self, i: int, j: int) -> tuple[float, ...]:
        """Cosine of contexts i and j at every stage."""
        return tuple(m[i][j] for m in self.cosine)

    def to_frame(self, pairs: Sequence[tuple[int, int]] | None = None) -> pd.DataFrame:
        """Long rows (stage, step: 0-based stage index, pair "a ~ b", a, b, cosine) for the pairs (default: all i < j)."""
        n = len(self.labels)
        chosen = [(i, j) for i in range(n) for j in range(i + 1, n)] if pairs is None else list(pairs)
        rows = [
            {"stage": name, "step": s, "pair": f"{self.labels[i]} ~ {self.labels[j]}", "a": self.labels[i],
             "b": self.labels[j], "cosine": self.cosine[s][i][j]}
            for i, j in chosen for s, name in enumerate(self.stages)
        ]
        return pd.DataFrame(rows, columns=["stage", "step", "pair", "a", "b", "cosine"])


@torch.no_grad()
def compare(model: gpt_model.GPT, contexts: Sequence[Context]) -> Similarity:
    """Every pair's cosine similarity at every stage, from one float64 copy of the model."""
    m = trace.float64(model)
    vectors = torch.stack([states(m, c) for c in contexts], dim=1) if contexts else torch.zeros(
        1 + 2 * len(model.blocks), 0, model.config.d_model, dtype=torch.float64)
    unit = vectors / vectors.norm(dim=-1, keepdim=True)
    matrices = unit @ unit.transpose(1, 2)  # (stages, n, n)
    return Similarity(
        stages=stage_names(len(model.blocks)),
        labels=tuple(c.label for c in contexts),
        cosine=tuple(tuple(tuple(float(x) for x in row) for row in stage) for stage in matrices.tolist()),
        norms=tuple(tuple(float(x) for x in stage) for stage in vectors.norm(dim=-1)),
    )


def _subject_index(sentence: corpus.Sentence) -> int:
    """Where the country is: not the answer's place, which holds the same word for Luxembourg's capital."""
    subject = sentence.fact.subject(sentence.lang)
    return next(i for i, w in enumerate(sentence.words) if w == subject and i != sentence.answer_index)


def word_contexts(country: str, langs: Sequence[str] = corpus.LANGS) -> tuple[Context, ...]:
    """The country in its answer-first sentence of each relation it has, per language; label "relation.lang"."""
    out = []
    for lang in langs:
        for relation in corpus.RELATIONS:
            template = corpus.template_id(relation, lang, ANSWER_FIRST)
            for s in corpus.sentences():
                if s.fact.country == country and s.template == template:
                    out.append(Context(s.words, _subject_index(s), f"{relation}.{lang}"))
    return tuple(out)


def role_contexts(template: str, countries: Sequence[str]) -> tuple[Context, ...]:
    """Each country in one prompt form, twice: at the country word (label "word:<country>") and at the
    prompt's last word, the one that predicts the answer (label "last:<country>"). Countries without
    that fact are left out."""
    words_at, last_at = [], []
    for country in countries:
        for p in corpus.prompts("all"):
            if p.fact.country == country and p.template == template:
                index = p.words.index(p.fact.subject(p.lang))
                words_at.append(Context(p.words, index, f"word:{country}"))
                last_at.append(Context(p.words, len(p.words) - 1, f"last:{country}"))
    return (*words_at, *last_at)
