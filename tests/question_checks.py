"""Checks every page's questions must pass, in both languages (used by the questions' property tests)."""
from __future__ import annotations

import math
import re
from collections.abc import Iterable

from tests.lesson_checks import assert_readable
from ui.base import i18n
from ui.questions import Asked
from ui.verdicts import Claim, Verdict

_SUPER = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def shown_number(text: str) -> float:
    """A number as a metric or a sentence shows it: "66.67%", "1,048,576", "0.505", "1.8 × 10⁻¹⁵", "0"."""
    text = text.strip().rstrip("%").replace(",", "")
    mantissa, _, exponent = text.partition(" × 10")
    return float(mantissa) * 10 ** int(exponent.translate(_SUPER) or 0)


def assert_sound(asked: Iterable[Asked], section: str) -> dict[str, Asked]:
    """Each question: its answer is one it takes, its texts and its why render in both languages; ids unique.

    Returns the questions by their key, for the caller to compare each answer with what the page shows.
    """
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
            assert q.lo < q.hi and q.tolerance >= 0
            assert not q.options
            # a guess just outside the tolerance is wrong, and one outside the range refused
            assert not q.is_right(a.answer + q.tolerance + 1e-6 * max(1.0, abs(a.answer)), a.answer)
            assert q.parse(q.hi + 1) is None and q.parse(q.lo - 1) is None
        else:
            assert 2 <= len(q.options) <= 4 and a.answer in q.options
        for lang in i18n.LANGS:
            t = i18n.Translator(lang)
            assert t.has(q.key), (lang, q.key)
            text = t(q.key, **a.values)
            assert "{" not in text and "}" not in text, (lang, text)
            for option in q.options:
                assert t.has(f"{q.key}_opt_{option}"), (lang, q.key, option)
            if q.unit:
                assert t.has(q.unit), (lang, q.unit)
        assert_readable(Verdict((Claim(a.why, a.why_values, None),), ""))
    return by_key


def korean_is_korean(asked: Iterable[Asked]) -> None:
    """The Korean question texts are written in Korean (no English sentence left untranslated)."""
    t = i18n.Translator("ko")
    for a in asked:
        assert re.search("[가-힣]", t(a.question.key, **a.values)), a.question.key
