"""The shipped MoE GPT, loaded once per server process, and the cached probes of the mixture-of-experts page.

As in probes.py, the model is shared and never changed (an ablation passes the expert to drop into the
forward pass, it does not zero a weight), and only the small results are cached.
"""
from __future__ import annotations

from ffn_core.gpt import moe_model, moe_probes, moe_train
from ui.compute import cache


@cache.resource  # out of reach of a client's "clear cache"
def shipped() -> moe_model.MoEGPT:
    return moe_train.load().requires_grad_(False)


@cache.resource
def baseline() -> moe_probes.Pass:
    """Every prompt through the whole model once (~0.1 MB kept): the routes read it, each ablation reruns only the prompts it touches."""
    return moe_probes.run(shipped())


@cache.cached(max_entries=4)
def routes() -> moe_probes.Routes:
    return moe_probes.routes(shipped(), baseline())


@cache.cached(max_entries=64)  # every (block, expert) of the shipped model: 16
def ablate(block: int, expert: int) -> moe_probes.Ablation:
    """block and expert counted from 1, as the page shows them."""
    return moe_probes.ablate(shipped(), block - 1, expert - 1, baseline())
