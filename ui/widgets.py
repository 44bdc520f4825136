"""The pieces every demo page shares: chart, table, claim check, takeaway, show the code.

How a chart becomes the spec sent to the browser (cached, its data detached, one column on a phone,
bigger type on a projector) is ui/compute/chart_spec.py.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import altair as alt
import pandas as pd
import pyarrow as pa
import streamlit as st
from streamlit import dataframe_util
from streamlit.errors import StreamlitDuplicateElementKey
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from ui import verdicts
from ui.base.page import Page
from ui.charts import text as chart_text
from ui.compute import chart_spec, lru
from ui.registry import links


def chart(page: Page, builder: Callable[..., alt.TopLevelMixin] | alt.TopLevelMixin, *args: Any, **kwargs: Any) -> None:
    """Draw builder(*args, **kwargs), an Altair chart, across the column; bigger type on a projector.

    A chart passed already built is drawn without caching: the frames of a live animation
    are each seen once.
    """
    if isinstance(builder, alt.TopLevelMixin):
        name = "built"
        spec = chart_spec.to_spec(builder)
        told = chart_text.describe(spec, page.t)
    else:
        name = f"{builder.__module__}.{builder.__qualname__}"
        spec = chart_spec.cached_spec(name, builder, *args, **kwargs)
        # Told from the shared spec: a phone's one column and a projector's type change no field or value.
        told = chart_text.describe_shared(spec, page.t)
    if page.phone:  # panels side by side would be wider than the screen
        spec = chart_spec.one_column(spec)
    if page.presenter:
        spec = chart_spec.presenter(spec)
    # The caption is also the chart's accessible name: Vega gives its drawing the spec's description as aria-label.
    st.vega_lite_chart({**spec, "description": told.caption}, width="stretch")
    _values(page, told, (name, *sorted(spec.get("datasets", ())),
                         *(a for a in (*args, *kwargs.values()) if isinstance(a, str | int | float))))


def _values(page: Page, told: chart_text.Described, identity: tuple[Any, ...]) -> None:
    """Under a chart, its text alternative: the caption with its values, which opens onto its data as tables.

    A folded box, so a page's run sends no table until a student opens it. `identity` tells the box apart
    from another chart's on the page (its builder, data and plain arguments).
    """
    label = ":material/table_chart: " + _escape_markdown(told.caption)
    digest = hashlib.blake2b(repr(identity).encode(), digest_size=8).hexdigest()
    for n in range(8):  # the same chart drawn twice on one page: a box of its own each
        try:
            box = folded(label, f"chart:{digest}:{n}" if n else f"chart:{digest}")
            break
        except StreamlitDuplicateElementKey:
            continue
    else:
        return
    if box.open:
        with box:
            for frame in told.tables:
                # A real <table> for a screen reader where it stays short; a long one scrolls in a grid.
                if len(frame) <= TABLE_ROWS:
                    st.table(frame, hide_index=True)
                else:
                    st.dataframe(frame, hide_index=True, width="stretch", height=280)


TABLE_ROWS = 60


def _escape_markdown(text: str) -> str:
    """Plain text in a Markdown label: its *, _, [, ], `, $ and ~ shown as they are."""
    return "".join(f"\\{c}" if c in "\\*_[]`$~#<>|" else c for c in text)


def side_by_side(page: Page, *panels: tuple[Any, ...]) -> None:
    """Charts next to each other, each under its bold heading: every panel is (heading, builder, *args)."""
    for column, (heading, builder, *args) in zip(st.columns(len(panels)), panels):
        with column:
            st.markdown(f"**{heading}**")
            chart(page, builder, *args)


def table(page: Page, frame: pd.DataFrame, filename: str, first: tuple[str, ...] = (),
          transpose: bool = False) -> None:
    """The numbers behind a chart, with a CSV download.

    `first`: the columns that tell the table's story, drawn right after the first column, so that
    a laptop's width or a phone's shows them without scrolling sideways. `transpose`: a few rows
    of many long-named measures are drawn a measure to a row, in a static table whose text wraps
    (the CSV keeps the frame's shape).
    """
    shown = frame
    if transpose:
        st.table(frame.set_index(frame.columns[0]).T.astype(str))
    else:
        _grid(shown, first)
    st.download_button(
        page.t("common.download_csv"),
        # Written when the button is pressed, not on every rerun of the page.
        lambda: frame.to_csv(index=False).encode("utf-8"),
        file_name=filename,
        mime="text/csv",
        key=f"download_{filename}",
        on_click="ignore",
    )


