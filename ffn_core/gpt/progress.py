"""The model across training: what the training log says at every logged step, and one checkpoint probed.

The log (weights.log(), written by train.py) holds, every 100 steps and at each checkpoint, the seen-
and held-out-form fact accuracy, the template-word (grammar) accuracy and each block's mean direct
term on the answer's logit (writers.py). Its rows at the shipped checkpoints were measured on the
weights as shipped, so a checkpoint recomputed here gives the same numbers (the tests check it).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from ffn_core.gpt import ask, attribution, model as gpt_model, neurons

PASS = 0.9  # "learned": an accuracy at least this


@dataclass(frozen=True)
class Curve:
    """The logged measures by step; each tuple has one entry per logged step."""

    steps: tuple[int, ...]
    seen: tuple[float, ...]
    heldout: tuple[float, ...]
    template: tuple[float, ...]
    attn: tuple[tuple[float, ...], ...]  # [step][block]: mean direct term on the answer, seen prompts
    ffn: tuple[tuple[float, ...], ...]
    shipped: tuple[int, ...]  # the steps with a checkpoint on disk (0 is the seed's model)

    def first_at_least(self, measure: str, level: float = PASS) -> int | None:
        """The first logged step at which `measure` ("seen", "heldout", "template") is ≥ level; None if never."""
        values = getattr(self, measure)
        return next((s for s, v in zip(self.steps, values) if math.isfinite(v) and v >= level), None)

    def at(self, measure: str, step: int) -> float:
        return getattr(self, measure)[self.steps.index(step)]

    def ffn_onset(self, share: float = 0.5) -> tuple[int | None, ...]:
        """Per block: the first logged step at which its FFN's mean term on the answer reaches `share` of its
        value at the last step; None where that final value is not positive (the block does not write it)."""
        out = []
        for block in range(len(self.ffn[0]) if self.ffn else 0):
            final = self.ffn[-1][block]
            if not (math.isfinite(final) and final > 0):
                out.append(None)
                continue
            out.append(next((s for s, row in zip(self.steps, self.ffn) if row[block] >= share * final), None))
        return tuple(out)

    def to_frame(self) -> pd.DataFrame:
        """Long rows: step, measure ("seen", "heldout", "template"), value, shipped (a checkpoint exists)."""
        rows = [{"step": s, "measure": m, "value": v, "shipped": s in self.shipped}
                for m in ("seen", "heldout", "template") for s, v in zip(self.steps, getattr(self, m))]
        return pd.DataFrame(rows, columns=["step", "measure", "value", "shipped"])

    def writers_frame(self) -> pd.DataFrame:
        """Long rows: step, part ("attn", "ffn"), block (1-based), term (mean direct term on the answer)."""
        rows = [{"step": s, "part": part, "block": b + 1, "term": v}
                for part in ("attn", "ffn") for s, row in zip(self.steps, getattr(self, part)) for b, v in enumerate(row)]
        return pd.DataFrame(rows, columns=["step", "part", "block", "term"])


def curve(log: Mapping, shipped: Sequence[int]) -> Curve:
    """The Curve from a training log ({"steps": [row, ...]}); rows without the writers' terms are skipped."""
    rows = sorted((r for r in log.get("steps", []) if isinstance(r, dict) and "ffn_seen" in r),
                  key=lambda r: r["step"])
    return Curve(
        steps=tuple(int(r["step"]) for r in rows),
        seen=tuple(float(r["fact_accuracy_seen"]) for r in rows),
        heldout=tuple(float(r["fact_accuracy_heldout"]) for r in rows),
        template=tuple(float(r["template_accuracy"]) for r in rows),
        attn=tuple(tuple(float(x) for x in r["attn_seen"]) for r in rows),
        ffn=tuple(tuple(float(x) for x in r["ffn_seen"]) for r in rows),
        shipped=tuple(shipped),
    )


@dataclass(frozen=True)
class Snapshot:
    """One checkpoint probed with one prompt: its answer, its accuracy, who writes the answer, its top neurons."""

    step: int
    target: str  # the answer the attribution follows: the known answer, else the model's own top word
    next: ask.NextToken
    accuracy: ask.Accuracy
    attribution: attribution.Attribution
    neurons: neurons.Neurons


def snapshot(model: gpt_model.GPT, step: int, words: Sequence[str], answer: str | None,
             keys: neurons.Keys | None = None) -> Snapshot:
    """Everything page 8 shows for the final model, recomputed on the checkpoint `model` (taken at `step`).

    keys: neurons.corpus_keys(model), when the caller keeps it (its predictions give the accuracy).
    """
    keys = neurons.corpus_keys(model) if keys is None else keys
    nxt = ask.next_token(model, words, answer)
    target = answer if answer is not None else nxt.tokens[0]
    return Snapshot(
        step=step, target=target, next=nxt, accuracy=ask.accuracy(model, keys.predictions),
        attribution=attribution.attribute(model, words, target),
        neurons=neurons.top_neurons(model, words, target, keys=keys),
    )
