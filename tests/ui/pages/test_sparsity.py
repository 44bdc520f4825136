"""The activation-sparsity page: fractions at init and over training, read back, in both languages."""
import pytest

from ffn_core import memory_training, sparsity
from tests.conftest import before_after, chart_rows, chart_specs, metric_values, open_page, open_titled
from ui.base import i18n

PAGE = "pages/7_activation_sparsity.py"


def _charts(at) -> list[dict]:
    """The experiment's charts, without the activation plot drawn with the controls."""
    return [s for s in chart_specs(at) if not any("act" in r and "z" in r for r in chart_rows(s))]


def _takeaway(at, t) -> str:
    [text] = [b.value for b in at.info if b.value.startswith(f"**{t('common.takeaway')}**")]
    return text


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_page_shows_about_half_at_init_and_the_training_curve(lang):
    at, t = open_titled(PAGE, lang, "sparsity.title")
    start = sparsity.at_init(d=64, m=256, n_tokens=1024, seed=0)
    run = sparsity.train(n=128, d=64, m=256, steps=memory_training.DEFAULT_STEPS, seed=0)
    metrics = metric_values(at)
    assert metrics[t("sparsity.metric_mean")] == f"{start.mean_active_fraction:.4f}"
    assert 0.49 <= float(metrics[t("sparsity.metric_mean")]) <= 0.51
    assert before_after(metrics[t("sparsity.metric_train")]) == pytest.approx(
        (run.active_train[0], run.active_train[-1]), abs=5e-4)
    hist, neurons, curve, loss = _charts(at)
    assert len([r for r in chart_rows(hist) if "token" in r]) == 1024
    rates = [r["firing_rate"] for r in chart_rows(neurons) if "firing_rate" in r]
    assert len(rates) == 256 and rates == sorted(rates, reverse=True)
    curve_rows = chart_rows(curve)
    assert {r["value"] for r in curve_rows if "value" in r} == {0.030, 0.063}
    fractions = [r["active_fraction"] for r in curve_rows if "active_fraction" in r]
    assert len(fractions) == 2 * len(run.steps)
    assert fractions[0] == pytest.approx(run.active_train[0])
    assert len(chart_rows(loss)) == len(run.steps)
    assert at.success[0].value.endswith("✓")
    takeaway = _takeaway(at, t)
    # The takeaway follows the measured change on each set of tokens: here a fall of more than one point on
    # the training keys, while fresh tokens moved by a tenth of a point (0.506 → 0.507): not "sparser" there.
    fresh = run.active_fresh[-1] - run.active_fresh[0]
    assert run.change <= -0.01 and abs(fresh) < 0.01
    assert t("sparsity.takeaway_train_fell", steps=memory_training.DEFAULT_STEPS, before=run.active_train[0],
             after=run.active_train[-1], points=abs(100 * run.change)) in takeaway
    assert t("sparsity.takeaway_fresh_flat", fresh0=run.active_fresh[0], fresh1=run.active_fresh[-1]) in takeaway
    assert t("sparsity.takeaway_reference_relu") in takeaway


@pytest.mark.parametrize("lang", i18n.LANGS)
@pytest.mark.parametrize("act", ["gelu", "silu"])
def test_published_relu_lines_only_for_relu(lang, act):
    at = open_page(PAGE, lang, act=act, steps="50")
    assert not at.exception, [e.value for e in at.exception]
    t = i18n.Translator(lang)
    curve = [s for s in _charts(at) if any("active_fraction" in r and "step" in r for r in chart_rows(s))][0]
    assert not [r for r in chart_rows(curve) if "value" in r]  # no reference lines
    name = t(f"sparsity.act_{act}")
    assert t("sparsity.reference_caption_smooth", act=name) in [c.value for c in at.caption]
    assert t("sparsity.takeaway_reference_smooth", act=name) in _takeaway(at, t)
    assert t("sparsity.takeaway_reference_relu") not in _takeaway(at, t)


def test_titles_differ_between_languages():
    titles = {lang: open_page(PAGE, lang, steps="0").title[0].value for lang in i18n.LANGS}
    assert titles["ko"] != titles["en"]


