"""A page's controls drawn from its declaration (ui/registry/catalog.py): `controls.draw(page, key, column)`.

Each widget is bound to the address the way its kind asks (ui/registry/links.py says which way and why);
its value is read back typed.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st
from streamlit.runtime.state import get_session_state

from ui.base.page import Page
from ui.registry import links, query
from ui.registry.kinds import Choice, Control, Number, Several, Text, Toggle, Values


def draw(page: Page, key: str, where: Any = st, **kwargs: Any) -> Any:
    """Draw control `key` of the page in `where` (a column, the sidebar, st) and return its value.

    Extra keyword arguments go to the widget (`horizontal=True`, `disabled=…`).
    """
    value = _draw(page, key, where, **kwargs)
    links.drawn(page.section, key)  # what the page now shows: a live part's timed run keeps it (links.undo_stale)
    return value


def row(page: Page, *keys: str, columns: Sequence[Any] | None = None) -> list[Any]:
    """Draw controls `keys` side by side, one to a column, and return their values in order.

    `columns`: where they go (lede.less_used's row); a row of st.columns, one per key, by default.
    """
    return [draw(page, key, where) for key, where in zip(keys, columns or st.columns(len(keys)), strict=True)]


def _draw(page: Page, key: str, where: Any, **kwargs: Any) -> Any:
    section = page.section
    control = links.find(section, key)
    # Drawn already, their values are current; read (a look at each) only for a control that follows them.
    earlier = links.values(section, before=key) if control.follows else {}
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


def _choice(page: Page, control: Choice, widget: Callable[..., Any], label: str, earlier: Values, **kwargs: Any) -> Any:
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


def _several(page: Page, control: Several, where: Any, label: str, earlier: Values, **kwargs: Any) -> tuple[Any, ...]:
    state = st.session_state
    key = control.key
    if key not in state or control.check(state[key], earlier) is None:
        raw = links.joined(key)
        named = None if raw is None else control.parse(raw, earlier)
        state[key] = list(control.default if named is None else named)
    chosen = where.multiselect(label, list(control.options), key=key, max_selections=control.most, **kwargs)
    value = control.check(chosen, earlier)
    value = control.default if value is None else value
    query.set_value(key, None if value == control.default else control.format(value))
    return value
