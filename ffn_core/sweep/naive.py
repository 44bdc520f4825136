"""The "naive" training a new user writes: nn.Linear's default init, plain Adam on all weights, one run.

Batched over widths by padding to the widest with masked neurons. Adam is elementwise and each width's
parameters only see its own loss, so this equals one separate run per width, step for step.
"""
from __future__ import annotations

from collections.abc import Callable

import torch

from ffn_core import adam
from ffn_core.sweep import net1d

LR = 1e-2


def init(widths: tuple[int, ...], seed: int) -> tuple[torch.Tensor, ...]:
    """nn.Linear's U(±1/sqrt(fan_in)) for both layers (fan_in 1, then m), from a local generator."""
    g = torch.Generator().manual_seed(seed)
    m_max = max(widths)
    m = torch.tensor(widths, dtype=torch.float32)[:, None]
    mask = (torch.arange(m_max)[None, :] < m).float()
    shape = (len(widths), m_max)
    w = torch.rand(shape, generator=g) * 2 - 1
    b = torch.rand(shape, generator=g) * 2 - 1
    bound = 1.0 / m.sqrt()
    v = (torch.rand(shape, generator=g) * 2 - 1) * bound
    c = (torch.rand(len(widths), generator=g) * 2 - 1) * bound[:, 0]
    return w * mask, b * mask, v * mask, c, mask


def fit(x: torch.Tensor, y: torch.Tensor, widths: tuple[int, ...], act: str, seed: int, steps: int,
        on_step: Callable[[int, tuple[torch.Tensor, ...], torch.Tensor], None] | None = None,
        every: int = 10) -> tuple[tuple[torch.Tensor, ...], torch.Tensor]:
    """Adam (lr 1e-2) on the mean squared error of every width at once, in float32 as a user would."""
    w, b, v, c, mask = init(widths, seed)
    params = [p.requires_grad_() for p in (w, b, v, c)]
    moments = adam.moments(params)
    x32, y32 = x.float(), y.float()
    history = torch.empty(len(widths), steps + 1, dtype=torch.float64)
    for t in range(steps + 1):
        out = net1d.forward(w, b, v, c, mask, x32, act)
        mse = ((out - y32) ** 2).mean(-1)                                    # (W,)
        history[:, t] = mse.detach().double().sqrt()
        if on_step is not None and t < steps and t % every == 0:
            on_step(t, tuple(p.detach().double() for p in (w, b, v, c, mask)), history[:, : t + 1])
        if t == steps:
            break
        grads = torch.autograd.grad(mse.sum(), params)
        adam.step(params, grads, moments, t + 1, LR)  # masked neurons get zero gradients: Adam never moves them
    return tuple(p.detach().double() for p in (w, b, v, c, mask)), history
