"""Page 8's charts across training and for one word in context."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ui.base.i18n import Translator
from ui.charts import encode, palette
from ui.charts.gpt import LAYER_COLOURS

MEASURE_COLOURS = {"seen": palette.ORANGE, "heldout": palette.BLUE, "template": palette.GREY}
ROLE_COLOURS = [palette.BLUE, palette.ORANGE]  # the roles chart's two lines, in the frame's order


def stage_label(t: Translator, stage: str) -> str:
    """"embedding", "attn 2", "ffn 2" as the page writes them."""
    if stage == "embedding":
        return t("gptmemory.stage_embedding")
    part, block = stage.split()
    return t(f"gptmemory.stage_{part}", block=int(block))


def curve(frame: pd.DataFrame, t: Translator) -> alt.LayerChart:
    """Seen-form, held-out-form and template-word accuracy by training step; dots at the shipped checkpoints."""
    labels = {m: t(f"gptmemory.measure_{m}") for m in MEASURE_COLOURS}
    data = frame.assign(label=frame["measure"].map(labels))
    colour = encode.colour("label", list(labels.values()), list(MEASURE_COLOURS.values()), labelLimit=400)
    x = alt.X(field="step", type="quantitative", title=t("gptmemory.axis_step"))
    y = encode.share(alt.Y, "value", t("gptmemory.axis_accuracy"))
    tooltip = [alt.Tooltip(field="step", type="quantitative", title=t("gptmemory.axis_step")),
               alt.Tooltip(field="label", type="nominal", title=" "),
               alt.Tooltip(field="value", type="quantitative", title=t("gptmemory.axis_accuracy"), format=".1%")]
    base = alt.Chart(data).encode(x=x, y=y, color=colour, tooltip=tooltip)
    dots = base.transform_filter(alt.datum.shipped).mark_point(filled=True, size=60, opacity=1)
    return (base.mark_line() + dots).properties(height=300)


def writers(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """Each block's mean direct term on the answer by step: FFN solid, attention dashed, one colour a block."""
    parts = {"ffn": t("gptmemory.part_ffn"), "attn": t("gptmemory.part_attn")}
    data = frame.assign(part_label=frame["part"].map(parts), block_label=frame["block"].map(str))
    blocks = sorted(data["block_label"].unique(), key=int)
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X(field="step", type="quantitative", title=t("gptmemory.axis_step")),
        y=alt.Y(field="term", type="quantitative", title=t("gptmemory.axis_term")),
        color=encode.colour("block_label", blocks, LAYER_COLOURS[: len(blocks)], t("gptmemory.axis_block")),
        strokeDash=alt.StrokeDash(field="part_label", type="nominal", title=t("gptmemory.axis_part"),
                                  scale=alt.Scale(domain=list(parts.values()), range=[[1, 0], [5, 3]]),
                                  legend=alt.Legend(orient="top")),
        tooltip=[alt.Tooltip(field="step", type="quantitative", title=t("gptmemory.axis_step")),
                 alt.Tooltip(field="block_label", type="nominal", title=t("gptmemory.axis_block")),
                 alt.Tooltip(field="part_label", type="nominal", title=t("gptmemory.axis_part")),
                 alt.Tooltip(field="term", type="quantitative", title=t("gptmemory.axis_term"), format="+.2f")],
    ).properties(height=280)


def similarity(frame: pd.DataFrame, t: Translator) -> alt.LayerChart:
    """Cosine similarity of each pair of sentences (rows) after each stage (columns), the value written in."""
    order = list(dict.fromkeys(frame["stage_label"]))
    pairs = list(dict.fromkeys(frame["pair_label"]))
    base = alt.Chart(frame).encode(
        x=alt.X(field="stage_label", type="ordinal", sort=order, title=t("gptmemory.axis_stage"),
                axis=alt.Axis(labelAngle=0)),
        y=alt.Y(field="pair_label", type="nominal", sort=pairs, title=t("gptmemory.axis_pair"),
                axis=alt.Axis(labelLimit=400)),
    )
    cells = base.mark_rect().encode(
        color=alt.Color(field="cosine", type="quantitative", title=t("gptmemory.axis_cosine"),
                        scale=alt.Scale(scheme="blueorange", domain=[-1, 1], reverse=True)),
        tooltip=[alt.Tooltip(field="pair_label", type="nominal", title=t("gptmemory.axis_pair")),
                 alt.Tooltip(field="stage_label", type="nominal", title=t("gptmemory.axis_stage")),
                 alt.Tooltip(field="cosine", type="quantitative", title=t("gptmemory.axis_cosine"), format=".3f")],
    )
    text = base.mark_text(fontSize=10).encode(text=alt.Text(field="cosine", type="quantitative", format=".2f"))
    return (cells + text).properties(height=max(160, 24 * len(pairs)))


def roles(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """Two lines by stage: the two countries' own vectors, and the prompts' last words."""
    order = list(dict.fromkeys(frame["stage_label"]))
    lines = list(dict.fromkeys(frame["line"]))
    return alt.Chart(frame).mark_line(point=True).encode(
        x=alt.X(field="stage_label", type="ordinal", sort=order, title=t("gptmemory.axis_stage"),
                axis=alt.Axis(labelAngle=0)),
        y=alt.Y(field="cosine", type="quantitative", title=t("gptmemory.axis_cosine"), scale=alt.Scale(domain=[-1, 1])),
        color=encode.colour("line", lines, ROLE_COLOURS[: len(lines)], labelLimit=400),
        tooltip=[alt.Tooltip(field="line", type="nominal", title=" "),
                 alt.Tooltip(field="stage_label", type="nominal", title=t("gptmemory.axis_stage")),
                 alt.Tooltip(field="cosine", type="quantitative", title=t("gptmemory.axis_cosine"), format=".3f")],
    ).properties(height=260)
