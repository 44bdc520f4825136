"""The position-wise page's charts: one token-to-token influence heatmap per layer."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ui.base.i18n import Translator
from ui.charts import palette

# Cell values are written into the squares only while they stay readable.
MAX_LABELLED_TOKENS = 10
# From white, so an exact 0 reads as an empty square, to a dark blue for the strongest influence.
COLOURS = list(palette.HEAT)
INK = list(palette.HEAT_INK)  # cell text on the dark and on the light half of the scale


def influence_heatmap(frame: pd.DataFrame, t: Translator, title: str) -> alt.LayerChart:
    """I[i, j] = ‖∂yᵢ/∂xⱼ‖ as squares: rows are output tokens i, columns input tokens j; 0 is white."""
    n = int(frame["i"].max()) + 1 if len(frame) else 0
    tokens = list(range(n))
    half = float(frame["influence"].max()) / 2 if len(frame) else 0.0
    data = frame.assign(
        label=["0" if v == 0 else f"{v:.2f}" for v in frame["influence"]],
        # White text on the dark half of the scale. A column rather than alt.condition, which costs
        # Altair a slow schema round trip on every rerun.
        ink=[INK[0] if v > half else INK[1] for v in frame["influence"]],
    )
    # Every token number stays on the axes while they fit; Vega would otherwise drop every other
    # one as soon as the projector's larger labels come close to touching.
    overlap = n > MAX_LABELLED_TOKENS
    base = alt.Chart().encode(
        x=alt.X(field="j", type="ordinal", title=t("position.axis_input"), sort=tokens,
                axis=alt.Axis(labelAngle=0, labelOverlap=overlap)),
        y=alt.Y(field="i", type="ordinal", title=t("position.axis_output"), sort=tokens,
                axis=alt.Axis(labelOverlap=overlap)),
    )
    cells = base.mark_rect(stroke=palette.HAIRLINE, strokeWidth=0.5).encode(
        color=alt.Color(
            field="influence",
            type="quantitative",
            title=t("position.legend_influence"),
            scale=alt.Scale(domainMin=0, range=COLOURS, interpolate="rgb"),
            legend=alt.Legend(orient="right", gradientLength=200),
        ),
        tooltip=[
            alt.Tooltip(field="i", type="ordinal", title=t("position.axis_output")),
            alt.Tooltip(field="j", type="ordinal", title=t("position.axis_input")),
            alt.Tooltip(field="influence", type="quantitative", title=t("position.legend_influence"), format=".3g"),
        ],
    )
    if n > MAX_LABELLED_TOKENS:
        return alt.layer(cells, data=data, title=title, height=360)
    # An identity scale (scale=None) on a nominal colour leaves Streamlit's chart blank (1.67):
    # the two inks go through an explicit scale mapping each to itself instead.
    ink = alt.Color(field="ink", type="nominal", scale=alt.Scale(domain=INK, range=INK), legend=None)
    # The values' size follows the cell's width ("0.52" is about 2.6 font sizes wide), so that they
    # never run into each other: on a projector two heatmaps share 1,280 pixels, and the
    # presenter's larger type would otherwise overflow their cells.
    size = {"expr": f"clamp(width / {max(n, 1)} / 3, 7, 16)"}
    labels = base.mark_text(fontSize=size).encode(text=alt.Text(field="label", type="nominal"), color=ink)
    return alt.layer(cells, labels, data=data, title=title, height=360)