def test_moving_controls_changes_what_is_measured():
    at = open_page(PAGE, "en", d="32", m="64", steps="100")
    assert not at.exception
    at.selectbox(key="init").set_value("normal").run()
    at.radio(key="task").set_value("random_labels").run()
    at.selectbox(key="act").set_value("gelu").run()
    assert not at.exception
    t = i18n.Translator("en")
    start = sparsity.at_init(d=32, m=64, n_tokens=1024, act="gelu", init="normal", seed=0)
    run = sparsity.train(n=128, d=32, m=64, steps=100, task="random_labels", act="gelu", init="normal", seed=0)
    metrics = metric_values(at)
    assert metrics[t("sparsity.metric_mean")] == f"{start.mean_active_fraction:.4f}"
    assert before_after(metrics[t("sparsity.metric_train")]) == pytest.approx(
        (run.active_train[0], run.active_train[-1]), abs=5e-4)
    _, neurons, curve, _ = _charts(at)
    assert len([r for r in chart_rows(neurons) if "firing_rate" in r]) == 64
    table = at.dataframe[0].value
    assert len(table) == 8
    # Random labels raise the fraction in this run: the takeaway must not claim a fall.
    assert run.change > 0
    takeaway = _takeaway(at, t)
    assert t("sparsity.takeaway_train_rose", steps=100, before=run.active_train[0], after=run.active_train[-1],
             points=100 * run.change) in takeaway
    assert "made this FFN sparser" not in takeaway


def test_without_training_the_curve_is_one_point_and_the_takeaway_says_so():
    at = open_page(PAGE, "ko", steps="0")
    assert not at.exception
    hist, neurons, curve = _charts(at)  # no loss chart without steps
    assert len([r for r in chart_rows(curve) if "active_fraction" in r]) == 2
    t = i18n.Translator("ko")
    start = sparsity.at_init(seed=0)
    text = t("sparsity.takeaway_untrained", value=start.mean_active_fraction, always_on=start.always_on,
             dead=start.dead)
    assert _takeaway(at, t).endswith(text)
    # the sentence agrees with the metric beside it: "always on" neurons counted, not "half answer every token"
    assert f"{start.always_on}개" in text and metric_values(at)[t("sparsity.metric_always_on")] == str(start.always_on)
    assert "모든 토큰에 반응" not in text


def test_too_costly_training_is_a_warning():
    at = open_page(PAGE, "en", d="128", m="512", steps="1000")
    assert not at.exception
    assert at.warning[0].value == i18n.Translator("en")("sparsity.too_costly")
    assert not at.metric


def test_the_runs_over_seeds_come_after_the_answer_and_join_the_takeaway_when_done():
    """The page answers with the seed on screen at once; the same setting over seeds is trained on a thread of
    its own (a line says so), and the takeaway adds what holds across them once they are done."""
    import time

    from tests.conftest import TIMEOUT
    from ui.verdicts import sparsity as verdicts

    t = i18n.Translator("en")
    spread = sparsity.seed_spread(n=128, d=32, m=64, steps=50)
    values: dict = {}
    seeds_sentence = t(verdicts.across_seeds(spread, values)[0], **values)
    at = open_page(PAGE, "en", d="32", m="64", steps="50", seed="3")
    assert not at.exception, [e.value for e in at.exception]
    line = t("sparsity.seeds_pending", last=spread.seeds[-1])
    if line in [c.value for c in at.caption]:  # the usual case: not computed yet, the answer came without them
        assert seeds_sentence not in _takeaway(at, t)
        deadline = time.monotonic() + TIMEOUT
        while line in [c.value for c in at.caption] and time.monotonic() < deadline:
            time.sleep(0.3)
            at.run()  # what the line's timer does in a browser: look again, the page rerun whole once done
    assert not at.exception, [e.value for e in at.exception]
    assert line not in [c.value for c in at.caption]
    assert seeds_sentence in _takeaway(at, t)  # from the same runs the core measures
