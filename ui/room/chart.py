"""The class room's chart: the class's guesses to one question, with the measurement and one's own guess over them.

A number question draws a histogram over the question's own input range (the same bins for every
class, whatever they guessed); a choice question draws one bar per option, empty options included,
so a class that all chose one option still sees the others at zero.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import altair as alt
import pandas as pd

from ui.base.i18n import Translator
from ui.charts import palette
from ui.questions import Question, option_text, unit_text

GUESSES = palette.MUTED
MEASURED = palette.RED
MINE = palette.BLUE
BINS = 20
# An axis label written on several lines: the label's text holds "\n" where a line ends (see `wrap`).
LINES = "split(datum.label, '\\n')"
# Drawn as SVG, not on a canvas: the same picture, and a page (or a browser test) can read where each label is.
SVG = {"embedOptions": {"renderer": "svg"}}


def wrap(text: str, width: int) -> str:
    """The text broken between words into lines of at most `width` columns ("\n" between them).

    A Hangul or other wide character takes two columns, as it does on screen. A word longer than a
    line stands on a line of its own (a label is never cut inside a word).
    """
    def cols(word: str) -> int:
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in word)

    lines: list[str] = []
    for word in text.split():
        if lines and cols(lines[-1]) + 1 + cols(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "\n".join(lines)


def label_width(n_options: int, narrow: bool) -> int:
    """How many columns of text one option's label gets under its bar: a phone's width or a projector's, shared."""
    return max(8, (40 if narrow else 90) // max(1, n_options))


def frame(question: Question, guesses: Sequence[float | str], t: Translator) -> pd.DataFrame:
    """Long data: one row per bin (number) or per option (choice), with how many guessed there."""
    if question.kind == "choice":
        counts = {option: 0 for option in question.options}
        for guess in guesses:
            if guess in counts:
                counts[guess] += 1
        return pd.DataFrame({
            "option": list(counts),
            "label": [option_text(t, question.key, option) for option in counts],
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


def votes(question: Question, first: Sequence[float | str] | None, last: Sequence[float | str], t: Translator, *,
          answer: float | str | None = None, narrow: bool = False) -> alt.TopLevelMixin:
    """The presenter's distribution: one vote's, or the first and second side by side on one count scale."""
    if first is None:
        return distribution(question, last, t, answer=answer, height=140, narrow=narrow).properties(usermeta=SVG)
    # Side by side, each half of the projector's width (a concatenated view cannot stretch to its container).
    top = max(int(frame(question, guesses, t)["count"].max()) for guesses in (first, last))
    panels = [distribution(question, guesses, t, answer=answer, height=80, narrow=narrow, panels=2, top=top)
              .properties(title=t("vote.vote_n", n=n), width=150 if narrow else 430)
              for n, guesses in ((1, first), (2, last))]
    return alt.hconcat(*panels).resolve_scale(y="shared").properties(usermeta=SVG)


def distribution(question: Question, guesses: Sequence[float | str], t: Translator, *,
                 answer: float | str | None = None, mine: float | str | None = None, height: int = 220,
                 narrow: bool = False, panels: int = 1, top: int | None = None) -> alt.LayerChart:
    """The class's guesses; the measured answer in red once revealed, one's own guess in blue, each named in words."""
    data = frame(question, guesses, t)
    if question.kind == "choice":
        width = label_width(len(question.options) * panels, narrow)
        data = data.assign(label=[wrap(label, width) for label in data["label"]])
    # Room above the tallest bar for the word over it: panels side by side keep their titles level.
    highest = max(1, int(data["count"].max()) if top is None else top)
    count_axis = alt.Y(field="count", type="quantitative", title=t("room.axis_count"),
                       scale=alt.Scale(domain=[0, highest * 1.3 + 0.4], nice=False),
                       axis=alt.Axis(tickMinStep=1, format="d"))
    if question.kind == "choice":
        labels = dict(zip(data["option"], data["label"]))
        data = data.assign(
            measured=[option == answer for option in data["option"]],
            mine=[option == mine for option in data["option"]],
        )
        bars = alt.Chart(data).mark_bar().encode(
            x=alt.X(field="label", type="nominal", title=None, sort=list(labels.values()),
                    axis=alt.Axis(labelAngle=0, labelLimit=0, labelExpr=LINES)),
            y=count_axis,
            color=alt.condition(alt.datum.measured, alt.value(MEASURED), alt.value(GUESSES)),
            stroke=alt.condition(alt.datum.mine, alt.value(MINE), alt.value(None)),
            strokeWidth=alt.value(4),
            tooltip=[alt.Tooltip(field="label", type="nominal", title=t("room.axis_option")),
                     alt.Tooltip(field="count", type="quantitative", title=t("room.axis_count"))],
        )
        # The measured option and one's own are named above their bars, even when no one chose them (a bar of
        # height 0): the colours alone would not tell a student who cannot tell red from grey. On one bar,
        # "measured" stands above "yours".
        base = alt.Chart(data).encode(x=alt.X(field="label", type="nominal", sort=list(labels.values())),
                                      y=alt.Y(field="count", type="quantitative"))
        yours = base.transform_filter(alt.datum.mine).mark_text(
            color=MINE, fontWeight="bold", dy=-8, baseline="bottom").encode(text=alt.value(t("room.yours")))
        measured = [base.transform_filter(alt.datum.measured & (alt.datum.mine == both)).mark_text(
            color=MEASURED, fontWeight="bold", dy=-26 if both else -8, baseline="bottom",
        ).encode(text=alt.value(t("room.measured"))) for both in (True, False)]
        return alt.layer(bars, yours, *measured).properties(height=height)
    unit = unit_text(t, question)
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
    return alt.layer(*layers).properties(height=height)
