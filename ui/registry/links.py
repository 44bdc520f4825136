"""A page's link, read from its declaration (ui/registry/catalog.py): the page's current values, clean
what a link carries, build links, and move a page's controls (a following student to the
instructor's settings). Drawing the controls is ui/kit/controls.py's.

Two ways into the address bar:
- bound (`bind="query-params"`): Streamlit reads and writes the address itself. Sliders, number
  boxes, toggles, text.
- by hand: the session holds the value, the address is written after the widget runs. Selectboxes
  and radios (a bound one would write its shown label, which changes with the language, and drop any
  other spelling from the address while still showing it), several options at once (a bound one needs
  repeated keys, which a link's `dict[str, str]` cannot hold), and any control declared `bound=False`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import urlencode

import streamlit as st
from streamlit.errors import StreamlitAPIException
from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState, get_script_run_ctx

from ui.base.page import Page
from ui.registry import catalog, query
from ui.registry.kinds import Control, Several

_PENDING = "_controls_pending"  # apply(): (section, values) for the page's next run
_DRAWN = "_controls_drawn"  # (section, {key: (value the page last drew, its part's fragment id or None)})
MOST = 200  # no control's value in an address is longer


def declared(section: str) -> tuple[Control, ...]:
    """The controls page `section` declares, in the order they are drawn (ui/registry/catalog.py)."""
    return catalog.CONTROLS[section]


def app_declared() -> tuple[Control, ...]:
    """The app-wide choices every menu link carries (ui/registry/catalog.py)."""
    return catalog.APP


def find(section: str, key: str) -> Control:
    for control in declared(section):
        if control.key == key:
            return control
    raise KeyError(f"page {section!r} declares no control {key!r}")


def page_keys() -> frozenset[str]:
    """Every key any page's controls use (what a page opened from the menu starts without)."""
    return frozenset(c.key for controls in catalog.CONTROLS.values() for c in controls)


# --- reading values -------------------------------------------------------------------------------


def app_params(chosen: dict[str, object]) -> dict[str, str | None]:
    # Defaults stay out of the address bar, so shared links carry only what differs; the language
    # always goes in, so a link opens in the language it was shared in.
    out: dict[str, str | None] = {}
    for control in app_declared():
        value = chosen[control.key]
        differs = control.key == "lang" or value != control.default_for(chosen)
        out[control.key] = control.format(value) if differs else None
    return out


def app_link_params(page: Page) -> dict[str, str]:
    """The app-wide choices a link to another page carries (language, presenter options, ask first, room)."""
    chosen = {"lang": page.lang, "present": page.presenter, "code": page.show_details, "ask": page.ask,
              "room": page.room or ""}
    return {name: value for name, value in app_params(chosen).items() if value is not None}


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


def values(section: str, before: str | None = None) -> dict[str, object]:
    """The page's current typed values of every declared control (defaults included).

    For the page on screen: the session's values (what the widgets show), falling back to the address
    for a widget that has not run yet, then to the default. For any other page: its defaults.
    With `before`, only the controls declared before that one (what the control drawn next depends on).
    """
    on_screen = _on_screen(section)
    state = st.session_state
    out: dict[str, object] = {}
    for control in declared(section):
        if control.key == before:
            break
        held = state.get(control.key) if on_screen else None  # one look each: every control draws this
        value = None if held is None else control.check(held, out)
        if value is None and on_screen:
            raw = joined(control.key) if isinstance(control, Several) else query.text(control.key, MOST)
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
    yet). No app-wide choices in it (those are `app_link_params(page)`).
    """
    return _differing(declared(section), values(section))


def room_params(section: str) -> dict[str, str]:
    """The view a class room shares (its join address, what followers load): `view_params`, plus every
    control whose default is computed when the page runs, even at that default.

    A computed default may read the reader's language (page 9's edited prompt is in the reader's
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
    path = catalog.page_path(section)
    if path is None:
        raise KeyError(f"no page {section!r}")
    return f"/{query.url_path(path)}" + (f"?{query_string}" if query_string else "")


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
            raw = joined(control.key) if isinstance(control, Several) else query.text(control.key, MOST)
            value = None if raw is None else control.parse(raw, known)
        known[control.key] = control.default_for(known) if value is None else value


def joined(key: str) -> str | None:
    # Links written before the values were joined repeat the key (`widths=2&widths=4`).
    try:
        parts = st.query_params.get_all(key)
    except Exception:  # a malformed query string must not reach the student as a traceback
        return None
    if not parts or sum(map(len, parts)) > MOST:
        return None
    return ",".join(parts)


def drawn(section: str, key: str) -> None:
    """ui/kit/controls.py, after drawing control `key`: the value the page now shows, for `undo_stale`."""
    held = st.session_state.get(_DRAWN)
    if not (isinstance(held, tuple) and held[0] == section):
        held = (section, {})
        st.session_state[_DRAWN] = held
    try:
        fragment = ThreadState.get().fragment_id
    except RuntimeError:  # outside a script run (a bare call): no part
        fragment = None
    held[1][key] = (st.session_state.get(key), fragment)


def undo_stale() -> None:
    """At the top of a live part's timed run: the page's controls as the page last drew them.

    A timed run carries the browser's copy of every widget's value, taken when the timer fired. A run
    that set a control (a lesson's Next, a following student moved) may have drawn the new value after
    that copy was taken: the copy is then the old value, and the session would take it back at the next
    run. A control outside this run's parts changes only through a run of its own, which the browser
    sends first, so a timed run's different value for it is such an old copy; a control inside a part
    that runs now is left alone (its own move may be in this run).
    """
    ctx = get_script_run_ctx()
    held = st.session_state.get(_DRAWN)
    if ctx is None or not ctx.fragment_ids_this_run or not isinstance(held, tuple) or not _on_screen(held[0]):
        return
    state = st.session_state
    running = set(ctx.fragment_ids_this_run)
    for key, (value, fragment) in held[1].items():
        if fragment not in running and key in state and state[key] != value:
            state[key] = value
