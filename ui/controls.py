"""A page's link, read from its declaration (ui/pages.py): draw each control, clean what a link
carries, build links and move a page's controls.

Each control is one of a few kinds (a number in a range with a step, a choice among options, a
toggle, a short text, several options). A kind knows how its value reads from an address
(`parse`, None for anything it does not accept), how it is written into one (`format`) and whether
a value is one of its own (`check`). Everything a link carries goes through those three.

Two ways into the address bar, both kept from before this module:
- bound (`bind="query-params"`): Streamlit reads and writes the address itself. Sliders, number
  boxes, toggles, text.
- by hand: the session holds the value, the address is written after the widget runs. Selectboxes
  and radios (a bound one would write its shown label, which changes with the language, and drop any
  other spelling from the address while still showing it), several options at once (a bound one needs
  repeated keys, which a link's `dict[str, str]` cannot hold), and any control declared `bound=False`.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass
from typing import Any, Literal
from urllib.parse import urlencode

import streamlit as st
from streamlit.errors import StreamlitAPIException
from streamlit.runtime.state import get_session_state

from ui import i18n, query
from ui.i18n import Translator

Values = Mapping[str, object]
_PENDING = "_controls_pending"  # apply(): (section, values) for the page's next run
_MOST = 200  # no control's value in an address is longer


# --- kinds ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Control:
    """One control of a page's link: its key in the address and session, its label and help keys."""

    key: str
    _: KW_ONLY
    label: str = ""  # locale key of the widget's label
    help: str | None = None  # locale key of its help, if any
    bound: bool = True  # False: written to the address by hand (see the module's docstring)

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
        options = self.options_for(values)
        # 8 == 8.0 == True: an option matches only a value of its own type
        return next((o for o in options if o == value and type(o) is type(value)), None)

    def index(self, value: object, values: Values) -> int:
        return self.options_for(values).index(value)


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
        chosen = []
        for v in value:
            match = Choice(self.key, self.options).check(v, values)
            if match is None:
                return None
            chosen.append(match)
        if len(set(chosen)) != len(chosen) or (self.most is not None and len(chosen) > self.most):
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


# --- the declarations -----------------------------------------------------------------------------


def declared(section: str) -> tuple[Control, ...]:
    """The controls page `section` declares, in the order they are drawn (ui/pages.py)."""
    from ui import pages  # the declarations import this module's kinds

    return pages.CONTROLS[section]


def app_declared() -> tuple[Control, ...]:
    """The app-wide choices every menu link carries (ui/pages.py)."""
    from ui import pages

    return pages.APP


def _find(section: str, key: str) -> Control:
    for control in declared(section):
        if control.key == key:
            return control
    raise KeyError(f"page {section!r} declares no control {key!r}")


def page_keys() -> frozenset[str]:
    """Every key any page's controls use (what a page opened from the menu starts without)."""
    from ui import pages

    return frozenset(c.key for controls in pages.CONTROLS.values() for c in controls)


# --- reading values -------------------------------------------------------------------------------


def clean(controls: Sequence[Control], params: Mapping[str, str]) -> dict[str, object]:
    """Every control's typed value from link-style params: a value a control does not accept is its default."""
    values: dict[str, object] = {}
    for control in controls:
        raw = params.get(control.key)
        value = control.parse(raw, values) if isinstance(raw, str) else None
        values[control.key] = control.default_for(values) if value is None else value
    return values


def _on_screen(section: str) -> bool:
    return st.session_state.get("_section") == section


def values(section: str) -> dict[str, object]:
    """The page's current typed values of every declared control (defaults included).

    For the page on screen: the session's values (what the widgets show), falling back to the address
    for a widget that has not run yet, then to the default. For any other page: its defaults.
    """
    return _values(section)


def _values(section: str, before: str | None = None) -> dict[str, object]:
    on_screen = _on_screen(section)
    state = st.session_state
    out: dict[str, object] = {}
    for control in declared(section):
        if control.key == before:
            break
        value = None
        if on_screen and control.key in state:
            value = control.check(state[control.key], out)
        if value is None and on_screen:
            raw = _joined(control.key) if isinstance(control, Several) else query.text(control.key, _MOST)
            value = None if raw is None else control.parse(raw, out)
        out[control.key] = control.default_for(out) if value is None else value
    return out


def _differing(controls: Sequence[Control], typed: Mapping[str, object]) -> dict[str, str]:
    out: dict[str, str] = {}
    known: dict[str, object] = {}
    for control in controls:
        value = typed[control.key]
        if value != control.default_for(known):
            out[control.key] = control.format(value)
        known[control.key] = value
    return out


def view_params(section: str) -> dict[str, str]:
    """The query parameters that reproduce the current view of page `section`.

    Only that page's declared controls, only values differing from their defaults, as URL strings,
    read from the session's current values (falling back to the address when a widget has not run
    yet). No app-wide choices in it (those are `shell.link_params(page)`).
    """
    return _differing(declared(section), values(section))


