"""The width-sweep page's charts: fits with kink markers, RMSE by width, pieces used against the bound, loss."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import altair as alt
import pandas as pd

from ffn_core.sweep import sweep
from ui.base.i18n import Translator
from ui.charts import encode, palette

TARGET = palette.GREY
KINK = palette.RED  # the kinks are triangles: their shape, not their red, sets them apart from the orange fit
METHOD_COLORS = {"pieces": palette.BLUE, "naive": palette.ORANGE}
# The page's text names the best run's line green and the seed's purple.
SERIES_COLORS = {**METHOD_COLORS, "best": palette.GREEN, "seed": palette.PURPLE}


def _method_colour(t: Translator, field: str, methods: list[str]) -> alt.Color:
    return encode.colour(field, [t(f"sweep.method_{m}") for m in methods], [METHOD_COLORS[m] for m in methods],
                         t("sweep.legend_method"), orient="bottom")


def rmse_series(results: Iterable[sweep.Sweep], best_rmse: Sequence[float],
                seed_rmse: Mapping[int, float] | None = None) -> pd.DataFrame:
    """Long rows (series, width, rmse) for rmse_by_width: each method's fits, the best found, the seed's if given."""
    results = list(results)
    widths = [f.width for f in results[0].fits]
    rows = [(r.method, f.width, f.rmse) for r in results for f in r.fits]
    rows += [("best", m, r) for m, r in zip(widths, best_rmse)]
    rows += [("seed", m, r) for m, r in (seed_rmse or {}).items()]
    # A log axis has no place for an exact fit (rounding noise, or 0): such points are left out, not faked.
    tol = results[0].exact_tol
    return pd.DataFrame([row for row in rows if row[2] > tol], columns=["series", "width", "rmse"])


def fits(curves: pd.DataFrame, kinks: pd.DataFrame, t: Translator) -> alt.FacetChart:
    """One panel per width: the target (grey), each method's fit, and red marks at the kinks inside the range."""
    methods = list(curves["method"].unique())  # in order of appearance
    # One translation per method rather than one per row: the curves run to thousands of rows.
    labels = {m: t(f"sweep.method_{m}") for m in (*methods, *kinks["method"].unique())}
    target = curves[curves["method"] == methods[0]].assign(kind="target", series=t("sweep.series_target"),
                                                           y=lambda d: d["target"])
    fitted = curves.assign(kind="fit", series=curves["method"].map(labels), y=curves["fit"])
    marks = kinks.assign(kind="kink", series=kinks["method"].map(labels), x=kinks["kink"])
    cols = ["kind", "series", "width", "x", "y"]
    data = pd.concat([target[cols], fitted[cols], marks[cols]], ignore_index=True)
    x = alt.X(field="x", type="quantitative", title="x")
    y = alt.Y(field="y", type="quantitative", title="y")
    # The frame is handed to facet() rather than to each layer: layers that each carry the same frame
    # make Altair hash it, through its text repr, to hoist it to the layer (and facet moves it on again).
    base = alt.Chart()
    target_line = base.transform_filter(alt.datum.kind == "target").mark_line(
        color=TARGET, strokeDash=[5, 3], strokeWidth=2).encode(x=x, y=y)
    fit_line = base.transform_filter(alt.datum.kind == "fit").mark_line(strokeWidth=2).encode(
        x=x, y=y, color=_method_colour(t, "series", methods))
    kink_marks = base.transform_filter(alt.datum.kind == "kink").mark_point(
        color=KINK, shape="triangle-up", filled=True, size=45, opacity=1).encode(
        x=x, y=y, tooltip=[alt.Tooltip(field="series", type="nominal", title=t("sweep.legend_method")),
                           alt.Tooltip(field="x", type="quantitative", title=t("sweep.col_kink"), format=".3f")])
    columns = min(3, data["width"].nunique())  # three panels fit a laptop-wide main column
    return alt.layer(target_line, fit_line, kink_marks, width=220, height=150).facet(
        facet=alt.Facet(field="width", type="ordinal", title=t("sweep.axis_width_panel")), columns=columns, data=data
    )


