"""The corpus pass kept: every block's input on every corpus prefix, so a change reruns only what it changes.

Zeroing one block's FFN or attention, or editing one block's W2, leaves every block below it as it
was. So the shipped model's pass over the whole corpus is run once and each block's input kept; an
ablation reruns the blocks from the changed one up, on those inputs: the same operations on the same
numbers as a whole pass of the changed model, over every corpus sentence.

The pass runs on the corpus's distinct prefixes (prefixes.py): a linear layer, a norm or the FFN runs
once per prefix, the attention on each length batch's sentence grid gathered from them, as the whole
pass calls it. Each prefix's numbers are the ones the whole pass computes at every place it occurs
(bit for bit, tested), so a count over the corpus tokens is a count over the prefixes, each weighted
by the tokens it stands for.

The prompts are prefixes of the corpus sentences, so in a causal model a prompt's prediction is the
sentence's at the position before the answer: the predictions after every prompt are read from the
same pass, with no second pass over the prompts. An edit of block l's W2 changes nothing before
block l's FFN, so each block's FFN input is kept at the prompts' prefixes too (5 MB a block), and an
edit reruns the prompts' prefixes from there.
"""
from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

from ffn_core.gpt import corpus, evaluate, prefixes
from ffn_core.gpt import model as gpt_model


@dataclass(frozen=True)
class States:
    """The shipped model's corpus pass: block inputs per prefix, its scores and its prompt predictions."""

    inputs: tuple[tuple[torch.Tensor, ...], ...]  # [batch][block] (prefixes, d_model): what enters the block
    ffn_inputs: tuple[tuple[torch.Tensor, ...], ...]  # [prefixes.prompts() part][block] (prompt prefixes, d_model):
    # what enters the block's FFN (its input with the attention's output added), at the prompts' prefixes
    evaluation: evaluate.Evaluation
    active: tuple[int, ...]  # per block, FFN units with a positive pre-activation over every corpus token
    predictions: tuple[int, ...]  # argmax next token after each of corpus.prompts("all"), in that order

    @property
    def nbytes(self) -> int:
        return sum(x.numel() * x.element_size() for kept in (self.inputs, self.ffn_inputs) for b in kept for x in b)


def _attention(attn: gpt_model.CausalSelfAttention, qkv: torch.Tensor, part: prefixes.Part,
               reads: torch.Tensor) -> torch.Tensor:
    """CausalSelfAttention.forward from c_attn's output per prefix (prefixes, 3d) on the part's grids,
    read back at the given places of the grids (part.reads, or some of them): (places, d), before c_proj."""
    c = qkv.shape[1] // 3
    hs = c // attn.n_head
    out = []
    for grid in part.grids:
        n, t = grid.shape
        # The grid as a whole pass holds it: a contiguous (n, T, 3d) split into q, k, v.
        q, k, v = qkv.index_select(0, grid.view(-1)).view(n, t, 3 * c).split(c, dim=2)
        q = q.view(n, t, attn.n_head, hs).transpose(1, 2)  # (n, nh, T, hs)
        k = k.view(n, t, attn.n_head, hs).transpose(1, 2)
        v = v.view(n, t, attn.n_head, hs).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (n, nh, T, hs)
        out.append(y.transpose(1, 2).reshape(n * t, c))
    return (out[0] if len(out) == 1 else torch.cat(out)).index_select(0, reads)


def _hidden(ffn: nn.Module, y: torch.Tensor, weight: prefixes.Part | prefixes.Words | None) -> tuple[torch.Tensor, int]:
    """(the FFN's hidden vector per row, and with weight: its units with a positive pre-activation
    counted over the corpus tokens the rows stand for)."""
    pre = ffn.w_1(y)
    active = 0
    if weight is not None:
        positive = pre > 0
        # Once per row, and again for each further token a row stands for.
        active = int(torch.count_nonzero(positive))
        active += int(torch.count_nonzero(positive.index_select(0, weight.shared), dim=1) @ weight.extra)
    # relu in place: the same numbers, without a second (rows, d_ff) tensor to allocate.
    h = torch.relu_(pre) if isinstance(ffn.act, nn.ReLU) else ffn.act(pre)
    if ffn.w_3 is not None:
        h = h * ffn.w_3(y)
    return h, active


