"""The activation-sparsity page's charts: active fraction per token, firing rate per neuron, over training."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ui.base.i18n import Translator
from ui.charts import encode, palette

TOKEN_COLOURS = {"train": palette.ORANGE, "fresh": palette.BLUE}


def per_token(frame: pd.DataFrame, t: Translator) -> alt.LayerChart:
    """Histogram of the share of neurons each token activates, with one half marked."""
    bars = alt.Chart(frame).mark_bar(color=palette.BLUE).encode(
        x=alt.X(field="active_fraction", type="quantitative", bin=alt.Bin(maxbins=40),
                title=t("sparsity.axis_token_fraction"), axis=alt.Axis(format=".0%")),
        y=alt.Y(aggregate="count", type="quantitative", title=t("sparsity.axis_tokens")),
    )
    half = alt.Chart(pd.DataFrame({"x": [0.5]})).mark_rule(strokeDash=[6, 4], color=palette.INK).encode(
        x=alt.X(field="x", type="quantitative")
    )
    return alt.layer(bars, half, height=300)


def per_neuron(frame: pd.DataFrame, t: Translator) -> alt.LayerChart:
    """Each neuron's firing rate over the tokens, sorted from most to least often active."""
    # Opaque: at 0.7 the orange had 2.5:1 on white, too faint for the one shape this chart draws.
    area = alt.Chart(frame).mark_area(color=palette.ORANGE, interpolate="step-after").encode(
        x=alt.X(field="rank", type="quantitative", title=t("sparsity.axis_neuron_rank")),
        y=encode.share(alt.Y, "firing_rate", t("sparsity.axis_firing_rate")),
        tooltip=[alt.Tooltip(field="rank", type="quantitative", title=t("sparsity.axis_neuron_rank")),
                 alt.Tooltip(field="firing_rate", type="quantitative", title=t("sparsity.axis_firing_rate"),
                             format=".1%")],
    )
    half = alt.Chart(pd.DataFrame({"y": [0.5]})).mark_rule(strokeDash=[6, 4], color=palette.INK).encode(
        y=alt.Y(field="y", type="quantitative")
    )
    return alt.layer(area, half, height=300)


def training(frame: pd.DataFrame, published: dict[str, float], t: Translator) -> alt.LayerChart:
    """Active fraction over training steps, with published trained values as labelled reference lines."""
    data = frame.assign(tokens_label=frame["tokens"].map(lambda k: t(f"sparsity.tokens_{k}")))
    kinds = list(TOKEN_COLOURS)
    lines = alt.Chart(data).mark_line().encode(
        x=alt.X(field="step", type="quantitative", title=t("sparsity.axis_step")),
        y=encode.share(alt.Y, "active_fraction", t("sparsity.axis_active_fraction")),
        color=encode.colour("tokens_label", [t(f"sparsity.tokens_{k}") for k in kinds], list(TOKEN_COLOURS.values()),
                            t("sparsity.legend_tokens")),
        tooltip=[alt.Tooltip(field="step", type="quantitative", title=t("sparsity.axis_step")),
                 alt.Tooltip(field="tokens_label", type="nominal", title=t("sparsity.legend_tokens")),
                 alt.Tooltip(field="active_fraction", type="quantitative", title=t("sparsity.axis_active_fraction"),
                             format=".2%")],
    )
    return alt.layer(lines, *reference_lines(published, "sparsity.reference_label", t), height=380)


def reference_lines(published: dict[str, float], label_key: str, t: Translator) -> list[alt.Chart]:
    """The published values as dashed lines, each labelled (`label_key`) clear of the lines and of the axis.

    At the right end, away from the y axis's ticks (T5's 3 % sits on the 0 % tick at the left); the lines
    are a few pixels apart, so the lower label hangs under its line and the upper one stands on its own.
    """
    reference = pd.DataFrame({"value": list(published.values()),
                              "label": [t(label_key, model=name, value=f"{v:.1%}") for name, v in published.items()]})
    value = alt.Y(field="value", type="quantitative")
    rules = alt.Chart(reference).mark_rule(strokeDash=[6, 4], color=palette.GREY).encode(y=value)
    order = reference["value"].argsort()
    return [rules, *(
        alt.Chart(reference.iloc[[i]]).mark_text(align="right", baseline=baseline, dx=-4, dy=dy,
                                                 color=palette.LABEL).encode(
            y=value, x=alt.XValue("width"), text=alt.Text(field="label", type="nominal"))
        for i, baseline, dy in zip(order, ("top", "bottom"), (3, -3))
    )]


def loss(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """The training loss over steps (log scale), to show the run did learn its task."""
    return (
        alt.Chart(frame)
        .mark_line(color=palette.INK)
        .encode(
            x=alt.X(field="step", type="quantitative", title=t("sparsity.axis_step")),
            y=alt.Y(field="loss", type="quantitative", title=t("sparsity.axis_loss"), scale=alt.Scale(type="log"),
                    axis=alt.Axis(format=".0e")),
            tooltip=[alt.Tooltip(field="step", type="quantitative"),
                     alt.Tooltip(field="loss", type="quantitative", format=".3g")],
        )
        .properties(height=260)
    )
