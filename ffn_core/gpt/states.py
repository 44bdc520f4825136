"""The corpus pass kept: every block's input on every corpus sentence, so a change reruns only what it changes.

Zeroing one block's FFN or attention, or editing one block's W2, leaves every block below it as it
was. So the shipped model's pass over the whole corpus is run once and each block's input kept; an
ablation or an edit reruns the blocks from the changed one up, on those inputs: the same operations
on the same numbers as a whole pass of the changed model, over every corpus sentence.

The prompts are prefixes of the corpus sentences, so in a causal model a prompt's prediction is the
sentence's at the position before the answer: the predictions after every prompt are read from the
same pass, with no second pass over the prompts.
"""
from __future__ import annotations

import functools
from collections.abc import Collection, Iterator
from dataclasses import dataclass

import torch
from torch.nn import functional as F

from ffn_core.gpt import evaluate
from ffn_core.gpt import model as gpt_model


@dataclass(frozen=True)
class States:
    """The shipped model's corpus pass: block inputs per length batch, its scores and its prompt predictions."""

    inputs: tuple[tuple[torch.Tensor, ...], ...]  # [batch][block] (n, T, d_model): what enters the block
    evaluation: evaluate.Evaluation
    active: tuple[int, ...]  # per block, FFN units with a positive pre-activation over every corpus token
    predictions: tuple[int, ...]  # argmax next token after each of corpus.prompts("all"), in that order

    @property
    def nbytes(self) -> int:
        return sum(x.numel() * x.element_size() for batch in self.inputs for x in batch)


def block(blk: gpt_model.Block, x: torch.Tensor, *, attn: bool = True, ffn: bool = True,
          w_2: torch.Tensor | None = None, count: bool = True) -> tuple[torch.Tensor, int]:
    """Block.forward written out, with its parts switchable: (output, FFN units active in it).

    A part switched off writes nothing, as the ablation's zeroing hook makes it; the FFN's units are
    counted all the same (the hook zeroes the output, not the activation). w_2 stands in for the
    FFN's output weight (an edited W2).
    """
    if attn:
        x = x + blk.attn(blk.ln_1(x))
    y = blk.ln_2(x)
    pre = blk.ffn.w_1(y)
    active = int(torch.count_nonzero(pre > 0)) if count else 0
    if ffn:
        h = blk.ffn.act(pre)
        if blk.ffn.w_3 is not None:
            h = h * blk.ffn.w_3(y)
        x = x + (blk.ffn.w_2(h) if w_2 is None else F.linear(h, w_2, blk.ffn.w_2.bias))
    return x, active


def _embed(model: gpt_model.GPT, ids: torch.Tensor) -> torch.Tensor:
    return model.wte(ids) + model.wpe(torch.arange(ids.shape[1], device=ids.device))


@torch.no_grad()
def _run(model: gpt_model.GPT, start: int, inputs: list[torch.Tensor], active: list[int],
         attn_off: Collection[int] = (), ffn_off: Collection[int] = (),
         keep: list[list[torch.Tensor]] | None = None) -> tuple[evaluate.Counts, list[int]]:
    """Blocks start.. on every batch's input to block `start`: the corpus scores and every prompt's prediction."""
    counts = evaluate.Counts()
    predictions: list[int] = [0] * sum(int(b.prompt_rows.numel()) for b in evaluate.corpus_batches())
    for i, (b, x) in enumerate(zip(evaluate.corpus_batches(), inputs)):
        for layer in range(start, len(model.blocks)):
            if keep is not None:
                keep[i].append(x)
            x, n = block(model.blocks[layer], x, attn=layer not in attn_off, ffn=layer not in ffn_off)
            active[layer] += n
        best = evaluate.tally(model, b, model.ln_f(x), counts)
        for p, guess in zip(b.prompt_index.tolist(), best[b.prompt_rows, b.prompt_positions].tolist()):
            predictions[p] = guess
    return counts, predictions


def corpus_states(model: gpt_model.GPT) -> States:
    """One pass of the model over every corpus sentence, each block's input kept (float32, ~15 MB a block)."""
    with torch.no_grad():
        embedded = [_embed(model, b.ids) for b in evaluate.corpus_batches()]
    keep: list[list[torch.Tensor]] = [[] for _ in embedded]
    active = [0] * len(model.blocks)
    counts, predictions = _run(model, 0, embedded, active, keep=keep)
    return States(tuple(tuple(k) for k in keep), evaluate.evaluation(counts, active, model.config.d_ff),
                  tuple(active), tuple(predictions))


def rerun(model: gpt_model.GPT, states: States, start: int, attn_off: Collection[int] = (),
          ffn_off: Collection[int] = ()) -> evaluate.Evaluation:
    """The scores with blocks start.. run again (0-based; parts in attn_off/ffn_off zeroed), those below kept."""
    active = list(states.active[:start]) + [0] * (len(model.blocks) - start)
    counts, _ = _run(model, start, [batch[start] for batch in states.inputs], active, attn_off, ffn_off)
    return evaluate.evaluation(counts, active, model.config.d_ff)


@functools.cache
def _prompt_groups() -> tuple[tuple[int, torch.Tensor, int, torch.Tensor], ...]:
    """(batch, sentence rows, prompt length, places in corpus.prompts("all")): the prompt sentences grouped
    by where their prompt ends, so each group is cut to exactly its prompts' words."""
    out = []
    for i, b in enumerate(evaluate.corpus_batches()):
        for position in sorted(set(b.prompt_positions.tolist())):
            chosen = b.prompt_positions == position
            out.append((i, b.prompt_rows[chosen], position + 1, b.prompt_index[chosen]))
    return tuple(out)


def _prompt_inputs(states: States, layer: int) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """(places in corpus.prompts("all"), block `layer`'s input on those prompts' words (n, length, d))."""
    for batch, rows, length, places in _prompt_groups():
        yield places, states.inputs[batch][layer][rows, :length]


@torch.no_grad()
def prompt_predictions(model: gpt_model.GPT, states: States, layer: int, w_2: torch.Tensor) -> tuple[int, ...]:
    """The argmax after every corpus prompt with block `layer`'s (0-based) W2 replaced by w_2.

    Only the prompts' words are rerun, from block `layer` up; the last block's output is needed at the
    prompt's last word alone.
    """
    out = [0] * len(states.predictions)
    last = len(model.blocks) - 1
    for places, x in _prompt_inputs(states, layer):
        for i in range(layer, last):
            x, _ = block(model.blocks[i], x, w_2=w_2 if i == layer else None, count=False)
        top = model.blocks[last]
        # The last block's attention needs every earlier word; its output, only the last one's.
        x = (x + top.attn(top.ln_1(x)))[:, -1]
        x, _ = block(top, x, attn=False, w_2=w_2 if layer == last else None, count=False)
        for p, guess in zip(places.tolist(), model.head(model.ln_f(x)).argmax(dim=-1).tolist()):
            out[p] = guess
    return tuple(out)


@torch.no_grad()
def key_covariance(model: gpt_model.GPT, states: States, layer: int) -> torch.Tensor:
    """edit.key_covariance read from the kept inputs: E[k·kᵀ] of block `layer`'s keys at every prompt's last token."""
    blk = model.blocks[layer]
    d_ff = model.config.d_ff
    total, count = torch.zeros(d_ff, d_ff, dtype=torch.float64), 0
    for _, x in _prompt_inputs(states, layer):
        x = (x + blk.attn(blk.ln_1(x)))[:, -1]
        k = blk.ffn.hidden(blk.ln_2(x)).to(torch.float64)
        total += k.T @ k
        count += k.shape[0]
    return total / count
