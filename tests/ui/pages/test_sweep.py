"""The width-sweep page: the cached default sweep, controls, the live training, bad links and bad expressions."""
import pytest

from ffn_core.sweep import best, lesson, sweep
from tests.conftest import BAD_VALUES, chart_rows, chart_specs, metric_values, open_page, open_titled, open_unbroken
from ui.base import i18n, text

PAGE = "pages/5_width_sweep.py"
KEYS = ("target", "expr", "widths", "act", "method", "seed")


def _experiment_charts(at) -> list[dict]:
    """The charts of the experiment, without the activation plot (drawn with the controls)."""
    return [s for s in chart_specs(at) if not any("act" in r and "z" in r for r in chart_rows(s))]


def _rmse_chart(at) -> list[dict]:
    """The RMSE-by-width chart's data (the only chart with a 'series' field)."""
    [rows] = [chart_rows(s) for s in chart_specs(at) if any("series" in r and "rmse" in r for r in chart_rows(s))]
    return rows


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_default_view_shows_the_lesson_measured(lang):
    at, t = open_titled(PAGE, lang, "sweep.title")
    ref = sweep.fit_widths()
    metrics = metric_values(at)
    assert metrics[t("sweep.metric_rmse", m=2)] == f"{ref.fits[0].rmse:.4g}"
    assert metrics[t("sweep.metric_rmse", m=32)] == f"{ref.fits[-1].rmse:.4g}"
    assert metrics[t("sweep.metric_pieces", m=32)] == f"{ref.fits[-1].pieces} / 33"
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
    assert len(claims) == 1 and claims[0].endswith("✓") and not at.error
    assert " > ".join(f"{f.rmse:.3g}" for f in ref.fits) in claims[0]
    facts = _facts(at, t)
    # m neurons make at most m kinks: a theorem, stated with the counts rather than ticked
    assert len(facts) == 1 and f"{ref.fits[-1].kinks_inside} ≤ 32" in facts[0] and "✓" not in facts[0]
    takeaway = _takeaway(at, t)
    assert f"{ref.fits[-1].rmse:.3g}" in takeaway and "0.0250" in takeaway  # the seed's figure beside ours
    # fits chart: one curve per width plus the target, markers at the kinks that matter
    fits = [s for s in chart_specs(at) if "facet" in s and any(r.get("kind") == "kink" for r in chart_rows(s))]
    assert len(fits) == 1
    kinds = {r["kind"] for r in chart_rows(fits[0])}
    assert kinds == {"target", "fit", "kink"}
    assert sum(r["kind"] == "kink" for r in chart_rows(fits[0])) == sum(f.pieces - 1 for f in ref.fits)
    # the seed's table beside ours: its RMSE and its kinks 2, 4, 7, 16, 31 next to the kinks measured here
    # (the charts' own data tables come first; the seed's table is the one with its columns)
    table = next(d.value for d in at.dataframe if t("sweep.col_seed_kinks") in d.value.columns)
    assert list(table[t("sweep.col_seed_kinks")]) == [2, 4, 7, 16, 31]
    assert list(table[t("sweep.col_kinks")]) == [f.kinks_inside for f in ref.fits]


def _facts(at, t) -> list[str]:
    return [b.value for b in at.info if b.value.startswith(f"**{t('common.fact')}**")]


def _takeaway(at, t) -> str:
    [text] = [b.value for b in at.info if b.value.startswith(f"**{t('common.takeaway')}**")]
    return text


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
    # |x| is two pieces: from m = 2 the snapped fit is exact, shown as ≈0 rather than a rounding error.
    assert ref.fits[1].exact and metrics[t("sweep.metric_rmse", m=8)] == "≈0"
    assert not any(r["series"] == "seed" for r in _rmse_chart(at))  # the seed's table is for sin(3x) only

    at.radio(key="method").set_value("both").run()
    assert not at.exception
    series = {r["series"] for r in _rmse_chart(at)}
    assert {"pieces", "naive", "best"} <= series
    assert len(at.success) + len(at.error) == 2  # one measured claim per method
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
    assert not at.exception and len(at.warning) == 1 and not _experiment_charts(at)


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_train_button_animates_and_ends_at_the_cached_result(lang):
    at = open_page(PAGE, lang, widths=["2", "8"])
    before = len(chart_specs(at))
    at.button(key="train").click().run()
    assert not at.exception, [e.value for e in at.exception]
    specs = chart_specs(at)
    assert len(specs) == before + 2  # live fits and live loss curves
    loss = [r for s in specs for r in chart_rows(s) if "step" in r]
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


