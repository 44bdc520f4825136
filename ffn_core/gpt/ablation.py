"""Take a part out: zero one block's FFN (or every FFN), or one block's attention, and measure what is left.

A zeroed part writes nothing into the residual stream; everything else runs as trained. The model
handed in is never changed: the ablation runs on a copy whose zeroed modules return zeros (a forward
hook), so the copy computes exactly what the model would with that part's output weights set to 0.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import torch
from torch import nn

from ffn_core.gpt import evaluate, states
from ffn_core.gpt import model as gpt_model


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
    if target == "ffn_all":
        return [block.ffn for block in model.blocks]
    part, layer = target.split("_")
    block = model.blocks[int(layer) - 1]
    return [block.ffn if part == "ffn" else block.attn]


def ablated(model: gpt_model.GPT, target: str) -> gpt_model.GPT:
    """A copy of the model with the target's outputs zeroed; the model itself is left as it was."""
    parts = _modules(model, target)
    twin = copy.deepcopy(model).eval()
    # The same modules in the copy: deepcopy keeps the module tree, so look them up by name.
    names = {id(module): name for name, module in model.named_modules()}
    lookup = dict(twin.named_modules())
    for module in parts:
        lookup[names[id(module)]].register_forward_hook(lambda _m, _i, output: torch.zeros_like(output))
    return twin


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


def scores_from(model: gpt_model.GPT, kept: states.States, target: str) -> Scores:
    """scores(ablated(model, target)), rerunning only the blocks from the ablated one up on the kept pass."""
    _modules(model, target)  # refuses an unknown target
    if target == "none":
        return kept_scores(kept)
    if target == "ffn_all":
        return _scores(states.rerun(model, kept, 0, ffn_off=range(len(model.blocks))))
    part, layer = target.split("_")
    i = int(layer) - 1
    return _scores(states.rerun(model, kept, i, attn_off=(i,) if part == "attn" else (),
                                ffn_off=(i,) if part == "ffn" else ()))


def ablate(model: gpt_model.GPT, target: str, base: Scores | None = None) -> Ablation:
    """Scores with the target zeroed beside the shipped model's (pass `base` when already known)."""
    base = scores(model) if base is None else base
    after = base if target == "none" else scores(ablated(model, target))
    return Ablation(target, after.seen, after.heldout, after.template, base.seen, base.heldout, base.template)
