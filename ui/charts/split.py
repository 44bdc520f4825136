"""The parameter-split page's charts: one block's matrices, whole models by part, presets' FFN share."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ui.base.i18n import Translator
from ui.charts import encode, palette

PART_COLOURS = {
    "embeddings": palette.GREY,
    "attention": palette.BLUE,
    "ffn": palette.ORANGE,
    "norms": palette.PURPLE,
    "head": palette.SLATE,
    "pooler": palette.CRIMSON,
}
# The presets not chosen recede a little, and the chosen one is outlined: every part's colour keeps 3:1 on
# white at this (a fade strong enough to mark the choice by itself would take the orange below 2:1).
FADED = 0.87


def _part_scale(t: Translator, parts: list[str]) -> alt.Scale:
    return alt.Scale(domain=[t(f"split.part_{p}") for p in parts], range=[PART_COLOURS[p] for p in parts])


def _spans(frame: pd.DataFrame, column: str, by: str | None = None) -> pd.DataFrame:
    # Explicit start/end instead of Vega's stacking, so the labels can sit in the middle of each piece.
    value = frame[column]
    end = value.groupby(frame[by]).cumsum() if by else value.cumsum()
    return frame.assign(start=end - value, end=end, mid=end - value / 2)


def _reference_lines(at: dict[str, float]) -> list[alt.Chart]:
    """Dashed vertical lines at these shares, each named at the top."""
    reference = pd.DataFrame({"x": list(at.values()), "label": list(at)})
    x = alt.X(field="x", type="quantitative")
    rule = alt.Chart(reference).mark_rule(strokeDash=[6, 4], color=palette.INK).encode(x=x)
    rule_text = alt.Chart(reference).mark_text(align="left", dx=4, dy=-8, fontWeight="bold").encode(
        x=x, y=alt.YValue(0), text=alt.Text(field="label", type="nominal")
    )
    return [rule, rule_text]


def block_bar(frame: pd.DataFrame, t: Translator) -> alt.LayerChart:
    """One block as a single bar: W_q … W_o in blue, W_1 (W_3) W_2 in orange, each piece labelled."""
    data = _spans(frame.reset_index(drop=True), "params")
    matrices = data["matrix"].map(lambda m: "W" + m[1:])
    data = data.assign(
        part_label=data["part"].map(lambda p: t(f"split.part_{p}")),
        matrix_label=matrices,
        text=[m if s >= 0.05 else "" for m, s in zip(matrices, data["share"])],
        ink=data["part"].map(lambda p: palette.ink_on(PART_COLOURS[p])),
    )
    parts = [p for p in PART_COLOURS if p in set(data["part"])]
    bars = alt.Chart().mark_bar(height=40, stroke="white", strokeWidth=2).encode(
        # "~s" would print the origin as "0M"
        x=alt.X(field="start", type="quantitative", title=t("split.axis_params"),
                axis=alt.Axis(format="~s", tickCount=6, labelExpr="datum.value == 0 ? '0' : datum.label")),
        x2=alt.X2(field="end"),
        color=alt.Color(field="part_label", type="nominal", title=t("split.legend_part"), scale=_part_scale(t, parts)),
        tooltip=[
            alt.Tooltip(field="matrix_label", type="nominal", title=t("split.axis_matrix")),
            alt.Tooltip(field="part_label", type="nominal", title=t("split.legend_part")),
            alt.Tooltip(field="params", type="quantitative", format=","),
            alt.Tooltip(field="share", type="quantitative", format=".1%"),
        ],
    )
    labels = alt.Chart().mark_text(fontWeight="bold").encode(
        x=alt.X(field="mid", type="quantitative"), text=alt.Text(field="text", type="nominal"),
        color=alt.Color(field="ink", type="nominal", scale=None),
    )
    return alt.layer(bars, labels, data=data, height=110)


def model_bars(parts: pd.DataFrame, t: Translator, selected: str) -> alt.LayerChart:
    """Every preset as one bar split into embeddings, attention, FFN, norms, head: shares of the whole model."""
    order = list(PART_COLOURS)
    data = parts.assign(rank=parts["part"].map(order.index)).sort_values(["id", "rank"], kind="stable")
    data = _spans(data, "share", by="id")
    data = data.assign(
        part_label=data["part"].map(lambda p: t(f"split.part_{p}")),
        chosen=data["id"] == selected,
        alpha=[1.0 if chosen else FADED for chosen in data["id"] == selected],
        text=[f"{s:.0%}" if s >= 0.07 else "" for s in data["share"]],
        ink=data["part"].map(lambda p: palette.ink_on(PART_COLOURS[p])),
    )
    names = list(dict.fromkeys(parts["name"]))
    present = [p for p in order if p in set(data["part"])]
    base = alt.Chart().encode(y=alt.Y(field="name", type="nominal", sort=names, title=None))
    bars = base.mark_bar().encode(
        x=encode.share(alt.X, "start", t("split.axis_share_of_model")),
        x2=alt.X2(field="end"),
        color=alt.Color(field="part_label", type="nominal", title=t("split.legend_part"),
                        scale=_part_scale(t, present), legend=alt.Legend(orient="bottom")),
        opacity=alt.Opacity(field="alpha", type="quantitative", scale=None, legend=None),
        # The chosen preset's pieces in a dark outline, the others parted by white hairlines.
        stroke=alt.Stroke(field="chosen", type="nominal", legend=None,
                          scale=alt.Scale(domain=[True, False], range=[palette.INK, "white"])),
        strokeWidth=alt.StrokeWidth(field="chosen", type="nominal", legend=None,
                                    scale=alt.Scale(domain=[True, False], range=[2, 1])),
        tooltip=[
            alt.Tooltip(field="name", type="nominal", title=t("split.axis_model")),
            alt.Tooltip(field="part_label", type="nominal", title=t("split.legend_part")),
            alt.Tooltip(field="params", type="quantitative", format=","),
            alt.Tooltip(field="share", type="quantitative", format=".1%"),
        ],
    )
    labels = base.mark_text(fontSize=11).encode(
        x=alt.X(field="mid", type="quantitative"), text=alt.Text(field="text", type="nominal"),
        color=alt.Color(field="ink", type="nominal", scale=None),
    )
    return alt.layer(bars, labels, data=data, height=alt.Step(26))


def share_bars(table: pd.DataFrame, t: Translator) -> alt.LayerChart:
    """Each preset's FFN share of one block, with 2/3 drawn as a reference line."""
    data = table.assign(text=[f"{s:.1%}" for s in table["ffn_share"]])
    order = list(data.sort_values("ffn_share", ascending=False)["name"])
    base = alt.Chart().encode(y=alt.Y(field="name", type="nominal", sort=order, title=None))
    bars = base.mark_bar(color=PART_COLOURS["ffn"]).encode(
        x=encode.share(alt.X, "ffn_share", t("split.axis_ffn_share")),
        tooltip=[
            alt.Tooltip(field="name", type="nominal", title=t("split.axis_model")),
            alt.Tooltip(field="ffn_share", type="quantitative", format=".2%"),
            alt.Tooltip(field="n_heads", type="quantitative", title="h"),
            alt.Tooltip(field="n_kv_heads", type="quantitative", title="h_kv"),
        ],
    )
    labels = base.mark_text(align="left", dx=4).encode(
        x=alt.X(field="ffn_share", type="quantitative"), text=alt.Text(field="text", type="nominal")
    )
    # The bars' frame sits on the layer; the reference line keeps its own.
    return alt.layer(bars, labels, *_reference_lines({"2/3": 2 / 3}), data=data, height=alt.Step(26))


