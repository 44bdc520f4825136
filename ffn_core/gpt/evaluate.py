"""How much the model knows: fact accuracy, template-word accuracy and the FFN's active fraction.

Every measure is one batched pass per sentence length (no padding, so no masking), without gradients.
"Active" means a positive pre-activation, as in ffn_core.sparsity: exactly h > 0 for relu.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from ffn_core.gpt import corpus, model as gpt_model, vocab as gpt_vocab

Batches = tuple[tuple[torch.Tensor, tuple[int, ...]], ...]


@dataclass(frozen=True)
class Evaluation:
    """One model's scores on the corpus."""

    fact_accuracy: float
    fact_accuracy_seen: float
    fact_accuracy_heldout: float
    template_accuracy: float
    active_fraction: tuple[float, ...]


def _by_length(word_lists: Sequence[Sequence[str]]) -> Batches:
    """(ids (n, T), original indices) for each length, so no batch needs padding."""
    v = gpt_vocab.vocab()
    groups: dict[int, list[int]] = {}
    for i, words in enumerate(word_lists):
        groups.setdefault(len(words), []).append(i)
    return tuple(
        (torch.tensor([v.encode(word_lists[i]) for i in rows], dtype=torch.long), tuple(rows))
        for _, rows in sorted(groups.items())
    )


@functools.cache
def _prompt_batches(prompts: tuple[corpus.Prompt, ...]) -> Batches:
    return _by_length([p.words for p in prompts])


def predictions(model: gpt_model.GPT, prompts: Sequence[corpus.Prompt]) -> list[int]:
    """The argmax next-token id after each prompt."""
    out = [0] * len(prompts)
    with torch.no_grad():
        for ids, rows in _prompt_batches(tuple(prompts)):
            best = model(ids)[:, -1].argmax(dim=-1).tolist()
            for i, b in zip(rows, best):
                out[i] = b
    return out


def fact_accuracy(model: gpt_model.GPT, prompts: Sequence[corpus.Prompt]) -> float:
    """Share of prompts whose argmax next token is the fact's answer."""
    if not prompts:
        return float("nan")
    answers = gpt_vocab.vocab().encode([p.answer for p in prompts])
    return sum(p == a for p, a in zip(predictions(model, prompts), answers)) / len(prompts)


@functools.cache
def _corpus_batches() -> tuple[tuple[torch.Tensor, torch.Tensor], ...]:
    """The training sentences by length: (ids (n, T), template-target mask (n, T - 1))."""
    rows = corpus.template_positions()
    out = []
    for ids, index in _by_length([words for words, _ in rows]):
        mask = torch.zeros(ids.shape[0], ids.shape[1] - 1, dtype=torch.bool)
        for r, i in enumerate(index):
            mask[r, list(rows[i][1])] = True
        out.append((ids, mask))
    return tuple(out)


def _corpus_pass(model: gpt_model.GPT) -> tuple[float, list[float]]:
    """Template-word accuracy and per-layer active fraction, from one pass over the training sentences."""
    counts = [0] * len(model.blocks)
    handles = [
        block.ffn.act.register_forward_hook(
            lambda _m, inputs, _out, layer=layer: counts.__setitem__(layer, counts[layer] + int((inputs[0] > 0).sum()))
        )
        for layer, block in enumerate(model.blocks)
    ]
    hits, total, tokens = 0, 0, 0
    try:
        with torch.no_grad():
            for ids, mask in _corpus_batches():
                best = model(ids)[:, :-1].argmax(dim=-1)
                hits += int((best == ids[:, 1:])[mask].sum())
                total += int(mask.sum())
                tokens += ids.numel()
    finally:
        for h in handles:
            h.remove()
    d_ff = model.config.d_ff
    return hits / total, [c / (tokens * d_ff) for c in counts]


def template_accuracy(model: gpt_model.GPT) -> float:
    """Argmax accuracy on the template words that the prefix fixes (corpus.template_positions)."""
    return _corpus_pass(model)[0]


def active_fraction(model: gpt_model.GPT) -> list[float]:
    """Per layer, the share of FFN hidden units with a positive pre-activation over the corpus tokens."""
    return _corpus_pass(model)[1]


def evaluate(model: gpt_model.GPT) -> Evaluation:
    """Every score at once: fact accuracy (all, seen, held-out), template accuracy, active fraction."""
    all_prompts = corpus.prompts("all")
    v = gpt_vocab.vocab()
    right = [p == a for p, a in zip(predictions(model, all_prompts), v.encode([p.answer for p in all_prompts]))]
    seen = [r for r, p in zip(right, all_prompts) if not p.heldout]
    held = [r for r, p in zip(right, all_prompts) if p.heldout]
    template, active = _corpus_pass(model)
    return Evaluation(
        fact_accuracy=sum(right) / len(right),
        fact_accuracy_seen=sum(seen) / len(seen),
        fact_accuracy_heldout=sum(held) / len(held) if held else float("nan"),
        template_accuracy=template,
        active_fraction=tuple(active),
    )
