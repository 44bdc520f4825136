"""What the trained MoE GPT's routers do: which expert each fact prompt goes to, and what one expert holds.

Routing is read where the answer is computed: at a prompt's last word ("The capital of France is"),
in every block. An ablation zeroes one expert of one block (the tokens routed there lose that block's
FFN term; the router is left as it is) and scores every prompt of the corpus again.
"""
from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass

import pandas as pd
import torch

from ffn_core import moe
from ffn_core.gpt import corpus, moe_model, moe_train, vocab as gpt_vocab

GROUPS = ("relation", "lang")


@functools.cache
def _batches() -> tuple[tuple[torch.Tensor, tuple[int, ...]], ...]:
    """The prompts as ids, grouped by length (no padding): (ids (n, T), indices into corpus.prompts("all"))."""
    v = gpt_vocab.vocab()
    groups: dict[int, list[int]] = {}
    every = corpus.prompts("all")
    for i, p in enumerate(every):
        groups.setdefault(len(p.words), []).append(i)
    return tuple((torch.tensor([v.encode(every[i].words) for i in rows], dtype=torch.long), tuple(rows))
                 for _, rows in sorted(groups.items()))


@dataclass(frozen=True)
class Pass:
    """Every prompt through the model once: the argmax next word (P,), the experts chosen at its last word
    (P, blocks, k), the router's probabilities there (P, blocks, E), and whether any of its words went to
    each expert (P, blocks, E): only those prompts can change when that expert is taken out."""

    best: torch.Tensor
    chosen: torch.Tensor
    probs: torch.Tensor
    touched: torch.Tensor


@torch.no_grad()
def run(model: moe_model.MoEGPT, drop: tuple[int, int] | None = None, only: torch.Tensor | None = None) -> Pass:
    """The prompts through the model, expert drop = (block, expert) zeroed; `only` (P,) bool: just those prompts
    (the others keep zeros)."""
    n = len(corpus.prompts("all"))
    cfg = model.config
    best = torch.zeros(n, dtype=torch.long)
    chosen = torch.zeros(n, cfg.n_layer, cfg.k, dtype=torch.long)
    probs = torch.zeros(n, cfg.n_layer, cfg.n_experts)
    touched = torch.zeros(n, cfg.n_layer, cfg.n_experts, dtype=torch.bool)
    for ids, rows in _batches():
        index = torch.tensor(rows)
        if only is not None:
            keep = only[index]
            if not keep.any():
                continue
            ids, index = ids[keep], index[keep]
        x = model.wte(ids) + model.wpe(torch.arange(ids.shape[1]))
        for layer, block in enumerate(model.blocks):
            x = x + block.attn(block.ln_1(x))
            h = block.ln_2(x)
            p, c, _ = block.ffn.route(h)  # (n, T, E), (n, T, k)
            chosen[index, layer], probs[index, layer] = c[:, -1], p[:, -1]
            hit = torch.zeros(len(index), cfg.n_experts, dtype=torch.bool)
            hit.scatter_(1, c.reshape(len(index), -1), True)
            touched[index, layer] = hit
            x = x + block.ffn(h, drop[1] if drop is not None and drop[0] == layer else None)
        best[index] = model.head(model.ln_f(x[:, -1])).argmax(dim=-1)
    return Pass(best, chosen, probs, touched)


@functools.cache
def answers() -> torch.Tensor:
    return torch.tensor(gpt_vocab.vocab().encode([p.answer for p in corpus.prompts("all")]))


def group_of(p: corpus.Prompt, group: str) -> str:
    return p.fact.relation if group == "relation" else p.lang


@dataclass(frozen=True)
class Routes:
    """Where the prompts' last words go, block by block, and how many prompts the model answers."""

    n_layer: int
    n_experts: int
    k: int
    prompts: int
    accuracy: float
    # (block, group kind, group, expert, prompts routed there): one row each
    rows: tuple[tuple[int, str, str, int, int], ...]
    balance_loss: tuple[float, ...]  # Switch's E·Σ f_i·P_i over the prompts' last words, per block
    purity: tuple[float, ...]  # per block: share of prompts whose expert is their relation's most used one

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=["block", "group_kind", "group", "expert", "prompts"])

    def count(self, block: int, group: str, expert: int) -> int:
        return next((r[4] for r in self.rows if r[0] == block and r[2] == group and r[3] == expert), 0)

    def top_expert(self, block: int, group: str) -> int:
        """The expert that gets most of a group's prompts in a block (the lowest index on a tie)."""
        counts = [self.count(block, group, e) for e in range(self.n_experts)]
        return counts.index(max(counts))

    def share(self, block: int, group: str) -> float:
        """The share of a group's prompts that go to its most used expert in a block."""
        counts = [self.count(block, group, e) for e in range(self.n_experts)]
        return max(counts) / sum(counts) if sum(counts) else 0.0


