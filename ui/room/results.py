"""A room's results: per question and vote, how many voted and the share within tolerance; the shift from
the first vote to the second; the questions the class got most wrong; a CSV without identities.

Pure functions of the store's tallies (`Store.results`) and of what the instructor's view registered for
each question (`about`: the question as `ui.questions.Question` holds it, its measured answer, the values
its text cites). Nothing here imports streamlit.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ui.questions import Asked, Question
from ui.room.store import Tally

COLUMNS = ("page", "question", "measure", "question_id", "vote", "votes", "right", "share_right", "measured", "tolerance",
           "revealed")


def about(asked: Asked) -> dict[str, Any]:
    """What the store keeps of an asked question to score it later: the question, the measured answer, its text's values."""
    q = asked.question
    plain = {k: v if isinstance(v, (int, str)) or (isinstance(v, float) and math.isfinite(v)) else str(v)
             for k, v in asked.values.items()}
    about = {"section": asked.section, "key": q.key, "kind": q.kind, "options": list(q.options), "lo": q.lo,
             "hi": q.hi, "tolerance": q.tolerance, "unit": q.unit, "answer": asked.answer, "values": plain}
    # Kept only where set, so a built-in question's record stays as it was; a teacher's text is kept as written.
    about.update({k: v for k, v in (("relative", q.relative), ("factor", q.factor), ("measure", q.measure)) if v})
    if q.text:
        about["text"] = dict(q.text)
        about.update({k: dict(v) for k, v in (("why_right", q.why_right), ("why_wrong", q.why_wrong)) if v})
        if q.where is not None:
            about["where"] = q.where
    return about


def question_of(about: Mapping[str, Any]) -> Question | None:
    """The Question an `about` describes, or None (never registered, or not one)."""
    try:
        return Question(key=str(about["key"]), kind=about["kind"], options=tuple(about.get("options", ())),
                        lo=float(about.get("lo", 0.0)), hi=float(about.get("hi", 0.0)),
                        tolerance=float(about.get("tolerance", 0.0)), unit=str(about.get("unit", "")),
                        relative=float(about.get("relative", 0.0)), factor=float(about.get("factor", 0.0)),
                        measure=str(about.get("measure", "")),
                        text=_pairs(about.get("text")), why_right=_pairs(about.get("why_right")),
                        why_wrong=_pairs(about.get("why_wrong")), where=about.get("where"))
    except (KeyError, TypeError, ValueError):
        return None


def _pairs(value: object) -> tuple[tuple[str, str], ...]:
    return tuple((str(k), str(v)) for k, v in value.items()) if isinstance(value, Mapping) else ()


def share_right(question: Question | None, answer: object, guesses: Sequence[float | str]) -> float | None:
    """The share of guesses within the question's tolerance of the answer; None with no guess or no answer known."""
    if question is None or answer is None or not guesses:
        return None
    kept = [g for g in (question.parse(g) for g in guesses) if g is not None]
    return sum(question.is_right(g, answer) for g in kept) / len(guesses)


@dataclass(frozen=True)
class Row:
    """One question and one vote of a room's results."""

    section: str
    key: str
    values: Mapping[str, Any]
    question_id: str
    vote: int  # 1, or 2 for the second vote
    votes: int
    right: int | None
    share: float | None
    answer: float | str | None
    tolerance: float | None
    revealed: bool
    measure: str = ""  # the page's measure the answer is (ui/registry/measures.py), "" where none is recorded
    text: Mapping[str, str] = field(default_factory=dict)  # a teacher's question: its text as written, by language


def rows(tallies: Sequence[Tally]) -> list[Row]:
    """One row per question and vote, in the order the instructor's view first showed the questions."""
    out = []
    for tally in tallies:
        about = tally.about or {}
        question = question_of(about) if about else None
        answer = about.get("answer")
        section = str(about.get("section") or tally.question.split(":", 1)[0])
        key = str(about.get("key") or (tally.question.split(":")[1] if tally.question.count(":") >= 2 else ""))
        rounds = [tally.last] if tally.first is None else [tally.first, tally.last]
        for vote, guesses in enumerate(rounds, start=1):
            share = share_right(question, answer, guesses)
            out.append(Row(section=section, key=key, values=dict(about.get("values") or {}),
                           question_id=tally.question, vote=vote, votes=len(guesses),
                           right=None if share is None else round(share * len(guesses)), share=share,
                           answer=answer, tolerance=question.tolerance if question and question.kind == "number" else None,
                           revealed=tally.revealed, measure=str(about.get("measure") or ""),
                           text=dict(question.text) if question else {}))
    return out


def most_wrong(table: Sequence[Row], n: int = 3) -> list[Row]:
    """The questions the class got most wrong: each question's last vote, lowest share right first (answered ones only)."""
    last: dict[str, Row] = {}
    for row in table:
        if row.share is not None and row.votes:
            last[row.question_id] = row  # a second vote's row comes after its first
    return sorted(last.values(), key=lambda r: (r.share, -r.votes))[:n]


def frame(table: Sequence[Row], text: Any) -> pd.DataFrame:
    """The results as a table (the CSV's columns): `text(row)` writes the question in the instructor's language."""
    return pd.DataFrame([{
        "page": r.section, "question": text(r), "measure": r.measure, "question_id": r.question_id, "vote": r.vote, "votes": r.votes,
        "right": r.right, "share_right": None if r.share is None else round(r.share, 4),
        "measured": _measured(r.answer), "tolerance": r.tolerance, "revealed": r.revealed,
    } for r in table], columns=list(COLUMNS)).astype({"vote": "int64", "votes": "int64", "right": "Int64"})


def _measured(answer: float | str | None) -> str | None:
    """The measured answer as text: a column of option ids and numbers together is one type (Arrow takes it)."""
    if answer is None or isinstance(answer, str):
        return answer
    return repr(float(answer)) if isinstance(answer, (int, float)) and not isinstance(answer, bool) else str(answer)
