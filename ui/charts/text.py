"""A chart as text, for a student who cannot see it: a caption with the values it draws, and its data as tables.

Read from the chart's own spec, the one the browser draws: its encodings say which columns are drawn and
under which titles (already in the page's language), its datasets hold the numbers. A caption names each
drawn column's values: every row when the chart has a few, else each column's range (or its categories).
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pandas as pd
import pyarrow as pa

from ui.base.i18n import Translator
from ui.compute import lru

# The channels that carry a value a reader needs; text marks repeat a drawn value, detail only groups.
CHANNELS = ("x", "x2", "y", "y2", "theta", "color", "size", "shape", "opacity", "row", "column", "facet")
FEW_ROWS = 6  # up to this many rows the caption lists them all
MOST_PARTS = 4  # columns named in a caption
MOST_CATEGORIES = 6  # categories named before "and n more"


@dataclass(frozen=True)
class Described:
    """What a chart shows as text: one caption, and each of its datasets as a table under the chart's titles."""

    caption: str
    tables: tuple[pd.DataFrame, ...]


_FRAMES: lru.LRU[pd.DataFrame] = lru.LRU(entries=256)


def _frame(name: str, data: Any) -> pd.DataFrame | None:
    """A dataset of the spec as a frame: Arrow bytes (ui/compute/chart_spec.py) or inline rows, decoded once per name."""
    frame = _FRAMES.get(name)
    if frame is None:
        if isinstance(data, bytes | bytearray):
            frame = pa.ipc.open_stream(pa.py_buffer(data)).read_all().to_pandas()
        elif isinstance(data, list):
            frame = pd.DataFrame(data)
        else:
            return None
        _FRAMES.put(name, frame)
    return frame


def _title(value: Any) -> str | None:
    if isinstance(value, list):
        value = " ".join(str(v) for v in value)
    return str(value).replace("\n", " ").strip() if value not in (None, "") else None


ENDS = ("x2", "y2")  # a bar's or a band's far end, read with its start


def _fields(node: Any) -> Iterator[tuple[str, str | None, bool]]:
    """Every (field, title, is an end) an encoding of the spec draws, its layers and panels included, in spec
    order. A text mark's encodings are left out: its words repeat a value drawn beside them, at a position."""
    if isinstance(node, dict):
        mark = node.get("mark")
        if (mark.get("type") if isinstance(mark, dict) else mark) == "text":
            return
        for key, value in node.items():
            if key in ("encoding", "facet") and isinstance(value, dict):
                for channel in CHANNELS:
                    entries = value.get(channel)
                    for entry in entries if isinstance(entries, list) else [entries]:
                        if isinstance(entry, dict) and isinstance(entry.get("field"), str):
                            axis = entry.get("axis")
                            title = entry.get("title", axis.get("title") if isinstance(axis, dict) else None)
                            yield entry["field"], _title(title), channel in ENDS
            if key not in ("datasets", "data"):
                yield from _fields(value)
    elif isinstance(node, list):
        for value in node:
            yield from _fields(value)


def _datasets(spec: dict[str, Any]) -> list[pd.DataFrame]:
    frames = [f for name, data in (spec.get("datasets") or {}).items() if (f := _frame(name, data)) is not None]
    inline = (spec.get("data") or {}).get("values") if isinstance(spec.get("data"), dict) else None
    if isinstance(inline, list) and inline:
        frames.append(pd.DataFrame(inline))
    return frames


