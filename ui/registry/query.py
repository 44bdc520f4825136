"""The address bar at its lowest level: one value read or written, and the values a page was opened
with cleaned before any widget reads them. What each key means and accepts is declared once
(ui/registry/catalog.py) and read by ui/kit/controls.py; this module knows no key. Also a page file's
name in the address (`url_path`)."""
from __future__ import annotations

import math
import re
from collections.abc import Mapping
from urllib.parse import urlencode

import streamlit as st
from streamlit.runtime.state import get_session_state

FLAGS: dict[str, bool] = {"1": True, "true": True, "on": True, "0": False, "false": False, "off": False}


def text(name: str, most: int = 64) -> str | None:
    """One query value as text (at most `most` characters), or None when absent or too long; never raises on a crafted link."""
    try:
        value = st.query_params.get(name)
    except Exception:  # a malformed query string must not reach the student as a traceback
        return None
    return value if isinstance(value, str) and len(value) <= most else None


def _non_finite(value: str) -> bool:
    try:
        return not math.isfinite(float(value))
    except ValueError:
        return False


def drop_non_finite() -> list[str]:
    """Remove every query value that reads as an infinite or NaN number (`inf`, `1e400`, `nan`); the keys removed.

    Streamlit 1.67 reads `?seed=inf` for an integer number box as int(inf) and catches only
    ValueError, TypeError and IndexError: the OverflowError would reach the student as a traceback.
    No control of the app takes such a number, so every key is cleaned, before any widget reads it.
    Widgets read the values the page was opened with, which st.query_params does not expose:
    those are cleaned as well, through Streamlit's own QueryParams (its `_initial_query_params` and
    `remove_param`, as of the pinned 1.67; tests/ui/test_query.py fails if they change). That also
    covers back and forward, where the number box is already bound and st.query_params refuses.
    """
    try:
        bad = [key for key in st.query_params if any(map(_non_finite, st.query_params.get_all(key)))]
    except Exception:  # a malformed query string must not reach the student as a traceback
        return []
    if bad:
        with get_session_state().query_params() as params:
            for key in bad:
                params._initial_query_params.pop(key, None)
                params.remove_param(key)  # also from the address bar
    return bad


def initial(name: str) -> str | list[str] | None:
    """The value a bound widget reads: the page's opening address (Streamlit's `_initial_query_params`)."""
    try:
        with get_session_state().query_params() as params:
            value = params._initial_query_params.get(name)
    except Exception:  # no session behind the call (a bare script run), or Streamlit changed
        return None
    if isinstance(value, list):
        return value[0] if len(value) == 1 else list(value)
    return value


def set_initial(name: str, value: str | None) -> None:
    """Replace (or drop, for None) what a bound widget will read for `name` when it is first drawn."""
    try:
        with get_session_state().query_params() as params:
            if value is None:
                params._initial_query_params.pop(name, None)
            else:
                params._initial_query_params[name] = [value]
    except Exception:  # no session behind the call (a bare script run)
        return


def write(name: str, value: str | None) -> None:
    """Write (or drop) a parameter even when a widget is bound to it: st.query_params refuses
    those, Streamlit's own QueryParams writes them as it does when it corrects a bound value."""
    try:
        with get_session_state().query_params() as params:
            if value is None:
                params.remove_param(name)
            elif not params.has_param(name) or params[name] != value:
                params.set_corrected_value(name, value, "string_value")
    except Exception:  # no session behind the call (a bare script run)
        return


def set_value(name: str, value: str | None) -> None:
    """Write (or drop, for None) an app-wide parameter so the address bar carries it into shared links."""
    if value is None:
        if name in st.query_params:
            del st.query_params[name]
    elif st.query_params.get(name) != value:
        st.query_params[name] = value


def view_url(base: str | None, params: Mapping[str, object]) -> str:
    """The link that reproduces this view: the page's address plus every current query parameter."""
    pairs: list[tuple[str, str]] = []
    for key, value in params.items():
        values = value if isinstance(value, list) else [value]
        pairs.extend((key, str(v)) for v in values)
    query = urlencode(pairs)
    return f"{base or ''}?{query}" if query else (base or "")


def url_path(path: str) -> str:
    """A page file's name in the address: Streamlit's pages/ router names it by the file minus its
    leading number (`pages/5_width_sweep.py` → `width_sweep`); the entry script is the root ("")."""
    if not path.startswith("pages/"):
        return ""
    return re.sub(r"^[0-9]+_?", "", path.removeprefix("pages/").removesuffix(".py"))
