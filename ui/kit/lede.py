"""A page's opening: its first sentence in view, the rest of its lesson (formulas too) one click away.

On a projector the first screen must hold the title, one sentence of lesson and the headline (the
question box or the first result); a lesson of five sentences and two displayed formulas would push
the headline two screens down. The lesson's locale string stays whole, so its wording is edited in
one place; `split_first` cuts it after its first sentence.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import streamlit as st

from ui import widgets
from ui.base.page import Page
from ui.questions import Asked, quiz

_ENDS = ".!?。"
_ABBREVIATIONS = ("e.g", "i.e", "et al", "vs", "cf", "approx", "Fig", "No")


def _abbreviation(text: str, i: int) -> bool:
    before = text[:i]
    return any(before.endswith(a) and (len(before) == len(a) or not before[-len(a) - 1].isalnum())
               for a in _ABBREVIATIONS) or (i > 0 and text[i - 1].isdigit() and i + 1 < len(text)
                                            and text[i + 1].isdigit())


def split_first(text: str) -> tuple[str, str]:
    """The text's first sentence and the rest, both stripped; ("text", "") when it is one sentence.

    A sentence ends at ".", "!", "?" (or a paragraph break) followed by white space, never inside
    inline code, a `$…$` formula, bold or parentheses, so neither half is left with an unclosed mark.
    """
    code = formula = False
    bold = depth = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "`":
            code = not code
        elif code:
            pass
        elif c == "$":
            formula = not formula
        elif formula:
            pass
        elif text.startswith("**", i):
            bold ^= 1
            i += 2
            # A bold sentence ("**… 옮깁니다.** 각 토큰이") ends where its bold closes.
            if not bold and not depth and i >= 3 and text[i - 3] in _ENDS and i < n and text[i] in " \n" and text[i:].strip():
                return text[:i].strip(), text[i:].strip()
            continue
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth = max(0, depth - 1)
        elif c == "\n" and text.startswith("\n\n", i) and not bold and not depth:
            return text[:i].strip(), text[i:].strip()
        elif c in _ENDS and not bold and not depth and not _abbreviation(text, i):
            end = i + 1
            while end < n and text[end] in "\"'”’)":
                end += 1
            if end < n and text[end] in " \n" and text[end:].strip():
                return text[:end].strip(), text[end:].strip()
        i += 1
    return text.strip(), ""


def lesson(page: Page, body: str, formulas: Iterable[str] = (), more: Iterable[str] = ()) -> None:
    """The lesson's first sentence, then a "read more" expander with the rest, the formulas (LaTeX)
    and any further paragraphs (`more`, Markdown)."""
    first, rest = split_first(body)
    formulas, more = tuple(formulas), tuple(more)
    st.markdown(first)
    if rest or formulas or more:
        # Folded: drawn only once opened, as the class reads it once and the page reruns often.
        box = widgets.folded(page.t("screen.read_more"), f"read_more:{page.section}", icon=":material/menu_book:")
        if box.open:
            with box:
                if rest:
                    st.markdown(rest)
                for formula in formulas:
                    st.latex(formula)
                for paragraph in more:
                    st.markdown(paragraph)


def headline_slot() -> Any:
    """Where the page's headline goes, made under the lesson before the questions and controls that decide it:
    the row of metrics itself, empty until `headline` fills it (a container holding the row is one block more
    on every run)."""
    return st.container(horizontal=True, gap="small")


def headline(page: Page, slot, asked: Iterable[Asked], *metrics: tuple[str, ...]) -> None:
    """The page's first row of measured numbers, in `slot` (`headline_slot()`), so a projected page shows a
    measurement before any scrolling: each metric is (label, value) or (label, value, help). Folded, like
    everything that answers the questions, while the class is asked first."""
    if not quiz.shown(page, tuple(asked), note=False):
        return
    widgets.fill_row(slot, *metrics, border=True)


def less_used(page: Page, spec: int | list[float]) -> list:
    """Where a row of less-used controls goes. On a wide screen: one slot is a plain container; equal slots (`spec`
    a count), one control to a slot, are one flex row; `spec` a list of widths gives columns. On a phone, where the
    row would stack into a screen of controls before any result, one folded "more settings" box (the same box
    for every slot of the row)."""
    if page.phone:
        box = st.expander(page.t("screen.more_settings"), icon=":material/tune:")
        return [box] * (spec if isinstance(spec, int) else len(spec))
    if spec == 1:  # one slot, which may hold several controls: they stack, as in a column
        return [st.container()]
    if isinstance(spec, int):  # equal slots: one flex row is one block, a row of columns one block a column and one more
        return [st.container(horizontal=True, gap="small")] * spec
    return list(st.columns(spec))