def routes(model: moe_model.MoEGPT, base: Pass | None = None) -> Routes:
    """Route every corpus prompt; count, per block, the prompts of each relation and each language per expert.
    base: this model's run(model), if already made."""
    every = corpus.prompts("all")
    base = base or run(model)
    best, chosen, probs = base.best, base.chosen, base.probs
    cfg = model.config
    rows = []
    purity = []
    balance = []
    for layer in range(cfg.n_layer):
        for group in GROUPS:
            counts = Counter((group_of(p, group), e) for p, c in zip(every, chosen[:, layer].tolist()) for e in c)
            rows += [(layer, group, g, e, counts[(g, e)]) for g in sorted({group_of(p, group) for p in every})
                     for e in range(cfg.n_experts)]
        top = {}
        for rel in corpus.RELATIONS:
            c = Counter(chosen[i, layer, 0].item() for i, p in enumerate(every) if p.fact.relation == rel)
            top[rel] = c.most_common(1)[0][0] if c else -1
        purity.append(sum(chosen[i, layer, 0].item() == top[p.fact.relation] for i, p in enumerate(every)) / len(every))
        balance.append(float(moe.load_balance_loss(probs[:, layer], chosen[:, layer], cfg.n_experts)))
    return Routes(cfg.n_layer, cfg.n_experts, cfg.k, len(every), float((best == answers()).double().mean()),
                  tuple(rows), tuple(balance), tuple(purity))


@dataclass(frozen=True)
class Ablation:
    """One expert of one block zeroed: every prompt scored again."""

    block: int
    expert: int
    routed: int  # prompts whose last word this block sends to the expert
    # (relation, lang, prompts, right before, right after): one row each
    rows: tuple[tuple[str, str, int, int, int], ...]
    fell: tuple[tuple[str, str, str, str], ...]  # (country, relation, lang, the model's new answer), a few
    fell_total: int
    rose_total: int

    @property
    def before(self) -> int:
        return sum(r[3] for r in self.rows)

    @property
    def after(self) -> int:
        return sum(r[4] for r in self.rows)

    @property
    def prompts(self) -> int:
        return sum(r[2] for r in self.rows)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=["relation", "lang", "prompts", "before", "after"])

    def lost(self, relation: str | None = None, lang: str | None = None) -> int:
        """Right answers lost (net) in a relation, a language, or both."""
        return sum(r[3] - r[4] for r in self.rows
                   if (relation is None or r[0] == relation) and (lang is None or r[1] == lang))


FELL_SHOWN = 12


def ablate(model: moe_model.MoEGPT, block: int, expert: int, base: Pass | None = None) -> Ablation:
    """Zero expert `expert` of block `block` (both from 0) and score every prompt again; base: run(model), if made.

    Only the prompts with a word routed to that expert in that block are run again: the others compute
    exactly what they did (the expert's term is zero for them either way)."""
    if not 0 <= block < model.config.n_layer or not 0 <= expert < model.config.n_experts:
        raise ValueError("no such block or expert")
    every = corpus.prompts("all")
    ans = answers()
    base = base or run(model)
    best, chosen = base.best, base.chosen
    affected = base.touched[:, block, expert]
    after = torch.where(affected, run(model, (block, expert), affected).best, best)
    right, right_after = best == ans, after == ans
    v = gpt_vocab.vocab()
    rows = []
    for rel in corpus.RELATIONS:
        for lang in corpus.LANGS:
            idx = [i for i, p in enumerate(every) if p.fact.relation == rel and p.lang == lang]
            if idx:
                t = torch.tensor(idx)
                rows.append((rel, lang, len(idx), int(right[t].sum()), int(right_after[t].sum())))
    fell = (right & ~right_after).nonzero().flatten().tolist()
    shown = tuple((every[i].fact.country, every[i].fact.relation, every[i].lang, v.tokens[int(after[i])])
                  for i in fell[:FELL_SHOWN])
    return Ablation(block, expert, int((chosen[:, block] == expert).any(dim=-1).sum()), tuple(rows), shown,
                    len(fell), int((~right & right_after).sum()))


def report() -> dict:
    """The trained MoE GPT's figures: size, accuracy, balance, block 1's routes and its costliest expert."""
    model = moe_train.load()
    base = run(model)
    r = routes(model, base)
    cfg = model.config
    cuts = [ablate(model, 0, e, base) for e in range(cfg.n_experts)]
    worst = max(cuts, key=lambda a: a.fell_total)
    return {
        "n_layers": cfg.n_layer, "n_experts": cfg.n_experts, "k": cfg.k, "expert_d_ff": cfg.d_ff,
        "params": sum(p.numel() for p in model.parameters()),
        "fact_accuracy": r.accuracy,
        "balance_loss": list(r.balance_loss),
        "block1_top_share": {g: r.share(0, g) for g in (*corpus.RELATIONS, *corpus.LANGS)},
        "block1_top_expert": {g: r.top_expert(0, g) + 1 for g in (*corpus.RELATIONS, *corpus.LANGS)},
        "block1_costliest_expert": {"block": worst.block + 1, "expert": worst.expert + 1, "facts_fallen": worst.fell_total,
                             "prompts": worst.prompts},
    }
