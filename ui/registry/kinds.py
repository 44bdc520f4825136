"""The kinds of control a page's link is made of: a number in a range with a step, a choice among
options, a toggle, a short text, several options.

A kind knows how its value reads from an address (`parse`, None for anything it does not accept),
how it is written into one (`format`) and whether a value is one of its own (`check`). Everything a
link carries goes through those three.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass
from typing import Any, Literal

from ui.base import i18n
from ui.base.i18n import Translator
from ui.registry import query

Values = Mapping[str, object]


@dataclass(frozen=True)
class Control:
    """One control of a page's link: its key in the address and session, its label and help keys."""

    key: str
    _: KW_ONLY
    label: str = ""  # locale key of the widget's label
    help: str | None = None  # locale key of its help, if any
    bound: bool = True  # False: the page writes it to the address by hand

    @property
    def follows(self) -> bool:
        """Whether its options or default are functions of the controls declared before it (`values` below)."""
        return False

    def default_for(self, values: Values) -> object:
        return self.default  # type: ignore[attr-defined]

    def parse(self, raw: str, values: Values) -> object | None:
        raise NotImplementedError

    def check(self, value: object, values: Values) -> object | None:
        """The value when it is one of this control's (in the session: typed), else None."""
        raise NotImplementedError

    def format(self, value: object) -> str:
        return str(value)


@dataclass(frozen=True)
class Number(Control):
    """A whole or decimal number from lo to hi on the steps lo, lo + step, …; a slider or a number box."""

    lo: float
    hi: float
    default: float
    step: float = 1
    _: KW_ONLY
    widget: Literal["slider", "box"] = "slider"

    @property
    def whole(self) -> bool:
        return all(isinstance(v, int) and not isinstance(v, bool) for v in (self.lo, self.hi, self.default, self.step))

    def _valid(self, x: float) -> float | None:
        if not math.isfinite(x) or not self.lo <= x <= self.hi:
            return None
        steps = (x - self.lo) / self.step
        if abs(steps - round(steps)) > 1e-9:
            return None
        if self.whole:
            return int(x) if x == int(x) else None
        return float(x)

    def parse(self, raw: str, values: Values) -> object | None:
        try:
            x = float(raw.strip())
        except ValueError:
            return None
        return self._valid(x)

    def check(self, value: object, values: Values) -> object | None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        return self._valid(value)

    def format(self, value: object) -> str:
        return str(int(value)) if self.whole else repr(float(value))  # type: ignore[arg-type]


_FIRST = object()


def _match(options: Sequence[Any], value: object) -> Any:
    """The option equal to `value` and of its type (8 == 8.0 == True), or None."""
    return next((o for o in options if o == value and type(o) is type(value)), None)


@dataclass(frozen=True)
class Choice(Control):
    """One option among several, named in the address by its id (`str(option)`).

    `options` may be a function of the values of the controls declared before it (the options follow
    another choice); `default` too, and an absent or unknown default means the first option.
    `option_label`: a locale key prefix (`"position.act_"` + id), a function (translator, option) → text,
    or None for the id itself. A link may also name an option by its label in either language.
    """

    options: Sequence[Any] | Callable[[Values], Sequence[Any]]
    default: Any = _FIRST
    _: KW_ONLY
    option_label: str | Callable[[Translator, Any], str] | None = None
    widget: Literal["select", "radio", "slider"] = "select"

    @property
    def follows(self) -> bool:
        return callable(self.options) or callable(self.default)

    def options_for(self, values: Values) -> list[Any]:
        options = self.options(values) if callable(self.options) else self.options
        return list(options)

    def default_for(self, values: Values) -> object:
        options = self.options_for(values)
        default = self.default(values) if callable(self.default) else self.default
        return default if default in options else options[0]

    def label_of(self, t: Translator, option: Any) -> str:
        if self.option_label is None:
            return str(option)
        if isinstance(self.option_label, str):
            return t(f"{self.option_label}{option}")
        return self.option_label(t, option)

    def parse(self, raw: str, values: Values) -> object | None:
        options = self.options_for(values)
        for option in options:
            if raw == str(option):
                return option
        if self.option_label is None:
            return None
        for lang in i18n.LANGS:
            translator = Translator(lang)
            for option in options:
                if raw == self.label_of(translator, option):
                    return option
        return None

    def check(self, value: object, values: Values) -> object | None:
        return _match(self.options_for(values), value)


@dataclass(frozen=True)
class Lang(Choice):
    """The app's language: an id, a browser-style locale ("ko-KR") or a language's own name."""

    def parse(self, raw: str, values: Values) -> object | None:
        return i18n.resolve_lang(raw) or super().parse(raw, values)


@dataclass(frozen=True)
class Several(Control):
    """Any options of a list, in its order, at most `most`; in the address joined by commas (`2,4,8`)."""

    options: Sequence[Any]
    default: tuple[Any, ...]
    _: KW_ONLY
    most: int | None = None
    bound: bool = False

    def check(self, value: object, values: Values) -> object | None:
        if not isinstance(value, list | tuple):
            return None
        chosen = [_match(self.options, v) for v in value]
        if None in chosen or len(set(chosen)) != len(chosen) or (self.most is not None and len(chosen) > self.most):
            return None
        return tuple(o for o in self.options if o in chosen)

    def parse(self, raw: str, values: Values) -> object | None:
        by_id = {str(o): o for o in self.options}
        parts = [p.strip() for p in raw.split(",") if p.strip()]
        if any(p not in by_id for p in parts):
            return None
        return self.check([by_id[p] for p in parts], values)

    def format(self, value: object) -> str:
        return ",".join(str(v) for v in value)  # type: ignore[union-attr]


@dataclass(frozen=True)
class Toggle(Control):
    """On or off; the address spells it `spelling` (off, on), and reads any of query.FLAGS."""

    default: bool
    _: KW_ONLY
    spelling: tuple[str, str] = ("false", "true")  # what a bound toggle reads

    def parse(self, raw: str, values: Values) -> object | None:
        return query.FLAGS.get(raw.strip().lower())

    def check(self, value: object, values: Values) -> object | None:
        return value if isinstance(value, bool) else None

    def format(self, value: object) -> str:
        return self.spelling[bool(value)]


@dataclass(frozen=True)
class Text(Control):
    """A line of text of at most `most` printable characters; `pattern`, when set, must match it whole."""

    default: str = ""
    _: KW_ONLY
    most: int = 64
    pattern: str | None = None
    placeholder: str | None = None  # locale key

    def _clean(self, text: str) -> str:
        return text

    def check(self, value: object, values: Values) -> object | None:
        if not isinstance(value, str):
            return None
        text = self._clean(value)
        if len(text) > self.most or not text.isprintable():
            return None
        if self.pattern is not None and not re.fullmatch(self.pattern, text):
            return None
        return text

    def parse(self, raw: str, values: Values) -> object | None:
        return self.check(raw, values)


@dataclass(frozen=True)
class Code(Text):
    """A code typed by a person: surrounding spaces and letter case do not count."""

    def _clean(self, text: str) -> str:
        return text.strip().upper()
