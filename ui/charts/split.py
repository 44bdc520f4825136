"""The parameter-split page's charts: one block's matrices, whole models by part, presets' FFN share."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ui.i18n import Translator

PART_COLOURS = {
    "embeddings": "#9ca3af",
    "attention": "#2563eb",
    "ffn": "#ea580c",
    "norms": "#facc15",
    "head": "#4b5563",
    "pooler": "#d1d5db",
}


# Channels are built as classes (alt.X2, alt.Text, …), never as shorthand strings or dicts: altair 6
# turns those through from_dict, which rebuilds a table of every schema class on each call (~20 ms).


def _part_scale(t: Translator, parts: list[str]) -> alt.Scale:
    return alt.Scale(domain=[t(f"split.part_{p}") for p in parts], range=[PART_COLOURS[p] for p in parts])


def _spans(frame: pd.DataFrame, column: str, by: str | None = None) -> pd.DataFrame:
    # Explicit start/end instead of Vega's stacking, so the labels can sit in the middle of each piece.
    value = frame[column]
    end = value.groupby(frame[by]).cumsum() if by else value.cumsum()
    return frame.assign(start=end - value, end=end, mid=end - value / 2)


def block_bar(frame: pd.DataFrame, t: Translator) -> alt.LayerChart:
    """One block as a single bar: W_q … W_o in blue, W_1 (W_3) W_2 in orange, each piece labelled."""
    data = _spans(frame.reset_index(drop=True), "params")
    data = data.assign(
        part_label=data["part"].map(lambda p: t(f"split.part_{p}")),
        matrix_label=data["matrix"].map(lambda m: "W" + m[1:]),
        text=[m if s >= 0.05 else "" for m, s in zip(data["matrix"].map(lambda m: "W" + m[1:]), data["share"])],
    )
    parts = [p for p in PART_COLOURS if p in set(data["part"])]
    base = alt.Chart(data)
    bars = base.mark_bar(height=40, stroke="white", strokeWidth=2).encode(
        # "~s" would print the origin as "0M"
        x=alt.X("start:Q", title=t("split.axis_params"),
                axis=alt.Axis(format="~s", tickCount=6, labelExpr="datum.value == 0 ? '0' : datum.label")),
        x2=alt.X2("end:Q"),
        color=alt.Color("part_label:N", title=t("split.legend_part"), scale=_part_scale(t, parts)),
        tooltip=[
            alt.Tooltip("matrix_label:N", title=t("split.axis_matrix")),
            alt.Tooltip("part_label:N", title=t("split.legend_part")),
            alt.Tooltip("params:Q", format=","),
            alt.Tooltip("share:Q", format=".1%"),
        ],
    )
    labels = base.mark_text(color="white", fontWeight="bold").encode(x=alt.X("mid:Q"), text=alt.Text("text:N"))
    return (bars + labels).properties(height=110)


def model_bars(parts: pd.DataFrame, t: Translator, selected: str) -> alt.LayerChart:
    """Every preset as one bar split into embeddings, attention, FFN, norms, head: shares of the whole model."""
    order = list(PART_COLOURS)
    data = parts.assign(rank=parts["part"].map(order.index)).sort_values(["id", "rank"], kind="stable")
    data = _spans(data, "share", by="id")
    data = data.assign(
        part_label=data["part"].map(lambda p: t(f"split.part_{p}")),
        alpha=[1.0 if chosen else 0.45 for chosen in data["id"] == selected],
        text=[f"{s:.0%}" if s >= 0.07 else "" for s in data["share"]],
    )
    names = list(dict.fromkeys(parts["name"]))
    present = [p for p in order if p in set(data["part"])]
    base = alt.Chart(data).encode(y=alt.Y("name:N", sort=names, title=None))
    bars = base.mark_bar(stroke="white", strokeWidth=1).encode(
        x=alt.X("start:Q", title=t("split.axis_share_of_model"), axis=alt.Axis(format="%"),
                scale=alt.Scale(domain=[0, 1])),
        x2=alt.X2("end:Q"),
        color=alt.Color("part_label:N", title=t("split.legend_part"), scale=_part_scale(t, present),
                        legend=alt.Legend(orient="bottom")),
        opacity=alt.Opacity("alpha:Q", scale=None, legend=None),
        tooltip=[
            alt.Tooltip("name:N", title=t("split.axis_model")),
            alt.Tooltip("part_label:N", title=t("split.legend_part")),
            alt.Tooltip("params:Q", format=","),
            alt.Tooltip("share:Q", format=".1%"),
        ],
    )
    labels = base.mark_text(color="white", fontSize=11).encode(x=alt.X("mid:Q"), text=alt.Text("text:N"))
    return (bars + labels).properties(height=alt.Step(26))


def share_bars(table: pd.DataFrame, t: Translator) -> alt.LayerChart:
    """Each preset's FFN share of one block, with 2/3 drawn as a reference line."""
    data = table.assign(text=[f"{s:.1%}" for s in table["ffn_share"]])
    order = list(data.sort_values("ffn_share", ascending=False)["name"])
    base = alt.Chart(data).encode(y=alt.Y("name:N", sort=order, title=None))
    bars = base.mark_bar(color=PART_COLOURS["ffn"]).encode(
        x=alt.X("ffn_share:Q", title=t("split.axis_ffn_share"), axis=alt.Axis(format="%"),
                scale=alt.Scale(domain=[0, 1])),
        tooltip=[
            alt.Tooltip("name:N", title=t("split.axis_model")),
            alt.Tooltip("ffn_share:Q", format=".2%"),
            alt.Tooltip("n_heads:Q", title="h"),
            alt.Tooltip("n_kv_heads:Q", title="h_kv"),
        ],
    )
    labels = base.mark_text(align="left", dx=4).encode(x=alt.X("ffn_share:Q"), text=alt.Text("text:N"))
    reference = pd.DataFrame({"x": [2 / 3], "label": ["2/3"]})
    rule = alt.Chart(reference).mark_rule(strokeDash=[6, 4], color="#111827").encode(x=alt.X("x:Q"))
    rule_text = alt.Chart(reference).mark_text(align="left", dx=4, dy=-8, fontWeight="bold").encode(
        x=alt.X("x:Q"), y=alt.YValue(0), text=alt.Text("label:N")
    )
    return (bars + labels + rule + rule_text).properties(height=alt.Step(26))
