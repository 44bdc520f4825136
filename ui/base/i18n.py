"""Locale files and the translator: code holds keys, ui/locales/<lang>.toml holds the sentences.

A language may be split over several files, `<lang>.toml` and `<lang>.<part>.toml` (the trained-GPT
pages keep theirs apart); they are merged, and a key defined twice is an error rather than a silent
override.
"""
from __future__ import annotations

import functools
import tomllib
from pathlib import Path
from typing import Any

from ui.base import text

LANGS: tuple[str, ...] = ("ko", "en")
DEFAULT_LANG = "en"
LOCALES = Path(__file__).parents[1] / "locales"


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, str]:
    flat: dict[str, str] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{name}."))
        else:
            flat[name] = str(value)
    return flat


def files(lang: str) -> list[Path]:
    """The locale files of one language: `<lang>.toml` first, then its parts in name order."""
    return [LOCALES / f"{lang}.toml", *sorted(LOCALES.glob(f"{lang}.*.toml"))]


@functools.cache
def strings(lang: str) -> dict[str, str]:
    """Every string of one language, keyed "section.key"; read once per process."""
    merged: dict[str, str] = {}
    for path in files(lang):
        table = _flatten(tomllib.loads(path.read_text(encoding="utf-8")))
        twice = merged.keys() & table.keys()
        if twice:
            raise ValueError(f"{path.name} defines keys already defined: {sorted(twice)[:5]}")
        merged.update(table)
    return merged


def resolve_lang(candidate: object) -> str | None:
    """A supported language code from a query value or a browser locale ("ko-KR" -> "ko"), else None."""
    if not isinstance(candidate, str):
        return None
    code = candidate.strip().lower().replace("_", "-").split("-")[0]
    return code if code in LANGS else None


class Translator:
    """t("section.key", **values): the string in this language, formatted; English, then the key, as fallbacks.

    Values that are `text.Term`s are translated first, so a sentence can cite another key's words.
    """

    def __init__(self, lang: str) -> None:
        self.lang = lang if lang in LANGS else DEFAULT_LANG

    def __call__(self, key: str, /, **values: Any) -> str:
        if not values:
            return _sentence(self.lang, key)
        try:
            return _rendered(self.lang, key, tuple(values.items()))
        except TypeError:  # a value that cannot be a key (a list): rendered each time
            return _render(self.lang, key, values)

    def has(self, key: str) -> bool:
        return key in strings(self.lang)


def _sentence(lang: str, key: str) -> str:
    sentence = strings(lang).get(key)
    return strings(DEFAULT_LANG).get(key, key) if sentence is None else sentence


def _render(lang: str, key: str, values: dict[str, Any]) -> str:
    values = {name: _sentence(lang, v.key) if isinstance(v, text.Term) else v for name, v in values.items()}
    # Numbers never in scientific notation, Korean particles agreeing with them (ui.base.text.render).
    return text.render(_sentence(lang, key), values)


# A page says the same few hundred sentences with the same values on every rerun of the same view:
# formatting them (numbers, particles) was a tenth of a chart-heavy page's rerun. Keyed on the exact
# values: 1, 1.0 and True apart, and 0.0 apart from -0.0, as the text they give may differ.
def _rendered(lang: str, key: str, items: tuple[tuple[str, Any], ...]) -> str:
    return _rendered_exact(lang, key, tuple((name, type(v).__name__, v.hex() if isinstance(v, float) else v, v)
                                            for name, v in items))


@functools.lru_cache(maxsize=8192)
def _rendered_exact(lang: str, key: str, items: tuple[tuple[str, str, Any, Any], ...]) -> str:
    return _render(lang, key, {name: v for name, _, _, v in items})
