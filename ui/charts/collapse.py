"""The linear-collapse page's chart: the singular values of W₂W₁ on a log scale."""
from __future__ import annotations

import math

import altair as alt
import pandas as pd

from ui.base.i18n import Translator
from ui.charts import encode, palette

COUNTED = palette.BLUE
ZERO = palette.RED
# The fit's dots overlap (a darker cloud where many fall); one dot alone still has 3:1 on white at this.
FIT_OPACITY = 0.75


def singular_values(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """σₖ of W₂W₁ against k, log y; those the rank counts as blue dots, numerical zeros as red crosses."""
    # A log axis cannot place an exact 0; those (rare) values are left out rather than faked.
    data = frame[frame["singular_value"] > 0].assign(
        status=frame["counted"].map({True: t("collapse.counted_yes"), False: t("collapse.counted_no")})
    )
    # Ticks only at powers of ten (every other one over a long range): Vega's own log ticks mix
    # 3e-1, 1e-1, 2e-2 … which reads as noise on a projector.
    values = data["singular_value"]
    low = math.floor(math.log10(values.min())) if len(values) else -1
    high = math.ceil(math.log10(values.max())) if len(values) else 1
    high = max(high, low + 1)
    step = 1 if high - low <= 8 else 2
    ticks = [10.0**k for k in range(high, low - 1, -step)]
    return (
        alt.Chart(data)
        .mark_point(filled=True, size=40, opacity=1)
        .encode(
            x=alt.X(field="index", type="quantitative", title=t("collapse.axis_index"),
                    scale=alt.Scale(domainMin=1, nice=False)),
            y=alt.Y(field="singular_value", type="quantitative", title=t("collapse.axis_sv"),
                    scale=alt.Scale(type="log", domain=[10.0**low, 10.0**high], nice=False),
                    axis=alt.Axis(format=".0e", values=ticks, labelExpr="datum.value == 1 ? '1' : datum.label")),
            color=encode.colour("status", [t("collapse.counted_yes"), t("collapse.counted_no")], [COUNTED, ZERO],
                                t("collapse.legend_counted")),
            # The same field, title and legend: Vega draws one legend whose symbols show both the colour and the shape.
            shape=alt.Shape(
                field="status",
                type="nominal",
                title=t("collapse.legend_counted"),
                scale=alt.Scale(domain=[t("collapse.counted_yes"), t("collapse.counted_no")], range=["circle", "cross"]),
                legend=alt.Legend(orient="top"),
            ),
            tooltip=[
                alt.Tooltip(field="index", type="quantitative", title=t("collapse.col_k")),
                alt.Tooltip(field="singular_value", type="quantitative", title=t("collapse.col_sv"), format=".3e"),
                alt.Tooltip(field="status", type="nominal", title=t("collapse.legend_counted")),
            ],
        )
        .properties(height=380)
    )


def fit_scatter(frame: pd.DataFrame, t: Translator) -> alt.LayerChart:
    """The layer's output feature 0 against the best affine map's prediction; a perfect fit would lie on the diagonal."""
    low = float(min(frame["actual"].min(), frame["predicted"].min()))
    high = float(max(frame["actual"].max(), frame["predicted"].max()))
    scale = alt.Scale(domain=[low, high])
    points = alt.Chart(frame).mark_circle(size=28, opacity=FIT_OPACITY, color=COUNTED).encode(
        x=alt.X(field="predicted", type="quantitative", title=t("collapse.axis_predicted"), scale=scale),
        y=alt.Y(field="actual", type="quantitative", title=t("collapse.axis_actual"), scale=scale),
    )
    diagonal = alt.Chart(pd.DataFrame({"predicted": [low, high], "actual": [low, high]})).mark_line(
        color=palette.INK, strokeDash=[6, 4]).encode(
        x=alt.X(field="predicted", type="quantitative"), y=alt.Y(field="actual", type="quantitative"))
    return alt.layer(points, diagonal, height=320)
