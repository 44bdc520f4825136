"""One prompt through the GPT, block by block, keeping what each part wrote into the residual stream.

The final LayerNorm is linear once its scale is known: ln_f(x) = γ ⊙ (x − mean(x))·s + β with
s = 1/√(var(x) + ε). Freezing s at the value the real forward pass computes (the usual
linearisation of direct logit attribution) and applying the mean-centering exactly, the answer's
logit splits into one term per part of the residual stream plus a constant, and those terms add up
to the model's own logit: exactly in algebra, to float64 rounding in practice.
"""
from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from ffn_core.gpt import forward, model as gpt_model
from ffn_core.gpt import vocab as gpt_vocab


@dataclass(frozen=True)
class Trace:
    """The residual stream at every position: embedding, then each block's attention and FFN outputs."""

    embedding: torch.Tensor  # (T, d): token + position embedding
    attn: tuple[torch.Tensor, ...]  # per block, (T, d)
    ffn: tuple[torch.Tensor, ...]  # per block, (T, d)
    ffn_hidden: tuple[torch.Tensor, ...]  # per block, (T, d_ff): act(W1·ln_2(x) + b1), the keys' coefficients
    residual: tuple[torch.Tensor, ...]  # after the embedding and after each block, (T, d): n_layers + 1 entries
    logits: torch.Tensor  # (T, vocab)


@torch.no_grad()
def float64(model: gpt_model.GPT) -> gpt_model.GPT:
    """A float64 copy of the model, for sums that must add up to rounding; the model itself is left as it was."""
    return copy.deepcopy(model).to(torch.float64).eval()


def encode(words: Sequence[str]) -> torch.Tensor:
    """Token ids of known words, (T,); KeyError on an unknown word (the pages check first)."""
    return torch.tensor(gpt_vocab.vocab().encode(list(words)), dtype=torch.long)


@torch.no_grad()
def run(model: gpt_model.GPT, idx: torch.Tensor) -> Trace:
    """The model's forward pass (forward.steps) on one sequence idx (T,), every part kept."""
    x = model.embed(idx[None])  # (1, T, d)
    steps = list(forward.steps(model, x))
    hidden = tuple(s.hidden[0] for s in steps if s.hidden is not None)
    residual = (x[0], *(s.output[0] for s in steps))
    logits = forward.logits(model, steps[-1].output if steps else x)[0]
    return Trace(x[0], tuple(s.attn[0] for s in steps), tuple(s.ffn[0] for s in steps), hidden, residual, logits)


def frozen_scale(norm: nn.LayerNorm, x: torch.Tensor) -> torch.Tensor:
    """s = 1/√(var(x) + ε) for one vector x (d,), as LayerNorm computes it (biased variance)."""
    return 1.0 / torch.sqrt(x.var(unbiased=False) + norm.eps)


@torch.no_grad()
def readout(model: gpt_model.GPT, x_last: torch.Tensor, token: int) -> tuple[torch.Tensor, float]:
    """(u, c): the answer's logit is u·x + c for any part x of the residual at this position, scale frozen.

    u = s · P(γ ⊙ w_token), P the mean-centering (symmetric, so it moves from the part onto u);
    c = w_token·β + b_token.
    """
    norm, head = model.ln_f, model.head
    w = head.weight[token]
    gamma = norm.weight if norm.weight is not None else torch.ones_like(w)
    g = gamma * w
    u = frozen_scale(norm, x_last) * (g - g.mean())
    c = torch.zeros((), dtype=w.dtype)
    if norm.bias is not None:
        c = c + w @ norm.bias
    if head.bias is not None:
        c = c + head.bias[token]
    return u, float(c)


@torch.no_grad()
def value_logits(model: gpt_model.GPT, vectors: torch.Tensor) -> torch.Tensor:
    """Each vector (n, d) read on the vocabulary through the final norm's γ and centering: (n, vocab).

    The scale s is one positive number per position, so it changes no ranking; it is left out.
    """
    norm = model.ln_f
    gamma = norm.weight if norm.weight is not None else torch.ones(vectors.shape[-1], dtype=vectors.dtype)
    centred = vectors - vectors.mean(dim=-1, keepdim=True)
    return (centred * gamma) @ model.head.weight.T
