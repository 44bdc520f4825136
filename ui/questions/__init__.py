"""Questions a page asks before it shows: what a question is, and what one asked at the settings on screen holds.

A page's questions are pure functions of its core result (like its verdicts in ui/verdicts): the
right answer is read from the measurement, never written into the question. Nothing here imports
streamlit, so property tests can run them over a page's whole control space, and the class room's
store can check a guess with the same rules the page uses.

One module per page (split.py, position.py, collapse.py, sweep.py, keyvalue.py, sparsity.py, gpt.py,
gptsurgery.py); quiz.py draws them (the ask form, the outcome, the class's guesses on chart.py's chart).
"""
from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ui.base import text
from ui.base.page import Page

Kind = Literal["number", "choice"]


@dataclass(frozen=True)
class Question:
    """What a page asks: a number in a range (with its unit and tolerance) or one of 2-4 options."""

    key: str  # locale key of the question's text; unique on its page ("collapse.q_rank")
    kind: Kind
    options: tuple[str, ...] = ()  # choice: option ids; each label is the locale key f"{key}_opt_{id}"
    lo: float = 0.0  # number: the smallest guess taken
    hi: float = 0.0  # number: the largest guess taken
    tolerance: float = 0.0  # number: a guess within this of the measured answer, in the question's unit, is right
    unit: str = ""  # number: locale key of the unit ("" for none)

    def parse(self, raw: object) -> float | str | None:
        """The guess as this question takes it, or None: not finite, out of range, not an option, or not a guess at all."""
        if self.kind == "choice":
            return raw if isinstance(raw, str) and raw in self.options else None
        if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
            return None
        try:
            value = float(raw)
        except (ValueError, OverflowError):
            return None
        return value if math.isfinite(value) and self.lo <= value <= self.hi else None

    def is_right(self, guess: float | str, answer: float | str) -> bool:
        """A choice is right when it is the answer; a number when it lies within the tolerance."""
        if self.kind == "choice":
            return guess == answer
        return abs(float(guess) - float(answer)) <= self.tolerance


@dataclass(frozen=True)
class Asked:
    """A question asked at the settings on screen, with the answer the live experiment measured there."""

    section: str  # the page ("collapse")
    question: Question
    answer: float | str  # number or option id, read from the core's result
    settings: str  # fingerprint of the page's settings (see `fingerprint`): other settings, another question
    why: str  # locale key of the one sentence of why, from the page's verdict
    why_values: Mapping[str, Any] = field(default_factory=dict)
    values: Mapping[str, Any] = field(default_factory=dict)  # what the question's own text cites (the settings)

    @property
    def id(self) -> str:
        """Stable across sessions and replicas: what the class room stores a guess under."""
        return f"{self.section}:{self.question.key}:{self.settings}"


def fingerprint(settings: Mapping[str, object]) -> str:
    """A short digest of a page's control values: equal settings, equal fingerprint, in any process."""
    text = "&".join(f"{key}={settings[key]!r}" for key in sorted(settings))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def at(section: str, settings: Mapping[str, object], question: Question, answer: float | str, why: str,
       why_values: Mapping[str, Any] | None = None, values: Mapping[str, Any] | None = None) -> Asked:
    """`question` asked at these settings, with the answer measured there."""
    return Asked(section, question, answer, fingerprint(settings), why, dict(why_values or {}), dict(values or {}))


def band(value: float, edges: tuple[float, ...]) -> str:
    """The option id ("0".."k") of the band a value falls in: edges split the line into len(edges) + 1 bands."""
    return str(sum(value >= edge for edge in edges))


def shown_value(page: Page, asked: Asked, value: float | str) -> str:
    """A guess or an answer as the page writes it: an option's label, or a number with its unit."""
    question = asked.question
    if question.kind == "choice":
        return page.t(f"{question.key}_opt_{value}")
    number = float(value)
    written = text.number(int(number)) if number.is_integer() and abs(number) < 1e15 else text.sig(number)
    unit = page.t(question.unit) if question.unit else ""
    return f"{written}{unit}" if unit in ("%", "") else f"{written} {unit}"
