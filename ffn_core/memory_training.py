"""The memorisation task: an FFN trained to map N random keys to N random values (or random labels).

Two tasks share one training loop:
- "memorise": keys x_n ~ N(0, I_d), values y_n ~ N(0, I_d), mean squared error. Nothing links a key
  to its value, so the only way to fit is to store each pair: the FFN as a key-value memory.
- "random_labels": the same keys, each given one of N_CLASSES classes drawn uniformly at random;
  the first N_CLASSES outputs are the logits, cross-entropy. The classic random-label experiment
  (Zhang et al. 2017); Li et al. 2023 ("The Lazy Neuron Phenomenon", ICLR) report that activation
  sparsity still emerges when large models are trained on random labels.

The FFN is ffn_core.ffn.FFN without a residual; full-batch Adam; all randomness from `seed`.
"""
from __future__ import annotations

from typing import Literal, NamedTuple

import torch
from torch.nn import functional as F

from ffn_core import adam, ffn

Task = Literal["memorise", "random_labels"]
TASKS: tuple[Task, ...] = ("memorise", "random_labels")
N_CLASSES = 10
MAX_N = 512
MAX_D = 128
MAX_M = 512
MAX_STEPS = 1000
# n·d·m·steps bounds one training run (~1 s on one busy core); the default is 128·64·256·100 ≈ 2.1e8.
MAX_WORK = 2**31
# The pages' default. By 100 full-batch Adam steps the default run has stored every pair (recall 100%)
# and its active fraction and neuron counts have settled: 200 steps show the same numbers to the
# third digit and make a student wait twice as long.
DEFAULT_STEPS = 100
# The data's generator must not share the weights' stream: same-seeded draws would correlate x with W1.
DATA_SEED_OFFSET = 1_000_003
PROBE_TOKENS = 256


def check_sizes(n: int, d: int, m: int, steps: int) -> None:
    """Raise ValueError when a size is out of bounds or the run would cost too much."""
    if not 1 <= n <= MAX_N:
        raise ValueError(f"n must be in 1..{MAX_N}")
    if not N_CLASSES <= d <= MAX_D:
        raise ValueError(f"d must be in {N_CLASSES}..{MAX_D}")
    if not 1 <= m <= MAX_M:
        raise ValueError(f"m must be in 1..{MAX_M}")
    if not 0 <= steps <= MAX_STEPS:
        raise ValueError(f"steps must be in 0..{MAX_STEPS}")
    if too_costly(n, d, m, steps):
        raise ValueError(f"n·d·m·steps must be at most {MAX_WORK}")


def too_costly(n: int, d: int, m: int, steps: int) -> bool:
    """Whether one run of these sizes is past MAX_WORK (the pages say so and compute nothing)."""
    return n * d * m * steps > MAX_WORK


def make_data(n: int, d: int, task: Task, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Keys (n, d) and targets: values (n, d) for "memorise", class ids (n,) for "random_labels"."""
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; expected one of {TASKS}")
    g = torch.Generator().manual_seed(seed + DATA_SEED_OFFSET)
    x = torch.randn(n, d, generator=g)
    if task == "memorise":
        return x, torch.randn(n, d, generator=g)
    return x, torch.randint(0, N_CLASSES, (n,), generator=g)


def probe_tokens(d: int, seed: int, n: int = PROBE_TOKENS) -> torch.Tensor:
    """Fresh Gaussian tokens (never trained on), to measure the active fraction off the training set."""
    g = torch.Generator().manual_seed(seed + 2 * DATA_SEED_OFFSET)
    return torch.randn(n, d, generator=g)


def loss_of(out: torch.Tensor, target: torch.Tensor, task: Task) -> torch.Tensor:
    """Mean squared error for values; cross-entropy on the first N_CLASSES outputs for labels."""
    if task == "memorise":
        return F.mse_loss(out, target)
    return F.cross_entropy(out[:, :N_CLASSES], target)


def recall(out: torch.Tensor, target: torch.Tensor, task: Task) -> float:
    """Share of keys answered right: the nearest stored value is its own (memorise), or argmax = label."""
    if task == "memorise":
        nearest = torch.cdist(out, target).argmin(dim=1)
        return (nearest == torch.arange(len(target))).float().mean().item()
    return (out[:, :N_CLASSES].argmax(dim=1) == target).float().mean().item()


class Run(NamedTuple):
    """A trained module with its data and the curves recorded on the way (tensors: for core use only)."""

    model: ffn.FFN
    x: torch.Tensor
    target: torch.Tensor
    steps: list[int]
    loss: list[float]
    active_train: list[float]
    active_probe: list[float]


def train_module(
    n: int = 128,
    d: int = 64,
    m: int = 256,
    steps: int = DEFAULT_STEPS,
    task: Task = "memorise",
    act: ffn.Activation = "relu",
    init: ffn.Init = "default",
    bias: bool = True,
    lr: float = 3e-3,
    seed: int = 0,
    points: int = 100,
) -> Run:
    """Train an FFN on the task with full-batch Adam; record loss and active fractions about `points` times."""
    check_sizes(n, d, m, steps)
    if act == "none":
        raise ValueError("the memorisation task needs an activation")
    x, target = make_data(n, d, task, seed)
    probe = probe_tokens(d, seed)
    model = ffn.FFN(d, m, act=act, bias=bias, init=init, seed=seed)
    params = list(model.parameters())
    moments = adam.moments(params)
    every = max(1, steps // max(1, points))
    run = Run(model, x, target, [], [], [], [])
    for step in range(steps + 1):
        pre = model.pre_activation(x)  # (n, m)
        out = model.w_2(model.act(pre))
        loss = loss_of(out, target, task)
        if step % every == 0 or step == steps:
            with torch.no_grad():
                # "active" means pre-activation > 0: for relu that is h > 0, for gelu/silu the same rule.
                run.steps.append(step)
                run.loss.append(loss.item())
                run.active_train.append((pre > 0).float().mean().item())
                run.active_probe.append((model.pre_activation(probe) > 0).float().mean().item())
        if step == steps:
            break
        grads = torch.autograd.grad(loss, params)
        adam.step(params, grads, moments, step + 1, lr)
    model.eval()
    return run
