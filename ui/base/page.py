"""The page every layer is handed: its section, language and translator, and the app-wide choices.

It sits at the bottom so that every layer can name the type it is given (ui/kit/shell.setup makes it).
"""
from __future__ import annotations

from dataclasses import dataclass

from ui.base import i18n


@dataclass(frozen=True)
class Page:
    """What a page needs from the shell: the language, its translator and the app-wide choices."""

    section: str
    lang: str
    t: i18n.Translator
    presenter: bool
    show_details: bool
    phone: bool = False
    ask: bool = False  # "Ask me first": the page's question before its result
    room: str | None = None  # the class room this student is in, carried from page to page
