"""The position-wise page's charts: one token-to-token influence heatmap per layer."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ui.i18n import Translator

# Cell values are written into the squares only while they stay readable.
MAX_LABELLED_TOKENS = 10
# From white, so an exact 0 reads as an empty square, to a dark blue for the strongest influence.
COLOURS = ["#ffffff", "#08519c"]


def influence_heatmap(frame: pd.DataFrame, t: Translator, title: str) -> alt.LayerChart:
    """I[i, j] = ‖∂yᵢ/∂xⱼ‖ as squares: rows are output tokens i, columns input tokens j; 0 is white."""
    n = int(frame["i"].max()) + 1 if len(frame) else 0
    tokens = list(range(n))
    half = float(frame["influence"].max()) / 2 if len(frame) else 0.0
    data = frame.assign(
        label=["0" if v == 0 else f"{v:.2f}" for v in frame["influence"]],
        # White text on the dark half of the scale. A column rather than alt.condition, which costs
        # Altair a slow schema round trip on every rerun.
        ink=["#ffffff" if v > half else "#374151" for v in frame["influence"]],
    )
    base = alt.Chart(data).encode(
        x=alt.X("j:O", title=t("position.axis_input"), sort=tokens, axis=alt.Axis(labelAngle=0)),
        y=alt.Y("i:O", title=t("position.axis_output"), sort=tokens),
    )
    cells = base.mark_rect(stroke="#d1d5db", strokeWidth=0.5).encode(
        color=alt.Color(
            "influence:Q",
            title=t("position.legend_influence"),
            scale=alt.Scale(domainMin=0, range=COLOURS, interpolate="rgb"),
            legend=alt.Legend(orient="right", gradientLength=200),
        ),
        tooltip=[
            alt.Tooltip("i:O", title=t("position.axis_output")),
            alt.Tooltip("j:O", title=t("position.axis_input")),
            alt.Tooltip("influence:Q", title=t("position.legend_influence"), format=".3g"),
        ],
    )
    if n > MAX_LABELLED_TOKENS:
        return alt.layer(cells).properties(title=title, height=360)
    labels = base.mark_text(fontSize=10).encode(text="label:N", color=alt.Color("ink:N", scale=None))
    return alt.layer(cells, labels).properties(title=title, height=360)
