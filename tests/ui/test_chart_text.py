"""A chart's text alternative (ui/charts/text.py) says the values the chart draws, read from the spec the browser gets."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ui.base import i18n
from ui.charts import sweep, text
from ui.compute import chart_spec

EN, KO = i18n.Translator("en"), i18n.Translator("ko")


def _spec(chart: alt.TopLevelMixin) -> dict:
    return chart_spec.to_spec(chart)


def test_a_few_rows_are_each_said_with_the_charts_titles():
    frame = pd.DataFrame({"width": [2, 4], "rmse": [0.6221, 0.2251], "ink": ["#ffffff", "#000000"]})
    chart = alt.Chart(frame).mark_line().encode(
        x=alt.X(field="width", type="quantitative", title="width m"),
        y=alt.Y(field="rmse", type="quantitative", title="RMSE"),
        color=alt.Color(field="ink", type="nominal", scale=None))
    told = text.describe(_spec(chart), EN)
    assert told.caption == "The chart's values (2 rows): width m = 2, RMSE = 0.6221; width m = 4, RMSE = 0.2251"
    (table,) = told.tables
    assert list(table.columns) == ["width m", "RMSE"]  # the colours that paint the marks are no value
    assert table["RMSE"].tolist() == [0.6221, 0.2251]


def test_many_rows_are_said_as_ranges_and_categories_and_a_bar_by_its_two_ends():
    frame = pd.DataFrame({"x": range(100), "y": [i / 100 for i in range(100)], "series": ["a", "b"] * 50})
    line = alt.Chart(frame).mark_line().encode(x=alt.X(field="x", type="quantitative", title="step"),
                                               y=alt.Y(field="y", type="quantitative", title="loss"),
                                               color=alt.Color(field="series", type="nominal", title="run"))
    label = alt.Chart(frame).mark_text().encode(x=alt.X(field="x", type="quantitative"), text=alt.Text(field="y"))
    told = text.describe(_spec(alt.layer(line, label)), KO)
    assert told.caption == "차트의 값 (100행): step 0 – 99; loss 0 – 0.99; run: a, b"

    bars = pd.DataFrame({"start": [0, 1_048_576], "end": [1_048_576, 3_145_728], "part": ["attention", "FFN"]})
    bar = alt.Chart(bars).mark_bar().encode(x=alt.X(field="start", type="quantitative", title="parameters"),
                                            x2=alt.X2(field="end"), y=alt.Y(field="part", type="nominal", title=None))
    assert text.describe(_spec(bar), EN).caption == (
        "The chart's values (2 rows): parameters = 0 – 1,048,576, attention; parameters = 1,048,576 – 3,145,728, FFN")


def test_a_real_builders_caption_carries_its_measured_numbers():
    """Page 4's RMSE chart: the seed's five widths, said as the chart draws them (its axis titles, in Korean)."""
    frame = pd.DataFrame({"width": [2, 4, 8, 16, 32], "rmse": [0.6221, 0.2251, 0.0989, 0.0388, 0.0250],
                          "series": ["seed"] * 5})
    told = text.describe(_spec(sweep.rmse_by_width(frame, KO)), KO)
    assert told.caption.startswith("차트의 값 (5행): ")
    assert KO("sweep.axis_width") in told.caption and "0.6221" in told.caption and "0.025" in told.caption
    assert told.tables[0][KO("sweep.axis_rmse")].tolist() == frame["rmse"].tolist()
