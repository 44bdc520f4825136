"""The best-possible reference: the lowest RMSE found for a width-m network (one hidden layer, output bias).

For the built-in targets on [-2, 2] with 256 points the networks found by a long search
(bench/precompute_best.py: many restarts, long runs) are stored in data/best_rmse.json, weights and all,
so anyone can re-evaluate them. Anything else gets a shorter search on the spot. Either way the reference
is "the best found", so a live fit that does better replaces it (combine).
"""
from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ffn_core.sweep import sweep, targets

DATA = Path(__file__).resolve().parent / "data" / "best_rmse.json"


@dataclass(frozen=True)
class Reference:
    """Best RMSE found per width, and where it came from ("stored" search or a quick "search" now)."""

    widths: tuple[int, ...]
    rmse: tuple[float, ...]
    source: tuple[str, ...]

    def to_frame(self) -> pd.DataFrame:
        """One row per width: width, best_rmse, source."""
        return pd.DataFrame({"width": self.widths, "best_rmse": self.rmse, "source": self.source})


def entry_key(act: str, target: str, width: int) -> str:
    """The data file's key for one network."""
    return f"{act}/{target}/{width}"


@functools.lru_cache(maxsize=1)
def table() -> dict:
    """The stored search results (read once, on first use)."""
    if not DATA.exists():
        return {"x_range": [], "points": 0, "entries": {}}
    return json.loads(DATA.read_text(encoding="utf-8"))


def stored(target: str, width: int, x_range: tuple[float, float], points: int, act: str) -> dict | None:
    """The stored best network for exactly this setting, or None."""
    data = table()
    if [float(v) for v in x_range] != [float(v) for v in data["x_range"]] or int(points) != data["points"]:
        return None
    return data["entries"].get(entry_key(act, target, int(width)))


def search(target: str, widths: tuple[int, ...], x_range: tuple[float, float], points: int, act: str,
           seeds: tuple[int, ...], steps: int, rows: int) -> tuple[sweep.WidthFit, ...]:
    """The best network per width over several seeds of the pieces method (each seed: rows of restarts)."""
    found: dict[int, sweep.WidthFit] = {}
    for seed in seeds:
        res = sweep.fit_widths(target, widths, x_range, points, act, "pieces", seed, steps, rows)
        for f in res.fits:
            if f.width not in found or f.rmse < found[f.width].rmse:
                found[f.width] = f
    return tuple(found[m] for m in sorted(found))


def reference(target: str, widths: tuple[int, ...], x_range: tuple[float, float] = sweep.X_RANGE,
              points: int = sweep.POINTS, act: str = "relu") -> Reference:
    """Best RMSE found: the stored network re-evaluated now where the long search covered this setting,
    else a quick search (twice the restarts)."""
    widths = sweep.check(widths, act, "pieces", None)
    key = targets.key(target)
    rmse: dict[int, float] = {}
    source: dict[int, str] = {}
    for m in widths:
        hit = stored(key, m, x_range, points, act)
        if hit is not None:
            # The stored network is re-evaluated here, so the figure shown is measured, not copied.
            found = sweep.evaluate(key, hit["w"], hit["b"], hit["v"], hit["c"], x_range, points, act)
            rmse[m], source[m] = found.rmse, "stored"
    missing = tuple(m for m in widths if m not in rmse)
    if missing:
        rows = 2 * sweep.ROWS
        steps = sweep.auto_steps(missing, points, act, rows)
        for f in search(key, missing, x_range, points, act, (1000,), steps, rows):
            rmse[f.width], source[f.width] = f.rmse, "search"
    return Reference(widths=widths, rmse=tuple(rmse[m] for m in widths), source=tuple(source[m] for m in widths))


def combine(reference_rmse: float, *live: float) -> float:
    """The best found so far: a live fit that beats the reference becomes the reference."""
    return min([reference_rmse, *[r for r in live if math.isfinite(r)]])
