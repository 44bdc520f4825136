"""The trained-GPT pages' charts: next-token bars, accuracy, attribution, logit lens, neurons, split, surgery, sparsity."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ui.base.i18n import Translator
from ui.charts import encode, palette
from ui.charts.sparsity import reference_lines
from ui.charts.split import PART_COLOURS as _SPLIT_PARTS

PART_COLOURS = {"embedding": palette.GREY, "attn": palette.BLUE, "ffn": palette.ORANGE, "constant": palette.SLATE}
# The parameter-split page's colours for the same parts.
SPLIT_COLOURS = {p: _SPLIT_PARTS[p] for p in ("embeddings", "attention", "ffn", "norms", "head")}
STATE_COLOURS = {"shipped": palette.MUTED, "ablated": palette.RED}
# A block keeps its colour on every chart of pages 8 and 9 (the shipped model has four; a seventh would repeat the first).
LAYER_COLOURS = list(palette.CATEGORICAL)
ANSWER, OTHER = palette.ORANGE, palette.MUTED
# Accuracy by "language · seen/held-out": four groups, in the order the frame gives them.
GROUP_COLOURS = list(palette.CATEGORICAL[:4])


def top_tokens(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """The top next tokens as horizontal bars, most likely on top; the true answer in orange."""
    data = frame.assign(kind=[t("gpt.legend_answer") if a else t("gpt.legend_other") for a in frame["is_answer"]])
    return alt.Chart(data).mark_bar().encode(
        y=alt.Y(field="token", type="nominal", sort=alt.EncodingSortField(field="prob", order="descending"),
                title=t("gpt.axis_token"), axis=alt.Axis(labelOverlap=False)),
        x=encode.share(alt.X, "prob", t("gpt.axis_prob")),
        color=encode.colour("kind", [t("gpt.legend_answer"), t("gpt.legend_other")], [ANSWER, OTHER]),
        tooltip=[alt.Tooltip(field="token", type="nominal", title=t("gpt.axis_token")),
                 alt.Tooltip(field="prob", type="quantitative", title=t("gpt.axis_prob"), format=".2%")],
    # A band per token, tall enough for the presenter's labels: a fixed height squeezed the bands
    # until Vega dropped every other token's name.
    ).properties(height=alt.Step(30))


def accuracy(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """Accuracy by relation and prompt language, seen templates beside held-out ones."""
    data = frame.assign(
        relation_label=frame["relation"].map(lambda r: t(f"gpt.relation_{r}")),
        group=[f"{t(f'gpt.lang_{lang}')} · {t('gpt.heldout' if h else 'gpt.seen')}"
               for lang, h in zip(frame["lang"], frame["heldout"])],
    )
    groups = list(dict.fromkeys(data["group"]))
    return alt.Chart(data).mark_bar().encode(
        x=alt.X(field="relation_label", type="nominal", title=None, axis=alt.Axis(labelAngle=0, labelLimit=400)),
        xOffset=alt.XOffset(field="group", type="nominal"),
        y=encode.share(alt.Y, "accuracy", t("gpt.axis_accuracy")),
        # Four "language · seen/held-out" entries in one row are wider than a phone: they wrap in columns.
        color=encode.colour("group", groups, GROUP_COLOURS[: len(groups)], columns=2, labelLimit=0),
        tooltip=[alt.Tooltip(field="relation_label", type="nominal", title=""),
                 alt.Tooltip(field="group", type="nominal", title=""),
                 alt.Tooltip(field="accuracy", type="quantitative", title=t("gpt.axis_accuracy"), format=".1%"),
                 alt.Tooltip(field="prompts", type="quantitative", title=t("gpt.axis_prompts"))],
    ).properties(height=300)


def attribution(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """Each part's term on the answer's logit: embedding, then attention and FFN of every block, then the constant."""
    labels = [t(f"gpt.part_{part}", layer=layer) for part, layer in zip(frame["part"], frame["layer"])]
    data = frame.assign(label=labels, order=range(len(frame)), part_label=frame["part"].map(lambda p: t(f"gpt.kind_{p}")))
    parts = [p for p in PART_COLOURS if p in set(frame["part"])]
    return alt.Chart(data).mark_bar().encode(
        x=alt.X(field="label", type="nominal", sort=alt.EncodingSortField(field="order"), title=None,
                axis=alt.Axis(labelAngle=-40, labelOverlap=False)),
        y=alt.Y(field="contribution", type="quantitative", title=t("gpt.axis_logit_term")),
        color=encode.colour("part_label", [t(f"gpt.kind_{p}") for p in parts], [PART_COLOURS[p] for p in parts]),
        tooltip=[alt.Tooltip(field="label", type="nominal", title=""),
                 alt.Tooltip(field="contribution", type="quantitative", title=t("gpt.axis_logit_term"), format=".3f")],
    ).properties(height=340)


def lens(frame: pd.DataFrame, t: Translator) -> alt.LayerChart:
    """The answer's probability if the model stopped after each block, each point labelled with the top token then."""
    base = alt.Chart(frame).encode(
        x=alt.X(field="layer", type="ordinal", title=t("gpt.axis_after_block"), axis=alt.Axis(labelAngle=0)),
        y=encode.share(alt.Y, "answer_prob", t("gpt.axis_answer_prob")),
        tooltip=[alt.Tooltip(field="layer", type="ordinal", title=t("gpt.axis_after_block")),
                 alt.Tooltip(field="top_token", type="nominal", title=t("gpt.axis_top_token")),
                 alt.Tooltip(field="top_prob", type="quantitative", title=t("gpt.axis_top_prob"), format=".1%"),
                 alt.Tooltip(field="answer_prob", type="quantitative", title=t("gpt.axis_answer_prob"), format=".1%"),
                 alt.Tooltip(field="answer_rank", type="quantitative", title=t("gpt.axis_rank"))],
    )
    line = base.mark_line(point=True, color=ANSWER)
    text = base.mark_text(dy=-12, color=palette.INK).encode(text=alt.Text(field="top_token", type="nominal"))
    return alt.layer(line, text, height=300)


