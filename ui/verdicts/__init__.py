"""Verdicts: pure functions from a core result to the claims and takeaway a page shows.

A page's judge returns a Verdict of locale keys and the values they cite (ui.base.text.Term for a value
that is itself a key); ui.widgets.verdict renders it. Nothing here imports streamlit or altair, so
property tests can run thousands. One module per page: home.py, split.py, position.py, collapse.py,
gated.py, sweep.py, keyvalue.py, sparsity.py, gpt.py (pages 8 and 9), gpt_checkpoints.py (page 8's
training-step and word-in-context sections), moe.py.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Claim:
    """One sentence of a page's claim check and the numbers it cites."""

    key: str  # locale key of the sentence ("collapse.claim_rank")
    values: Mapping[str, Any]  # the numbers it cites, formatted by the locale string
    ok: bool | None  # True ✓ / False ✗ measured; None: a stated fact (a theorem, a fixed setting), no mark


@dataclass(frozen=True)
class Verdict:
    """What a page shows after measuring: its claims, then one takeaway (several locale keys, joined)."""

    claims: tuple[Claim, ...]
    takeaway: str  # locale key; several keys joined by spaces when the takeaway has several sentences
    takeaway_values: Mapping[str, Any] = field(default_factory=dict)


def finite(x: object) -> bool:
    """A measured number that is neither infinite nor NaN (nor a bool)."""
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)
