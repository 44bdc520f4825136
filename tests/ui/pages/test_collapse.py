"""The linear-collapse page: rank, singular values, the one-matrix residual, the failed linear fit."""
import pytest

from ffn_core import collapse
from tests.conftest import chart_rows, chart_specs, metric_values, open_page, open_titled
from ui.base import i18n

PAGE = "pages/3_linear_collapse.py"


def _spectrum(at) -> list[dict]:
    return chart_rows(chart_specs(at)[0])  # W₂W₁'s spectrum; the stack's follows


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_defaults_reproduce_the_seed_figures(lang):
    at, t = open_titled(PAGE, lang, "collapse.title")
    metrics = metric_values(at)
    assert metrics[t("collapse.metric_rank")] == "64"
    assert metrics[t("collapse.metric_bound")] == "64"
    assert metrics[t("collapse.metric_two")] == "32,768"
    assert metrics[t("collapse.metric_one")] == "4,096"
    assert float(metrics[t("collapse.metric_residual")]) <= 1e-12
    rows = _spectrum(at)
    ref = collapse.measure(64, 256, "none", False, 0)
    # The spectrum comes from LAPACK, whose last bits may follow the thread count; the chart is read at 3 digits.
    assert [r["singular_value"] for r in rows] == pytest.approx(list(ref.singular_values), rel=1e-9)
    assert all(r["counted"] for r in rows)
    claims = [s.value for s in at.success]
    # The one-matrix replacement and the 4-layer stack are measured: ✓. The rank bound is a theorem: a fact.
    assert len(claims) == 2 and all(c.endswith("✓") for c in claims)
    assert t("collapse.claim_replace", residual=ref.max_abs_residual) in claims[0]
    infos = [i.value for i in at.info]
    assert any(t("collapse.fact_rank", rank=64, bound=64) in i for i in infos)
    seed_line = t("collapse.fact_seed_residual", seed_residual=3.3e-16, residual=ref.max_abs_residual)
    assert any(seed_line in i for i in infos) and "3.3 × 10⁻¹⁶" in seed_line
    takeaway = next(i for i in infos if t("common.takeaway") in i)
    assert "32,768" in takeaway and "4,096" in takeaway
    assert t("collapse.takeaway_wide", d=64, m=256, rank=64) in takeaway
    assert not any("e-1" in i for i in infos + claims)  # no exponent in a sentence


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
    assert len(claims) == 2 and "ReLU" in claims[0] and f"{ref.fit_relative_error:.1%}" in claims[0]
    # With an activation, W₂W₁ is not the layer's map: no rank, no spectrum of it.
    assert t("collapse.metric_rank") not in metrics
    # The layer against its best affine fit, then the linear stack's spectrum (the stack has no activation).
    fit_spec, stack_spec = chart_specs(at)
    [points] = [rows for rows in fit_spec["datasets"].values() if len(rows) > 2]  # the diagonal has 2
    sample = collapse.fit_sample(64, 256, "relu", False, 0)
    assert [p["actual"] for p in points] == list(sample.actual)
    rows = chart_rows(stack_spec)
    assert [r["singular_value"] for r in rows] == list(collapse.stack(64, (64, 64, 64), False, 0).singular_values)
    assert not any(t("collapse.fact_rank", rank=64, bound=64) in i.value for i in at.info)
    takeaway = next(i.value for i in at.info if t("common.takeaway") in i.value)
    assert f"{ref.fit_relative_error:.1%}" in takeaway


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
    takeaway = next(i.value for i in at.info if t("common.takeaway") in i.value)
    one = int(metrics[t("collapse.metric_one")].replace(",", ""))  # one d × d matrix, with its bias if any
    # every output lies in 16 of the 64 directions; the two layers reach a strict part of one matrix's maps
    assert t("collapse.takeaway_bottleneck", d=64, m=16, rank=16, lost=48, one=one) in takeaway
    # With m < d the two layers reach only rank-16 matrices: not "the same functions" as one matrix.
    assert t("collapse.takeaway_wide", d=64, m=16, rank=16) not in takeaway

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
    metrics = metric_values(at)
    assert "rank(W₂W₁)" not in metrics and float(metrics["best single affine map: relative error"]) > 0.01


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_square_layers_are_not_called_widening(lang):
    at = open_page(PAGE, lang, m="64")
    t = i18n.Translator(lang)
    takeaway = next(i.value for i in at.info if t("common.takeaway") in i.value)
    assert t("collapse.takeaway_square", d=64, rank=64, extra=64 * 64) in takeaway
    assert t("collapse.takeaway_wide", d=64, m=64, rank=64)[:12] not in takeaway


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_a_stack_of_linear_layers_is_one_matrix(lang):
    at = open_page(PAGE, lang, d="32", layers="6", narrow="4")
    assert not at.exception, [e.value for e in at.exception]
    t = i18n.Translator(lang)
    ref = collapse.stack(32, (32, 32, 4, 32, 32), False, 0)
    assert ref.rank == 4 and ref.max_abs_residual <= 1e-12
    metrics = metric_values(at)
    assert metrics[t("collapse.metric_stack_rank")] == "4"
    assert metrics[t("collapse.metric_stack_params")] == f"{4 * 32 * 32 + 2 * 32 * 4:,}"
    assert any(t("collapse.claim_stack", layers=6, d=32, residual=ref.max_abs_residual) in s.value for s in at.success)
    takeaway = [i.value for i in at.info if t("common.takeaway") in i.value][-1]
    assert t("collapse.takeaway_stack_narrow", rank=4, bound=4) in takeaway


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_the_lesson_says_a_narrow_ffn_is_a_rank_m_subset(lang):
    # "Exactly the same functions as one matrix" holds only for m ≥ d.
    at = open_page(PAGE, lang, m="16")
    lesson = at.markdown[0].value if "W₂W₁" in at.markdown[0].value else next(
        m.value for m in at.markdown if "W₂W₁" in m.value)
    assert {"en": "strict subset", "ko": "일부일 뿐입니다"}[lang] in lesson
    assert {"en": "With m ≥ d", "ko": "m ≥ d이면"}[lang] in lesson