def room_params(section: str) -> dict[str, str]:
    """The view a class room shares (its join address, what followers load): `view_params`, plus every
    control whose default is computed when the page runs, even at that default.

    A computed default may read the reader's language (page 8's edited prompt is in the reader's
    language unless set): left out, a Korean and an English student would open different settings and
    answer different questions. Carried, every student is asked at the instructor's settings, and a
    question's id (ui/questions: section, question, settings) never depends on who reads it.
    """
    declared_here = declared(section)
    typed = values(section)
    out = _differing(declared_here, typed)
    for control in declared_here:
        if callable(getattr(control, "default", None)) and control.key not in out:
            out[control.key] = control.format(typed[control.key])
    return out


def link(section: str, params: Mapping[str, str], *, app: Mapping[str, str] = {}) -> str:  # noqa: B006
    """The relative address (`/<page url path>?...`) of page `section` opened with `params`.

    Both are cleaned as the page would clean them: unknown keys and values the page would not accept
    are left out, and so are defaults. `app` carries app-wide choices (`lang`, `room`, …).
    """
    app_controls = app_declared()
    app_values = clean(app_controls, app)
    pairs = {c.key: c.format(app_values[c.key]) for c in app_controls
             if c.key in app and c.parse(app[c.key], app_values) is not None}
    pairs.update(_differing(declared(section), clean(declared(section), params)))
    query_string = urlencode(pairs)
    return f"/{url_path(section)}" + (f"?{query_string}" if query_string else "")


def url_path(section: str) -> str:
    """The page's path in the address: Streamlit's name for its file (`pages/4_width_sweep.py` → `width_sweep`)."""
    from ui import pages

    path = next(p.path for p in pages.PAGES if p.section == section)
    if not path.startswith("pages/"):
        return ""  # the entry script is the root
    stem = path.removeprefix("pages/").removesuffix(".py")
    return re.sub(r"^[0-9]+_?", "", stem)


# --- moving a page's controls ---------------------------------------------------------------------


def apply(section: str, params: Mapping[str, str]) -> None:
    """Set the session's values of page `section`'s controls from link-style params.

    Cleaned like a link (unknown keys ignored, a bad value is the default, an absent one too), so a
    following student can be moved to the instructor's settings. Called for the page on screen before
    its controls are drawn (from the sidebar, a callback), the values are the page's at once. Otherwise
    they wait for the page's next run: call `st.rerun()` on the same page, or `st.switch_page(...)` to
    that page (a widget already drawn in a run cannot take a new value; another page opened first
    forgets them).
    """
    st.session_state[_PENDING] = (section, clean(declared(section), params))
    if _on_screen(section):
        try:
            _apply_pending(section)
        except StreamlitAPIException:  # a control of the page is drawn already: the next run applies them
            pass


def begin(section: str) -> None:
    """The shell's call at the top of every page: clean the address, then apply a pending `apply`."""
    _clean_address(declared(section))
    pending = st.session_state.get(_PENDING)
    if pending is not None and pending[0] != section:
        del st.session_state[_PENDING]  # meant for the next run: another page opened instead
    _apply_pending(section)


def _apply_pending(section: str) -> None:
    pending = st.session_state.get(_PENDING)
    if pending is None or pending[0] != section:
        return
    typed = pending[1]
    known: dict[str, object] = {}
    for control in declared(section):
        value = typed[control.key]
        st.session_state[control.key] = list(value) if isinstance(control, Several) else value
        default = control.default_for(known)
        query.write(control.key, None if value == default else control.format(value))
        query.set_initial(control.key, None if value == default else control.format(value))
        known[control.key] = value
    del st.session_state[_PENDING]


def _clean_address(controls: Sequence[Control]) -> None:
    # What a bound widget reads from the address is checked here, before it is drawn: Streamlit
    # clamps a number past the range to the range's end and keeps a value between the steps, where
    # a link's wrong value means the default. A value spelled another way (a toggle's `1`) is
    # rewritten the way the widget reads it.
    known: dict[str, object] = {}  # what the page opens with: the options of a later control follow it
    for control in controls:
        value = None
        if control.bound:
            raw = query.initial(control.key)
            value = None if raw is None or isinstance(raw, list) else control.parse(raw, known)
            if raw is not None and value is None:
                query.set_initial(control.key, None)
                query.write(control.key, None)
            elif value is not None and control.format(value) != raw:
                query.set_initial(control.key, control.format(value))
                query.write(control.key, control.format(value))
        else:
            raw = _joined(control.key) if isinstance(control, Several) else query.text(control.key, _MOST)
            value = None if raw is None else control.parse(raw, known)
        known[control.key] = control.default_for(known) if value is None else value


# --- drawing --------------------------------------------------------------------------------------


def draw(page: Any, key: str, where: Any = st, **kwargs: Any) -> Any:
    """Draw control `key` of the page in `where` (a column, the sidebar, st) and return its value.

    Extra keyword arguments go to the widget (`horizontal=True`, `disabled=…`).
    """
    section = page.section
    control = _find(section, key)
    earlier = _values(section, before=key)  # drawn already: their values are current
    t = page.t
    if control.help is not None:
        kwargs.setdefault("help", t(control.help))
    label = t(control.label)
    if isinstance(control, Choice) and control.widget in ("select", "radio"):
        widget = where.selectbox if control.widget == "select" else where.radio
        return _choice(page, control, widget, label, earlier, **kwargs)
    if isinstance(control, Several):
        return _several(page, control, where, label, earlier, **kwargs)
    if not control.bound:
        return _by_hand(control, where, label, earlier, **kwargs)
    if isinstance(control, Text) and control.placeholder is not None:
        kwargs.setdefault("placeholder", t(control.placeholder))
    return _bound(control, where, label, earlier, **kwargs)