def neurons(frame: pd.DataFrame, t: Translator, n_layers: int) -> alt.Chart:
    """The neurons adding most to the answer's logit, coloured by block (the same colour for a block on every prompt)."""
    data = frame.assign(block=frame["layer"].map(lambda layer: t("gpt.block_n", layer=layer)))
    blocks = [t("gpt.block_n", layer=layer) for layer in range(1, n_layers + 1)]
    return alt.Chart(data).mark_bar().encode(
        x=alt.X(field="label", type="nominal", sort=alt.EncodingSortField(field="contribution", order="descending"),
                title=t("gpt.axis_neuron"), axis=alt.Axis(labelAngle=0)),
        y=alt.Y(field="contribution", type="quantitative", title=t("gpt.axis_logit_term")),
        color=encode.colour("block", blocks, LAYER_COLOURS[: len(blocks)]),
        tooltip=[alt.Tooltip(field="label", type="nominal", title=t("gpt.axis_neuron")),
                 alt.Tooltip(field="coefficient", type="quantitative", title="aᵢ", format=".3f"),
                 alt.Tooltip(field="value_on_answer", type="quantitative", title="u·vᵢ", format=".3f"),
                 alt.Tooltip(field="contribution", type="quantitative", title=t("gpt.axis_logit_term"), format=".3f"),
                 alt.Tooltip(field="promotes", type="nominal", title=t("gpt.col_promotes"))],
    ).properties(height=300)


def parameter_split(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """The model's parameters by part, one horizontal bar each."""
    parts = list(frame["part"])
    data = frame.assign(label=[t(f"gpt.split_{p}") for p in parts])
    return alt.Chart(data).mark_bar().encode(
        y=alt.Y(field="label", type="nominal", sort=[t(f"gpt.split_{p}") for p in parts], title=None),
        x=alt.X(field="params", type="quantitative", title=t("gpt.axis_params")),
        color=alt.Color(field="label", type="nominal", legend=None,
                        scale=alt.Scale(domain=[t(f"gpt.split_{p}") for p in parts],
                                        range=[SPLIT_COLOURS[p] for p in parts])),
        tooltip=[alt.Tooltip(field="label", type="nominal", title=""),
                 alt.Tooltip(field="params", type="quantitative", title=t("gpt.axis_params"), format=","),
                 alt.Tooltip(field="share", type="quantitative", title=t("gpt.axis_share"), format=".1%")],
    ).properties(height=220)


def ablation(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """Seen, held-out and template-word accuracy, shipped model beside the ablated copy."""
    data = frame.assign(measure_label=frame["measure"].map(lambda m: t(f"gptsurgery.measure_{m}")),
                        state_label=frame["state"].map(lambda s: t(f"gptsurgery.state_{s}")))
    states = list(STATE_COLOURS)
    return alt.Chart(data).mark_bar().encode(
        x=alt.X(field="measure_label", type="nominal", title=None, axis=alt.Axis(labelAngle=0, labelLimit=400),
                sort=[t(f"gptsurgery.measure_{m}") for m in dict.fromkeys(frame["measure"])]),
        xOffset=alt.XOffset(field="state_label", type="nominal", sort=[t(f"gptsurgery.state_{s}") for s in states]),
        y=encode.share(alt.Y, "accuracy", t("gpt.axis_accuracy")),
        color=encode.colour("state_label", [t(f"gptsurgery.state_{s}") for s in states], list(STATE_COLOURS.values())),
        tooltip=[alt.Tooltip(field="measure_label", type="nominal", title=""),
                 alt.Tooltip(field="state_label", type="nominal", title=""),
                 alt.Tooltip(field="accuracy", type="quantitative", title=t("gpt.axis_accuracy"), format=".1%")],
    ).properties(height=300)


def sparsity(frame: pd.DataFrame, published: dict[str, float], t: Translator) -> alt.LayerChart:
    """Logged active fraction per block over training (lines), the live recompute (large points), published references."""
    data = frame.assign(block=frame["layer"].map(lambda layer: t("gpt.block_n", layer=layer)))
    blocks = [t("gpt.block_n", layer=layer) for layer in sorted(frame["layer"].unique())]
    x = alt.X(field="step", type="quantitative", title=t("gptsurgery.axis_step"))
    y = encode.share(alt.Y, "active", t("gptsurgery.axis_active"))
    colour = encode.colour("block", blocks, LAYER_COLOURS[: len(blocks)])
    tips = [alt.Tooltip(field="block", type="nominal", title=""),
            alt.Tooltip(field="step", type="quantitative", title=t("gptsurgery.axis_step")),
            alt.Tooltip(field="active", type="quantitative", title=t("gptsurgery.axis_active"), format=".2%")]
    logged = alt.Chart(data[data["source"] == "logged"]).mark_line().encode(x=x, y=y, color=colour, tooltip=tips)
    measured = alt.Chart(data[data["source"] == "measured"]).mark_point(
        size=110, filled=True, shape="diamond", opacity=1).encode(x=x, y=y, color=colour, tooltip=tips)
    return alt.layer(logged, measured, *reference_lines(published, "gptsurgery.reference_label", t), height=360)
