"""The width-sweep page: the cached default sweep, controls, the live training, bad links and bad expressions."""
import pytest

from ffn_core.sweep import best, lesson, sweep
from tests.conftest import chart_specs, metric_values, open_page
from ui import i18n

PAGE = "pages/4_width_sweep.py"
KEYS = ("target", "expr", "widths", "act", "method", "seed")
BAD = ("abc", "-1", "99999", "1.5", "", "<script>alert(1)</script>")


def _rows(spec: dict) -> list[dict]:
    return [row for rows in spec["datasets"].values() for row in rows]


def _rmse_chart(at) -> list[dict]:
    """The RMSE-by-width chart's data (the only chart with a 'series' field)."""
    [rows] = [_rows(s) for s in chart_specs(at) if any("series" in r and "rmse" in r for r in _rows(s))]
    return rows


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_default_view_shows_the_lesson_measured(lang):
    at = open_page(PAGE, lang)
    assert not at.exception, [e.value for e in at.exception]
    t = i18n.Translator(lang)
    assert at.title[0].value == t("sweep.title")
    ref = sweep.fit_widths()
    metrics = metric_values(at)
    assert metrics[t("sweep.metric_rmse", m=2)] == f"{ref.fits[0].rmse:.4g}"
    assert metrics[t("sweep.metric_rmse", m=32)] == f"{ref.fits[-1].rmse:.4g}"
    assert metrics[t("sweep.metric_kinks", m=32)] == f"{ref.fits[-1].kinks_inside} / 32"
    rows = _rmse_chart(at)
    ours = {r["width"]: r["rmse"] for r in rows if r["series"] == "pieces"}
    # BLAS may round the last bit differently between two calls (memory alignment): compare to 1e-9.
    assert ours == pytest.approx({f.width: f.rmse for f in ref.fits}, rel=1e-9)
    seed = {r["width"]: r["rmse"] for r in rows if r["series"] == "seed"}
    assert seed == lesson.SEED_RMSE
    found = {r["width"]: r["rmse"] for r in rows if r["series"] == "best"}
    stored = best.reference("sin3x", sweep.WIDTHS)
    for f, r in zip(ref.fits, stored.rmse):
        assert found[f.width] == pytest.approx(min(r, f.rmse)) and found[f.width] <= f.rmse * (1 + 1e-9)
    claims = [s.value for s in at.success]
    assert len(claims) == 2 and all(c.endswith("✓") for c in claims)
    assert " > ".join(f"{f.rmse:.3g}" for f in ref.fits) in claims[0]
    assert "32 ≤ 32" in claims[1] or f"{ref.fits[-1].kinks_inside} ≤ 32" in claims[1]
    assert f"{ref.fits[-1].rmse:.3g}" in at.info[0].value
    # fits chart: one curve per width plus the target, kink markers
    fits = [s for s in chart_specs(at) if "facet" in s]
    assert len(fits) == 1
    kinds = {r["kind"] for r in _rows(fits[0])}
    assert kinds == {"target", "fit", "kink"}
    assert sum(r["kind"] == "kink" for r in _rows(fits[0])) == sum(f.kinks_inside for f in ref.fits)


