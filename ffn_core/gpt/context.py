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
from ffn_core.gpt import vocab as gpt_vocab

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


# A country with one meaning per word, in the same sentence form, for the two-meaning word to be read against.
REFERENCE = "France"


@dataclass(frozen=True)
class TwoMeanings:
    """The corpus's one word with two meanings (corpus.TWO_MEANINGS), at both of its places in one sentence.

    "The capital of Luxembourg is Luxembourg ." holds the country at `country` and its capital at `city`:
    one token, one embedding row. Per stage (stage_names): the cosine of the two residual vectors; of
    each with the reference sentence's word at the same place ("The capital of France is Paris .":
    like_country is Luxembourg~France, like_city Luxembourg~Paris); and the logit lens at each place,
    the word the model would predict next if it stopped there (final norm and head, float64).
    """

    lang: str
    words: tuple[str, ...]
    reference: tuple[str, ...]
    country: int
    city: int
    stages: tuple[str, ...]
    cosine: tuple[float, ...]
    like_country: tuple[float, ...]
    like_city: tuple[float, ...]
    lens_country: tuple[str, ...]
    lens_city: tuple[str, ...]


def _capital_sentence(lang: str, country: str) -> corpus.Sentence:
    template = corpus.template_id("capital", lang, 0)
    return next(s for s in corpus.sentences() if s.template == template and s.fact.country == country)


def two_meanings_sentence(lang: str) -> corpus.Sentence:
    """The sentence "The capital of Luxembourg is Luxembourg ." (its first capital form) in `lang`."""
    word = corpus.TWO_MEANINGS["en"]
    return _capital_sentence(lang, word)


@torch.no_grad()
def two_meanings(model: gpt_model.GPT, lang: str) -> TwoMeanings:
    """The two places of the two-meaning word, compared stage by stage, with the logit lens at each."""
    s, ref = two_meanings_sentence(lang), _capital_sentence(lang, REFERENCE)
    country, city = _subject_index(s), s.answer_index
    m = trace.float64(model)
    at = {(words, i): states(m, Context(words, i, "")) for words in (s.words, ref.words) for i in (country, city)}
    lens = lambda x: tuple(gpt_vocab.vocab().decode(m.head(m.ln_f(x)).argmax(dim=-1).tolist()))  # noqa: E731
    floats = lambda c: tuple(float(x) for x in c)  # noqa: E731
    return TwoMeanings(
        lang=lang, words=s.words, reference=ref.words, country=country, city=city,
        stages=stage_names(len(model.blocks)),
        cosine=floats(cosine(at[s.words, country], at[s.words, city])),
        like_country=floats(cosine(at[s.words, country], at[ref.words, country])),
        like_city=floats(cosine(at[s.words, city], at[ref.words, city])),
        lens_country=lens(at[s.words, country]), lens_city=lens(at[s.words, city]),
    )