def _write(blk: gpt_model.Block, h: torch.Tensor, w_2: torch.Tensor | None) -> torch.Tensor:
    """The FFN's output from its hidden vector, with w_2 (an edited W2) in place of its own when given."""
    return blk.ffn.w_2(h) if w_2 is None else F.linear(h, w_2, blk.ffn.w_2.bias)


@torch.no_grad()
def _run(model: gpt_model.GPT, part: prefixes.Part, x: torch.Tensor | None, start: int, *,
         attn_off: Collection[int] = (), ffn_off: Collection[int] = (), w_2: torch.Tensor | None = None,
         attended: bool = False, count: Collection[int] = (), keep: list[torch.Tensor] | None = None,
         ffn_at: torch.Tensor | None = None, ffn_kept: list[torch.Tensor] | None = None
         ) -> tuple[torch.Tensor, dict[int, int]]:
    """Blocks start.. of Block.forward on the part's prefixes: (argmax next token at part.out, active units per counted block).

    x is block `start`'s input, or None for the embedding (start 0); with `attended` it is block
    `start`'s FFN input instead, its attention already added. A part switched off writes nothing, as
    the ablation's zeroing hook makes it. w_2 stands in for block `start`'s FFN output weight (an
    edited W2). Blocks in `count` count their FFN units active over the corpus tokens; keep gets each
    block's input, ffn_kept each block's FFN input at the prefixes ffn_at. The last block's attention
    reads every prefix, but only those in part.out need the block's output.
    """
    last = len(model.blocks) - 1
    active: dict[int, int] = {}
    for layer in range(start, last + 1):
        blk = model.blocks[layer]
        counted = layer in count
        edited = w_2 if layer == start else None
        attend = layer not in attn_off and not (attended and layer == start)
        if x is None:
            # The embedding is one per (word, position) pair, and so is what the first block computes
            # from it alone: ln_1 and c_attn, or the whole block when its attention is off.
            words = part.words
            e = model.wte(words.tokens) + model.wpe(words.positions)
            x = e.index_select(0, words.pair)
            if not attend and layer not in ffn_off and ffn_kept is None:
                if keep is not None:
                    keep.append(x)
                h, n = _hidden(blk.ffn, blk.ln_2(e), words if counted else None)
                active.update({layer: n} if counted else {})
                x = (e + _write(blk, h, edited)).index_select(0, words.pair)
                continue
            qkv = blk.attn.c_attn(blk.ln_1(e)).index_select(0, words.pair) if attend else None
        else:
            qkv = blk.attn.c_attn(blk.ln_1(x)) if attend else None
        if keep is not None:
            keep.append(x)
        # In the last block only part.out needs the block's output, unless every prefix's FFN is read.
        narrow = layer == last and not counted and ffn_kept is None
        if attend:
            reads = part.reads.index_select(0, part.out) if narrow else part.reads
            x = (x.index_select(0, part.out) if narrow else x) + blk.attn.c_proj(_attention(blk.attn, qkv, part, reads))
        elif narrow:
            x = x.index_select(0, part.out)
        if ffn_kept is not None:
            ffn_kept.append(x.index_select(0, ffn_at))
        if layer in ffn_off and not counted:
            continue
        h, n = _hidden(blk.ffn, blk.ln_2(x), part if counted else None)
        active.update({layer: n} if counted else {})
        if layer in ffn_off:
            continue
        if layer == last and not narrow:
            x, h = x.index_select(0, part.out), h.index_select(0, part.out)
        x = x + _write(blk, h, edited)
    if x.shape[0] != part.out.numel():
        x = x.index_select(0, part.out)
    return model.head(model.ln_f(x)).argmax(dim=-1), active


def _tally(b: evaluate._Batch, part: prefixes.Part, path: torch.Tensor, best: torch.Tensor,
           counts: evaluate.Counts, predictions: list[int] | None = None) -> None:
    """One batch's scores into counts from the argmax at its scored prefixes; its prompts' predictions."""
    every = torch.full((part.size,), -1, dtype=torch.long)
    every[part.out] = best
    grid = torch.where(b.needed, every[path], -1)
    evaluate.tally_best(b, grid, counts)
    if predictions is not None:
        for p, guess in zip(b.prompt_index.tolist(), grid[b.prompt_rows, b.prompt_positions].tolist()):
            predictions[p] = guess


