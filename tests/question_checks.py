"""Checks every page's questions must pass, in both languages (used by the questions' property tests)."""
from __future__ import annotations

import math
import re
from collections.abc import Iterable

from tests.lesson_checks import EXPONENT, NONFINITE
from ui.base import i18n
from ui.questions import Asked, Why, explain, why_key, written
from ui.verdicts import Verdict

_SUPER = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def shown_number(text: str) -> float:
    """A number as a metric or a sentence shows it: "66.67%", "1,048,576", "0.505", "1.8 × 10⁻¹⁵", "0"."""
    text = text.strip().rstrip("%").replace(",", "")
    mantissa, _, exponent = text.partition(" × 10")
    return float(mantissa) * 10 ** int(exponent.translate(_SUPER) or 0)


def assert_sound(asked: Iterable[Asked], section: str, verdicts: Iterable[Verdict] = ()) -> dict[str, Asked]:
    """Each question: its answer is one it takes, its texts and its why render in both languages; ids unique;
    its why was written for the answer measured and repeats no claim the page's `verdicts` refute.

    Returns the questions by their key, for the caller to compare each answer with what the page shows.
    """
    asked = tuple(asked)
    refuted = [c for v in verdicts for c in v.claims if c.ok is False]
    by_key: dict[str, Asked] = {}
    for a in asked:
        q = a.question
        assert a.section == section
        assert q.key not in by_key, q.key
        by_key[q.key] = a
        # The answer parses under its own question: in range, or one of the options.
        parsed = q.parse(a.answer)
        assert parsed is not None, (q.key, a.answer)
        assert q.is_right(parsed, a.answer)
        if q.kind == "number":
            assert isinstance(a.answer, int | float) and math.isfinite(a.answer)
            assert q.lo < q.hi and q.tolerance >= 0 and q.relative >= 0 and (q.factor == 0 or q.factor > 1)
            assert not q.options
            # a guess just outside every tolerance is wrong, and one outside the range refused
            above = max(q.tolerance, q.relative * abs(a.answer), (q.factor - 1) * abs(a.answer) if q.factor else 0)
            assert not q.is_right(a.answer + above + 1e-6 * max(1.0, abs(a.answer)), a.answer)
            assert q.parse(q.hi + 1) is None and q.parse(q.lo - 1) is None
        else:
            assert 2 <= len(q.options) <= 4 and a.answer in q.options
        assert_explained(a, refuted)
        for lang in i18n.LANGS:
            t = i18n.Translator(lang)
            assert t.has(q.key), (lang, q.key)
            text = t(q.key, **a.values)
            assert "{" not in text and "}" not in text, (lang, text)
            for option in q.options:
                assert t.has(f"{q.key}_opt_{option}"), (lang, q.key, option)
            if q.unit:
                assert t.has(q.unit), (lang, q.unit)
    return by_key


def assert_explained(a: Asked, refuted=()) -> None:
    """The sentence under the answer is the one written for the measured outcome, in both languages.

    Structural: the why carries the outcome it was chosen for, which must be the answer; its key is the
    question's own sentence for that outcome (`why_key`), so it can be no verdict's claim; a number's
    sentence restates the number shown above it. And no refuted claim's text appears in it.
    """
    q, why = a.question, a.why
    assert isinstance(why, Why), (q.key, why)
    assert why.outcome == a.answer and type(why.outcome) is type(a.answer), (q.key, why.outcome, a.answer)
    assert why.key in {why_key(q, a.answer, case) for case in ("", *q.cases)}, (q.key, why.key, a.answer)
    assert not any(why.key == c.key for c in refuted), why.key
    for lang in i18n.LANGS:
        t = i18n.Translator(lang)
        assert t.has(why.key), (lang, why.key)
        said = explain(t, a)
        assert "{" not in said and "}" not in said, (lang, said)
        assert not EXPONENT.search(said) and not NONFINITE.search(said), (lang, said)
        if q.kind == "number":
            assert "{measured" in i18n.strings(lang)[why.key], (lang, why.key)
            assert written(t, q, a.answer) in said, (lang, said, a.answer)
        for claim in refuted:
            claimed = t(claim.key, **claim.values)
            assert claimed[:1].lower() + claimed[1:] not in said, (lang, said, claimed)
            assert claimed not in said, (lang, said, claimed)


def korean_is_korean(asked: Iterable[Asked]) -> None:
    """The Korean question texts are written in Korean (no English sentence left untranslated)."""
    t = i18n.Translator("ko")
    for a in asked:
        assert re.search("[가-힣]", t(a.question.key, **a.values)), a.question.key
