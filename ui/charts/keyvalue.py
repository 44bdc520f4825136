"""The key-value page's charts: the biggest neuron contributions, and the cumulative share of ‖y‖."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ui.base.i18n import Translator
from ui.charts import encode, palette

STATE_COLOURS = {"untrained": palette.MUTED, "trained": palette.ORANGE}
SIGN_COLOURS = {"positive": palette.BLUE, "negative": palette.RED}


def top_contributions(frame: pd.DataFrame, t: Translator, top_k: int) -> pd.DataFrame:
    """The top_k neurons of each state by |projection|, labelled for the chart."""
    rows = []
    for state, group in frame.groupby("state", sort=False):
        top = group.reindex(group["projection"].abs().sort_values(ascending=False).index).head(top_k)
        rows.append(top.assign(state_label=t(f"keyvalue.state_{state}")))
    data = pd.concat(rows, ignore_index=True)
    return data.assign(
        neuron_label="#" + data["neuron"].astype(str),
        sign_label=[t("keyvalue.sign_positive") if p >= 0 else t("keyvalue.sign_negative") for p in data["projection"]],
    )


def contributions(data: pd.DataFrame, t: Translator, state: str) -> alt.Chart:
    """One state's top neurons as bars: (a_i v_i)·ŷ, largest first, blue adds to y, red takes away."""
    rows = data[data["state"] == state]
    return (
        alt.Chart(rows)
        .mark_bar()
        .encode(
            x=alt.X(field="neuron_label", type="nominal",
                    sort=alt.EncodingSortField(field="projection", order="descending"),
                    title=t("keyvalue.axis_neuron")),
            y=alt.Y(field="projection", type="quantitative", title=t("keyvalue.axis_projection")),
            color=encode.colour("sign_label", [t("keyvalue.sign_positive"), t("keyvalue.sign_negative")],
                                list(SIGN_COLOURS.values()), t("keyvalue.legend_sign")),
            tooltip=[
                alt.Tooltip(field="neuron", type="quantitative", title=t("keyvalue.axis_neuron")),
                alt.Tooltip(field="coefficient", type="quantitative", title="aᵢ", format=".4f"),
                alt.Tooltip(field="norm", type="quantitative", title="‖aᵢvᵢ‖", format=".4f"),
                alt.Tooltip(field="projection", type="quantitative", title="(aᵢvᵢ)·ŷ", format=".4f"),
            ],
        )
        # Streamlit's height is the whole chart: legend and the rotated neuron labels come out of it.
        .properties(title=t(f"keyvalue.state_{state}"), height=380)
    )


def cumulative(frame: pd.DataFrame, marks: pd.DataFrame, t: Translator) -> alt.LayerChart:
    """Cumulative share of ‖y‖ against the number of neurons (largest first), with the 50% / 90% counts."""
    data = frame.assign(state_label=frame["state"].map(lambda s: t(f"keyvalue.state_{s}")))
    states = [s for s in STATE_COLOURS if s in set(frame["state"])]
    colour = encode.colour("state_label", [t(f"keyvalue.state_{s}") for s in states],
                           [STATE_COLOURS[s] for s in states], t("keyvalue.legend_state"))
    state_tip = alt.Tooltip(field="state_label", type="nominal", title=t("keyvalue.legend_state"))
    share = alt.Y(field="share", type="quantitative")
    curve = alt.Chart(data).mark_line(interpolate="step-after").encode(
        x=alt.X(field="rank", type="quantitative", title=t("keyvalue.axis_rank"),
                scale=alt.Scale(type="log", domain=[1, int(frame["rank"].max())], nice=False)),
        y=alt.Y(field="cumulative_share", type="quantitative", title=t("keyvalue.axis_cumulative"),
                axis=alt.Axis(format="%")),
        color=colour,
        tooltip=[
            state_tip,
            alt.Tooltip(field="rank", type="quantitative", title=t("keyvalue.axis_rank")),
            alt.Tooltip(field="cumulative_share", type="quantitative", title=t("keyvalue.axis_cumulative"),
                        format=".1%"),
        ],
    )
    levels = pd.DataFrame({"share": [0.5, 0.9], "label": ["50%", "90%"]})
    rules = alt.Chart(levels).mark_rule(strokeDash=[6, 4], color=palette.INK).encode(y=share)
    rule_text = alt.Chart(levels).mark_text(align="left", dx=4, dy=-6, fontWeight="bold").encode(
        y=share, x=alt.XValue(0), text=alt.Text(field="label", type="nominal")
    )
    points_data = marks.assign(state_label=marks["state"].map(lambda s: t(f"keyvalue.state_{s}")))
    points = alt.Chart(points_data).mark_point(size=90, filled=True, opacity=1).encode(
        x=alt.X(field="neurons", type="quantitative"),
        y=share,
        color=colour,
        tooltip=[state_tip,
                 alt.Tooltip(field="share", type="quantitative", format=".0%"),
                 alt.Tooltip(field="neurons", type="quantitative", title=t("keyvalue.axis_rank"))],
    )
    return alt.layer(curve, rules, rule_text, points, height=380)
