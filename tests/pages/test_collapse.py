"""The linear-collapse page: rank, singular values, the one-matrix residual, the failed linear fit."""
import pytest

from ffn_core import collapse
from tests.conftest import chart_specs, metric_values, open_page
from ui import i18n

PAGE = "pages/3_linear_collapse.py"
KEYS = ("d", "m", "act", "bias", "seed")
BAD = ("abc", "-1", "99999", "1.5", "", "<script>alert(1)</script>")


def _spectrum(at) -> list[dict]:
    [spec] = chart_specs(at)
    return [row for rows in spec["datasets"].values() for row in rows]


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_defaults_reproduce_the_seed_figures(lang):
    at = open_page(PAGE, lang)
    assert not at.exception, [e.value for e in at.exception]
    t = i18n.Translator(lang)
    assert at.title[0].value == t("collapse.title")
    metrics = metric_values(at)
    assert metrics[t("collapse.metric_rank")] == "64"
    assert metrics[t("collapse.metric_bound")] == "64"
    assert metrics[t("collapse.metric_two")] == "32,768"
    assert metrics[t("collapse.metric_one")] == "4,096"
    shown = metrics[t("collapse.metric_residual")]
    assert float(shown) <= 1e-12
    rows = _spectrum(at)
    ref = collapse.measure(64, 256, "none", False, 0)
    # The spectrum comes from LAPACK, whose last bits may follow the thread count; the chart is read at 3 digits.
    assert [r["singular_value"] for r in rows] == pytest.approx(list(ref.singular_values), rel=1e-9)
    assert all(r["counted"] for r in rows)
    claims = [s.value for s in at.success]
    assert len(claims) == 2 and all(c.endswith("✓") for c in claims)
    assert "64 ≤ 64" in claims[0]
    # The claim cites the residual its own metric shows, from the same computation.
    assert shown in claims[1]
    assert "32,768" in at.info[0].value and "4,096" in at.info[0].value


def test_titles_differ_between_languages():
    assert open_page(PAGE, "en").title[0].value != open_page(PAGE, "ko").title[0].value


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_an_activation_cannot_be_collapsed(lang):
    at = open_page(PAGE, lang)
    at.selectbox(key="act").set_value("relu").run()
    assert not at.exception
    t = i18n.Translator(lang)
    metrics = metric_values(at)
    fit = float(metrics[t("collapse.metric_fit")])
    ref = collapse.measure(64, 256, "relu", False, 0)
    assert fit == pytest.approx(ref.fit_relative_error, rel=1e-2)
    assert fit > 0.1
    claims = [s.value for s in at.success]
    assert len(claims) == 2 and "ReLU" in claims[1] and f"{fit:.3g}" in claims[1]
    assert f"{ref.fit_relative_error:.0%}" in at.info[0].value


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_bottleneck_bias_and_width(lang):
    at = open_page(PAGE, lang)
    t = i18n.Translator(lang)
    at.select_slider(key="m").set_value(16).run()
    metrics = metric_values(at)
    assert metrics[t("collapse.metric_rank")] == "16"
    assert metrics[t("collapse.metric_bound")] == "16"
    rows = _spectrum(at)
    assert sum(r["counted"] for r in rows) == 16
    assert all(r["singular_value"] < 1e-12 for r in rows if not r["counted"])
    assert "48" in at.info[0].value  # 64 − 16 directions lost

    at.toggle(key="bias").set_value(True)
    at.select_slider(key="m").set_value(256)
    at.run()
    metrics = metric_values(at)
    assert metrics[t("collapse.metric_two")] == f"{2 * 64 * 256 + 256 + 64:,}"
    assert metrics[t("collapse.metric_one")] == f"{64 * 64 + 64:,}"
    assert float(metrics[t("collapse.metric_residual")]) <= 1e-12

    at.slider(key="d").set_value(32)
    at.number_input(key="seed").set_value(4)
    at.run()
    assert not at.exception
    metrics = metric_values(at)
    assert metrics[t("collapse.metric_rank")] == "32"
    assert len(_spectrum(at)) == 32
    assert [r["singular_value"] for r in _spectrum(at)] == list(collapse.measure(32, 256, "none", True, 4).singular_values)


def test_a_link_reproduces_the_view():
    at = open_page(PAGE, "en", d="16", m="8", act="GELU", bias="true", seed="2")
    assert not at.exception
    assert (at.slider(key="d").value, at.select_slider(key="m").value, at.selectbox(key="act").value) == (16, 8, "gelu")
    assert at.toggle(key="bias").value and at.number_input(key="seed").value == 2
    assert metric_values(at)["rank(W₂W₁)"] == "8"


@pytest.mark.parametrize("bad", BAD)
def test_every_key_bad_at_once_falls_back_to_defaults(bad):
    at = open_page(PAGE, "en", **{key: bad for key in KEYS})
    assert not at.exception, [e.value for e in at.exception]
    assert len(chart_specs(at)) == 1
    assert at.slider(key="d").value == 64 and at.select_slider(key="m").value == 256


@pytest.mark.parametrize("key", KEYS)
def test_markup_in_one_key(key):
    at = open_page(PAGE, "<b>x</b>", **{key: "<script>alert(1)</script>"})
    assert not at.exception, [e.value for e in at.exception]
    assert len(chart_specs(at)) == 1
