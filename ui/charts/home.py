"""The home page's chart: where one block's parameters sit."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ui.base.i18n import Translator
from ui.charts import encode, palette

PART_COLOURS = {"attention": palette.BLUE, "ffn": palette.ORANGE}


def block_bar(parts: pd.DataFrame, t: Translator) -> alt.LayerChart:
    """One horizontal bar, attention then FFN, each segment labelled with its count and share."""
    order = parts.set_index("part").loc[list(PART_COLOURS)].reset_index()
    end = order["params"].cumsum()
    data = order.assign(
        label=[t(f"home.part_{p}") for p in order["part"]],
        start=end - order["params"],
        end=end,
        # Count over share, on two lines: on a phone a third of the bar is about 110 pixels wide.
        text=[f"{n:,}\n({s:.1%})" for n, s in zip(order["params"], order["share"])],
        ink=[palette.ink_on(PART_COLOURS[p]) for p in order["part"]],
    )
    bars = alt.Chart().mark_bar(height=40).encode(
        x=alt.X(field="start", type="quantitative", title=t("home.axis_params")),
        x2=alt.X2(field="end"),
        # A legend at the right takes a phone's bar width.
        color=encode.colour("label", list(data["label"]), list(PART_COLOURS.values()), orient="bottom"),
        tooltip=[alt.Tooltip(field="label", type="nominal", title=""), alt.Tooltip(field="params", type="quantitative", format=",")],
    )
    text = alt.Chart().mark_text(fontWeight="bold", dx=-8, align="right", lineBreak="\n").encode(
        x=alt.X(field="end", type="quantitative"), text=alt.Text(field="text", type="nominal"),
        color=alt.Color(field="ink", type="nominal", scale=None),
    )
    return alt.layer(bars, text, data=data, height=110)
