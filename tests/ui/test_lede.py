"""The lede's cut: every page's lesson, in both languages, opens with one whole sentence, and
neither half is left with an unclosed bold, formula or code mark."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, strategies as st

from ui.base import i18n
from ui.kit import lede

SECTIONS = ["home", "split", "position", "collapse", "sweep", "keyvalue", "sparsity", "gpt", "gptsurgery"]


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.parametrize("lang", i18n.LANGS)
@pytest.mark.parametrize("section", SECTIONS)
def test_each_lesson_opens_with_one_whole_sentence(section: str, lang: str) -> None:
    body = i18n.Translator(lang)(f"{section}.lesson", blocks=3)
    first, rest = lede.split_first(body)
    assert first and first[-1] in ".!?", first
    assert len(first) <= 200, f"the lede is more than a sentence: {first!r}"
    assert _squash(f"{first} {rest}") == _squash(body)
    for half in (first, rest):
        assert half.count("**") % 2 == 0 and half.count("$") % 2 == 0 and half.count("`") % 2 == 0, half
        assert half.count("(") == half.count(")"), half


@pytest.mark.parametrize(("text", "first"), [
    ("One. Two.", "One."),
    ("**Bold. Still bold.** Then.", "**Bold. Still bold.**"),
    ("Geva et al. 2021 read it so. Next.", "Geva et al. 2021 read it so."),
    ("A value (e.g. 3.5) stays. Next.", "A value (e.g. 3.5) stays."),
    ("A formula $a. b$ holds. Next.", "A formula $a. b$ holds."),
    ("첫 문장입니다. 둘째 문장입니다.", "첫 문장입니다."),
    ("Para one\n\nPara two.", "Para one"),
    ("Only one sentence.", "Only one sentence."),
])
def test_cuts_after_the_first_sentence(text: str, first: str) -> None:
    assert lede.split_first(text)[0] == first


@given(st.text(alphabet="ab .*$`()\n다", max_size=60))
def test_nothing_is_lost(text: str) -> None:
    first, rest = lede.split_first(text)
    assert _squash(f"{first} {rest}") == _squash(text)
