"""The pieces every demo page shares: chart, table, claim check, takeaway, show the code.

How a chart becomes the spec sent to the browser (cached, its data detached, one column on a phone,
bigger type on a projector) is ui/chart_spec.py.
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from ui import chart_spec, i18n, lessons, query
from ui.i18n import Translator
from ui.shell import Page


def chart(page: Page, builder: Callable[..., alt.TopLevelMixin] | alt.TopLevelMixin, *args: Any, **kwargs: Any) -> None:
    """Draw builder(*args, **kwargs), an Altair chart, across the column; bigger type on a projector.

    A chart passed already built is drawn without caching: the frames of a live animation
    are each seen once.
    """
    if isinstance(builder, alt.TopLevelMixin):
        spec = chart_spec.to_spec(builder)
    else:
        spec = chart_spec.cached_spec(f"{builder.__module__}.{builder.__qualname__}", builder, *args, **kwargs)
    if page.phone:  # panels side by side would be wider than the screen
        spec = chart_spec.one_column(spec)
    if page.presenter:
        spec = chart_spec.presenter(spec)
    st.vega_lite_chart(spec, width="stretch")


def table(page: Page, frame: pd.DataFrame, filename: str) -> None:
    """The numbers behind a chart, with a CSV download."""
    # Counts read with thousands separators (1,048,576), as they do everywhere else on the page.
    counts = {name: st.column_config.NumberColumn(format="localized")
              for name, dtype in frame.dtypes.items() if pd.api.types.is_integer_dtype(dtype)}
    st.dataframe(frame, hide_index=True, width="stretch", column_config=counts)
    st.download_button(
        page.t("common.download_csv"),
        # Written when the button is pressed, not on every rerun of the page.
        lambda: frame.to_csv(index=False).encode("utf-8"),
        file_name=filename,
        mime="text/csv",
        key=f"download_{filename}",
        on_click="ignore",
    )


def claim(page: Page, text: str, ok: bool) -> None:
    """The lesson's claim beside the measured value, ✓ or ✗; a ✗ is shown, never hidden."""
    label = page.t("common.claim")
    if ok:
        st.success(f"**{label}** — {text} ✓")
    else:
        st.error(f"**{label}** — {text} ✗")


def takeaway(page: Page, text: str) -> None:
    """The takeaway, worded by the page from what it measured."""
    st.info(f"**{page.t('common.takeaway')}** — {text}", icon=":material/lightbulb:")


@functools.cache
def _source(func: Callable[..., Any]) -> str:
    return inspect.getsource(func)


def show_code(page: Page, *funcs: Callable[..., Any]) -> None:
    """The source of the ffn_core functions that produced this page's numbers."""
    if not page.show_details:
        return
    with st.expander(page.t("common.show_code")):
        for func in funcs:
            st.caption(f"`{func.__module__}.{func.__qualname__}`")
            st.code(_source(func), language="python")


def _option_in_link(page: Page, options: list[Any], raw: str | None,
                    option_label: Callable[[Translator, Any], str]) -> Any | None:
    # Links name an option by its id; links written before, by hand or in the other language
    # may name it by its label in either language.
    if raw is None:
        return None
    for option in options:
        if raw == str(option):
            return option
    for lang in (page.lang, *i18n.LANGS):
        translator = Translator(lang)
        for option in options:
            if raw == option_label(translator, option):
                return option
    return None


def choice(
    page: Page,
    widget: Callable[..., Any],
    label: str,
    options: Sequence[Any],
    *,
    key: str,
    option_label: Callable[[Translator, Any], str],
    index: int = 0,
    **kwargs: Any,
) -> Any:
    """A selectbox or radio whose option the address bar carries by id (`act=gelu`), in either language.

    Not `bind="query-params"`: a bound widget writes its shown label into the address, so a link
    would change with the language, and Streamlit drops any other spelling of the option (its id,
    the other language's label) from the address while the page still shows it.
    """
    options = list(options)
    default = options[index]
    state = st.session_state
    if key not in state or state[key] not in options:
        # A page opened by a link or from the menu: the address decides, else the default;
        # the same when the options changed under the choice (they may follow another choice).
        # The default goes in through the session too; a widget given both an index and a session
        # value logs a warning with a stack trace.
        named = _option_in_link(page, options, query.text(key), option_label)
        state[key] = default if named is None else named
    value = widget(label, options, key=key, format_func=lambda o: option_label(page.t, o), **kwargs)
    query.set_value(key, None if value == default else str(value))
    return value


def verdict(page: Page, v: lessons.Verdict) -> None:
    """A page's verdict: each claim measured (✓/✗) or stated as a fact (no mark), then the takeaway."""
    for item in v.claims:
        text = page.t(item.key, **item.values)
        if item.ok is None:
            st.info(f"**{page.t('common.fact')}** — {text}", icon=":material/menu_book:")
        else:
            claim(page, text, item.ok)
    text = " ".join(page.t(key, **v.takeaway_values) for key in v.takeaway.split())
    if text:
        takeaway(page, text)
