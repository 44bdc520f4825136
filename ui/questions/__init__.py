"""Questions a page asks before it shows: what a question is, and what one asked at the settings on screen holds.

A page's questions are pure functions of its core result, like its verdicts: the right answer is read
from the measurement, never written into the question. Nothing here imports streamlit, so property
tests can run them over a page's whole control space, and the class room can check a guess by the
page's own rules.

The sentence under an answer (`Why`) is chosen by the measured outcome, never by a verdict (see
`why_key`), so a claim the page refutes can never be shown as the reason for an answer.

One module per page (split.py, position.py, collapse.py, gated.py, sweep.py, keyvalue.py, sparsity.py,
gpt.py, gptsurgery.py, moe.py); teacher.py makes a teacher's own questions (a lesson's `[[steps.ask]]`)
from the page's measures; quiz.py draws them, chart.py the class's guesses.
"""
from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ui.base import text
from ui.base.page import Page

Kind = Literal["number", "choice"]
# The session's guesses (quiz.Answer by Asked.id, newest last), read by the class room too. A page switch
# clears only the pages' declared controls, so they outlive it.
GUESSES = "_ask"
PCT = "questions.unit_pct"


@dataclass(frozen=True)
class Question:
    """What a page asks: a number in a range (with its unit and tolerance) or one of 2-4 options.

    A number's tolerance follows the question's logic: `tolerance` in its unit; `relative`, a share of
    the measured value (a count that grows with the layer); `factor`, a ratio either way (an answer
    that spans orders of magnitude, where 1 against 23 is a different idea, not a near miss). A guess
    within any of those that are set is right.
    """

    key: str  # locale key of the question's text; unique on its page ("collapse.q_rank")
    kind: Kind
    options: tuple[str, ...] = ()  # choice: option ids; each label is the locale key f"{key}_opt_{id}"
    lo: float = 0.0  # number: the smallest guess taken
    hi: float = 0.0  # number: the largest
    tolerance: float = 0.0
    unit: str = ""  # number: locale key of the unit ("" for none)
    relative: float = 0.0  # 0.15: ±15%
    factor: float = 0.0  # > 1; 0: unused
    cases: tuple[str, ...] = ()  # outcomes that read differently and have a sentence of their own (see `why_key`)
    measure: str = ""  # the page's measure the answer is (ui/registry/measures.py)
    # A teacher's question (teacher.py): its text per language as written, (lang, text) pairs; a choice's
    # options are then words the measure can take, shown as written. Empty for a built-in one.
    text: tuple[tuple[str, str], ...] = ()
    why_right: tuple[tuple[str, str], ...] = ()  # a teacher's sentence for a right guess, per language
    why_wrong: tuple[tuple[str, str], ...] = ()  # and for a wrong one
    where: Any = None  # a teacher's question on an indexed measure: the index it asks at (the width m, the block)

    def parse(self, raw: object) -> float | str | None:
        """The guess as this question takes it, or None: not finite, out of range, not an option, or not a guess at all."""
        if self.kind == "choice":
            return raw if isinstance(raw, str) and raw in self.options else None
        if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
            return None
        for reading in _readings(raw) if isinstance(raw, str) else (raw,):
            try:
                value = float(reading)
            except (ValueError, OverflowError):
                continue
            if math.isfinite(value) and self.lo <= value <= self.hi:
                return value
        return None

    def is_right(self, guess: float | str, answer: float | str) -> bool:
        """A choice is right when it is the answer; a number when it lies within the tolerance."""
        if self.kind == "choice":
            return guess == answer
        g, a = float(guess), float(answer)
        if abs(g - a) <= max(self.tolerance, self.relative * abs(a)):
            return True
        return self.factor > 1 and g > 0 and a > 0 and max(g / a, a / g) <= self.factor


def percent(key: str, tolerance: float, measure: str, cases: tuple[str, ...] = ()) -> Question:
    """A number question on a share from 0 to 100%."""
    return Question(key, "number", lo=0, hi=100, tolerance=tolerance, unit=PCT, cases=cases, measure=measure)


MAX_TYPED = 32  # a typed guess longer than this is none (the number box takes 24 characters; a script may send more)
_GROUPED = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?")


def _readings(typed: str) -> tuple[str, ...]:
    """What a typed number may mean, in order: "1,234" is 1234 (or 1.234 if only that is in range), "1,5" is 1.5."""
    typed = typed.strip()
    if len(typed) > MAX_TYPED or typed.count(",") == 0:
        return (typed,) if len(typed) <= MAX_TYPED else ()
    grouped = (typed.replace(",", ""),) if _GROUPED.fullmatch(typed) else ()
    decimal = (typed.replace(",", "."),) if typed.count(",") == 1 and "." not in typed else ()
    return grouped + decimal  # "1,2,3" or "1,5.2": neither


