"""Sparsity from training: each block's active fraction on the corpus tokens, at every shipped checkpoint.

Recomputed here from the checkpoint files (evaluate.active_fraction), and set beside the curve the
training script logged, so the two can be checked against each other.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ffn_core.gpt import evaluate, weights


@dataclass(frozen=True)
class Curve:
    """Per-layer active fraction by training step: measured now on the checkpoints, and as logged."""

    steps: tuple[int, ...]
    measured: tuple[tuple[float, ...], ...]  # [checkpoint][layer]
    logged_steps: tuple[int, ...]
    logged: tuple[tuple[float, ...], ...]  # [logged step][layer]

    @property
    def first(self) -> tuple[float, ...]:
        return self.measured[0]

    @property
    def last(self) -> tuple[float, ...]:
        return self.measured[-1]

    def max_log_gap(self) -> float | None:
        """Largest |measured − logged| over checkpoints the log also has; None if they share no step."""
        logged = dict(zip(self.logged_steps, self.logged))
        gaps = [abs(a - b) for s, row in zip(self.steps, self.measured) if s in logged for a, b in zip(row, logged[s])]
        return max(gaps) if gaps else None

    def to_frame(self) -> pd.DataFrame:
        """Long rows: source ("measured", "logged"), step, layer (1-based), active fraction."""
        rows = [{"source": "measured", "step": s, "layer": i, "active": a}
                for s, row in zip(self.steps, self.measured) for i, a in enumerate(row, start=1)]
        rows += [{"source": "logged", "step": s, "layer": i, "active": a}
                 for s, row in zip(self.logged_steps, self.logged) for i, a in enumerate(row, start=1)]
        return pd.DataFrame(rows)


def logged_curve() -> tuple[tuple[int, ...], tuple[tuple[float, ...], ...]]:
    """(steps, per-layer active fraction) from the training log; empty when the log has none."""
    entries = [e for e in weights.log().get("steps", []) if isinstance(e, dict) and "active_fraction" in e]
    return (tuple(int(e["step"]) for e in entries),
            tuple(tuple(float(a) for a in e["active_fraction"]) for e in entries))


def curve() -> Curve:
    """Load each shipped checkpoint in turn (one resident at a time) and measure its active fraction."""
    steps = weights.steps()
    measured = []
    for step in steps:
        measured.append(tuple(evaluate.active_fraction(weights.load(step))))
    logged_steps, logged = logged_curve()
    return Curve(steps, tuple(measured), logged_steps, logged)
