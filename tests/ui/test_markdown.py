"""Every locale string renders as Markdown without stray emphasis marks, in both languages.

Streamlit renders Markdown by CommonMark's rules, under which `**` closes only when it is right-flanking:
"**6.3%**뿐" shows its asterisks, because the closing run follows punctuation and precedes a letter.
Each string is rendered with its placeholders filled by a plain number and by a number ending in
punctuation (a percentage), since a page fills them with either.
"""
from __future__ import annotations

import re
import string

import pytest
from markdown_it import MarkdownIt

from ui.base import i18n

MD = MarkdownIt("commonmark")
CODE = re.compile(r"<code>.*?</code>", re.S)
TAG = re.compile(r"<[^>]+>")
FILLS = ("12", "6.3%", "(a)")


def _fill(text: str, value: str) -> str:
    parts = []
    for literal, field, _spec, _conv in string.Formatter().parse(text):
        parts.append(literal)
        if field is not None:
            parts.append(value)
    return "".join(parts)


def _shown(markdown: str) -> str:
    return TAG.sub("", CODE.sub("", MD.render(markdown)))


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_no_literal_emphasis_marks(lang):
    broken = []
    for key, text in i18n.strings(lang).items():
        if "**" not in text and "__" not in text:
            continue
        for value in FILLS:
            try:
                filled = _fill(text, value)
            except ValueError:  # not a format string: shown as written
                filled = text
            if "**" in _shown(filled):
                broken.append((key, value))
                break
    assert not broken, broken


def test_the_check_catches_the_flanking_rule():
    assert "**" in _shown("ViT-B/16에서 **6.3%**뿐입니다")
    assert "**" not in _shown("ViT-B/16에서 **6.3%** 뿐입니다")
