"""The home page's chart: where one block's parameters sit."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ui.i18n import Translator

PART_COLOURS = {"attention": "#2563eb", "ffn": "#ea580c"}


def block_bar(parts: pd.DataFrame, t: Translator) -> alt.Chart:
    """One horizontal bar, attention then FFN, each labelled with its count and share."""
    data = parts.assign(
        label=parts["part"].map(lambda p: t(f"home.part_{p}")),
        text=[f"{n:,} ({s:.1%})" for n, s in zip(parts["params"], parts["share"])],
        order=parts["part"].map({"attention": 0, "ffn": 1}),
    )
    base = alt.Chart(data).encode(
        x=alt.X("sum(params):Q", stack="zero", title=t("home.axis_params")),
        order=alt.Order("order:Q"),
    )
    bars = base.mark_bar(height=46).encode(
        color=alt.Color(
            "label:N",
            title=None,
            scale=alt.Scale(domain=[t("home.part_attention"), t("home.part_ffn")], range=list(PART_COLOURS.values())),
            legend=alt.Legend(orient="bottom"),
        ),
        tooltip=[alt.Tooltip("label:N", title=""), alt.Tooltip("params:Q", format=","), alt.Tooltip("share:Q", format=".1%")],
    )
    text = base.mark_text(color="white", fontWeight="bold", dx=-8, align="right").encode(
        x=alt.X("sum(params):Q", stack="zero"), text="text:N", detail="label:N"
    )
    return (bars + text).properties(height=90)
