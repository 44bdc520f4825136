"""The width-sweep page's charts: fits with kink markers, RMSE by width, pieces used against the bound, loss."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ui.i18n import Translator

TARGET = "#6b7280"
KINK = "#dc2626"
METHOD_COLORS = {"pieces": "#2563eb", "naive": "#f97316"}
SERIES_COLORS = {"pieces": "#2563eb", "naive": "#f97316", "best": "#16a34a", "seed": "#9333ea"}


def _method_scale(t: Translator, methods: list[str]) -> alt.Scale:
    return alt.Scale(domain=[t(f"sweep.method_{m}") for m in methods], range=[METHOD_COLORS[m] for m in methods])


def fits(curves: pd.DataFrame, kinks: pd.DataFrame, t: Translator) -> alt.FacetChart:
    """One panel per width: the target (grey), each method's fit, and red marks at the kinks inside the range."""
    methods = list(dict.fromkeys(curves["method"]))
    target = curves[curves["method"] == methods[0]].assign(kind="target", series=t("sweep.series_target"),
                                                           y=lambda d: d["target"])
    fitted = curves.assign(kind="fit", series=curves["method"].map(lambda m: t(f"sweep.method_{m}")),
                           y=curves["fit"])
    marks = kinks.assign(kind="kink", series=kinks["method"].map(lambda m: t(f"sweep.method_{m}")),
                         x=kinks["kink"])
    cols = ["kind", "series", "width", "x", "y"]
    data = pd.concat([target[cols], fitted[cols], marks[cols]], ignore_index=True)
    x = alt.X("x:Q", title="x")
    y = alt.Y("y:Q", title="y")
    base = alt.Chart(data)
    target_line = base.transform_filter(alt.datum.kind == "target").mark_line(
        color=TARGET, strokeDash=[5, 3], strokeWidth=2).encode(x=x, y=y)
    fit_line = base.transform_filter(alt.datum.kind == "fit").mark_line(strokeWidth=2).encode(
        x=x, y=y, color=alt.Color("series:N", title=t("sweep.legend_method"), scale=_method_scale(t, methods),
                                  legend=alt.Legend(orient="bottom")))
    kink_marks = base.transform_filter(alt.datum.kind == "kink").mark_point(
        color=KINK, shape="triangle-up", filled=True, size=45).encode(
        x=x, y=y, tooltip=[alt.Tooltip("series:N", title=t("sweep.legend_method")),
                           alt.Tooltip("x:Q", title=t("sweep.col_kink"), format=".3f")])
    columns = min(3, data["width"].nunique())  # three panels fit a laptop-wide main column
    return (
        alt.layer(target_line, fit_line, kink_marks)
        .properties(width=220, height=150)
        .facet(facet=alt.Facet("width:O", title=t("sweep.axis_width_panel")), columns=columns)
    )


def rmse_by_width(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """RMSE against width, both on log scales: this run (per method), the best found, the seed's figures."""
    series = list(dict.fromkeys(frame["series"]))
    data = frame.assign(label=frame["series"].map(lambda s: t(f"sweep.series_{s}")))
    scale = alt.Scale(domain=[t(f"sweep.series_{s}") for s in series], range=[SERIES_COLORS[s] for s in series])
    return (
        alt.Chart(data)
        .mark_line(point=True)
        .encode(
            x=alt.X("width:Q", title=t("sweep.axis_width"), scale=alt.Scale(type="log", base=2),
                    axis=alt.Axis(values=sorted(set(frame["width"])), format="d")),
            y=alt.Y("rmse:Q", title=t("sweep.axis_rmse"), scale=alt.Scale(type="log")),
            color=alt.Color("label:N", title=t("sweep.legend_series"), scale=scale,
                            legend=alt.Legend(orient="bottom", columns=2, labelLimit=320)),
            strokeDash=alt.condition(alt.datum.series == "best", alt.value([6, 3]), alt.value([1, 0])),
            tooltip=[alt.Tooltip("label:N", title=t("sweep.legend_series")),
                     alt.Tooltip("width:Q", title=t("sweep.col_width")),
                     alt.Tooltip("rmse:Q", title=t("sweep.col_rmse"), format=".4g")],
        )
        .properties(height=300)
    )


def pieces(frame: pd.DataFrame, t: Translator) -> alt.LayerChart:
    """Pieces the fit really uses (kinks inside + 1) per width and method, against the bound m + 1 (black tick)."""
    methods = list(dict.fromkeys(frame["method"]))
    data = frame.assign(label=frame["method"].map(lambda m: t(f"sweep.method_{m}")),
                        width_label=frame["width"].astype(str))
    x = alt.X("width_label:N", title=t("sweep.axis_width_panel"), sort=[str(w) for w in sorted(set(frame["width"]))],
              axis=alt.Axis(labelAngle=0))
    bars = alt.Chart(data).mark_bar().encode(
        x=x, xOffset="label:N",
        y=alt.Y("pieces_used:Q", title=t("sweep.axis_pieces"), scale=alt.Scale(type="symlog")),
        color=alt.Color("label:N", title=t("sweep.legend_method"), scale=_method_scale(t, methods),
                        legend=alt.Legend(orient="bottom")),
        tooltip=[alt.Tooltip("label:N", title=t("sweep.legend_method")),
                 alt.Tooltip("width:Q", title=t("sweep.col_width")),
                 alt.Tooltip("pieces_used:Q", title=t("sweep.col_pieces_used")),
                 alt.Tooltip("pieces_bound:Q", title=t("sweep.col_bound"))],
    )
    bound = alt.Chart(data.drop_duplicates("width")).mark_tick(color="black", thickness=3, size=38).encode(
        x=x, y="pieces_bound:Q", tooltip=[alt.Tooltip("pieces_bound:Q", title=t("sweep.col_bound"))])
    return alt.layer(bars, bound).properties(height=260)


def loss(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """RMSE over the training steps, one line per width (dashed for the naive method), log y."""
    data = frame.assign(label=frame["method"].map(lambda m: t(f"sweep.method_{m}")))
    return (
        alt.Chart(data)
        .mark_line()
        .encode(
            x=alt.X("step:Q", title=t("sweep.axis_step")),
            y=alt.Y("rmse:Q", title=t("sweep.axis_rmse"), scale=alt.Scale(type="log")),
            color=alt.Color("width:O", title=t("sweep.col_width"), scale=alt.Scale(scheme="viridis"),
                            legend=alt.Legend(orient="bottom")),
            strokeDash=alt.StrokeDash("label:N", title=t("sweep.legend_method"), legend=alt.Legend(orient="bottom")),
            detail="method:N",
            tooltip=[alt.Tooltip("label:N", title=t("sweep.legend_method")),
                     alt.Tooltip("width:O", title=t("sweep.col_width")),
                     alt.Tooltip("step:Q", title=t("sweep.axis_step")),
                     alt.Tooltip("rmse:Q", title=t("sweep.col_rmse"), format=".4g")],
        )
        .properties(height=260)
    )
