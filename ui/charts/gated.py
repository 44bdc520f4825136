"""The gated-FFN page's charts: the gate on one token, what each gate lets through, the fit at equal weights."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ui.base.i18n import Translator
from ui.charts import encode, palette

GATE_COLORS = {g: palette.ACTIVATION[g] for g in ("silu", "gelu", "relu")}  # the activations chart's colours
GATE_SHAPES = {"silu": "circle", "gelu": "square", "relu": "triangle-up"}
KIND_COLORS = {"plain": palette.GREY, "gated": palette.BLUE, "target": palette.INK}
# The fractions chart's measures: none of the gates' colours, which on this page name a gate.
MEASURE_COLORS = {"bar_down": palette.SLATE, "bar_leak": palette.PURPLE, "bar_active": palette.GREY}


def gate_curve(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """act(z) against z for every hidden unit of the token, a colour and a shape per gate; z < 0 is where it turns down."""
    data = frame.assign(gate_label=frame["gate"].map(lambda g: t(f"gated.act_{g}")))
    domain = [t(f"gated.act_{g}") for g in GATE_COLORS]
    # Opaque (Vega-Lite draws points at 0.7 unless told): a faded green falls below 3:1 on white.
    # The three curves part for z < 0, where the shapes tell them apart.
    return (
        alt.Chart(data)
        .mark_point(size=26, filled=True, opacity=1)
        .encode(
            x=alt.X(field="z", type="quantitative", title=t("gated.axis_z")),
            y=alt.Y(field="gate_value", type="quantitative", title=t("gated.axis_gate")),
            color=encode.colour("gate_label", domain, list(GATE_COLORS.values()), t("gated.legend_gate")),
            shape=alt.Shape(field="gate_label", type="nominal", title=t("gated.legend_gate"),
                            scale=alt.Scale(domain=domain, range=list(GATE_SHAPES.values())),
                            legend=alt.Legend(orient="top")),
            tooltip=[alt.Tooltip(field="unit", type="quantitative", title=t("gated.col_unit")),
                     alt.Tooltip(field="z", type="quantitative", format=".3f"),
                     alt.Tooltip(field="gate_value", type="quantitative", title=t("gated.axis_gate"), format=".3f"),
                     alt.Tooltip(field="h", type="quantitative", title=t("gated.col_h"), format=".3f")],
        )
        .properties(height=320)
    )


def gate_fractions(frame: pd.DataFrame, relu_active: float, t: Translator) -> alt.Chart:
    """Per gate: the share of units turned down, and the share of |h| those still carry."""
    rows = []
    for row in frame.itertuples():
        label = t(f"gated.act_{row.gate}")
        rows += [{"gate": label, "measure": t("gated.bar_down"), "value": row.turned_down},
                 {"gate": label, "measure": t("gated.bar_leak"), "value": row.leak}]
    rows.append({"gate": t("gated.bar_relu_ffn"), "measure": t("gated.bar_active"), "value": relu_active})
    data = pd.DataFrame(rows)
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            y=alt.Y(field="gate", type="nominal", title=None, sort=None),
            x=encode.share(alt.X, "value", t("gated.axis_share")),
            yOffset=alt.YOffset(field="measure", type="nominal"),
            color=encode.colour("measure", [t(f"gated.{m}") for m in MEASURE_COLORS], list(MEASURE_COLORS.values()),
                                columns=1),
            tooltip=[alt.Tooltip(field="gate", type="nominal"), alt.Tooltip(field="measure", type="nominal"),
                     alt.Tooltip(field="value", type="quantitative", format=".1%")],
        )
        .properties(height=320)
    )


def rmse_by_params(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """RMSE against the weight count, plain and gated, log scales; an exact fit (RMSE 0) cannot be placed and is left out."""
    data = frame[frame["rmse"] > 0].assign(kind_label=frame["kind"].map(lambda k: t(f"gated.kind_{k}")))
    domain = [t("gated.kind_plain"), t("gated.kind_gated")]
    return (
        alt.Chart(data)
        .mark_line(point=True)
        .encode(
            x=alt.X(field="params", type="quantitative", title=t("gated.axis_params"), scale=alt.Scale(type="log")),
            y=alt.Y(field="rmse", type="quantitative", title="RMSE", scale=alt.Scale(type="log")),
            color=encode.colour("kind_label", domain, [KIND_COLORS["plain"], KIND_COLORS["gated"]]),
            tooltip=[alt.Tooltip(field="kind_label", type="nominal", title=t("gated.col_kind")),
                     alt.Tooltip(field="width", type="quantitative", title=t("gated.col_width")),
                     alt.Tooltip(field="params", type="quantitative", title=t("gated.col_params")),
                     alt.Tooltip(field="rmse", type="quantitative", format=".3e")],
        )
        .properties(height=320)
    )


def curves(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """The target and both networks at the largest weight count."""
    data = frame.assign(kind_label=frame["kind"].map(lambda k: t(f"gated.kind_{k}")))
    domain = [t(f"gated.kind_{k}") for k in KIND_COLORS]
    return (
        alt.Chart(data)
        .mark_line()
        .encode(
            x=alt.X(field="x", type="quantitative", title="x"),
            y=alt.Y(field="y", type="quantitative", title="y"),
            color=encode.colour("kind_label", domain, list(KIND_COLORS.values())),
            strokeDash=alt.StrokeDash(field="kind_label", type="nominal", legend=None,
                                      scale=alt.Scale(domain=domain, range=[[1, 0], [1, 0], [4, 3]])),
        )
        .properties(height=320)
    )
