"""An Altair chart as the spec Streamlit sends: built once per input, its frames as Arrow, fitted to the screen.

Building a chart and serialising its data cost more than the rest of a warm rerun; this module keys the
built spec on the builder's inputs (frames by a digest of their pickle) and sends frames as named
Arrow datasets instead of row dicts. widgets.chart draws the result.
"""
from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st
from streamlit import dataframe_util

from ui.i18n import Translator


# Larger type for the back row of a classroom.
PRESENTER_CONFIG: dict[str, dict[str, int]] = {
    "axis": {"labelFontSize": 17, "titleFontSize": 19},
    "legend": {"labelFontSize": 17, "titleFontSize": 18},
    "title": {"fontSize": 22},
    "header": {"labelFontSize": 18, "titleFontSize": 19},
    "text": {"fontSize": 16},
}


def frame_digest(frame: pd.DataFrame) -> bytes:
    # Streamlit hashes a DataFrame row by row through pandas (~7 ms for a chart's frame, a third
    # of a warm rerun); its pickle is a near-copy of the buffers and hashes in a fraction of that.
    # Equal pickles mean equal frames, so the worst a differing pickle can cost is a cache miss.
    return hashlib.blake2b(pickle.dumps(frame, protocol=5), digest_size=16).digest()


def detach_data(chart: alt.TopLevelMixin) -> dict[str, bytes]:
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
            name = f"data-{frame_digest(data).hex()}"
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


def to_spec(chart: alt.TopLevelMixin) -> dict[str, Any]:
    """The chart's Vega-Lite spec, its frames sent as Arrow datasets."""
    datasets = detach_data(chart)
    # The builders are tested against the schema; validating every draw would cost tens of ms.
    spec = chart.to_dict(validate=False)
    spec["datasets"] = {**spec.get("datasets", {}), **datasets}
    return spec


# Not an experiment (those are compute.cached): a spec is cheap to rebuild, so a client's "clear
# cache" costs one redraw, and st.cache_data's hash_funcs key it on the frames' contents.
@st.cache_data(max_entries=512, show_spinner=False,
               hash_funcs={Translator: lambda t: t.lang, pd.DataFrame: frame_digest})
def cached_spec(name: str, _builder: Callable[..., alt.TopLevelMixin], *args: Any, **kwargs: Any) -> dict[str, Any]:
    # Building an Altair chart costs tens of milliseconds; the spec depends only on the builder's
    # inputs, so a rerun with the same settings (any student's) reuses it.
    # The builder itself is keyed by its qualified name (a leading underscore keeps it out of the hash).
    return to_spec(_builder(*args, **kwargs))


def one_column(spec: dict[str, Any]) -> dict[str, Any]:
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


def presenter(spec: dict[str, Any]) -> dict[str, Any]:
    """The same chart with the larger type of PRESENTER_CONFIG, for the back row of a classroom."""
    config = spec.get("config", {})
    return {**spec, "config": {**config, **{k: {**config.get(k, {}), **v} for k, v in PRESENTER_CONFIG.items()}}}