def _number(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return str(value).replace("\n", " ")
    if not math.isfinite(value):
        return str(value)
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{float(value):.4g}"


def _is_colour(values: pd.Series) -> bool:
    """A column of colours (#rrggbb) picks a mark's ink: how the chart looks, not what it says."""
    if not len(values) or pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return False
    return bool(values.astype(str).str.fullmatch(r"#[0-9a-fA-F]{3,8}").all())


def _drawn(frame: pd.DataFrame, fields: dict[str, str | None], ends: set[str]) -> tuple[pd.DataFrame, frozenset[str], frozenset[str]]:
    """The frame's drawn columns under the chart's titles (a column drawn twice, once); which had no title; which are ends."""
    columns = [c for c in fields if c in frame.columns and not _is_colour(frame[c])]
    shown = frame[columns]
    names: dict[str, str] = {}
    for c in shown.columns:
        name = fields[c] or str(c).removesuffix("_label").replace("_", " ")
        names[c] = name if name not in names.values() else f"{name} ({c})"
    untitled = frozenset(names[c] for c in shown.columns if not fields[c])
    return shown.rename(columns=names), untitled, frozenset(names[c] for c in shown.columns if c in ends)


def _column_text(title: str | None, values: pd.Series) -> str:
    """One drawn column in a few words: its range, or its categories. An untitled column (a legend the chart
    does not name) says its values alone."""
    values = values.dropna()
    head = f"{title} " if title else ""
    if values.empty:
        return f"{head}—"
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        lo, hi = values.min(), values.max()
        return f"{head}{_number(lo)}" if lo == hi else f"{head}{_number(lo)} – {_number(hi)}"
    seen = list(dict.fromkeys(_number(v) for v in values))
    more = len(seen) - MOST_CATEGORIES
    named = ", ".join(seen[:MOST_CATEGORIES]) + (f" (+{more})" if more > 0 else "")
    return f"{title}: {named}" if title else named


def _row(row: dict[str, Any], untitled: frozenset[str], ends: frozenset[str]) -> str:
    """One row as "title = value", a bar's end after its start ("= 0 – 1,048,576"), an untitled value alone."""
    text = ""
    for title, value in row.items():
        if title in ends:
            text += f" – {_number(value)}"
        else:
            text += (", " if text else "") + (_number(value) if title in untitled else f"{title} = {_number(value)}")
    return text


def describe(spec: dict[str, Any], t: Translator) -> Described:
    """The caption and the tables of a chart's spec (Vega-Lite, as widgets.chart draws it)."""
    fields: dict[str, str | None] = {}
    ends: set[str] = set()
    for field, title, end in _fields({k: v for k, v in spec.items() if k != "datasets"}):
        if title or field not in fields:
            fields[field] = title or fields.get(field)
        if end:
            ends.add(field)
    drawn = [_drawn(f, fields, ends) for f in _datasets(spec) if len(f)]
    drawn = [d for d in drawn if len(d[0].columns)]
    # The dataset that draws the most columns first (a reference line's one row last).
    drawn.sort(key=lambda d: (-len(d[0].columns), -len(d[0])))
    if not drawn:
        return Described(t("access.chart_empty"), ())
    main, untitled, end_columns = drawn[0]
    if len(main) <= FEW_ROWS and len(main.columns) <= MOST_PARTS:
        values = "; ".join(_row(row, untitled, end_columns) for row in main.to_dict("records"))
    else:
        summed = [c for c in main.columns if c not in end_columns]  # an end's range is its start's, about
        values = "; ".join(_column_text(None if c in untitled else str(c), main[c]) for c in summed[:MOST_PARTS])
        if len(summed) > MOST_PARTS:
            values += "; …"
    key = "access.chart_values_one" if len(main) == 1 else "access.chart_values"
    return Described(t(key, n=len(main), values=values), tuple(d[0] for d in drawn))


# Two languages for each spec chart_spec keeps (ui/compute/chart_spec.py: 512).
_TOLD: lru.LRU[tuple[dict[str, Any], Described]] = lru.LRU(entries=1024)


def describe_shared(spec: dict[str, Any], t: Translator) -> Described:
    """describe() of a spec every session shares (chart_spec.cached_spec), worked out once per language: a
    cached rerun redraws its charts without reading their data again. The entry holds the spec itself, so
    while it lives no other dict can take the spec's id."""
    key = (id(spec), t.lang)
    hit = _TOLD.get(key)
    if hit is not None and hit[0] is spec:
        return hit[1]
    told = describe(spec, t)
    _TOLD.put(key, (spec, told))
    return told

