"""The corpus sentences' distinct prefixes, per length batch: what a causal pass has to compute once.

In a causal model the state at a position depends only on the words up to it, so two sentences of
one length batch that start alike hold the same numbers there, bit for bit (the batch's attention
is one kernel call, its linear layers act row by row). The 28,495 corpus tokens are 22,439 such
prefixes. A pass over the prefixes runs every linear layer, norm and activation once per prefix,
and the attention on the batch's sentence grid gathered from them: the same call on the same
numbers as the sentence pass, whose result at each prefix is read at one place where it occurs.

Prefixes are kept per length batch, never merged across batches: the attention kernel's result
depends on the batch's length. Measured on the shipped model's whole pass: of the 6,664 tokens whose
prefix occurs earlier in the corpus, none differs in any bit from that earlier place within one
batch, but 236-282 (per block) do across batches of different lengths.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import torch

from ffn_core.gpt import evaluate


@dataclass(frozen=True)
class Part:
    """One length batch's prefixes (or the prompts' among them), numbered 0..size-1: one run of the blocks."""

    tokens: torch.Tensor  # (size,) each prefix's last word
    positions: torch.Tensor  # (size,) and its position
    grids: tuple[torch.Tensor, ...]  # (n, T) each: the prefix at each row and position, as attention reads them
    reads: torch.Tensor  # (size,) a place where each prefix occurs, in the grids flattened one after another
    shared: torch.Tensor  # the prefixes that stand for more than one corpus token
    extra: torch.Tensor  # and how many tokens each stands for past the first
    out: torch.Tensor  # the prefixes whose next-token prediction is read

    @property
    def size(self) -> int:
        return self.tokens.numel()

    @functools.cached_property
    def words(self) -> Words:
        """The distinct (word, position) pairs among the prefixes' last words: the first block's input,
        the embedding, depends on that pair alone."""
        key = self.tokens * (int(self.positions.max()) + 1) + self.positions
        unique, pair = torch.unique(key, return_inverse=True)
        first = torch.full((unique.numel(),), self.size, dtype=torch.long).scatter_reduce(
            0, pair, torch.arange(self.size), reduce="amin")
        tokens = torch.ones(self.size, dtype=torch.long).index_add_(0, self.shared, self.extra)  # per prefix
        weight = torch.zeros(unique.numel(), dtype=torch.long).index_add_(0, pair, tokens)
        shared = torch.nonzero(weight > 1).squeeze(1)
        return Words(self.tokens[first], self.positions[first], pair, shared, weight[shared] - 1)


@dataclass(frozen=True)
class Words:
    """A part's distinct (word, position) pairs, each prefix's pair, and the corpus tokens of each pair."""

    tokens: torch.Tensor
    positions: torch.Tensor
    pair: torch.Tensor  # (prefixes,) each prefix's pair
    shared: torch.Tensor  # the pairs that stand for more than one corpus token
    extra: torch.Tensor  # and how many tokens each stands for past the first


def _reads(grids: tuple[torch.Tensor, ...], size: int) -> torch.Tensor:
    """The first place in the grids (flattened one after another) of each prefix 0..size-1; each occurs."""
    flat = torch.cat([g.reshape(-1) for g in grids])
    first = torch.full((size,), flat.numel(), dtype=torch.long)
    return first.scatter_reduce(0, flat, torch.arange(flat.numel()), reduce="amin")


@functools.cache
def corpus() -> tuple[tuple[Part, torch.Tensor], ...]:
    """Per length batch of evaluate.corpus_batches(): its prefixes, and (n, T) the prefix at each sentence position.

    Prefixes are numbered depth by depth; the head is read at those of the scored positions (_Batch.needed).
    """
    out = []
    for b in evaluate.corpus_batches():
        n, t = b.ids.shape
        path = torch.empty(n, t, dtype=torch.long)
        parent = torch.zeros(n, dtype=torch.long)
        size = 0
        for depth in range(t):
            # A prefix is its parent prefix and one more word.
            unique, inverse = torch.unique(parent * (int(b.ids.max()) + 1) + b.ids[:, depth], return_inverse=True)
            path[:, depth] = size + inverse
            parent = inverse
            size += unique.numel()
        reads = _reads((path,), size)
        weight = torch.bincount(path.reshape(-1), minlength=size)
        shared = torch.nonzero(weight > 1).squeeze(1)
        part = Part(b.ids.reshape(-1)[reads], reads % t, (path,), reads, shared, weight[shared] - 1,
                    torch.unique(path[b.needed]))
        out.append((part, path))
    return tuple(out)


@dataclass(frozen=True)
class Prompts:
    """One batch's prompt rows cut to their prompts, as prefixes of the batch's corpus part."""

    batch: int
    part: Part
    members: torch.Tensor  # (size,) each prompt prefix's number in the batch's corpus part
    last: torch.Tensor  # (prompt rows,) each prompt's last prefix, in part numbers
    index: torch.Tensor  # (prompt rows,) each prompt's place in corpus.prompts("all")


@functools.cache
def prompts() -> tuple[Prompts, ...]:
    """The corpus prompts' prefixes, per batch that holds prompts.

    The batch's prompt rows are cut to their prompts, one grid per prompt length, as a pass over the
    prompts themselves would batch them.
    """
    out = []
    for i, (b, (whole, path)) in enumerate(zip(evaluate.corpus_batches(), corpus())):
        if not b.prompt_rows.numel():
            continue
        last = path[b.prompt_rows, b.prompt_positions]
        cut = [path[b.prompt_rows[b.prompt_positions == end], :end + 1] for end in b.prompt_positions.unique().tolist()]
        members = torch.unique(torch.cat([g.reshape(-1) for g in cut]))
        local = torch.full((whole.size,), -1, dtype=torch.long)
        local[members] = torch.arange(members.numel())
        grids = tuple(local[g] for g in cut)
        reads = _reads(grids, members.numel())
        none = torch.zeros(0, dtype=torch.long)
        part = Part(whole.tokens[members], whole.positions[members], grids, reads, none, none,
                    torch.unique(local[last]))
        out.append(Prompts(i, part, members, local[last], b.prompt_index))
    return tuple(out)
