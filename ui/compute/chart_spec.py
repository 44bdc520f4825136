"""An Altair chart as the spec Streamlit sends: built once per input, its frames as Arrow, fitted to the screen.

Building a chart and serialising its data cost more than the rest of a warm rerun; this module keys the
built spec on the builder's inputs (frames by a digest of their pickle) and sends frames as named
Arrow datasets instead of row dicts. widgets.chart draws the result.
"""
from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import altair as alt
import pandas as pd
from streamlit import dataframe_util

from ui.base.i18n import Translator
from ui.compute import lru
from ui.compute.result_cache import plain_key


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


_SPECS: lru.LRU[dict[str, Any]] = lru.LRU(entries=512)


@dataclass(frozen=True)
class Named:
    """A frame named by the cached call that builds it (cache.frame), built only on a spec miss: building it
    and pickling it for a digest were most of a cached chart's cost on every rerun."""

    key: Hashable
    build: Callable[[], pd.DataFrame]


def arg_key(value: Any) -> Hashable:
    """What a builder's argument contributes to the spec's key: a frame by its digest, a translator by its
    language, a number or a string as the experiments key them, anything else by a digest of its pickle."""
    if isinstance(value, Named):
        return ("named", value.key)
    if isinstance(value, pd.DataFrame):
        return ("frame", frame_digest(value))
    if isinstance(value, Translator):
        return ("lang", value.lang)
    if value is None or isinstance(value, str | int | float):
        return plain_key(value)  # 1, 1.0 and True draw different charts, as in st.cache_data
    return ("pickle", hashlib.blake2b(pickle.dumps(value, protocol=5), digest_size=16).digest())


def cached_spec(name: str, builder: Callable[..., alt.TopLevelMixin], *args: Any, **kwargs: Any) -> dict[str, Any]:
    """builder(*args, **kwargs) as a spec, built once per inputs for every session. Shared, so read-only:
    callers copy before changing it (one_column and presenter do, and so does st.vega_lite_chart).

    Not st.cache_data: its hashing of the arguments and the pickled copy it hands back on every hit cost
    more than a cached rerun's whole budget on a chart-heavy page.
    """
    key = (name, tuple(arg_key(a) for a in args), tuple(sorted((k, arg_key(v)) for k, v in kwargs.items())))
    spec = _SPECS.get(key)
    if spec is None:
        args = tuple(a.build() if isinstance(a, Named) else a for a in args)
        kwargs = {k: v.build() if isinstance(v, Named) else v for k, v in kwargs.items()}
        spec = to_spec(builder(*args, **kwargs))
        _SPECS.put(key, spec)
    return spec


def clear() -> None:
    """Forget every built spec (tests start from none)."""
    _SPECS.clear()


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
