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

from collections.abc import Mapping
from dataclasses import dataclass, field

import torch
from torch import nn

from ffn_core.gpt import corpus, evaluate, forward, prefixes
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
    ffn_mean: tuple[torch.Tensor, ...] = ()  # per block (d_model,): the FFN's output averaged over every corpus token

    @property
    def nbytes(self) -> int:
        return sum(x.numel() * x.element_size() for kept in (self.inputs, self.ffn_inputs) for b in kept for x in b)


@dataclass(frozen=True)
class Plan:
    """One run of blocks start.. over a part's prefixes: what it changes and what it keeps."""

    start: int = 0
    changes: Mapping[int, forward.Change] = field(default_factory=dict)  # per block (0-based)
    attended: bool = False  # the input is block `start`'s FFN input, its attention already added
    count: frozenset[int] = frozenset()  # blocks whose FFN units active over the corpus tokens are counted
    sum_hidden: bool = False  # and whose hidden vectors are summed over those tokens (float64)
    keep: bool = False  # keep each block's input
    ffn_at: torch.Tensor | None = None  # keep each block's FFN input at these prefixes


@dataclass(frozen=True)
class Run:
    """What a run gives: the argmax next token at part.out, and what its plan asked to count and keep."""

    best: torch.Tensor
    active: dict[int, int]
    hidden_sum: dict[int, torch.Tensor]
    inputs: tuple[torch.Tensor, ...]
    ffn_inputs: tuple[torch.Tensor, ...]


def _attention(attn: gpt_model.CausalSelfAttention, qkv: torch.Tensor, part: prefixes.Part,
               reads: torch.Tensor) -> torch.Tensor:
    """The attention's heads from c_attn's output per prefix (prefixes, 3d) on the part's grids, read back
    at the given places of the grids (part.reads, or some of them): (places, d), before c_proj."""
    out = []
    for grid in part.grids:
        n, t = grid.shape
        # The grid as a whole pass holds it: a contiguous (n, T, 3d), mixed as CausalSelfAttention mixes it.
        y = attn.mix(qkv.index_select(0, grid.view(-1)).view(n, t, qkv.shape[1]))
        out.append(y.reshape(n * t, y.shape[2]))
    return (out[0] if len(out) == 1 else torch.cat(out)).index_select(0, reads)


def _hidden(ffn: nn.Module, y: torch.Tensor, weight: prefixes.Part | prefixes.Words | None,
            summed: bool) -> tuple[torch.Tensor, int, torch.Tensor | None]:
    """The FFN's hidden vector per row of y (ln_2 already applied); with weight, its units with a
    positive pre-activation counted over the corpus tokens the rows stand for, and with summed the
    hidden vectors' sum over those tokens (float64)."""
    pre = ffn.w_1(y)
    active, total = 0, None
    if weight is not None:
        positive = pre > 0
        # Once per row, and again for each further token a row stands for.
        active = int(torch.count_nonzero(positive))
        active += int(torch.count_nonzero(positive.index_select(0, weight.shared), dim=1) @ weight.extra)
    # relu in place: the same numbers, without a second (rows, d_ff) tensor to allocate.
    h = torch.relu_(pre) if isinstance(ffn.act, nn.ReLU) else ffn.act(pre)
    if ffn.w_3 is not None:
        h = h * ffn.w_3(y)
    if weight is not None and summed:
        h64 = h.to(torch.float64)
        total = h64.sum(0) + weight.extra.to(torch.float64) @ h64.index_select(0, weight.shared)
    return h, active, total


class _Tally:
    """What a run counts and keeps as it goes, block by block."""

    def __init__(self) -> None:
        self.active: dict[int, int] = {}
        self.hidden_sum: dict[int, torch.Tensor] = {}
        self.inputs: list[torch.Tensor] = []
        self.ffn_inputs: list[torch.Tensor] = []


def _ffn(blk: gpt_model.Block, x: torch.Tensor, change: forward.Change, layer: int, plan: Plan,
         weight: prefixes.Part | prefixes.Words, tally: _Tally, rows: torch.Tensor | None = None) -> torch.Tensor | None:
    """What block's FFN adds at x's rows (only at `rows` when given), or None when it adds nothing.

    A counted block runs its FFN for the count even when the change takes its output away, as the
    whole pass's hooks see it."""
    counted = layer in plan.count
    replaced = change.ffn_off or change.ffn_constant is not None
    if not counted and replaced:
        return None if change.ffn_off else change.ffn_constant
    h, n, total = _hidden(blk.ffn, blk.ln_2(x), weight if counted else None, plan.sum_hidden)
    if counted:
        tally.active[layer] = n
        if total is not None:
            tally.hidden_sum[layer] = total
    if replaced:
        return None if change.ffn_off else change.ffn_constant
    return forward.write(blk, h if rows is None else h.index_select(0, rows), change.w_2)


