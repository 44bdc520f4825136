"""A batch of 1-D networks of width m, y = Σ_i v_i·act(w_i·x + b_i) + c, padded to one width with masked neurons."""
from __future__ import annotations

import math

import torch

ACTS = ("relu", "gelu")


def act_fn(act: str, z: torch.Tensor) -> torch.Tensor:
    """relu or the exact (erf) gelu, as torch.nn.GELU computes it."""
    if act == "relu":
        return torch.relu(z)
    if act == "gelu":
        return 0.5 * z * (1.0 + torch.erf(z / math.sqrt(2.0)))
    raise ValueError(f"act must be one of {ACTS}")


def act_grad(act: str, z: torch.Tensor) -> torch.Tensor:
    """d act/dz: the step 1[z > 0] for relu, Φ(z) + z·φ(z) for gelu."""
    if act == "relu":
        return (z > 0).to(z.dtype)
    phi = torch.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)
    return 0.5 * (1.0 + torch.erf(z / math.sqrt(2.0))) + z * phi


def hidden(w: torch.Tensor, b: torch.Tensor, mask: torch.Tensor, x: torch.Tensor, act: str) -> torch.Tensor:
    """act(w_i·x + b_i) for every point, masked neurons zero: (B, M), (N,) -> (B, N, M)."""
    return act_fn(act, x[:, None] * w[..., None, :] + b[..., None, :]) * mask[..., None, :]


def forward(w: torch.Tensor, b: torch.Tensor, v: torch.Tensor, c: torch.Tensor, mask: torch.Tensor,
            x: torch.Tensor, act: str) -> torch.Tensor:
    """The networks' outputs at x: (B, M) params, (B,) c -> (B, N)."""
    return (hidden(w, b, mask, x, act) * v[..., None, :]).sum(-1) + c[..., None]


def solve_output(w: torch.Tensor, b: torch.Tensor, mask: torch.Tensor, x: torch.Tensor, y: torch.Tensor,
                 act: str) -> tuple[torch.Tensor, torch.Tensor]:
    """The least-squares output layer (v, c) for fixed hidden weights, in float64 (min-norm if rank deficient)."""
    h = hidden(w.double(), b.double(), mask.double(), x.double(), act)
    design = torch.cat([h, torch.ones_like(h[..., :1])], dim=-1)          # (B, N, M+1)
    target = y.double().expand(*design.shape[:-2], -1)[..., None]          # (B, N, 1)
    coef = torch.linalg.lstsq(design, target, driver="gelsd").solution[..., 0]
    v = coef[..., :-1] * mask.double()
    return v, coef[..., -1]


def kinks(w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Each neuron's kink x = -b_i/w_i (inf where w_i = 0: that neuron never bends)."""
    safe = torch.where(w == 0, torch.ones_like(w), w)
    return torch.where(w == 0, torch.full_like(w, math.inf), -b / safe)


def inside(w: torch.Tensor, b: torch.Tensor, v: torch.Tensor, mask: torch.Tensor,
           x_range: tuple[float, float], tol: float) -> torch.Tensor:
    """Which neurons bend the output inside the open range: kink in (lo, hi) and slope change |v_i·w_i| > tol."""
    k = kinks(w, b)
    lo, hi = x_range
    return (mask > 0) & (k > lo) & (k < hi) & ((v * w).abs() > tol)
