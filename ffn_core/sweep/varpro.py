"""The "pieces" training: move each neuron's kink; the output layer is solved exactly at every step.

A width-m neuron is v_i·act(s_i·e^{a_i}·(x - k_i)) with sign s_i = ±1 and kink k_i, i.e. w_i = s_i·e^{a_i},
b_i = -w_i·k_i. For fixed kinks the best (v, c) is a least-squares problem, solved in float64 at every step
(variable projection, Golub & Pereyra 1973). At that optimum ∂loss/∂v = 0, so the gradient with respect to
the kinks needs no differentiation through the solve (envelope theorem); Adam moves the kinks.

All widths and all restarts run as one tensor program. Each width gets one row of L = max(widths) + 1 slots,
and a width m packs ⌊L/(m+1)⌋ restarts (m neurons + 1 constant each) into its row: the Gram matrix is
masked block-diagonal, so one batched Cholesky solves every restart at once and small widths, whose loss
has the most local minima, get the most restarts for free. Leftover slots are padding.

For relu the Gram matrix has a closed form from prefix sums over the sorted x (every feature is
α_i + β_i·x on an interval of points), so a step costs O(L²) per row, not O(N·L²).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch

from ffn_core.sweep import net1d

JITTER = 0.8


@dataclass
class Layout:
    """Where each width's restarts sit in its row of slots (internal)."""

    widths: tuple[int, ...]
    rows: int
    neuron: torch.Tensor   # (W, L) bool
    const: torch.Tensor    # (W, L) bool
    pad: torch.Tensor      # (W, L) bool
    position: torch.Tensor  # (W, L) index of a neuron inside its restart
    block: torch.Tensor    # (W, L) restart index inside the row (0 for padding)
    same: torch.Tensor     # (W, L, L) both slots in the same restart
    onehot: torch.Tensor   # (W, L, P) slot -> restart, float64, zero rows for padding
    valid: torch.Tensor    # (W, P) restart exists
    width: torch.Tensor    # (W, 1) float64
    const_f: torch.Tensor  # (W, L) float64
    same_f: torch.Tensor   # (W, L, L) float64
    pad_eye: torch.Tensor  # (W, L, L) ones on the padding's diagonal, so padding solves to 0
    top: torch.Tensor      # (W, L) N for used slots, 0 for padding (end of the point interval)