@torch.no_grad()
def _run(model: gpt_model.GPT, part: prefixes.Part, x: torch.Tensor | None, plan: Plan) -> Run:
    """Blocks plan.start.. of forward.step on the part's prefixes, from block start's input x (None: the embedding).

    The same operations on the same numbers as the whole pass, arranged so that each is done once:
    the first block's norm and c_attn (or, with its attention off, the whole block) run once per
    (word, position) pair; the last block's attention and FFN write only the prefixes in part.out,
    whose next word is read, unless a count or a kept FFN input needs every prefix.
    """
    tally = _Tally()
    last = len(model.blocks) - 1
    for layer in range(plan.start, last + 1):
        blk = model.blocks[layer]
        change = plan.changes.get(layer, forward.AS_TRAINED)
        if change.shift_last is not None:
            raise ValueError("the kept pass has no last position to shift: run forward.steps instead")
        attend = not change.attn_off and not (plan.attended and layer == plan.start)
        qkv = None
        if x is None:
            words = part.words
            e = model.wte(words.tokens) + model.wpe(words.positions)
            if not attend and not change.ffn_off and plan.ffn_at is None:
                # Without attention the whole first block depends on the (word, position) pair alone.
                if plan.keep:
                    tally.inputs.append(e.index_select(0, words.pair))
                f = _ffn(blk, e, change, layer, plan, words, tally)
                x = (e + f).index_select(0, words.pair)
                continue
            qkv = blk.attn.c_attn(blk.ln_1(e)).index_select(0, words.pair) if attend else None
            x = e.index_select(0, words.pair)
        elif attend:
            qkv = blk.attn.c_attn(blk.ln_1(x))
        if plan.keep:
            tally.inputs.append(x)
        # In the last block only part.out needs the block's output, unless every prefix's FFN is read.
        narrow = layer == last and layer not in plan.count and plan.ffn_at is None
        if narrow:
            x = x.index_select(0, part.out)
        if attend:
            reads = part.reads.index_select(0, part.out) if narrow else part.reads
            x = x + blk.attn.c_proj(_attention(blk.attn, qkv, part, reads))
        if plan.ffn_at is not None:
            tally.ffn_inputs.append(x.index_select(0, plan.ffn_at))
        wide_last = layer == last and not narrow
        f = _ffn(blk, x, change, layer, plan, part, tally, part.out if wide_last else None)
        if f is not None:
            x = (x.index_select(0, part.out) if wide_last else x) + f
    if x.shape[0] != part.out.numel():
        x = x.index_select(0, part.out)
    return Run(forward.logits(model, x).argmax(dim=-1), tally.active, tally.hidden_sum, tuple(tally.inputs),
               tuple(tally.ffn_inputs))


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
    sums = [torch.zeros(model.config.d_ff, dtype=torch.float64) for _ in layers]
    inputs, ffn_inputs = [], []
    at = {p.batch: p for p in prefixes.prompts()}
    for i, (b, (part, path)) in enumerate(zip(evaluate.corpus_batches(), prefixes.corpus())):
        prompts = at.get(i)
        run = _run(model, part, None, Plan(count=frozenset(layers), sum_hidden=True, keep=True,
                                           ffn_at=None if prompts is None else prompts.members))
        for layer in layers:
            active[layer] += run.active[layer]
            sums[layer] += run.hidden_sum[layer]
        inputs.append(run.inputs)
        if prompts is not None:
            ffn_inputs.append(run.ffn_inputs)
        _tally(b, part, path, run.best, counts, predictions)
    return States(tuple(inputs), tuple(ffn_inputs), evaluate.evaluation(counts, active, model.config.d_ff),
                  tuple(active), tuple(predictions), _ffn_means(model, sums, counts.tokens))


def _ffn_means(model: gpt_model.GPT, sums: list[torch.Tensor], tokens: int) -> tuple[torch.Tensor, ...]:
    """Each block's mean FFN output over the corpus tokens, W2·mean(h) + b2, in float64 then the model's dtype."""
    out = []
    for blk, total in zip(model.blocks, sums):
        w_2 = blk.ffn.w_2
        mean = w_2.weight.to(torch.float64) @ (total / tokens)
        if w_2.bias is not None:
            mean = mean + w_2.bias.to(torch.float64)
        out.append(mean.to(w_2.weight.dtype))
    return tuple(out)


def rerun(model: gpt_model.GPT, states: States, start: int,
          changes: Mapping[int, forward.Change] | None = None) -> evaluate.Evaluation:
    """The scores with blocks start.. (0-based) run again with `changes`, those below kept."""
    changes = dict(changes or {})
    # With block `start`'s attention on, its FFN reads what it read in the kept pass: the same count.
    same = not changes.get(start, forward.AS_TRAINED).attn_off
    count = range(start + 1 if same else start, len(model.blocks))
    active = list(states.active[:start + 1 if same else start]) + [0] * len(count)
    counts = evaluate.Counts()
    plan = Plan(start=start, changes=changes, count=frozenset(count))
    for b, (part, path), kept in zip(evaluate.corpus_batches(), prefixes.corpus(), states.inputs):
        run = _run(model, part, None if start == 0 else kept[start], plan)
        for layer in count:
            active[layer] += run.active[layer]
        _tally(b, part, path, run.best, counts)
    return evaluate.evaluation(counts, active, model.config.d_ff)


@torch.no_grad()
def prompt_predictions(model: gpt_model.GPT, states: States, layer: int, w_2: torch.Tensor) -> tuple[int, ...]:
    """The argmax after every corpus prompt with block `layer`'s (0-based) W2 replaced by w_2.

    Only the prompts' prefixes are rerun, from block `layer`'s FFN (its input kept from the corpus
    pass) up; the last block's output is needed at the prompts' last words alone.
    """
    out = [0] * len(states.predictions)
    plan = Plan(start=layer, changes={layer: forward.Change(w_2=w_2)}, attended=True)
    for p, kept in zip(prefixes.prompts(), states.ffn_inputs):
        every = torch.empty(p.part.size, dtype=torch.long)
        every[p.part.out] = _run(model, p.part, kept[layer], plan).best
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
    """Each block's input on one batch (n, T) as the model's own pass computes it, every sentence whole:
    the reference the kept pass is checked against, bit for bit."""
    return [s.input for s in forward.steps(model, model.embed(ids))]
