"""The class room's chart: the class's guesses to one question, with the measurement and one's own guess over them.

A number question draws a histogram over the question's own input range (the same bins for every
class, whatever they guessed); a choice question draws one bar per option, empty options included,
so a class that all chose one option still sees the others at zero.
"""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from ui.base.i18n import Translator
from ui.questions import Question

GUESSES = "#94a3b8"
MEASURED = "#dc2626"
MINE = "#2563eb"
BINS = 20


def frame(question: Question, guesses: Sequence[float | str], t: Translator) -> pd.DataFrame:
    """Long data: one row per bin (number) or per option (choice), with how many guessed there."""
    if question.kind == "choice":
        counts = {option: 0 for option in question.options}
        for guess in guesses:
            if guess in counts:
                counts[guess] += 1
        return pd.DataFrame({
            "option": list(counts),
            "label": [t(f"{question.key}_opt_{option}") for option in counts],
            "count": list(counts.values()),
        })
    width = (question.hi - question.lo) / BINS or 1.0
    counts = [0] * BINS
    for guess in guesses:
        index = min(int((float(guess) - question.lo) / width), BINS - 1)
        if 0 <= index:
            counts[index] += 1
    starts = [question.lo + i * width for i in range(BINS)]
    return pd.DataFrame({"start": starts, "end": [s + width for s in starts], "count": counts})


def distribution(question: Question, guesses: Sequence[float | str], t: Translator, *,
                 answer: float | str | None = None, mine: float | str | None = None) -> alt.LayerChart:
    """The class's guesses; the measured answer in red once revealed, one's own guess in blue."""
    data = frame(question, guesses, t)
    count_axis = alt.Y(field="count", type="quantitative", title=t("room.axis_count"),
                       axis=alt.Axis(tickMinStep=1, format="d"))
    if question.kind == "choice":
        labels = dict(zip(data["option"], data["label"]))
        data = data.assign(
            measured=[option == answer for option in data["option"]],
            mine=[option == mine for option in data["option"]],
        )
        bars = alt.Chart(data).mark_bar().encode(
            x=alt.X(field="label", type="nominal", title=None, sort=list(labels.values()),
                    axis=alt.Axis(labelAngle=0, labelLimit=220)),
            y=count_axis,
            color=alt.condition(alt.datum.measured, alt.value(MEASURED), alt.value(GUESSES)),
            stroke=alt.condition(alt.datum.mine, alt.value(MINE), alt.value(None)),
            strokeWidth=alt.value(4),
            tooltip=[alt.Tooltip(field="label", type="nominal", title=t("room.axis_option")),
                     alt.Tooltip(field="count", type="quantitative", title=t("room.axis_count"))],
        )
        # The measured option is named above its bar, even when no one chose it (a bar of height 0).
        label = alt.Chart(data).transform_filter(alt.datum.measured).mark_text(
            color=MEASURED, fontWeight="bold", dy=-8, baseline="bottom",
        ).encode(x=alt.X(field="label", type="nominal", sort=list(labels.values())),
                 y=alt.Y(field="count", type="quantitative"), text=alt.value(t("room.measured")))
        return alt.layer(bars, label).properties(height=220)
    unit = t(question.unit) if question.unit else ""
    x_title = t("room.axis_guess_unit", unit=unit) if unit else t("room.axis_guess")
    x_scale = alt.Scale(domain=[question.lo, question.hi], nice=False)
    bars = alt.Chart(data).mark_bar(color=GUESSES).encode(
        # bin="binned": the bins are already counted, and the bars stand on the axis (not ranged sideways).
        x=alt.X(field="start", type="quantitative", bin="binned", title=x_title, scale=x_scale),
        x2=alt.X2(field="end"),
        y=count_axis,
        tooltip=[alt.Tooltip(field="start", type="quantitative", title=t("room.axis_from"), format=".3g"),
                 alt.Tooltip(field="end", type="quantitative", title=t("room.axis_to"), format=".3g"),
                 alt.Tooltip(field="count", type="quantitative", title=t("room.axis_count"))],
    )
    layers: list[alt.Chart] = [bars]
    for value, color, label in ((answer, MEASURED, t("room.measured")), (mine, MINE, t("room.yours"))):
        if value is None:
            continue
        marker = pd.DataFrame({"x": [float(value)], "label": [label]})
        base = alt.Chart(marker).encode(x=alt.X(field="x", type="quantitative", scale=x_scale))
        layers.append(base.mark_rule(color=color, strokeWidth=3))
        layers.append(base.mark_text(color=color, align="left", dx=4, dy=-6, fontWeight="bold", baseline="bottom")
                      .encode(text=alt.Text(field="label", type="nominal"), y=alt.value(0)))
    return alt.layer(*layers).properties(height=220)