@pytest.mark.parametrize("bad", BAD_VALUES)
def test_every_key_bad_at_once_falls_back_to_defaults(bad):
    at = open_unbroken(PAGE, "en", **{key: bad for key in KEYS})
    assert at.selectbox(key="target").value == "sin3x"
    if bad == "":  # an empty list is a valid selection: the page asks for a width instead of drawing
        assert at.multiselect(key="widths").value == [] and len(at.warning) == 1
        return
    assert at.multiselect(key="widths").value == list(sweep.WIDTHS)
    assert len(_experiment_charts(at)) == 3


def test_too_many_widths_in_a_link_are_refused():
    at = open_page(PAGE, "en", widths=[str(m) for m in (1, 2, 4, 8, 16, 32, 64, 128, 256)])
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.multiselect(key="widths").value) <= sweep.MAX_WIDTHS


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_exact_fits_are_exact_never_a_shortfall(lang):
    # |x| fits to rounding error on the grid and between its points; step(x) only on the grid (a steep piece
    # between the two points around the jump): no "inf", no exponent in a sentence, no "fell short" at a
    # width at rounding level, and step is named as meeting the target at the points only.
    t = i18n.Translator(lang)
    for target in ("|x|", "step(x)"):
        at = open_page(PAGE, lang, target=target)
        assert not at.exception, [e.value for e in at.exception]
        key = "abs" if target == "|x|" else "step"
        ref = sweep.fit_widths(key)
        exact = [f.width for f in ref.fits if f.exact]
        grid_only = [f.width for f in ref.fits if f.exact_on_grid and not f.exact]
        assert bool(exact) == (key == "abs") and bool(grid_only) == (key == "step"), (target, ref.fits)
        texts = [b.value for b in (*at.success, *at.error, *at.info)]
        assert not any("inf" in x or "e-1" in x or "e+" in x for x in texts), texts
        facts = _facts(at, t)
        named = exact or grid_only
        assert any(", ".join(map(str, named)) in f for f in facts), facts
        if grid_only:
            missed = text.sig(max(f.rmse_between for f in ref.fits if f.width in grid_only))
            assert any(missed in f and ", ".join(map(str, grid_only)) in f for f in facts), (missed, facts)
        assert "≈0" in at.success[0].value if at.success else "≈0" in at.error[0].value
        for f in ref.fits:
            if f.exact_on_grid:
                assert t("sweep.takeaway_exact_missed", m_gap=f.width, r_gap=f.rmse) not in _takeaway(at, t)
        # a fit at rounding level has no place on the log axis: left out of the chart, not drawn at 1e-15
        charts = [chart_rows(s) for s in chart_specs(at) if any("series" in r and "rmse" in r for r in chart_rows(s))]
        assert all(r["rmse"] > ref.exact_tol for rows in charts for r in rows)


