"""The pieces every demo page shares: chart, table, claim check, takeaway, show the code."""
from __future__ import annotations

import functools
import hashlib
import inspect
import pickle
from collections.abc import Callable
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st
from streamlit import dataframe_util

from ui import lessons
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


def _frame_digest(frame: pd.DataFrame) -> bytes:
    # Streamlit hashes a DataFrame row by row through pandas (~7 ms for a chart's frame, a third
    # of a warm rerun); its pickle is a near-copy of the buffers and hashes in a fraction of that.
    # Equal pickles mean equal frames, so the worst a differing pickle can cost is a cache miss.
    return hashlib.blake2b(pickle.dumps(frame, protocol=5), digest_size=16).digest()


def _detach_data(chart: alt.TopLevelMixin) -> dict[str, bytes]:
    """Replace every DataFrame in the chart (its layers and panels too) by a named reference; the frames as Arrow.

    Altair would turn each frame into a list of row dicts (and Streamlit those back into a frame for
    Arrow): ~5 ms a frame, more than the rest of the spec. Named datasets skip both trips.
    """
    datasets: dict[str, bytes] = {}
    pending: list[Any] = [chart]
    while pending:
        node = pending.pop()
        data = getattr(node, "data", alt.Undefined)
        if isinstance(data, pd.DataFrame):
            name = f"data-{_frame_digest(data).hex()}"
            if name not in datasets:
                datasets[name] = dataframe_util.convert_anything_to_arrow_bytes(data.reset_index(drop=True))
            node.data = alt.NamedData(name=name)
        for part in ("layer", "hconcat", "vconcat", "concat"):
            children = getattr(node, part, alt.Undefined)
            if isinstance(children, list):
                pending.extend(children)
        spec = getattr(node, "spec", alt.Undefined)  # facet and repeat wrap their chart
        if isinstance(spec, alt.TopLevelMixin | alt.SchemaBase):
            pending.append(spec)
    return datasets


def _to_spec(chart: alt.TopLevelMixin) -> dict[str, Any]:
    datasets = _detach_data(chart)
    # The builders are tested against the schema; validating every draw would cost tens of ms.
    spec = chart.to_dict(validate=False)
    spec["datasets"] = {**spec.get("datasets", {}), **datasets}
    return spec


@st.cache_data(max_entries=512, show_spinner=False,
               hash_funcs={Translator: lambda t: t.lang, pd.DataFrame: _frame_digest})
def _spec(name: str, _builder: Callable[..., alt.TopLevelMixin], *args: Any, **kwargs: Any) -> dict[str, Any]:
    # Building an Altair chart costs tens of milliseconds; the spec depends only on the builder's
    # inputs, so a rerun with the same settings (any student's) reuses it.
    # The builder itself is keyed by its qualified name (a leading underscore keeps it out of the hash).
    return _to_spec(_builder(*args, **kwargs))


def _one_column(spec: dict[str, Any]) -> dict[str, Any]:
    """The same chart with its panels one under another (a facet's columns, side-by-side views)."""
    spec = dict(spec)
    if "hconcat" in spec:
        spec["vconcat"] = spec.pop("hconcat")
    if "concat" in spec or ("facet" in spec and "columns" in spec):
        spec["columns"] = 1
    facet = spec.get("facet")
    if isinstance(facet, dict) and "column" in facet and "row" not in facet:
        spec["facet"] = {**{k: v for k, v in facet.items() if k != "column"}, "row": facet["column"]}
    return spec


def chart(page: Page, builder: Callable[..., alt.TopLevelMixin] | alt.TopLevelMixin, *args: Any, **kwargs: Any) -> None:
    """Draw builder(*args, **kwargs), an Altair chart, across the column; bigger type on a projector.

    A chart passed already built is drawn without caching: the frames of a live animation
    are each seen once.
    """
    if isinstance(builder, alt.TopLevelMixin):
        spec = _to_spec(builder)
    else:
        spec = _spec(f"{builder.__module__}.{builder.__qualname__}", builder, *args, **kwargs)
    if page.phone:  # panels side by side would be wider than the screen
        spec = _one_column(spec)
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