def test_titles_differ_between_languages():
    assert open_page(PAGE, "en").title[0].value != open_page(PAGE, "ko").title[0].value


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_controls_change_the_result(lang):
    t = i18n.Translator(lang)
    at = open_page(PAGE, lang)
    at.multiselect(key="widths").set_value([1, 8])
    at.selectbox(key="target").set_value("abs")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    ref = sweep.fit_widths("abs", (1, 8))
    metrics = metric_values(at)
    assert metrics[t("sweep.metric_rmse", m=1)] == f"{ref.fits[0].rmse:.4g}"
    assert metrics[t("sweep.metric_rmse", m=8)] == f"{ref.fits[1].rmse:.4g}"
    assert not any(r["series"] == "seed" for r in _rmse_chart(at))  # the seed's table is for sin(3x) only

    at.radio(key="method").set_value("both").run()
    assert not at.exception
    series = {r["series"] for r in _rmse_chart(at)}
    assert {"pieces", "naive", "best"} <= series
    assert len(at.success) + len(at.error) == 4  # two claims per method
    naive = sweep.fit_widths("abs", (1, 8), method="naive")
    assert {r["width"]: r["rmse"] for r in _rmse_chart(at) if r["series"] == "naive"} == pytest.approx({
        f.width: f.rmse for f in naive.fits}, rel=1e-6)

    at.selectbox(key="act").set_value("gelu")
    at.number_input(key="seed").set_value(3)
    at.run()
    assert not at.exception
    ref = sweep.fit_widths("abs", (1, 8), act="gelu", seed=3)
    assert metric_values(at)[t("sweep.metric_rmse", m=8)] == f"{ref.fits[1].rmse:.4g}"


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_custom_expression_good_and_bad(lang):
    at = open_page(PAGE, lang)
    at.selectbox(key="target").set_value("custom").run()
    at.text_input(key="expr").set_value("x**2 - 1").run()
    assert not at.exception and not at.warning
    ref = sweep.fit_widths("x**2 - 1")
    t = i18n.Translator(lang)
    assert metric_values(at)[t("sweep.metric_rmse", m=32)] == f"{ref.fits[-1].rmse:.4g}"
    for bad in ("__import__('os')", "x.real", "y + 1", "open('f')", "log(x)", "x ** 1000", "<script>alert(1)</script>"):
        at.text_input(key="expr").set_value(bad).run()
        assert not at.exception, (bad, [e.value for e in at.exception])
        assert len(at.warning) == 1, bad
        # falls back to the default target
        assert metric_values(at)[t("sweep.metric_rmse", m=2)] == f"{sweep.fit_widths().fits[0].rmse:.4g}"


def test_no_widths_is_a_warning_not_a_traceback():
    at = open_page(PAGE, "en")
    at.multiselect(key="widths").set_value([]).run()
    assert not at.exception and len(at.warning) == 1 and not chart_specs(at)


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_train_button_animates_and_ends_at_the_cached_result(lang):
    at = open_page(PAGE, lang, widths=["2", "8"])
    before = len(chart_specs(at))
    at.button(key="train").click().run()
    assert not at.exception, [e.value for e in at.exception]
    specs = chart_specs(at)
    assert len(specs) == before + 2  # live fits and live loss curves
    loss = [r for s in specs for r in _rows(s) if "step" in r]
    ref = sweep.fit_widths(widths=(2, 8))
    last = {r["width"]: r["rmse"] for r in loss if r["step"] == ref.steps}
    assert last == pytest.approx({f.width: f.history[-1] for f in ref.fits}, rel=1e-9)


def test_a_link_reproduces_the_view():
    at = open_page(PAGE, "en", target="x²", widths=["2", "16"], act="GELU", method="naive Adam", seed="7")
    assert not at.exception
    assert at.selectbox(key="target").value == "square"
    assert at.multiselect(key="widths").value == [2, 16]
    assert (at.selectbox(key="act").value, at.radio(key="method").value) == ("gelu", "naive")
    assert at.number_input(key="seed").value == 7
    ref = sweep.fit_widths("square", (2, 16), act="gelu", method="naive", seed=7)
    assert metric_values(at)["RMSE, m = 16"] == f"{ref.fits[1].rmse:.4g}"


@pytest.mark.parametrize("bad", BAD)
def test_every_key_bad_at_once_falls_back_to_defaults(bad):
    at = open_page(PAGE, "en", **{key: bad for key in KEYS})
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="target").value == "sin3x"
    if bad == "":  # an empty list is a valid selection: the page asks for a width instead of drawing
        assert at.multiselect(key="widths").value == [] and len(at.warning) == 1
        return
    assert at.multiselect(key="widths").value == list(sweep.WIDTHS)
    assert len(chart_specs(at)) == 3


@pytest.mark.parametrize("key", KEYS)
def test_markup_in_one_key(key):
    at = open_page(PAGE, "<b>x</b>", **{key: "<script>alert(1)</script>"})
    assert not at.exception, [e.value for e in at.exception]
    assert len(chart_specs(at)) == 3


def test_too_many_widths_in_a_link_are_refused():
    at = open_page(PAGE, "en", widths=[str(m) for m in (1, 2, 4, 8, 16, 32, 64, 128, 256)])
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.multiselect(key="widths").value) <= sweep.MAX_WIDTHS
