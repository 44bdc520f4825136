"""The class's guesses once the instructor reveals: a histogram (numbers) or bars (choices), the student's own
guess and the measurement marked."""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from ui.base.i18n import Translator
from ui.charts import palette
from ui.questions import Asked, option_text
from ui.room import chart as room

CLASS, OWN, MEASURED = palette.MUTED, palette.BLUE, palette.ORANGE


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


def choice_counts(frame: pd.DataFrame, options: tuple[str, ...]) -> pd.DataFrame:
    """Per option: how many of the class chose it, whether it is the student's own and the measured one."""
    crowd = frame.loc[frame["kind"] == "class", "value"]
    own = set(frame.loc[frame["kind"] == "own", "value"])
    measured = set(frame.loc[frame["kind"] == "measured", "value"])
    return pd.DataFrame({"option": list(options), "count": [int((crowd == o).sum()) for o in options],
                         "own": [o in own for o in options], "measured": [o in measured for o in options]})


def guesses(frame: pd.DataFrame, t: Translator, key: str, kind: str, options: tuple[str, ...],
            narrow: bool = False) -> alt.LayerChart:
    """The class's guesses as bars, the student's own and the measured answer marked on them.

    A choice's labels are written on as many lines as the bar's width needs (a phone's 390 pixels hold
    four Korean options); the own option's bar is outlined and named above, the measured one filled
    and named above it, so both show even when they are the same option.
    """
    labels = {"own": t("questions.legend_own"), "measured": t("questions.legend_measured")}
    if kind == "choice":
        width = room.label_width(len(options), narrow)
        names = [room.wrap(option_text(t, key, o), width) for o in options]
        data = choice_counts(frame, options).assign(label=names)
        top = max(1, int(data["count"].max())) * 1.45 + 0.5
        x = alt.X(field="label", type="nominal", title=None, sort=names,
                  axis=alt.Axis(labelAngle=0, labelLimit=0, labelExpr=room.LINES))
        y = alt.Y(field="count", type="quantitative", title=t("questions.axis_students"),
                  scale=alt.Scale(domain=[0, top], nice=False), axis=alt.Axis(tickMinStep=1, format="d"))
        bars = alt.Chart(data).mark_bar(strokeWidth=4).encode(
            x=x, y=y,
            color=alt.condition(alt.datum.measured, alt.value(MEASURED), alt.value(CLASS)),
            stroke=alt.condition(alt.datum.own, alt.value(OWN), alt.value(None)))
        base = alt.Chart(data).encode(x=x, y=y)
        own = base.transform_filter(alt.datum.own).mark_text(
            color=OWN, fontWeight="bold", dy=-6, baseline="bottom").encode(text=alt.value(labels["own"]))
        # Above "yours" when the student chose the measured option: both words show.
        measured = [base.transform_filter(alt.datum.measured & (alt.datum.own == mine)).mark_text(
            color=MEASURED, fontWeight="bold", baseline="bottom", dy=-22 if mine else -6,
        ).encode(text=alt.value(labels["measured"])) for mine in (True, False)]
        return alt.layer(bars, own, *measured).properties(height=260, usermeta=room.SVG)
    marks = frame[frame["kind"] != "class"].assign(label=lambda d: d["kind"].map(labels))
    crowd = frame[frame["kind"] == "class"]
    colour = alt.Color(field="label", type="nominal", title=None, legend=alt.Legend(orient="top"),
                       scale=alt.Scale(domain=[labels["own"], labels["measured"]], range=[OWN, MEASURED]))
    x = alt.X(field="value", type="quantitative", bin=alt.Bin(maxbins=20), title=t("questions.axis_guess"))
    bars = alt.Chart(crowd).mark_bar(color=CLASS).encode(
        x=x, y=alt.Y(aggregate="count", type="quantitative", title=t("questions.axis_students")))
    # The measured rule dashed: a guess on the answer still shows beneath it.
    rules = alt.Chart(marks).mark_rule(strokeWidth=3).encode(
        x=alt.X(field="value", type="quantitative"), color=colour,
        strokeDash=alt.condition(alt.datum.kind == "measured", alt.value([6, 4]), alt.value([1, 0])))
    return (bars + rules).properties(height=260, usermeta=room.SVG)
