"""The 1-D functions the width sweep fits: five built-ins by id, or a safe custom expression in x."""
from __future__ import annotations

from collections.abc import Callable

import torch

from ffn_core.sweep import expr

MAX_POINTS = 1024
MIN_POINTS = 8
MAX_ABS_X = 100.0
# A custom target whose values vary by less than this is flat: the output bias alone fits it,
# every width's error is rounding noise (or exactly 0, which no log axis can place).
MIN_SPAN = 1e-6


def _sawtooth(x: torch.Tensor) -> torch.Tensor:
    # Period 2, rising from -1 to 1, jumping at the odd integers (two jumps inside [-2, 2]).
    return x - 2.0 * torch.floor((x + 1.0) / 2.0)


BUILTIN: dict[str, tuple[str, Callable[[torch.Tensor], torch.Tensor]]] = {
    "sin3x": ("sin(3x)", lambda x: torch.sin(3.0 * x)),
    "abs": ("|x|", torch.abs),
    "step": ("step(x)", lambda x: (x >= 0).to(x.dtype)),
    "square": ("x²", lambda x: x * x),
    "sawtooth": ("sawtooth(x)", _sawtooth),
}
DEFAULT = "sin3x"
# Where each built-in target bends or jumps inside any range: a ReLU kink placed exactly there is the
# only way to fit a corner exactly (sweep.fit_widths snaps trained kinks onto them, ffn_core/sweep/snap.py).
KINKS: dict[str, tuple[float, ...]] = {"abs": (0.0,)}
# Where a built-in target jumps (the new value from the jump on). On a grid of points a jump is fitted
# exactly by a steep ramp between the two points around it: two kinks, one on each of those points.
JUMPS: dict[str, tuple[float, ...]] = {
    "step": (0.0,),
    "sawtooth": tuple(float(k) for k in range(-101, 102, 2)),  # the odd integers, past MAX_ABS_X
}


def kinks(target: str, x: torch.Tensor) -> tuple[float, ...]:
    """The places a ReLU fit of the target on the sorted points x must bend: its corners inside the range,
    and for each jump the last point before it and the first point from it (none for smooth targets and
    custom expressions)."""
    lo, hi = float(x[0]), float(x[-1])
    out = [k for k in KINKS.get(target, ()) if lo < k < hi]
    for j in JUMPS.get(target, ()):
        if lo < j <= hi:
            after = int(torch.searchsorted(x, torch.tensor(j, dtype=x.dtype)))
            out += [float(x[after - 1]), float(x[after])]
    return tuple(sorted(out))


def label(target: str) -> str:
    """A short display name: 'sin(3x)' for a built-in id, the canonical text for an expression."""
    if target in BUILTIN:
        return BUILTIN[target][0]
    return expr.canonical(target)


def key(target: str) -> str:
    """A built-in id as is, an expression in canonical spelling (raises ExprError when refused)."""
    return target if target in BUILTIN else expr.canonical(target)


def grid(x_range: tuple[float, float], points: int) -> torch.Tensor:
    """`points` evenly spaced x in float64 over the closed range, after checking the bounds."""
    lo, hi = float(x_range[0]), float(x_range[1])
    if not (-MAX_ABS_X <= lo < hi <= MAX_ABS_X):
        raise ValueError(f"x_range must satisfy -{MAX_ABS_X:g} <= lo < hi <= {MAX_ABS_X:g}")
    if not (MIN_POINTS <= int(points) <= MAX_POINTS):
        raise ValueError(f"points must be in [{MIN_POINTS}, {MAX_POINTS}]")
    return torch.linspace(lo, hi, int(points), dtype=torch.float64)


def values(target: str, x: torch.Tensor) -> torch.Tensor:
    """The target's values at x in float64: a built-in id, or a whitelisted expression (ExprError if refused,
    code "flat" when it varies by less than MIN_SPAN over x: 0, x - x, sin(0), 1e-300 * x)."""
    if target in BUILTIN:
        return BUILTIN[target][1](x.to(torch.float64))
    y = expr.evaluate(target, x)
    if y.numel() > 1 and float(y.max() - y.min()) < MIN_SPAN:
        raise expr.ExprError("flat")
    return y