@dataclass(frozen=True)
class Why:
    """The sentence under an answer: a locale key written for one measured outcome, and what it cites."""

    key: str
    outcome: float | str  # the answer this sentence was chosen for (the test holds it equal to the answer)
    values: Mapping[str, Any] = field(default_factory=dict)


def why_key(question: Question, outcome: float | str, case: str = "") -> str:
    """The only sentence a question may explain `outcome` with: `<question>_why`, then the option for a choice,
    then the case when the outcome has several that read differently (declared on the question).

    A teacher's question has one: the measured value (teacher.py adds theirs). No caller can hand a claim's
    key to a question.
    """
    if question.text:
        return "questions.teacher_why"
    key = f"{question.key}_why"
    if question.kind == "choice":
        if outcome not in question.options:
            raise ValueError(f"{outcome!r} is not an option of {question.key}")
        key += f"_{outcome}"
    if case:
        if case not in question.cases:
            raise ValueError(f"{case!r} is not a case of {question.key}")
        key += f"_{case}"
    return key


@dataclass(frozen=True)
class Asked:
    """A question asked at the settings on screen, with the answer the live experiment measured there."""

    section: str  # the page ("collapse")
    question: Question
    answer: float | str  # number or option id, read from the core's result
    settings: str  # fingerprint of the page's settings (see `fingerprint`): other settings, another question
    why: Why  # the sentence of why, chosen for `answer`
    values: Mapping[str, Any] = field(default_factory=dict)  # what the question's own text cites (the settings)

    @property
    def id(self) -> str:
        """Stable across sessions and replicas: what the class room stores a guess under."""
        return f"{self.section}:{self.question.key}:{self.settings}"


def fingerprint(settings: Mapping[str, object]) -> str:
    """A short digest of a page's control values: equal settings, equal fingerprint, in any process."""
    text = "&".join(f"{key}={settings[key]!r}" for key in sorted(settings))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def at(section: str, settings: Mapping[str, object], question: Question, answer: float | str,
       because: Mapping[str, Any] | None = None, values: Mapping[str, Any] | None = None, case: str = "") -> Asked:
    """`question` asked at these settings, with the answer measured there.

    because: what the sentence of why cites beside the measured answer; case: which of a number
    question's declared cases was measured ("" for none).
    """
    why = Why(why_key(question, answer, case), answer, dict(because or {}))
    return Asked(section, question, answer, fingerprint(settings), why, dict(values or {}))


# --- what a student reads (pure: the page and the tests render the same text) ----------------------

Translate = Callable[..., str]


def whole(x: float) -> float | int:
    """A bound or a tolerance as a sentence writes it: 100, not 100.0."""
    return int(x) if float(x).is_integer() else x


def title(t: Translate, question: Question, values: Mapping[str, Any]) -> str:
    """The question as a student reads it, as plain text: a built-in one in the reader's language; a
    teacher's as written, in the reader's language when the teacher wrote one, else in the other."""
    if not question.text:
        return t(question.key, **values)
    texts = dict(question.text)
    lang = getattr(t, "lang", "")
    return texts.get(lang) or next(iter(texts.values()))


TEACHER = "teacher."  # the key prefix of a teacher's question (ui/questions/teacher.py): no locale key behind it


def option_text(t: Translate, key: str, option: str) -> str:
    """The option `option` of the question keyed `key`: its label, or, for a teacher's, the word as written."""
    return option if key.startswith(TEACHER) else t(f"{key}_opt_{option}")


def written(t: Translate, question: Question, value: float | str) -> str:
    """A guess or an answer as the page writes it: an option's label, or a number with its unit."""
    if question.kind == "choice":
        return option_text(t, question.key, str(value))
    number = float(value)
    shown = text.number(int(number)) if number.is_integer() and abs(number) < 1e15 else text.sig(number)
    unit = unit_text(t, question)
    return f"{shown}{unit}" if unit in ("%", "") else f"{shown} {unit}"


def shown_value(page: Page, asked: Asked, value: float | str) -> str:
    return written(page.t, asked.question, value)


def unit_text(t: Translate, question: Question) -> str:
    return t(question.unit) if question.unit else ""


def tolerance_text(t: Translate, question: Question) -> str:
    """What counts as right, said where the question is asked ("" for a choice)."""
    if question.kind == "choice":
        return ""
    unit = unit_text(t, question)
    if question.factor > 1:
        return t("questions.tolerance_factor", factor=whole(question.factor))
    if question.relative > 0:
        return t("questions.tolerance_relative", share=whole(round(100 * question.relative, 6)),
                 tolerance=whole(question.tolerance), unit=unit)
    return t("questions.tolerance", tolerance=whole(question.tolerance), unit=unit)


def explain(t: Translate, asked: Asked) -> str:
    """The sentence under an answer, in the translator's language: `{measured}` is the answer as written above it."""
    why = asked.why
    return t(why.key, measured=written(t, asked.question, why.outcome), **why.values)