@torch.no_grad()
def corpus_states(model: gpt_model.GPT) -> States:
    """One pass of the model over every corpus prefix, each block's input kept (float32, ~11 MB a block)."""
    layers = range(len(model.blocks))
    counts = evaluate.Counts()
    predictions = [0] * len(corpus.prompts("all"))
    active = [0] * len(model.blocks)
    inputs, ffn_inputs = [], []
    at = {p.batch: p for p in prefixes.prompts()}
    for i, (b, (part, path)) in enumerate(zip(evaluate.corpus_batches(), prefixes.corpus())):
        keep: list[torch.Tensor] = []
        ffn_kept: list[torch.Tensor] = []
        prompts = at.get(i)
        best, n = _run(model, part, None, 0, count=layers, keep=keep, ffn_at=None if prompts is None else prompts.members,
                       ffn_kept=None if prompts is None else ffn_kept)
        for layer in layers:
            active[layer] += n[layer]
        inputs.append(tuple(keep))
        if prompts is not None:
            ffn_inputs.append(tuple(ffn_kept))
        _tally(b, part, path, best, counts, predictions)
    return States(tuple(inputs), tuple(ffn_inputs), evaluate.evaluation(counts, active, model.config.d_ff),
                  tuple(active), tuple(predictions))


def rerun(model: gpt_model.GPT, states: States, start: int, attn_off: Collection[int] = (),
          ffn_off: Collection[int] = ()) -> evaluate.Evaluation:
    """The scores with blocks start.. run again (0-based; parts in attn_off/ffn_off zeroed), those below kept."""
    # With block `start`'s attention on, its FFN reads what it read in the kept pass: the same count.
    same = start not in attn_off
    count = range(start + 1 if same else start, len(model.blocks))
    active = list(states.active[:start + 1 if same else start]) + [0] * len(count)
    counts = evaluate.Counts()
    for b, (part, path), kept in zip(evaluate.corpus_batches(), prefixes.corpus(), states.inputs):
        best, n = _run(model, part, None if start == 0 else kept[start], start, attn_off=attn_off, ffn_off=ffn_off,
                       count=count)
        for layer in count:
            active[layer] += n[layer]
        _tally(b, part, path, best, counts)
    return evaluate.evaluation(counts, active, model.config.d_ff)


@torch.no_grad()
def prompt_predictions(model: gpt_model.GPT, states: States, layer: int, w_2: torch.Tensor) -> tuple[int, ...]:
    """The argmax after every corpus prompt with block `layer`'s (0-based) W2 replaced by w_2.

    Only the prompts' prefixes are rerun, from block `layer`'s FFN (its input kept from the corpus
    pass) up; the last block's output is needed at the prompts' last words alone.
    """
    out = [0] * len(states.predictions)
    for p, kept in zip(prefixes.prompts(), states.ffn_inputs):
        best, _ = _run(model, p.part, kept[layer], layer, w_2=w_2, attended=True)
        every = torch.empty(p.part.size, dtype=torch.long)
        every[p.part.out] = best
        for place, guess in zip(p.index.tolist(), every[p.last].tolist()):
            out[place] = guess
    return tuple(out)


@torch.no_grad()
def key_covariance(model: gpt_model.GPT, states: States, layer: int) -> torch.Tensor:
    """edit.key_covariance read from the kept pass: E[k·kᵀ] of block `layer`'s keys at every prompt's last token."""
    ffn = model.blocks[layer].ffn
    d_ff = model.config.d_ff
    total, count = torch.zeros(d_ff, d_ff, dtype=torch.float64), 0
    for p, kept in zip(prefixes.prompts(), states.ffn_inputs):
        # The FFN's hidden vector, row by row as the corpus pass computed it, at each prompt's last word.
        k = ffn.hidden(model.blocks[layer].ln_2(kept[layer].index_select(0, p.last))).to(torch.float64)
        total += k.T @ k
        count += k.shape[0]
    return total / count


@torch.no_grad()
def whole_pass_inputs(model: gpt_model.GPT, ids: torch.Tensor) -> list[torch.Tensor]:
    """Each block's input on one batch (n, T) as the model's own forward computes it, read by hooks: the
    reference the kept pass is checked against, bit for bit."""
    seen: list[torch.Tensor] = []
    handles = [blk.register_forward_pre_hook(lambda _m, args: seen.append(args[0].clone())) for blk in model.blocks]
    try:
        evaluate.final_states(model, ids)
    finally:
        for h in handles:
            h.remove()
    return seen
