"""Checks every verdict's rendered sentences must pass, in both languages (used by the verdicts' property tests)."""
from __future__ import annotations

import re

from ui import i18n, lessons

# "1.1e+02", "3e-16": a sentence never carries an exponent; "inf" and "nan" never reach it either.
_EXPONENT = re.compile(r"\d[eE][+-]?\d")
_NONFINITE = re.compile(r"\b(inf|nan|NaN)\b")


def sentences(v: lessons.Verdict) -> dict[str, list[str]]:
    """The verdict's claims and takeaway as each language shows them."""
    shown = {}
    for lang in i18n.LANGS:
        t = i18n.Translator(lang)
        texts = [t(c.key, **c.values) for c in v.claims]
        texts += [t(key, **v.takeaway_values) for key in v.takeaway.split()]
        shown[lang] = texts
    return shown


def assert_readable(v: lessons.Verdict) -> dict[str, list[str]]:
    """Every key exists in both languages, every placeholder is filled, no exponent or inf; returns the texts."""
    en = i18n.strings("en")
    for key in [c.key for c in v.claims] + v.takeaway.split():
        assert key in en, key
    shown = sentences(v)
    for lang, texts in shown.items():
        for text in texts:
            assert "{" not in text and "}" not in text.replace("\\}", ""), (lang, text)
            assert not _EXPONENT.search(text), (lang, text)
            assert not _NONFINITE.search(text), (lang, text)
    return shown
