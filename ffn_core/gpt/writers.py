"""Which block writes the answer, over a whole set of prompts: page 8's attribution, averaged.

For each prompt, the answer's logit splits into the embedding's, each block's attention's and FFN's
direct terms and a constant (trace.py, attribution.py: the final LayerNorm's scale frozen at its real
value). Here the same terms are computed for many prompts at once, one batched float64 pass per
prompt length, and averaged: the mean says how much each part writes the answer, on average, into
the last position's residual stream. The training log stores these means at every logged step, so
the curve across training reads from the log; tests recompute them from the shipped checkpoints.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from ffn_core.gpt import corpus, forward, model as gpt_model, trace, vocab as gpt_vocab


@dataclass(frozen=True)
class Writers:
    """Mean direct terms on the answer's logit over `count` prompts (nan for each when count is 0)."""

    count: int
    embedding: float
    attn: tuple[float, ...]  # per block
    ffn: tuple[float, ...]  # per block
    constant: float
    logit: float  # the mean of the model's own answer logits; equals the sum of the parts above


@torch.no_grad()
def writers(model: gpt_model.GPT, prompts: Sequence[corpus.Prompt]) -> Writers:
    """Each part's mean direct term on the answer's logit, over `prompts`, in float64."""
    n_layer = len(model.blocks)
    if not prompts:
        nan = float("nan")
        return Writers(0, nan, (nan,) * n_layer, (nan,) * n_layer, nan, nan)
    m = trace.float64(model)
    v = gpt_vocab.vocab()
    groups: dict[int, list[int]] = {}
    for i, p in enumerate(prompts):
        groups.setdefault(len(p.words), []).append(i)
    sums = torch.zeros(2 * n_layer + 3, dtype=torch.float64)  # embedding, attn..., ffn..., constant, logit
    norm, head = m.ln_f, m.head
    for _, rows in sorted(groups.items()):
        ids = torch.tensor([v.encode(prompts[i].words) for i in rows], dtype=torch.long)
        answers = torch.tensor(v.encode([prompts[i].answer for i in rows]), dtype=torch.long)
        x = m.embed(ids)
        parts = [x[:, -1]]
        attn, ffn = [], []
        for s in forward.steps(m, x):
            x = s.output
            attn.append(s.attn[:, -1])
            ffn.append(s.ffn[:, -1])
        last = x[:, -1]
        # trace.readout for every row at once: u = s · P(γ ⊙ w_answer), c = w_answer·β + b.
        scale = 1.0 / torch.sqrt(last.var(dim=-1, unbiased=False) + norm.eps)
        g = head.weight[answers] * (norm.weight if norm.weight is not None else 1.0)
        u = scale[:, None] * (g - g.mean(dim=-1, keepdim=True))
        c = head.weight[answers] @ norm.bias if norm.bias is not None else torch.zeros(len(rows), dtype=torch.float64)
        if head.bias is not None:
            c = c + head.bias[answers]
        logits = head(norm(last)).gather(1, answers[:, None])[:, 0]
        terms = [(u * part).sum(-1) for part in (*parts, *attn, *ffn)]
        sums += torch.stack([*(t.sum() for t in terms), c.sum(), logits.sum()])
    means = (sums / len(prompts)).tolist()
    return Writers(
        count=len(prompts),
        embedding=means[0],
        attn=tuple(means[1 : 1 + n_layer]),
        ffn=tuple(means[1 + n_layer : 1 + 2 * n_layer]),
        constant=means[1 + 2 * n_layer],
        logit=means[2 + 2 * n_layer],
    )
