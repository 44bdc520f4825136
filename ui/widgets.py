"""The pieces every demo page shares: chart, table, claim check, takeaway, show the code."""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from ui.shell import Page


def chart(page: Page, spec: alt.TopLevelMixin) -> None:
    """Draw an Altair chart across the column; bigger type on a projector."""
    if page.presenter:
        spec = spec.configure_axis(labelFontSize=17, titleFontSize=19).configure_legend(
            labelFontSize=17, titleFontSize=18
        ).configure_title(fontSize=22).configure_header(labelFontSize=18, titleFontSize=19)
    st.altair_chart(spec, width="stretch")


def table(page: Page, frame: pd.DataFrame, filename: str) -> None:
    """The numbers behind a chart, with a CSV download."""
    st.dataframe(frame, hide_index=True, width="stretch")
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
    st.info(f"**{page.t('common.takeaway')}** — {text}", icon="💡")


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