def _grid(shown: pd.DataFrame, first: tuple[str, ...]) -> None:
    # Counts read with thousands separators (1,048,576), as they do everywhere else on the page.
    config: dict[str, Any] = {name: st.column_config.NumberColumn(format="localized")
                              for name, dtype in shown.dtypes.items() if pd.api.types.is_integer_dtype(dtype)}
    order = None
    if len(shown.columns):
        head = shown.columns[0]
        # The first column names the row: it stays in view while the rest scrolls sideways.
        config[head] = st.column_config.Column(pinned=True) if head not in config else st.column_config.NumberColumn(
            format="localized", pinned=True)
        told = [c for c in first if c in shown.columns and c != head]
        order = [head, *told, *(c for c in shown.columns if c != head and c not in told)]
    st.dataframe(_arrow(shown), hide_index=True, width="stretch", column_config=config, column_order=order)


_TABLES: lru.LRU[pa.Table] = lru.LRU(entries=256)


def _arrow(frame: pd.DataFrame) -> pa.Table:
    """The frame as the Arrow table st.dataframe would make of it, made once per contents.

    Converting a frame costs a few ms on every rerun that shows the same numbers; its digest costs a
    fraction of that. An Arrow table cannot be changed, so every session may share it.
    """
    key = chart_spec.frame_digest(frame)
    table = _TABLES.get(key)
    if table is None:
        table = dataframe_util.convert_pandas_df_to_arrow_table(frame)
        _TABLES.put(key, table)
    return table


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


def metrics(where: Any, *items: tuple[str, ...], border: bool = False) -> None:
    """A row of metrics, each (label, value) or (label, value, help), sharing the row's width.

    One horizontal container, not st.columns: a column is a block of its own, and every page run
    sends each block again (a row of four metrics was nine blocks and elements, now five). On a
    narrow screen the row wraps where columns would stack.
    """
    fill_row(where.container(horizontal=True, gap="small"), *items, border=border)


def fill_row(row: Any, *items: tuple[str, ...], border: bool = False) -> None:
    """The metrics of `metrics` into `row`, a horizontal container made ahead (a page's headline slot)."""
    for label, value, *help_text in items:
        row.metric(label, value, help=help_text[0] if help_text else None, border=border, width="stretch")


def page_link(where: Any, path: str, **kwargs: Any) -> None:
    """A link to one of the app's pages (`path` as in ui/registry/catalog.py), drawn in `where`.

    Given a path, st.page_link resolves it on disk and scans every page on every call, a tenth of a
    whole run's time with the menu's twelve links; a page made once per process skips both.
    """
    where.page_link(_page(path), **kwargs)


@functools.cache
def _page(path: str) -> st.Page:
    ctx = get_script_run_ctx()
    # The entry script is the app's root page, at "/": made as the default page, as Streamlit's router registers it.
    home = ctx is not None and Path(ctx.main_script_path).name == Path(path).name
    return st.Page(path, default=home)


FOLDED = "_fold:"  # the session keys of the boxes folded(): their open state


def folded(label: str, name: str, *, expanded: bool = False, icon: str | None = None) -> Any:
    """An expander whose contents the caller draws only `if box.open`: a folded one costs its label alone.

    Opening or closing it reruns the part of the page that drew it (the page, or its fragment), which
    then draws what it holds. `name` tells it apart on the page; the box keeps its state under it.
    """
    return st.expander(label, expanded=expanded, key=f"{FOLDED}{name}", icon=icon, on_change="rerun")


def timed(seconds: float) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """A part of a page that reruns by itself every `seconds` (an st.fragment with `run_every`).

    Each timed run first puts back the page's controls as the page last drew them (`links.undo_stale`):
    the browser's copy a timer sends can be older than a value the app has just set.
    """

    def decorate(func: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(func)
        def run(*args: Any) -> None:
            links.undo_stale()
            func(*args)

        return st.fragment(run, run_every=seconds)

    return decorate


@functools.cache
def _source(func: Callable[..., Any]) -> str:
    return inspect.getsource(func)


def show_code(page: Page, *funcs: Callable[..., Any]) -> None:
    """The source of the ffn_core functions that produced this page's numbers."""
    if not page.show_details:
        return
    box = folded(page.t("common.show_code"), f"code:{page.section}")
    if box.open:
        with box:
            for func in funcs:
                st.caption(f"`{func.__module__}.{func.__qualname__}`")
                st.code(_source(func), language="python")


def verdict(page: Page, v: verdicts.Verdict) -> None:
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