def cause_bars(frame: pd.DataFrame, t: Translator) -> alt.LayerChart:
    """A model's FFN share four ways (base, GQA alone, wider FFN alone, both), with 80% drawn as a line."""
    steps = ["base", "gqa", "wide", "both"]
    data = frame.assign(
        label=[f"{name} · {t(f'split.cause_step_{step}')}" for name, step in zip(frame["name"], frame["step"])],
        text=[f"{s:.1%}" for s in frame["share"]],
    )
    order = [f"{name} · {t(f'split.cause_step_{step}')}" for name in dict.fromkeys(frame["name"]) for step in steps]
    # Vega cuts an axis label at 180 px by default, which left "LLaMA-2 70B · GQ…": the causes are the point,
    # so every label is shown whole.
    base = alt.Chart().encode(y=alt.Y(field="label", type="nominal", sort=order, title=None,
                                      axis=alt.Axis(labelLimit=0)))
    bars = base.mark_bar(color=PART_COLOURS["ffn"]).encode(
        x=encode.share(alt.X, "share", t("split.axis_ffn_share")),
        tooltip=[alt.Tooltip(field="label", type="nominal", title=t("split.axis_model")),
                 alt.Tooltip(field="share", type="quantitative", format=".2%")],
    )
    # Inside the bar's end, in the ink that reads on orange: a value just under 80 % written after its bar sat under the 80 % rule.
    labels = base.mark_text(align="right", dx=-4, color=palette.ink_on(PART_COLOURS["ffn"]), fontWeight="bold").encode(
        x=alt.X(field="share", type="quantitative"), text=alt.Text(field="text", type="nominal")
    )
    return alt.layer(bars, labels, *_reference_lines({"2/3": 2 / 3, "80%": 0.8}), data=data, height=alt.Step(22))
