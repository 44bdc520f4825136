"""Adam written out (Kingma & Ba 2015), with torch.optim.Adam's defaults.

torch.optim's first step in a process imports torch._dynamo and sympy: ~2 s and ~40 MB that the
first student to train anything on a fresh server would wait for. The update is a few lines.
"""
from __future__ import annotations

from collections.abc import Sequence

import torch

Moments = list[tuple[torch.Tensor, torch.Tensor]]


def moments(params: Sequence[torch.Tensor]) -> Moments:
    """Zeroed first and second moments, one pair per parameter."""
    return [(torch.zeros_like(p), torch.zeros_like(p)) for p in params]


def step(
    params: Sequence[torch.Tensor],
    grads: Sequence[torch.Tensor],
    state: Moments,
    t: int,
    lr: float,
    beta_1: float = 0.9,
    beta_2: float = 0.999,
    eps: float = 1e-8,
) -> None:
    """Update every parameter in place for step t (counted from 1)."""
    with torch.no_grad():
        for p, g, (m_1, m_2) in zip(params, grads, state):
            m_1.mul_(beta_1).add_(g, alpha=1 - beta_1)
            m_2.mul_(beta_2).addcmul_(g, g, value=1 - beta_2)
            denom = (m_2 / (1 - beta_2**t)).sqrt_().add_(eps)
            p.addcdiv_(m_1, denom, value=-lr / (1 - beta_1**t))
