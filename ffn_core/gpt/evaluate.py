"""How much the model knows: fact accuracy, template-word accuracy and the FFN's active fraction.

Every measure is one batched pass per sentence length (no padding, so no masking), without gradients.
"Active" means a positive pre-activation, as in ffn_core.sparsity: exactly h > 0 for relu.
"""
from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from ffn_core.gpt import corpus, forward, model as gpt_model, vocab as gpt_vocab

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


@functools.lru_cache(maxsize=8)
def _prompt_batches(prompts: tuple[corpus.Prompt, ...]) -> Batches:
    return _by_length([p.words for p in prompts])


def predictions(model: gpt_model.GPT, prompts: Sequence[corpus.Prompt]) -> list[int]:
    """The argmax next-token id after each prompt."""
    out = [0] * len(prompts)
    with torch.no_grad():
        for ids, rows in _prompt_batches(tuple(prompts)):
            best = model.head(forward.final_states(model, ids)[:, -1]).argmax(dim=-1).tolist()
            for i, b in zip(rows, best):
                out[i] = b
    return out


def fact_accuracy(model: gpt_model.GPT, prompts: Sequence[corpus.Prompt]) -> float:
    """Share of prompts whose argmax next token is the fact's answer."""
    if not prompts:
        return float("nan")
    answers = gpt_vocab.vocab().encode([p.answer for p in prompts])
    return sum(p == a for p, a in zip(predictions(model, prompts), answers)) / len(prompts)


@dataclass(frozen=True)
class _Batch:
    """Corpus sentences of one length: ids (n, T); template-target mask (n, T - 1); prompt rows."""

    ids: torch.Tensor
    template_mask: torch.Tensor
    prompt_rows: torch.Tensor
    prompt_positions: torch.Tensor
    prompt_answers: torch.Tensor
    prompt_heldout: torch.Tensor
    prompt_index: torch.Tensor  # each prompt row's place in corpus.prompts("all")
    needed: torch.Tensor  # (n, T) the positions whose prediction is scored


@functools.cache
def corpus_batches() -> tuple[_Batch, ...]:
    """Every corpus sentence, held-out ones included, grouped by length.

    A prompt is a prefix of its sentence, so in a causal model the sentence's logits at the position
    before the answer are the prompt's: one pass scores the facts and the grammar together.
    """
    every = corpus.sentences()
    targets = dict(corpus.template_positions())
    v = gpt_vocab.vocab()
    # corpus.prompts("all") lists the prompt sentences in corpus order.
    prompt_of = {i: k for k, i in enumerate(i for i, s in enumerate(every) if s.prompt)}
    out = []
    for ids, index in _by_length([s.words for s in every]):
        mask = torch.zeros(ids.shape[0], ids.shape[1] - 1, dtype=torch.bool)
        rows, positions, answers, held, order = [], [], [], [], []
        for r, i in enumerate(index):
            s = every[i]
            if not s.heldout:
                mask[r, list(targets[s.words])] = True
            if s.prompt:
                rows.append(r)
                positions.append(s.answer_index - 1)
                answers.append(v.index[s.words[s.answer_index]])
                held.append(s.heldout)
                order.append(prompt_of[i])
        needed = torch.zeros(ids.shape, dtype=torch.bool)
        needed[:, :-1] = mask
        needed[rows, positions] = True
        out.append(_Batch(ids, mask, torch.tensor(rows, dtype=torch.long), torch.tensor(positions, dtype=torch.long),
                          torch.tensor(answers, dtype=torch.long), torch.tensor(held, dtype=torch.bool), torch.tensor(order, dtype=torch.long), needed))
    return tuple(out)


@dataclass
class Counts:
    facts_seen: int = 0
    facts_seen_right: int = 0
    facts_heldout: int = 0
    facts_heldout_right: int = 0
    template: int = 0
    template_right: int = 0
    tokens: int = 0


def tally(model: gpt_model.GPT, b: _Batch, x: torch.Tensor, c: Counts) -> torch.Tensor:
    """Add one batch's fact and template-word hits to c from its final states x (n, T, d), after ln_f.

    Returns the argmax next token at every scored position (-1 elsewhere).
    """
    best = torch.full(b.ids.shape, -1, dtype=torch.long)
    best[b.needed] = model.head(x[b.needed]).argmax(dim=-1)
    tally_best(b, best, c)
    return best


def tally_best(b: _Batch, best: torch.Tensor, c: Counts) -> None:
    """Add one batch's fact and template-word hits to c from its argmax next token at every scored position."""
    right = (best[:, :-1] == b.ids[:, 1:])[b.template_mask]
    c.template += right.numel()
    c.template_right += int(right.sum())
    c.tokens += b.ids.numel()
    if b.prompt_rows.numel():
        hit = best[b.prompt_rows, b.prompt_positions] == b.prompt_answers
        c.facts_heldout += int(b.prompt_heldout.sum())
        c.facts_heldout_right += int(hit[b.prompt_heldout].sum())
        c.facts_seen += int((~b.prompt_heldout).sum())
        c.facts_seen_right += int(hit[~b.prompt_heldout].sum())


def _corpus_pass(model: gpt_model.GPT) -> tuple[Counts, list[int]]:
    """One pass over every corpus sentence: fact and template-word hits, FFN units active per layer."""
    active = [0] * len(model.blocks)

    def count(layer: int):
        def hook(_module, inputs, _output):
            # count_nonzero of the mask: a bool tensor's sum() widens every element to int64 first.
            active[layer] += int(torch.count_nonzero(inputs[0] > 0))
        return hook

    handles = [block.ffn.act.register_forward_hook(count(layer)) for layer, block in enumerate(model.blocks)]
    c = Counts()
    try:
        with torch.no_grad():
            for b in corpus_batches():
                tally(model, b, forward.final_states(model, b.ids), c)
    finally:
        for h in handles:
            h.remove()
    return c, active


def template_accuracy(model: gpt_model.GPT) -> float:
    """Argmax accuracy on the template words that the prefix fixes (corpus.template_positions)."""
    return evaluate(model).template_accuracy


def active_fraction(model: gpt_model.GPT) -> list[float]:
    """Per layer, the share of FFN hidden units with a positive pre-activation over the corpus tokens."""
    return list(evaluate(model).active_fraction)


def evaluation(c: Counts, active: Sequence[int], d_ff: int) -> Evaluation:
    """The scores from a corpus pass's counts."""
    return Evaluation(
        fact_accuracy=(c.facts_seen_right + c.facts_heldout_right) / (c.facts_seen + c.facts_heldout),
        fact_accuracy_seen=c.facts_seen_right / c.facts_seen,
        fact_accuracy_heldout=c.facts_heldout_right / c.facts_heldout,
        template_accuracy=c.template_right / c.template,
        active_fraction=tuple(a / (c.tokens * d_ff) for a in active),
    )


def evaluate(model: gpt_model.GPT) -> Evaluation:
    """Every score from one pass over the corpus: fact accuracy (all, seen, held-out), template
    accuracy, and the active fraction over every token of every corpus sentence."""
    c, active = _corpus_pass(model)
    return evaluation(c, active, model.config.d_ff)