def _bound(control: Control, where: Any, label: str, earlier: Values, **kwargs: Any) -> Any:
    key = control.key
    # After apply(), the session holds the value: a widget given a default as well would log a
    # warning with a stack trace, so this one run it goes without, and the address is written here.
    applied = get_session_state().is_new_state_value(key) and key in st.session_state
    default = control.default_for(earlier)
    value_arg: dict[str, Any] = {} if applied else {"value": default}
    common = {"key": key, "bind": "query-params", **kwargs}
    if isinstance(control, Number):
        if control.widget == "slider":
            value = where.slider(label, control.lo, control.hi, step=control.step, **value_arg, **common)
        else:
            value = where.number_input(label, control.lo, control.hi, step=control.step,
                                       **(value_arg or {"value": "min"}), **common)
    elif isinstance(control, Choice):  # a select slider: its options are their own labels
        value = where.select_slider(label, control.options_for(earlier), **value_arg, **common)
    elif isinstance(control, Toggle):
        value = where.toggle(label, **value_arg, **common)
    elif isinstance(control, Text):
        value = where.text_input(label, **value_arg, max_chars=control.most, **common)
    else:  # pragma: no cover - every kind is handled above
        raise TypeError(control)
    if applied:
        query.write(key, None if value == default else control.format(value))
    return value


def _by_hand(control: Control, where: Any, label: str, earlier: Values, **kwargs: Any) -> Any:
    # The session holds the value, set from the address when the page opens; the widget gets no
    # default (a widget given one and a session value logs a warning with a stack trace).
    state = st.session_state
    key = control.key
    default = control.default_for(earlier)
    if key not in state or control.check(state[key], earlier) is None:
        raw = query.text(key)
        named = None if raw is None else control.parse(raw, earlier)
        state[key] = default if named is None else named
    if isinstance(control, Toggle):
        value = where.toggle(label, key=key, **kwargs)
    elif isinstance(control, Number) and control.widget == "box":
        value = where.number_input(label, control.lo, control.hi, step=control.step, key=key, **kwargs)
    elif isinstance(control, Number):
        value = where.slider(label, control.lo, control.hi, step=control.step, key=key, **kwargs)
    elif isinstance(control, Text):
        value = where.text_input(label, key=key, max_chars=control.most, **kwargs)
    elif isinstance(control, Choice):
        value = where.select_slider(label, control.options_for(earlier), key=key, **kwargs)
    else:  # pragma: no cover
        raise TypeError(control)
    query.set_value(key, None if value == default else control.format(value))
    return value


def _choice(page: Any, control: Choice, widget: Callable[..., Any], label: str, earlier: Values, **kwargs: Any) -> Any:
    """A selectbox or radio whose option the address bar carries by id (`act=gelu`), in either language.

    Not `bind="query-params"`: a bound widget writes its shown label into the address, so a link
    would change with the language, and Streamlit drops any other spelling of the option (its id,
    the other language's label) from the address while the page still shows it.
    """
    options = control.options_for(earlier)
    default = control.default_for(earlier)
    state = st.session_state
    key = control.key
    if key not in state or control.check(state[key], earlier) is None:
        # A page opened by a link or from the menu: the address decides, else the default;
        # the same when the options changed under the choice (they may follow another choice).
        # The default goes in through the session too; a widget given both an index and a session
        # value logs a warning with a stack trace.
        raw = query.text(key)
        named = None if raw is None else control.parse(raw, earlier)
        state[key] = default if named is None else named
    value = widget(label, options, key=key, format_func=lambda o: control.label_of(page.t, o), **kwargs)
    query.set_value(key, None if value == default else control.format(value))
    return value


def _several(page: Any, control: Several, where: Any, label: str, earlier: Values, **kwargs: Any) -> tuple[Any, ...]:
    state = st.session_state
    key = control.key
    if key not in state or control.check(state[key], earlier) is None:
        raw = _joined(key)
        named = None if raw is None else control.parse(raw, earlier)
        state[key] = list(control.default if named is None else named)
    chosen = where.multiselect(label, list(control.options), key=key, max_selections=control.most, **kwargs)
    value = control.check(chosen, earlier)
    value = control.default if value is None else value
    query.set_value(key, None if value == control.default else control.format(value))
    return value


def _joined(key: str) -> str | None:
    # Links written before the values were joined repeat the key (`widths=2&widths=4`).
    try:
        parts = st.query_params.get_all(key)
    except Exception:  # a malformed query string must not reach the student as a traceback
        return None
    if not parts or sum(map(len, parts)) > _MOST:
        return None
    return ",".join(parts)
