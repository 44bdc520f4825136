"""The class's guesses once the instructor reveals: a histogram (numbers) or bars (choices), the student's own
guess and the measurement marked."""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from ui.base.i18n import Translator
from ui.questions import Asked

CLASS, OWN, MEASURED = "#9ca3af", "#2563eb", "#ea580c"


def guesses_frame(asked: Asked, guesses: Sequence[object], own: float | str | None) -> pd.DataFrame:
    """One row per guess the question takes (anything else is dropped), then the own guess and the answer."""
    question = asked.question
    kept = [g for g in (question.parse(g) for g in guesses) if g is not None]
    rows = [{"kind": "class", "value": g} for g in kept]
    if own is not None:
        rows.append({"kind": "own", "value": own})
    rows.append({"kind": "measured", "value": asked.answer})
    frame = pd.DataFrame(rows, columns=["kind", "value"])
    if question.kind == "number":
        frame["value"] = frame["value"].astype(float)
    return frame


def guesses(frame: pd.DataFrame, t: Translator, key: str, kind: str, options: tuple[str, ...]) -> alt.LayerChart:
    """The class's guesses as bars; rules at the student's guess and at the measured answer."""
    labels = {"own": t("questions.legend_own"), "measured": t("questions.legend_measured")}
    marks = frame[frame["kind"] != "class"].assign(label=lambda d: d["kind"].map(labels))
    crowd = frame[frame["kind"] == "class"]
    colour = alt.Color(field="label", type="nominal", title=None, legend=alt.Legend(orient="top"),
                       scale=alt.Scale(domain=[labels["own"], labels["measured"]], range=[OWN, MEASURED]))
    if kind == "choice":
        names = {o: t(f"{key}_opt_{o}") for o in options}
        crowd = crowd.assign(option=crowd["value"].map(names))
        marks = marks.assign(option=marks["value"].map(names))
        x = alt.X(field="option", type="nominal", title=None, sort=[names[o] for o in options],
                  scale=alt.Scale(domain=[names[o] for o in options]), axis=alt.Axis(labelAngle=0, labelLimit=300))
        bars = alt.Chart(crowd).mark_bar(color=CLASS).encode(
            x=x, y=alt.Y(aggregate="count", type="quantitative", title=t("questions.axis_students")))
        ticks = alt.Chart(marks).mark_rule(strokeWidth=4).encode(x=x, color=colour)
        return (bars + ticks).properties(height=260)
    x = alt.X(field="value", type="quantitative", bin=alt.Bin(maxbins=20), title=t("questions.axis_guess"))
    bars = alt.Chart(crowd).mark_bar(color=CLASS).encode(
        x=x, y=alt.Y(aggregate="count", type="quantitative", title=t("questions.axis_students")))
    rules = alt.Chart(marks).mark_rule(strokeWidth=3).encode(
        x=alt.X(field="value", type="quantitative"), color=colour)
    return (bars + rules).properties(height=260)
