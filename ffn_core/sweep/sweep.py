"""Width buys pieces: fit a 1-D target with networks of several widths m at once (at most m kinks, m+1 pieces)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
import torch

from ffn_core.sweep import expr, naive, net1d, snap, targets, varpro

MAX_WIDTH = 256
MAX_WIDTHS = 8
MAX_STEPS = 2000
MAX_ROWS = 16
# Rows of restarts for the live sweep: one; a row of L slots already packs ⌊L/(m+1)⌋ restarts of width m.
# A second row halves the speed and gained at most 1.1× in error on the default sweep (seeds 0-4).
ROWS = 1
WIDTHS = (2, 4, 8, 16, 32)
X_RANGE = (-2.0, 2.0)
POINTS = 256
STEPS = 150
MIN_STEPS = 10
BUDGET_SECONDS = 1.0
# The pieces method's biggest tensors are (rows, widths, slots, slots), and for gelu (rows, widths, points,
# slots): cap them at ~17 MB each; and one call's estimated compute (the precompute script needs ~40 s).
MAX_CELLS = 2 ** 21
MAX_SECONDS = 60.0
METHODS = ("pieces", "naive")
# A slope change below this fraction of (target's span / x's span) does not count as a kink.
KINK_TOL = 1e-6
# An RMSE below this fraction of the target's largest |value| is rounding error: the fit is exact.
# Exact fits measured here sit at 1e-15 to 1e-11 of it, the closest inexact ones at 1e-6 and above.
EXACT_REL = 1e-9
# A kink matters when taking it out (joining its neighbours with one straight line) moves the curve by
# more than this fraction of the target's span: smaller bends are wiggles no chart can show.
PIECE_REL = 1e-3
LR = 0.1


@dataclass(frozen=True)
class WidthFit:
    """One width's fitted network, its kinks inside the range, its curve and its RMSE after each step.

    kinks_inside counts the neurons that bend the curve inside the range (at most m: one kink each);
    kinks are the bends that matter (PIECE_REL), and pieces = len(kinks) + 1 the straight pieces the
    curve is made of. A smooth activation (gelu) has no kinks: kinks_inside 0, kinks (), pieces None.
    rmse is measured on the grid the network was fitted on; rmse_between halfway between its neighbouring
    points, where no fitted point pins the curve (∞ where the target itself is not finite there).
    exact_on_grid: rmse is rounding error (EXACT_REL of the target's scale); exact: rmse_between is too,
    so the curve meets the target between the points as well, not only at them.
    """

    width: int
    rmse: float
    rmse_between: float
    exact_on_grid: bool
    exact: bool
    kinks_inside: int
    pieces: int | None
    kinks: tuple[float, ...]
    kink_y: tuple[float, ...]
    w: tuple[float, ...]
    b: tuple[float, ...]
    v: tuple[float, ...]
    c: float
    curve: tuple[float, ...]
    history: tuple[float, ...]


@dataclass(frozen=True)
class Sweep:
    """Fits of one target for several widths; `step` of `steps` done (less while training runs)."""

    target: str
    label: str
    x_range: tuple[float, float]
    points: int
    act: str
    method: str
    seed: int
    steps: int
    step: int
    exact_tol: float
    x: tuple[float, ...]
    y: tuple[float, ...]
    fits: tuple[WidthFit, ...]

    @property
    def widths(self) -> tuple[int, ...]:
        return tuple(f.width for f in self.fits)

    def rmse_frame(self) -> pd.DataFrame:
        """One row per width: rmse, exact, kinks inside, the pieces that matter and the m+1-pieces bound."""
        return pd.DataFrame([
            {"method": self.method, "width": f.width, "params": params(f.width), "rmse": f.rmse,
             "rmse_between": f.rmse_between, "exact_on_grid": f.exact_on_grid, "exact": f.exact,
             "kinks_inside": f.kinks_inside, "pieces_used": f.pieces, "pieces_bound": f.width + 1}
            for f in self.fits
        ])

    def curves_frame(self) -> pd.DataFrame:
        """Long: method, width, x, fit, target."""
        return pd.DataFrame([
            {"method": self.method, "width": f.width, "x": xi, "fit": fi, "target": yi}
            for f in self.fits for xi, fi, yi in zip(self.x, f.curve, self.y)
        ])

    def kinks_frame(self) -> pd.DataFrame:
        """Long: method, width, kink position and the fit's value there (for markers on the curve)."""
        rows = [{"method": self.method, "width": f.width, "kink": k, "y": y}
                for f in self.fits for k, y in zip(f.kinks, f.kink_y)]
        return pd.DataFrame(rows, columns=["method", "width", "kink", "y"])

    def loss_frame(self, max_points: int = 200) -> pd.DataFrame:
        """Long: method, width, step, rmse (thinned to about max_points steps per width)."""
        stride = max(1, len(self.fits[0].history) // max_points) if self.fits else 1
        return pd.DataFrame([
            {"method": self.method, "width": f.width, "step": t, "rmse": r}
            for f in self.fits for t, r in enumerate(f.history)
            if t % stride == 0 or t == len(f.history) - 1
        ])


def params(width: int) -> int:
    """Weights of a width-m network on one input: m input weights, m biases, m output weights, one output bias."""
    return 3 * width + 1


def pieces_that_matter(xs: list[float], ys: list[float], eps: float) -> list[int]:
    """Indices of the inner vertices of a polyline left after taking out, one at a time, every vertex
    whose removal moves the line by at most eps (the vertical distance to the line through its neighbours:
    the line between two vertices is straight, so that distance is the most the curve moves)."""
    keep = list(range(len(xs)))
    while len(keep) > 2:
        x, y = torch.tensor([xs[i] for i in keep], dtype=torch.float64), torch.tensor([ys[i] for i in keep],
                                                                                     dtype=torch.float64)
        t = (x[1:-1] - x[:-2]) / (x[2:] - x[:-2])
        gap = (y[1:-1] - (y[:-2] + t * (y[2:] - y[:-2]))).abs()
        j = int(gap.argmin())
        if float(gap[j]) > eps:
            break
        keep.pop(j + 1)
    return keep[1:-1]


def check(widths: tuple[int, ...], act: str, method: str, steps: int | None) -> tuple[int, ...]:
    """Validate the sizes; return the widths sorted and without repeats."""
    clean = tuple(sorted({int(m) for m in widths}))
    if not clean or len(clean) > MAX_WIDTHS:
        raise ValueError(f"give 1 to {MAX_WIDTHS} widths")
    if clean[0] < 1 or clean[-1] > MAX_WIDTH:
        raise ValueError(f"widths must be in [1, {MAX_WIDTH}]")
    if act not in net1d.ACTS:
        raise ValueError(f"act must be one of {net1d.ACTS}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}")
    if steps is not None and not 1 <= int(steps) <= MAX_STEPS:
        raise ValueError(f"steps must be in [1, {MAX_STEPS}]")
    return clean


def step_seconds(widths: tuple[int, ...], points: int, act: str, rows: int) -> float:
    """Rough CPU seconds of one "pieces" step on one thread (fitted to timings on the 2-core dev machine)."""
    n_w, slots = len(widths), max(widths) + 1
    solve = 5e-10 * rows * n_w * slots ** 3
    if act == "relu":
        return 3e-4 + 1.15e-7 * rows * n_w * slots ** 2 + solve
    return 5e-4 + rows * n_w * points * slots * (7.2e-8 + 2.8e-10 * slots) + solve


def auto_steps(widths: tuple[int, ...], points: int, act: str, rows: int) -> int:
    """STEPS for the default sweep, fewer for wide ones so one sweep stays near a second of compute.

    Wide networks need few steps: their kinks start on a grid, already close to where they end.
    Both methods get the same count, so the page compares them step for step.
    """
    return int(min(STEPS, max(MIN_STEPS, BUDGET_SECONDS / step_seconds(widths, points, act, rows))))


def midpoints(x: torch.Tensor) -> torch.Tensor:
    """The points halfway between neighbouring grid points: where a fit that only interpolates the grid shows."""
    return (x[1:] + x[:-1]) / 2


def _between_values(target: str, x: torch.Tensor) -> torch.Tensor | None:
    """The target halfway between the grid points; None where it is not finite there (1/x at a midpoint 0)."""
    try:
        return targets.values(target, x)
    except expr.ExprError:
        return None


def _assemble(target: str, x: torch.Tensor, y: torch.Tensor, widths: tuple[int, ...], act: str, method: str,
              seed: int, steps: int, step: int, params: tuple[torch.Tensor, ...],
              history: torch.Tensor) -> Sweep:
    w, b, v, c, mask = params
    x_range = (float(x[0]), float(x[-1]))
    curves = net1d.forward(w, b, v, c, mask, x, act)                         # (W, N) float64
    rmse = ((curves - y) ** 2).mean(-1).sqrt()
    # Off the grid: a network with about as many neurons as points can pass through every point and still
    # miss the target between them; that is interpolation, not an exact fit.
    xm = midpoints(x)
    ym = _between_values(target, xm)
    if ym is None:
        rmse_between = torch.full_like(rmse, float("inf"))
    else:
        rmse_between = ((net1d.forward(w, b, v, c, mask, xm, act) - ym) ** 2).mean(-1).sqrt()
    y_span = max(float(y.max() - y.min()), 1e-9)
    tol = KINK_TOL * y_span / (x_range[1] - x_range[0])
    counted = net1d.inside(w, b, v, mask, x_range, tol)
    k = net1d.kinks(w, b)
    exact_tol = EXACT_REL * float(y.abs().max())
    fits = []
    for j, m in enumerate(widths):
        kinks: tuple[float, ...] = ()
        kink_y: tuple[float, ...] = ()
        pieces = None
        if act == "relu":
            # Neurons bending at the same x make one vertex of the curve.
            at = torch.unique(k[j][counted[j]])
            ends = torch.tensor(x_range, dtype=torch.float64)
            xs = torch.cat([ends[:1], at, ends[1:]])
            ys = ((net1d.act_fn(act, xs[:, None] * w[j] + b[j]) * mask[j]) @ v[j] + c[j]).tolist()
            kept = pieces_that_matter(xs.tolist(), ys, PIECE_REL * y_span)
            kinks, kink_y = tuple(xs[kept].tolist()), tuple(ys[i] for i in kept)
            pieces = len(kinks) + 1
        fits.append(WidthFit(
            width=m,
            rmse=float(rmse[j]),
            rmse_between=float(rmse_between[j]),
            exact_on_grid=float(rmse[j]) <= exact_tol,
            exact=float(rmse[j]) <= exact_tol and float(rmse_between[j]) <= exact_tol,
            kinks_inside=int(counted[j].sum()) if act == "relu" else 0,
            pieces=pieces,
            kinks=kinks,
            kink_y=kink_y,
            w=tuple(w[j, :m].tolist()), b=tuple(b[j, :m].tolist()), v=tuple(v[j, :m].tolist()), c=float(c[j]),
            curve=tuple(curves[j].tolist()),
            history=tuple(history[j].tolist()),
        ))
    return Sweep(target=target, label=targets.label(target), x_range=x_range, points=x.numel(), act=act,
                 method=method, seed=seed, steps=steps, step=step, exact_tol=exact_tol, x=tuple(x.tolist()),
                 y=tuple(y.tolist()), fits=tuple(fits))


def evaluate(target: str, w: tuple[float, ...], b: tuple[float, ...], v: tuple[float, ...], c: float,
             x_range: tuple[float, float] = X_RANGE, points: int = POINTS, act: str = "relu") -> WidthFit:
    """One given network on the target: its RMSE, curve and counted kinks (no training)."""
    if not len(w) == len(b) == len(v) or not 1 <= len(w) <= MAX_WIDTH:
        raise ValueError(f"w, b, v need the same length in [1, {MAX_WIDTH}]")
    key = targets.key(target)
    x = targets.grid(x_range, points)
    y = targets.values(key, x)
    params = tuple(torch.tensor([list(p)], dtype=torch.float64) for p in (w, b, v))
    res = _assemble(key, x, y, (len(w),), act, "given", 0, 0, 0,
                    (*params, torch.tensor([float(c)], dtype=torch.float64), torch.ones_like(params[0])),
                    torch.zeros(1, 0, dtype=torch.float64))
    return res.fits[0]


def fit_widths(target: str = targets.DEFAULT, widths: tuple[int, ...] = WIDTHS,
               x_range: tuple[float, float] = X_RANGE, points: int = POINTS, act: str = "relu",
               method: str = "pieces", seed: int = 0, steps: int | None = None, rows: int | None = None,
               on_step: Callable[[Sweep], None] | None = None, every: int = 10) -> Sweep:
    """Fit every width at once (one batched program), keep each width's best network; on_step sees snapshots.

    steps=None picks auto_steps (150 for the default sweep); rows=None picks ROWS.
    """
    widths = check(widths, act, method, steps)
    rows = ROWS if rows is None else int(rows)  # naive ignores rows (one run)
    if not 1 <= rows <= MAX_ROWS:
        raise ValueError(f"rows must be in [1, {MAX_ROWS}]")
    slots = widths[-1] + 1
    if method == "pieces" and act == "gelu" and rows * len(widths) * points * slots > MAX_CELLS:
        raise ValueError("too many widths or points for gelu: lower them")
    if method == "pieces" and rows * len(widths) * slots * slots > MAX_CELLS:
        raise ValueError("too many rows or widths: lower them")
    steps = auto_steps(widths, points, act, rows) if steps is None else int(steps)
    if method == "pieces" and steps * step_seconds(widths, points, act, rows) > MAX_SECONDS:
        raise ValueError("too much work for one call: fewer steps, rows or widths")
    key = targets.key(target)
    x = targets.grid(x_range, points)
    y = targets.values(key, x)

    def output(res_w: torch.Tensor, res_b: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, ...]:
        v, c = net1d.solve_output(res_w, res_b, mask, x, y, act)
        return res_w, res_b, v, c, mask

    def finish(res_w: torch.Tensor, res_b: torch.Tensor, mask: torch.Tensor,
               history: torch.Tensor) -> tuple[tuple[torch.Tensor, ...], torch.Tensor]:
        # A trained kink a hair beside a corner of the target is moved onto it: a fit that can be exact is.
        corners = targets.kinks(key, x) if act == "relu" else ()
        if not corners:
            return output(res_w, res_b, mask), history
        xm = midpoints(x)
        ym = _between_values(key, xm)
        w, b, v, c = snap.snap_fit(res_w, res_b, mask, x, y, corners, None if ym is None else (xm, ym),
                                   exact_rmse=EXACT_REL * float(y.abs().max()),
                                   jumps=any(x[0] < j <= x[-1] for j in targets.JUMPS.get(key, ())))
        history = history.clone()
        rmse = ((net1d.forward(w, b, v, c, mask, x, act) - y) ** 2).mean(-1).sqrt()
        history[:, -1] = torch.minimum(history[:, -1], rmse)
        return (w, b, v, c, mask), history

    if method == "pieces":
        snap_step = None
        if on_step is not None:
            def snap_step(t: int, res: varpro.Result) -> None:
                on_step(_assemble(key, x, y, widths, act, method, seed, steps, t,
                                  output(res.w, res.b, res.mask), res.history))
        res = varpro.fit(x, y, widths, act, seed, steps, rows, LR, snap_step, every)
        final, history = finish(res.w, res.b, res.mask, res.history)
        return _assemble(key, x, y, widths, act, method, seed, steps, steps, final, history)
    snap_naive = None
    if on_step is not None:
        def snap_naive(t: int, params: tuple[torch.Tensor, ...], history: torch.Tensor) -> None:
            on_step(_assemble(key, x, y, widths, act, method, seed, steps, t, params, history))
    params, history = naive.fit(x, y, widths, act, seed, steps, snap_naive, every)
    return _assemble(key, x, y, widths, act, method, seed, steps, steps, params, history)