def rmse_by_width(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """RMSE against width, both on log scales: this run (per method), the best found, the seed's figures."""
    series = list(dict.fromkeys(frame["series"]))
    data = frame.assign(label=frame["series"].map(lambda s: t(f"sweep.series_{s}")))
    return (
        alt.Chart(data)
        .mark_line(point=True)
        .encode(
            x=alt.X(field="width", type="quantitative", title=t("sweep.axis_width"),
                    scale=alt.Scale(type="log", base=2),
                    axis=alt.Axis(values=sorted(set(frame["width"])), format="d")),
            y=alt.Y(field="rmse", type="quantitative", title=t("sweep.axis_rmse"), scale=alt.Scale(type="log")),
            color=encode.colour("label", [t(f"sweep.series_{s}") for s in series], [SERIES_COLORS[s] for s in series],
                                t("sweep.legend_series"), orient="bottom", columns=1, labelLimit=320),
            # alt.condition returns a plain dict, which encode() would send through from_dict: unpacked instead.
            strokeDash=alt.StrokeDashValue(
                **alt.condition(alt.datum.series == "best", alt.value([6, 3]), alt.value([1, 0]))
            ),
            tooltip=[alt.Tooltip(field="label", type="nominal", title=t("sweep.legend_series")),
                     alt.Tooltip(field="width", type="quantitative", title=t("sweep.col_width")),
                     alt.Tooltip(field="rmse", type="quantitative", title=t("sweep.col_rmse"), format=".4g")],
        )
        .properties(height=300)
    )


def pieces(frame: pd.DataFrame, t: Translator) -> alt.LayerChart:
    """Pieces the fit really uses (kinks inside + 1) per width and method, against the bound m + 1 (black tick)."""
    methods = list(dict.fromkeys(frame["method"]))
    data = frame.assign(label=frame["method"].map(lambda m: t(f"sweep.method_{m}")),
                        width_label=frame["width"].astype(str))
    x = alt.X(field="width_label", type="nominal", title=t("sweep.axis_width_panel"),
              sort=[str(w) for w in sorted(set(frame["width"]))], axis=alt.Axis(labelAngle=0))
    bound_tip = alt.Tooltip(field="pieces_bound", type="quantitative", title=t("sweep.col_bound"))
    bars = alt.Chart(data).mark_bar().encode(
        x=x, xOffset=alt.XOffset(field="label", type="nominal"),
        # A linear axis with whole-number ticks: a symlog one labelled only 0 and 30 made 3 pieces look like 12.
        y=alt.Y(field="pieces_used", type="quantitative", title=t("sweep.axis_pieces"),
                scale=alt.Scale(type="linear", nice=True), axis=alt.Axis(tickMinStep=1, format="d")),
        color=_method_colour(t, "label", methods),
        tooltip=[alt.Tooltip(field="label", type="nominal", title=t("sweep.legend_method")),
                 alt.Tooltip(field="width", type="quantitative", title=t("sweep.col_width")),
                 alt.Tooltip(field="pieces_used", type="quantitative", title=t("sweep.col_pieces_used")),
                 bound_tip],
    )
    bound = alt.Chart(data.drop_duplicates("width")).mark_tick(color="black", thickness=3, size=38).encode(
        x=x, y=alt.Y(field="pieces_bound", type="quantitative"), tooltip=[bound_tip])
    # Each bar carries its count, so a small one reads as exactly as a tall one.
    labels = bars.mark_text(baseline="bottom", dy=-2, fontSize=12).encode(
        text=alt.Text(field="pieces_used", type="quantitative", format="d"))
    return alt.layer(bars, labels, bound, height=260)


def loss(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """RMSE over the training steps, one line per width (dashed for the naive method), log y."""
    # One translation per method rather than one per row (redrawn at every live-training snapshot).
    data = frame.assign(label=frame["method"].map({m: t(f"sweep.method_{m}") for m in frame["method"].unique()}))
    widths = sorted(int(w) for w in frame["width"].unique())
    return (
        alt.Chart(data)
        .mark_line()
        .encode(
            x=alt.X(field="step", type="quantitative", title=t("sweep.axis_step")),
            y=alt.Y(field="rmse", type="quantitative", title=t("sweep.axis_rmse"), scale=alt.Scale(type="log")),
            # Viridis's dark half: its light end (yellow) had 1.3:1 on white.
            color=alt.Color(field="width", type="ordinal", title=t("sweep.col_width"),
                            scale=alt.Scale(domain=widths, range=palette.ramp(len(widths))),
                            legend=alt.Legend(orient="bottom")),
            strokeDash=alt.StrokeDash(field="label", type="nominal", title=t("sweep.legend_method"),
                                      legend=alt.Legend(orient="bottom")),
            detail=alt.Detail(field="method", type="nominal"),
            tooltip=[alt.Tooltip(field="label", type="nominal", title=t("sweep.legend_method")),
                     alt.Tooltip(field="width", type="ordinal", title=t("sweep.col_width")),
                     alt.Tooltip(field="step", type="quantitative", title=t("sweep.axis_step")),
                     alt.Tooltip(field="rmse", type="quantitative", title=t("sweep.col_rmse"), format=".4g")],
        )
        .properties(height=260)
    )


def by_params(frame: pd.DataFrame, t: Translator) -> alt.LayerChart:
    """RMSE against the network's weights (3m + 1), both log, each point named by its expansion of d = 8."""
    data = frame[~frame["exact_on_grid"]]  # an error at rounding level has no place on a log axis
    base = alt.Chart(data).encode(
        x=alt.X(field="params", type="quantitative", title=t("sweep.axis_params"), scale=alt.Scale(type="log")),
        y=alt.Y(field="rmse", type="quantitative", title=t("sweep.axis_rmse"), scale=alt.Scale(type="log")),
        tooltip=[alt.Tooltip(field="expansion", type="nominal", title=t("sweep.col_expansion")),
                 alt.Tooltip(field="width", type="quantitative", title=t("sweep.col_width")),
                 alt.Tooltip(field="params", type="quantitative", title=t("sweep.col_params")),
                 alt.Tooltip(field="rmse", type="quantitative", title=t("sweep.col_rmse"), format=".4g")],
    )
    line = base.mark_line(point=True, color=METHOD_COLORS["pieces"])
    labels = base.mark_text(dy=-12, fontSize=13).encode(text=alt.Text(field="expansion", type="nominal"))
    return alt.layer(line, labels, height=280)