def layout(widths: tuple[int, ...], rows: int, points: int) -> Layout:
    """Pack ⌊L/(m+1)⌋ restarts of each width into `rows` rows of L = max(widths)+1 slots."""
    slots = max(widths) + 1
    per_row = [slots // (m + 1) for m in widths]
    n_blocks = max(per_row)
    index = torch.arange(slots)
    neuron, const, pad, position, block = [], [], [], [], []
    for m, p in zip(widths, per_row):
        used = index < p * (m + 1)
        within = index % (m + 1)
        neuron.append(used & (within < m))
        const.append(used & (within == m))
        pad.append(~used)
        position.append(torch.where(used, within, 0))
        block.append(torch.where(used, index // (m + 1), 0))
    neuron_t, pad_t, block_t = torch.stack(neuron), torch.stack(pad), torch.stack(block)
    owner = torch.where(pad_t, -1 - index, block_t)  # padding slots are alone in their "restart"
    onehot = torch.nn.functional.one_hot(block_t, n_blocks).double() * (~pad_t)[..., None]
    valid = torch.arange(n_blocks)[None, :] < torch.tensor(per_row)[:, None]
    const_t = torch.stack(const)
    same = owner[:, :, None] == owner[:, None, :]
    return Layout(
        widths=widths, rows=rows, neuron=neuron_t, const=const_t, pad=pad_t,
        position=torch.stack(position), block=block_t, same=same,
        onehot=onehot, valid=valid, width=torch.tensor(widths, dtype=torch.float64)[:, None],
        const_f=const_t.double(), same_f=same.double(), pad_eye=torch.diag_embed(pad_t.double()),
        top=torch.where(pad_t, 0, points),
    )


def init(lay: Layout, x_range: tuple[float, float], act: str, seed: int) -> tuple[torch.Tensor, ...]:
    """Kinks spread over the range on a jittered grid with random signs (one restart: the plain grid)."""
    g = torch.Generator().manual_seed(seed)
    lo, hi = x_range
    span = hi - lo
    shape = (lay.rows, *lay.neuron.shape)
    u = torch.rand(shape, generator=g, dtype=torch.float64)
    flip = torch.rand(shape, generator=g, dtype=torch.float64) < 0.5
    # One restart per width (if it has several) starts from the plain grid with alternating signs.
    several = (lay.valid.sum(-1) * lay.rows > 1)[None, :, None]
    first = (lay.block == 0)[None] & (torch.arange(lay.rows) == 0)[:, None, None] & several
    u = torch.where(first, torch.full_like(u, 0.5), u)
    alternate = (lay.position % 2 == 0)[None].expand(shape)
    s = torch.where(torch.where(first, alternate, flip), -1.0, 1.0).double()
    k = lo + span * (lay.position + 0.5 + JITTER * (u - 0.5)) / lay.width[None]
    # gelu's bend is about 1/|w| wide: start it at the grid spacing so neighbouring bends barely overlap.
    # relu is positively homogeneous, so its scale e^a is absorbed by v and a stays 0.
    a = torch.zeros(shape, dtype=torch.float64)
    if act == "gelu":
        a = torch.log(2.0 * (lay.width[None] + 1.0) / span).expand(shape).clone()
    mask = lay.neuron[None].expand(shape)
    return torch.where(mask, k, 0.0), torch.where(mask, s, 0.0), torch.where(mask, a, 0.0)


class Prefix:
    """Cumulative sums over the sorted points, so any interval sum of x^p or x^p·y is one subtraction."""

    def __init__(self, x: torch.Tensor, y: torch.Tensor) -> None:
        zero = torch.zeros(1, dtype=torch.float64)
        self.x = x
        self.n = x.numel()
        # p0[j] = j needs no table; take() on flat tables is several times faster than fancy indexing.
        self.p1 = torch.cat([zero, x.cumsum(0)])
        self.p2 = torch.cat([zero, (x * x).cumsum(0)])
        self.py = torch.cat([zero, y.cumsum(0)])
        self.pxy = torch.cat([zero, (x * y).cumsum(0)])
        self.yy = float((y * y).sum())


def _solve(gram: torch.Tensor, rhs: torch.Tensor, scale: float) -> torch.Tensor:
    """Batched Cholesky solve with a tiny ridge, raised where a matrix is numerically singular."""
    ridge = 1e-11 * scale
    for _ in range(6):
        chol, info = torch.linalg.cholesky_ex(gram.diagonal_scatter(gram.diagonal(0, -2, -1) + ridge, 0, -2, -1))
        if not bool((info > 0).any()):
            break
        ridge *= 100.0
    return torch.cholesky_solve(rhs[..., None], chol)[..., 0]


def step_relu(lay: Layout, pre: Prefix, k: torch.Tensor, s: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Exact LS output layer and the kink gradient for relu by prefix sums: (coef, sse per restart, dk).

    s is 0 on constant and padding slots, so beta = s and the neuron's feature is alpha + beta·x.
    """
    alpha = lay.const_f - s * k
    # relu(s(x-k)) is nonzero on x > k (s=+1) or x < k (s=-1): an index interval [lo, hi) of sorted points.
    # A point with x = k adds 0 whichever side it falls, so one searchsorted serves both signs.
    idx = torch.searchsorted(pre.x, k)
    lo = idx * (s > 0)
    hi = torch.where(s < 0, idx, lay.top[None])
    lo_ij = torch.maximum(lo[..., :, None], lo[..., None, :])
    hi_ij = torch.maximum(torch.minimum(hi[..., :, None], hi[..., None, :]), lo_ij)
    s0 = (hi_ij - lo_ij).double()                                               # (R, W, L, L)
    s1 = pre.p1.take(hi_ij) - pre.p1.take(lo_ij)
    s2 = pre.p2.take(hi_ij) - pre.p2.take(lo_ij)
    a_j, b_j = alpha[..., None, :], s[..., None, :]
    # cross_ij = Σ over i's points of feature j; the Gram entry adds the same with feature i's x-weight.
    cross = (a_j * s0 + b_j * s1) * lay.same_f
    cross_x = (a_j * s1 + b_j * s2) * lay.same_f
    gram = alpha[..., :, None] * cross + s[..., :, None] * cross_x + lay.pad_eye
    sy = pre.py.take(hi) - pre.py.take(lo)
    sxy = pre.pxy.take(hi) - pre.pxy.take(lo)
    rhs = alpha * sy + s * sxy
    coef = _solve(gram, rhs, scale=float(pre.p2[-1]) + pre.n)
    sse = pre.yy - ((coef * rhs)[..., None, :] @ lay.onehot)[..., 0, :]
    r_sum = (cross @ coef[..., None])[..., 0] - sy   # Σ over i's points of its restart's residual
    dk = (-2.0 / pre.n) * coef * s * r_sum
    return coef, sse, dk


def step_general(lay: Layout, x: torch.Tensor, y: torch.Tensor, k: torch.Tensor, s: torch.Tensor,
                 a: torch.Tensor, act: str) -> tuple[torch.Tensor, ...]:
    """The same step from explicit features, for any activation: (coef, sse per restart, dk, da)."""
    n = x.numel()
    neuron, const, pad = lay.neuron[None], lay.const[None], lay.pad[None]
    w = s * torch.exp(a)
    # The elementwise work (erf, exp) runs in float32, several times faster on CPU; the Gram matrix
    # and the solve stay in float64, and the final fit is re-solved from exact float64 features.
    z = (w[..., None, :] * (x[:, None] - k[..., None, :])).float()         # (R, W, N, L)
    feats = torch.where(neuron[..., None, :], net1d.act_fn(act, z).double(), const[..., None, :].double())
    gram = (feats.transpose(-1, -2) @ feats) * lay.same_f + lay.pad_eye
    rhs = (feats.transpose(-1, -2) @ y[:, None])[..., 0]
    coef = _solve(gram, rhs, scale=float((x * x).sum()) + n)
    resid = (feats * coef[..., None, :]) @ lay.onehot[None] - y[:, None]  # (R, W, N, P)
    sse = (resid * resid).sum(-2)
    r_slot = torch.gather(resid, -1, lay.block[None, :, None, :].expand(*z.shape))
    slope = torch.where(neuron[..., None, :], net1d.act_grad(act, z).double() * w[..., None, :], 0.0)
    dk = -(2.0 / n) * coef * (r_slot * slope).sum(-2)
    da = (2.0 / n) * coef * (r_slot * slope * (x[:, None] - k[..., None, :])).sum(-2)
    return coef, sse, dk, da


@dataclass
class Result:
    """The best restart of each width, padded to max(widths) neurons (internal, tensors)."""

    w: torch.Tensor        # (W, M)
    b: torch.Tensor
    mask: torch.Tensor
    history: torch.Tensor  # (W, steps + 1) best RMSE over restarts after each step (0 = at init)


def _best(lay: Layout, k: torch.Tensor, s: torch.Tensor, a: torch.Tensor,
          sse: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Pick the restart with the lowest error for each width and unpack its neurons."""
    rows, n_w, slots = k.shape
    m_max = max(lay.widths)
    sse = torch.where(lay.valid[None], sse, math.inf)                     # (R, W, P)
    flat = sse.permute(1, 0, 2).reshape(n_w, -1).argmin(-1)
    row, blk = flat // sse.shape[-1], flat % sse.shape[-1]
    w = torch.zeros(n_w, m_max, dtype=torch.float64)
    b = torch.zeros_like(w)
    mask = torch.zeros_like(w)
    for j, m in enumerate(lay.widths):
        start = int(blk[j]) * (m + 1)
        kk, ss, aa = (t[row[j], j, start:start + m] for t in (k, s, a))
        w[j, :m] = ss * torch.exp(aa)
        b[j, :m] = -w[j, :m] * kk
        mask[j, :m] = 1.0
    return w, b, mask


def fit(x: torch.Tensor, y: torch.Tensor, widths: tuple[int, ...], act: str, seed: int, steps: int,
        rows: int, lr: float, on_step: Callable[[int, Result], None] | None = None,
        every: int = 10) -> Result:
    """Train every width's restarts together for `steps` Adam steps on the kinks; keep each width's best."""
    lay = layout(widths, rows, x.numel())
    x_range = (float(x[0]), float(x[-1]))
    span = x_range[1] - x_range[0]
    k, s, a = init(lay, x_range, act, seed)
    pre = Prefix(x, y) if act == "relu" else None
    n = x.numel()
    # A kink's natural step is a fraction of the grid spacing span/(m+1).
    lr_k = lr * span / (lay.width[None] + 1.0)
    lr_a = lr
    beta1, beta2, eps = 0.9, 0.999, 1e-12
    m_k, v_k = torch.zeros_like(k), torch.zeros_like(k)
    m_a, v_a = torch.zeros_like(a), torch.zeros_like(a)
    history = torch.empty(len(widths), steps + 1, dtype=torch.float64)
    for t in range(steps + 1):
        if pre is not None:
            _, sse, dk = step_relu(lay, pre, k, s)
            da = dk  # unused: relu's scale is absorbed by v
        else:
            _, sse, dk, da = step_general(lay, x, y, k, s, a, act)
        best_sse = torch.where(lay.valid[None], sse, math.inf).amin(dim=(0, 2)).clamp_min(0.0)
        history[:, t] = (best_sse / n).sqrt()
        if on_step is not None and t < steps and t % every == 0:
            on_step(t, Result(*_best(lay, k, s, a, sse), history=history[:, : t + 1]))
        if t == steps:
            break
        decay = 0.05 + 0.95 * 0.5 * (1.0 + math.cos(math.pi * t / steps))
        updates = [(k, dk, m_k, v_k, lr_k)] + ([(a, da, m_a, v_a, lr_a)] if pre is None else [])
        for p, g, m1, m2, rate in updates:
            m1.mul_(beta1).add_(g, alpha=1 - beta1)
            m2.mul_(beta2).addcmul_(g, g, value=1 - beta2)
            p.sub_(rate * decay * (m1 / (1 - beta1 ** (t + 1))) / ((m2 / (1 - beta2 ** (t + 1))).sqrt() + eps))
        k.clamp_(x_range[0] - span, x_range[1] + span)
        a.clamp_(-10.0, 10.0)
    return Result(*_best(lay, k, s, a, sse), history=history)
