"""The gated-FFN page: the bilinear fit against the collapse, the counts, the gate on one token, the width fit."""
import pytest

from ffn_core import gated
from ffn_core.sweep import gated as gated_sweep
from tests.conftest import chart_rows, chart_specs, metric_values, open_page, open_titled
from ui.base import i18n

PAGE = "pages/4_gated_ffn.py"


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_defaults(lang):
    at, t = open_titled(PAGE, lang, "gated.title")
    ref = gated.measure(96, "none", 0, 0)
    metrics = metric_values(at)
    assert metrics[t("gated.metric_params")] == "73,728"
    assert float(metrics[t("gated.metric_fit")]) == pytest.approx(ref.gated_fit_error, rel=1e-2)
    assert float(metrics[t("gated.metric_collapse")]) <= 1e-12
    specs = chart_specs(at)
    assert len(specs) == 4  # the gate, the fractions, the RMSE by weights, the curves
    gate_rows = chart_rows(specs[0])
    assert len(gate_rows) == 3 * 256
    silu = [r for r in gate_rows if r["gate"] == "silu"]
    assert [r["z"] for r in silu] == pytest.approx(list(ref.pre))
    claims = [s.value for s in at.success] + [e.value for e in at.error]
    assert any(t("gated.claim_bilinear", error=ref.gated_fit_error, residual=ref.plain_collapse_residual,
                 d=96, m=256) in c for c in claims)
    infos = [i.value for i in at.info]
    assert any("73,728" in i and "110,592" in i for i in infos)
    sweep = gated_sweep.fit("sin3x", (1, 2, 4), "relu", 0)
    rmse_rows = chart_rows(specs[2])
    assert sorted(r["rmse"] for r in rmse_rows) == pytest.approx(sorted(f.rmse for f in (*sweep.plain, *sweep.gated)))


def test_a_link_reproduces_the_view():
    at = open_page(PAGE, "en", d="48", act="silu", token="7", seed="3", target="square", wact="relu", most="1")
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="act").value == "silu" and at.number_input(key="token").value == 7
    ref = gated.measure(48, "silu", 7, 3)
    t = i18n.Translator("en")
    metrics = metric_values(at)
    assert float(metrics[t("gated.metric_fit")]) == pytest.approx(ref.gated_fit_error, rel=1e-2)
    assert metrics[t("gated.metric_params")] == f"{8 * 48 * 48:,}"
    # x² with ReLU units: the gated width 3 fits parabolas, the plain width 5 straight pieces.
    sweep = gated_sweep.fit("square", (1,), "relu", 3)
    takeaway = [i.value for i in at.info if t("common.takeaway") in i.value][-1]
    if sweep.gated[0].rmse < 0.8 * sweep.plain[0].rmse:
        assert "buys accuracy" in takeaway
