"""Take a part out: zero one block's FFN (or every FFN), or one block's attention, and measure what is left.

Zero-ablation: the part writes nothing into the residual stream; everything else runs as trained.
Zeroing an FFN also takes away its bias b2 and the average of what it writes, so the blocks above it
read inputs they never saw in training: part of what falls may be that shift, not the facts.
Mean-ablation (for the FFNs) keeps the average: the FFN writes, at every position, its own output
averaged over every corpus token, the same vector whatever the word; what is lost is only what it
wrote differently for different words.

The model handed in is never changed: the ablation runs on a copy whose ablated modules return zeros
(or the mean) from a forward hook, so the copy computes exactly what the model would with that
part's output replaced.
"""
from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from ffn_core.gpt import evaluate, forward, states
from ffn_core.gpt import model as gpt_model

# How an FFN is taken out: its output set to zero, or to its mean over the corpus tokens.
HOWS = ("zero", "mean")


def targets(n_layers: int) -> tuple[str, ...]:
    """Every ablation the page offers: none, all FFNs, each FFN, each attention (blocks 1-based)."""
    return ("none", "ffn_all", *(f"ffn_{i}" for i in range(1, n_layers + 1)),
            *(f"attn_{i}" for i in range(1, n_layers + 1)))


def _modules(model: gpt_model.GPT, target: str) -> list[nn.Module]:
    n = len(model.blocks)
    if target not in targets(n):
        raise ValueError(f"unknown ablation {target!r}; expected one of {targets(n)}")
    if target == "none":
        return []
    # An FFN's output is its W2's output (b2 included): the hook goes there.
    if target == "ffn_all":
        return [block.ffn.w_2 for block in model.blocks]
    part, layer = target.split("_")
    block = model.blocks[int(layer) - 1]
    return [block.ffn.w_2 if part == "ffn" else block.attn]


def _check_how(target: str, how: str) -> None:
    if how not in HOWS:
        raise ValueError(f"unknown ablation kind {how!r}; expected one of {HOWS}")
    if how == "mean" and target.startswith("attn"):
        raise ValueError("mean-ablation is offered for the FFNs only")


def ablated(model: gpt_model.GPT, target: str, means: Sequence[torch.Tensor] | None = None) -> gpt_model.GPT:
    """A copy of the model with the target's outputs zeroed, or with means (one (d,) per block, as
    ffn_means gives) each ablated FFN's output replaced by its block's mean; the model is left as it was."""
    parts = _modules(model, target)
    if means is not None:
        _check_how(target, "mean")
    twin = copy.deepcopy(model).eval()
    # The same modules in the copy: deepcopy keeps the module tree, so look them up by name.
    names = {id(module): name for name, module in model.named_modules()}
    layer_of = {id(block.ffn.w_2): i for i, block in enumerate(model.blocks)}
    lookup = dict(twin.named_modules())
    for module in parts:
        if means is None:
            hook = lambda _m, _i, output: torch.zeros_like(output)  # noqa: E731
        else:
            mean = means[layer_of[id(module)]]
            hook = lambda _m, _i, output, mean=mean: mean.expand_as(output)  # noqa: E731
        lookup[names[id(module)]].register_forward_hook(hook)
    return twin


@torch.no_grad()
def ffn_means(model: gpt_model.GPT) -> tuple[torch.Tensor, ...]:
    """Each block's FFN output averaged over every corpus token, read from the whole pass, summed in
    float64 and returned in the model's dtype: the vector mean-ablation writes in the FFN's place."""
    sums = [torch.zeros(model.config.d_model, dtype=torch.float64) for _ in model.blocks]
    tokens = 0
    for b in evaluate.corpus_batches():
        for layer, s in enumerate(forward.steps(model, model.embed(b.ids))):
            sums[layer] += s.ffn.to(torch.float64).sum(dim=(0, 1))
        tokens += b.ids.numel()
    return tuple((total / tokens).to(model.head.weight.dtype) for total in sums)


@dataclass(frozen=True)
class Ablation:
    """Accuracy of the shipped model and of the ablated copy, over the whole corpus."""

    target: str
    seen: float
    heldout: float
    template: float
    base_seen: float
    base_heldout: float
    base_template: float
    how: str = "zero"


@dataclass(frozen=True)
class Scores:
    seen: float
    heldout: float
    template: float
    active: tuple[float, ...]  # per block, the FFN's active fraction on the corpus tokens (same pass)


def scores(model: gpt_model.GPT) -> Scores:
    """Fact accuracy on seen and held-out prompts and template-word accuracy (evaluate's definitions)."""
    return _scores(evaluate.evaluate(model))


def _scores(e: evaluate.Evaluation) -> Scores:
    return Scores(seen=e.fact_accuracy_seen, heldout=e.fact_accuracy_heldout, template=e.template_accuracy,
                  active=tuple(e.active_fraction))


def kept_scores(kept: states.States) -> Scores:
    """scores(model) of the model whose corpus pass is kept."""
    return _scores(kept.evaluation)


def _ffn_change(how: str, mean: torch.Tensor | None) -> forward.Change:
    return forward.Change(ffn_off=True) if how == "zero" else forward.Change(ffn_constant=mean)


def scores_from(model: gpt_model.GPT, kept: states.States, target: str, how: str = "zero") -> Scores:
    """scores(ablated(model, target[, means])), rerunning only the blocks from the ablated one up on the kept pass.

    how: "zero" or "mean" (FFN targets only; the means are the kept pass's, kept.ffn_mean)."""
    _modules(model, target)  # refuses an unknown target
    _check_how(target, how)
    if target == "none":
        return kept_scores(kept)
    if target == "ffn_all":
        return _scores(states.rerun(model, kept, 0, {i: _ffn_change(how, kept.ffn_mean[i] if how == "mean" else None)
                                                     for i in range(len(model.blocks))}))
    part, layer = target.split("_")
    i = int(layer) - 1
    change = forward.Change(attn_off=True) if part == "attn" else _ffn_change(how, kept.ffn_mean[i] if how == "mean" else None)
    return _scores(states.rerun(model, kept, i, {i: change}))


def ablate(model: gpt_model.GPT, target: str, base: Scores | None = None, how: str = "zero") -> Ablation:
    """Scores with the target zeroed (or, how="mean", its FFNs replaced by their means) beside the shipped
    model's (pass `base` when already known)."""
    _check_how(target, how)
    base = scores(model) if base is None else base
    means = ffn_means(model) if how == "mean" else None
    after = base if target == "none" else scores(ablated(model, target, means))
    return Ablation(target, after.seen, after.heldout, after.template, base.seen, base.heldout, base.template, how)
