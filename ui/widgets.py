"""The pieces every demo page shares: chart, table, claim check, takeaway, show the code."""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st
from streamlit import dataframe_util

from ui import i18n, query
from ui.i18n import Translator
from ui.shell import Page


# Larger type for the back row of a classroom.
_PRESENTER_CONFIG: dict[str, dict[str, int]] = {
    "axis": {"labelFontSize": 17, "titleFontSize": 19},
    "legend": {"labelFontSize": 17, "titleFontSize": 18},
    "title": {"fontSize": 22},
    "header": {"labelFontSize": 18, "titleFontSize": 19},
    "text": {"fontSize": 16},
}


@st.cache_data(max_entries=512, show_spinner=False, hash_funcs={Translator: lambda t: t.lang})
def _spec(name: str, _builder: Callable[..., alt.TopLevelMixin], *args: Any, **kwargs: Any) -> dict[str, Any]:
    # Building an Altair chart and validating it against the Vega-Lite schema costs tens of
    # milliseconds per chart; the spec depends only on the builder's inputs, so a rerun with the
    # same settings (any student's) reuses it. The builders are tested, so validation is skipped.
    # The builder itself is keyed by its qualified name (a leading underscore keeps it out of the hash).
    spec = _builder(*args, **kwargs).to_dict(validate=False)
    # Streamlit turns inline datasets into Arrow on every draw unless they already are Arrow bytes.
    spec["datasets"] = {
        dataset: dataframe_util.convert_anything_to_arrow_bytes(pd.DataFrame(rows))
        for dataset, rows in spec.get("datasets", {}).items()
    }
    return spec


def chart(page: Page, builder: Callable[..., alt.TopLevelMixin] | alt.TopLevelMixin, *args: Any, **kwargs: Any) -> None:
    """Draw builder(*args, **kwargs), an Altair chart, across the column; bigger type on a projector.

    A chart passed already built is drawn without caching: the frames of a live animation
    are each seen once.
    """
    if isinstance(builder, alt.TopLevelMixin):
        spec = builder.to_dict(validate=False)
    else:
        spec = _spec(f"{builder.__module__}.{builder.__qualname__}", builder, *args, **kwargs)
    if page.presenter:
        config = spec.get("config", {})
        spec = {**spec, "config": {**config, **{k: {**config.get(k, {}), **v} for k, v in _PRESENTER_CONFIG.items()}}}
    st.vega_lite_chart(spec, width="stretch")


def table(page: Page, frame: pd.DataFrame, filename: str) -> None:
    """The numbers behind a chart, with a CSV download."""
    # Counts read with thousands separators (1,048,576), as they do everywhere else on the page.
    counts = {name: st.column_config.NumberColumn(format="localized")
              for name, dtype in frame.dtypes.items() if pd.api.types.is_integer_dtype(dtype)}
    st.dataframe(frame, hide_index=True, width="stretch", column_config=counts)
    st.download_button(
        page.t("common.download_csv"),
        frame.to_csv(index=False).encode("utf-8"),
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


def _adopt_url_choice(page: Page, options: list[Any], key: str, option_label: Callable[[Translator, Any], str]) -> None:
    # A bound choice keeps its shown label in the URL; a link written in the other language,
    # or by hand with the option's id, would otherwise fall back to the default.
    raw = query.text(key)
    if raw is None or raw in {option_label(page.t, option) for option in options}:
        return
    for lang in i18n.LANGS:
        translator = Translator(lang)
        for option in options:
            if raw in (str(option), option_label(translator, option)):
                st.session_state[key] = option
                return


def choice(
    page: Page,
    widget: Callable[..., Any],
    label: str,
    options: Sequence[Any],
    *,
    key: str,
    option_label: Callable[[Translator, Any], str],
    **kwargs: Any,
) -> Any:
    """A selectbox or radio bound to the URL whose link works in either language and by option id."""
    options = list(options)
    _adopt_url_choice(page, options, key, option_label)
    return widget(label, options, key=key, bind="query-params", format_func=lambda o: option_label(page.t, o), **kwargs)
