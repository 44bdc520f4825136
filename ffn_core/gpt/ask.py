"""Ask the model: the next-token distribution after a prompt, and its accuracy over the facts table."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import torch

from ffn_core.gpt import corpus, evaluate, trace
from ffn_core.gpt import model as gpt_model
from ffn_core.gpt import vocab as gpt_vocab

TOP_K = 10


@dataclass(frozen=True)
class NextToken:
    """The top tokens after a prompt and, when the prompt has a known answer, where that answer stands."""

    words: tuple[str, ...]
    tokens: tuple[str, ...]  # the top TOP_K, most likely first
    probs: tuple[float, ...]
    answer: str | None
    answer_rank: int | None  # 1 = the model's prediction
    answer_prob: float | None

    @property
    def correct(self) -> bool:
        return self.answer is not None and self.answer_rank == 1

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"rank": range(1, len(self.tokens) + 1), "token": self.tokens, "prob": self.probs,
                             "is_answer": [token == self.answer for token in self.tokens]})


@torch.no_grad()
def next_token(model: gpt_model.GPT, words: Sequence[str], answer: str | None = None, k: int = TOP_K) -> NextToken:
    """The model's distribution over the token after `words` (all in the vocabulary)."""
    v = gpt_vocab.vocab()
    idx = trace.encode(words)[-model.config.block_size:]
    with torch.no_grad():
        probs = torch.softmax(model(idx[None])[0, -1].to(torch.float64), dim=-1)
    top = probs.topk(min(k, probs.numel()))
    rank = prob = None
    if answer is not None:
        token = v.encode([answer])[0]
        rank = int((probs > probs[token]).sum()) + 1
        prob = float(probs[token])
    return NextToken(tuple(words), tuple(v.decode(top.indices.tolist())), tuple(top.values.tolist()), answer, rank, prob)


@dataclass(frozen=True)
class Accuracy:
    """Fact accuracy on the templates seen in training and on the held-out template × fact prompts."""

    seen: float
    heldout: float
    n_seen: int
    n_heldout: int
    rows: tuple[tuple[str, str, bool, int, int], ...]  # (relation, lang, heldout, correct, prompts)

    def to_frame(self) -> pd.DataFrame:
        frame = pd.DataFrame(self.rows, columns=["relation", "lang", "heldout", "correct", "prompts"])
        return frame.assign(accuracy=frame["correct"] / frame["prompts"])


def accuracy(model: gpt_model.GPT, predictions: Sequence[int] | None = None) -> Accuracy:
    """Seen and held-out accuracy from one pass of evaluate.predictions (the same argmax rule as
    evaluate.fact_accuracy), and the same broken down by relation and language.

    predictions: the model's argmax after every corpus prompt, when the caller already has them.
    """
    prompts = corpus.prompts("all")
    answers = gpt_vocab.vocab().encode([p.answer for p in prompts])
    if predictions is None:
        predictions = evaluate.predictions(model, prompts)
    hits = [pred == ans for pred, ans in zip(predictions, answers)]
    groups: dict[tuple[str, str, bool], list[int]] = {}
    for p, hit in zip(prompts, hits):
        count = groups.setdefault((p.fact.relation, p.lang, p.heldout), [0, 0])
        count[0] += hit
        count[1] += 1
    seen = [hit for p, hit in zip(prompts, hits) if not p.heldout]
    heldout = [hit for p, hit in zip(prompts, hits) if p.heldout]
    return Accuracy(
        seen=sum(seen) / len(seen) if seen else float("nan"),
        heldout=sum(heldout) / len(heldout) if heldout else float("nan"),
        n_seen=len(seen),
        n_heldout=len(heldout),
        rows=tuple((r, lang, h, c, n) for (r, lang, h), (c, n) in sorted(groups.items())),
    )