def test_abs_counts_the_pieces_that_matter():
    # |x| is two pieces; the fit at m = 16 may keep neurons bending by amounts no chart can show, and the
    # page counts only the bends that matter: with the kink snapped onto 0 the fit is |x| itself.
    at = open_page(PAGE, "en", target="|x|", widths=["2", "16"])
    ref = sweep.fit_widths("abs", (2, 16))
    assert ref.fits[1].exact and ref.fits[1].pieces == 2
    assert metric_values(at)["Pieces, m = 16"] == f"{ref.fits[1].pieces} / 17"


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_gelu_tells_no_kink_story(lang):
    t = i18n.Translator(lang)
    at = open_page(PAGE, lang, act="gelu")
    assert not at.exception, [e.value for e in at.exception]
    specs = chart_specs(at)
    assert not any(r.get("kind") == "kink" for s in specs for r in chart_rows(s))
    assert not any("pieces_bound" in r for s in specs for r in chart_rows(s))  # no pieces chart
    assert t("sweep.metric_pieces", m=32) not in metric_values(at)
    assert not _facts(at, t)  # no "at most m kinks"
    takeaway = _takeaway(at, t)
    assert t("sweep.takeaway_smooth") in takeaway
    assert t("sweep.fits_caption_gelu") in [c.value for c in at.caption]


@pytest.mark.parametrize("lang", i18n.LANGS)
@pytest.mark.parametrize("text", ["0", "x-x", "0*x", "sin(0)", "1e-300*x"])
def test_a_flat_custom_target_is_a_message_not_a_traceback(lang, text):
    at = open_page(PAGE, lang, target="custom", expr=text)
    assert not at.exception, [e.value for e in at.exception]
    t = i18n.Translator(lang)
    assert [w.value for w in at.warning] == [t("sweep.bad_expr", reason=t("sweep.expr_flat"))]
    assert metric_values(at)[t("sweep.metric_rmse", m=2)] == f"{sweep.fit_widths().fits[0].rmse:.4g}"


def test_an_all_exact_sweep_draws_no_empty_log_chart():
    # x on [-2, 2] is relu(x + 2) - 2: exact from m = 1, every error at rounding level.
    at = open_page(PAGE, "en", target="custom", expr="x", widths=["1", "2"])
    assert not at.exception, [e.value for e in at.exception]
    assert not [s for s in chart_specs(at) if any("series" in r and "rmse" in r for r in chart_rows(s))]
    assert i18n.Translator("en")("sweep.rmse_all_exact") in [c.value for c in at.caption]


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_activation_plot_and_the_expansion_trade_off(lang):
    t = i18n.Translator(lang)
    at = open_page(PAGE, lang, act="gelu", expansion="true")
    assert not at.exception, [e.value for e in at.exception]
    specs = chart_specs(at)
    acts = [s for s in specs if any("kind" in r and r.get("act") for r in chart_rows(s))]
    assert len(acts) == 1
    rows = chart_rows(acts[0])
    # the slopes drawn: relu's jumps from 0 to 1 at z = 0, gelu's passes 1/2 there
    slope = {(r["act"], round(r["z"], 6)): r["y"] for r in rows if r["kind"] == "slope"}
    assert slope[("relu", -0.05)] == 0.0 and slope[("relu", 0.05)] == 1.0
    assert slope[("gelu", 0.0)] == pytest.approx(0.5)
    trade = [s for s in specs if any("expansion" in r for r in chart_rows(s))]
    assert len(trade) == 1
    ref = sweep.fit_widths("sin3x", (8, 16, 21, 24, 32, 64), act="gelu")
    got = {r["expansion"]: r["rmse"] for r in chart_rows(trade[0])}
    assert got["8/3×"] == pytest.approx(ref.fits[2].rmse, rel=1e-9)
    assert got["4×"] == pytest.approx(ref.fits[4].rmse, rel=1e-9)
    assert {r["params"] for r in chart_rows(trade[0])} <= {3 * m + 1 for m in (8, 16, 21, 24, 32, 64)}


def test_a_flat_target_typed_in_the_box_is_a_message_too():
    at = open_page(PAGE, "ko")
    at.selectbox(key="target").set_value("custom").run()
    t = i18n.Translator("ko")
    for text in ("0", "0*x", "1e-300*x"):
        at.text_input(key="expr").set_value(text).run()
        assert not at.exception, (text, [e.value for e in at.exception])
        assert [w.value for w in at.warning] == [t("sweep.bad_expr", reason=t("sweep.expr_flat"))]
        assert _experiment_charts(at)  # the default target's charts, drawn
