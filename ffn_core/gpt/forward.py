"""The probes' view of the small GPT's pass (model.py): each block's step in named pieces, kept or changed.

A step is Block.forward taken apart, so a probe can keep or change any one of its pieces:

    x ← x + attend(block, x)                 attention reads the words up to each position
    h  = hidden(block, x)                    the FFN's key coefficients act(W1·ln_2(x) + b1)
    x ← x + write(block, h)                  what the FFN adds: W2·h + b2

The trace, the attribution, the writers, the neurons and the kept corpus pass (states.py) read these
pieces; a pass that only needs the residual (the evaluation, the edit's δ search) runs the model's own
blocks wherever nothing is changed. A Change names what a probe does differently at one block:
switch a part off (it writes nothing), put a constant vector in the FFN's place at every position
(mean ablation), write through an edited W2, or add δ to the FFN's output at the last position.
With no Change every step computes what the model's own modules compute, bit for bit (tested).
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
import torch
from torch.nn import functional as F

from ffn_core.gpt.model import GPT, Block


@dataclass(frozen=True)
class Change:
    """What one block does differently from the trained model; the default changes nothing."""

    attn_off: bool = False  # attention writes nothing
    ffn_off: bool = False  # the FFN writes nothing
    ffn_constant: torch.Tensor | None = None  # (d,) the FFN writes this at every position instead (mean ablation)
    w_2: torch.Tensor | None = None  # (d, d_ff) the FFN writes through this W2 (an edit), its own bias kept
    shift_last: torch.Tensor | None = None  # (d,) added to the FFN's output at the last position (the edit's δ)


AS_TRAINED = Change()


@dataclass(frozen=True)
class Step:
    """One block's step: the residual it read, what its attention and FFN added, the residual it hands on.

    attn and ffn are what each part wrote (zeros where switched off); hidden is None where the FFN
    did not run (switched off or replaced by a constant).
    """

    input: torch.Tensor
    attn: torch.Tensor
    hidden: torch.Tensor | None
    ffn: torch.Tensor
    output: torch.Tensor


def attend(block: Block, x: torch.Tensor) -> torch.Tensor:
    """What the block's attention adds to the residual: attn(ln_1(x))."""
    return block.attn(block.ln_1(x))


def hidden(block: Block, x: torch.Tensor) -> torch.Tensor:
    """The FFN's hidden vector (its keys' coefficients) on the residual x: act(W1·ln_2(x) + b1)."""
    return block.ffn.hidden(block.ln_2(x))


def write(block: Block, h: torch.Tensor, w_2: torch.Tensor | None = None) -> torch.Tensor:
    """What the FFN adds from its hidden vector: W2·h + b2, with w_2 in place of W2 when given."""
    return block.ffn.w_2(h) if w_2 is None else F.linear(h, w_2, block.ffn.w_2.bias)


def step(block: Block, x: torch.Tensor, change: Change = AS_TRAINED) -> Step:
    """One block on the residual x (..., T, d), as Block.forward computes it unless `change` says otherwise."""
    a = torch.zeros_like(x) if change.attn_off else attend(block, x)
    mid = x if change.attn_off else x + a
    h = None
    if change.ffn_off:
        f = torch.zeros_like(mid)
    elif change.ffn_constant is not None:
        f = change.ffn_constant.expand_as(mid)
    else:
        h = hidden(block, mid)
        f = write(block, h, change.w_2)
    if change.shift_last is not None:
        shift = torch.zeros_like(f)
        shift[..., -1, :] = change.shift_last
        f = f + shift
    out = mid if change.ffn_off else mid + f
    return Step(x, a, h, f, out)


def steps(model: GPT, x: torch.Tensor, changes: Mapping[int, Change] | None = None, start: int = 0,
          stop: int | None = None) -> Iterator[Step]:
    """Blocks start..stop-1 (0-based; to the last by default) on the residual x, one Step each;
    changes maps a block to its Change."""
    changes = changes or {}
    for layer in range(start, len(model.blocks) if stop is None else stop):
        s = step(model.blocks[layer], x, changes.get(layer, AS_TRAINED))
        x = s.output
        yield s


def residual(model: GPT, x: torch.Tensor, changes: Mapping[int, Change] | None = None, start: int = 0,
             stop: int | None = None) -> torch.Tensor:
    """The residual after block stop-1 (the last by default), from block `start`'s input x: the model's own
    blocks where `changes` names none."""
    changes = changes or {}
    for layer in range(start, len(model.blocks) if stop is None else stop):
        block = model.blocks[layer]
        x = block(x) if layer not in changes else step(block, x, changes[layer]).output
    return x


def final_states(model: GPT, idx: torch.Tensor, changes: Mapping[int, Change] | None = None) -> torch.Tensor:
    """GPT.forward without its head: (..., T, d) after ln_f. The head is as costly as a block's FFN,
    and most probes read it at a few positions only."""
    return model.ln_f(residual(model, model.embed(idx), changes))


def logits(model: GPT, x: torch.Tensor) -> torch.Tensor:
    """The head on the final norm of residual vectors x (..., d): (..., vocab)."""
    return model.head(model.ln_f(x))
