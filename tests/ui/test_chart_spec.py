"""How a chart becomes the spec sent to the browser (ui/compute/chart_spec.py): frames detached as Arrow datasets,
equal frames sharing one digest, one column on a phone, larger type on a projector."""
import altair as alt
import pandas as pd
import pyarrow as pa

from ui.compute import chart_spec


def _frame(shift: float = 0.0) -> pd.DataFrame:
    return pd.DataFrame({"x": [0.0, 1.0, 2.0], "y": [1.0 + shift, 4.0, 9.0]})


def test_equal_frames_share_a_digest_and_different_ones_do_not():
    assert chart_spec.frame_digest(_frame()) == chart_spec.frame_digest(_frame())
    assert chart_spec.frame_digest(_frame()) != chart_spec.frame_digest(_frame(shift=1e-12))


def test_every_layers_frame_is_sent_once_as_arrow_under_a_name():
    line = alt.Chart(_frame()).mark_line().encode(x="x:Q", y="y:Q")
    points = alt.Chart(_frame()).mark_point().encode(x="x:Q", y="y:Q")
    other = alt.Chart(_frame(shift=1.0)).mark_rule().encode(y="y:Q")
    spec = chart_spec.to_spec(alt.layer(line, points, other))
    names = [layer["data"]["name"] for layer in spec["layer"]]
    assert names[0] == names[1] != names[2]  # the equal frames share one dataset
    arrow = spec["datasets"][names[2]]
    table = pa.ipc.open_stream(arrow).read_all().to_pandas()
    pd.testing.assert_frame_equal(table, _frame(shift=1.0))


def test_a_presenter_gets_larger_type_and_keeps_the_charts_own_config():
    spec = {"mark": "line", "config": {"axis": {"grid": False, "labelFontSize": 9}}}
    big = chart_spec.presenter(spec)
    assert big["config"]["axis"] == {"grid": False, **chart_spec.PRESENTER_CONFIG["axis"]}
    assert big["config"]["title"] == chart_spec.PRESENTER_CONFIG["title"]
    assert spec["config"]["axis"]["labelFontSize"] == 9  # the cached spec itself is not changed


def _facet_spec() -> dict:
    frame = pd.DataFrame({"x": [0, 1, 0, 1], "y": [1, 2, 3, 4], "w": [2, 2, 4, 4]})
    panel = alt.Chart(width=220, height=150).mark_line().encode(x="x:Q", y="y:Q")
    return panel.facet(facet=alt.Facet("w:O"), columns=3, data=frame).to_dict()


def test_a_phone_gets_panels_one_under_another():
    spec = _facet_spec()
    assert spec["columns"] == 3
    narrow = chart_spec.one_column(spec)
    assert narrow["columns"] == 1 and narrow["facet"] == spec["facet"]
    assert spec["columns"] == 3  # the cached spec itself is not changed
    side_by_side = {"hconcat": [{"mark": "bar"}, {"mark": "line"}]}
    assert chart_spec.one_column(side_by_side) == {"vconcat": [{"mark": "bar"}, {"mark": "line"}]}
    by_column = {"facet": {"column": {"field": "w"}}, "spec": {"mark": "bar"}}
    assert chart_spec.one_column(by_column)["facet"] == {"row": {"field": "w"}}
    single = {"mark": "line", "width": 300}
    assert chart_spec.one_column(single) == single
