"""The key-value page: the measured residual and concentration, read back, in both languages."""
import pytest

from ffn_core import keyvalue, memory_training
from tests.conftest import before_after, chart_rows, chart_specs, metric_values, open_page, open_titled
from ui.base import i18n

PAGE = "pages/6_key_value.py"


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_page_shows_the_measured_decomposition(lang):
    at, t = open_titled(PAGE, lang, "keyvalue.title")
    res = keyvalue.measure(d=64, m=256, n=128, steps=memory_training.DEFAULT_STEPS, token=0, seed=0)
    metrics = metric_values(at)
    # A rounding-level residual: checked against its bound, not against another run's last digits.
    assert float(metrics[t("keyvalue.metric_residual")]) <= 1e-12
    assert before_after(metrics[t("keyvalue.metric_50")], int) == (res.untrained.n_for_50, res.trained.n_for_50)
    assert before_after(metrics[t("keyvalue.metric_90")], int) == (res.untrained.n_for_90, res.trained.n_for_90)
    bars_before, bars_after, curve = chart_specs(at)
    assert len(chart_rows(bars_before)) == len(chart_rows(bars_after)) == 20
    top = max(chart_rows(bars_after), key=lambda r: abs(r["projection"]))
    assert top["projection"] == pytest.approx(max(res.trained.projection, key=abs))
    assert len([r for r in chart_rows(curve) if "cumulative_share" in r]) == 2 * 256
    assert len(at.success) == 3 and all(s.value.endswith("✓") for s in at.success)  # sum, recall, concentration
    assert res.trained.recall == 1.0
    assert _takeaway(at, t).startswith(f"**{t('common.takeaway')}**")


def test_titles_differ_between_languages():
    titles = {lang: open_page(PAGE, lang).title[0].value for lang in i18n.LANGS}
    assert titles["ko"] != titles["en"]


def test_moving_controls_changes_what_is_measured():
    at = open_page(PAGE, "en", d="32", m="64", n="32", steps="100")
    assert not at.exception
    at.slider(key="top").set_value(7).run()
    at.number_input(key="token").set_value(3).run()
    assert not at.exception
    res = keyvalue.measure(d=32, m=64, n=32, steps=100, token=3, seed=0)
    t = i18n.Translator("en")
    metrics = metric_values(at)
    assert before_after(metrics[t("keyvalue.metric_90")], int) == (res.untrained.n_for_90, res.trained.n_for_90)
    bars_before, bars_after, curve = chart_specs(at)
    assert len(chart_rows(bars_before)) == 7
    assert len([r for r in chart_rows(curve) if "cumulative_share" in r]) == 2 * 64


def _takeaway(at, t) -> str:
    [text] = [b.value for b in at.info if b.value.startswith(f"**{t('common.takeaway')}**")]
    return text


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_no_training_is_a_stated_fact_not_a_failed_check(lang):
    at = open_page(PAGE, lang, steps="0")
    assert not at.exception
    t = i18n.Translator(lang)
    before, after = before_after(metric_values(at)[t("keyvalue.metric_90")], int)
    assert before == after
    # Nothing trained: both FFNs are the same module, stated as a fact, neither ✓ nor ✗.
    assert not at.error and len(at.success) == 1
    res = keyvalue.measure(steps=0)
    facts = [b.value for b in at.info if b.value.startswith(f"**{t('common.fact')}**")]
    assert len(facts) == 1 and f"{res.concentration(0.9).mean_before:.3g}" in facts[0]
    assert t("keyvalue.takeaway_untrained", m=256, before=res.concentration(0.9).mean_before) in _takeaway(at, t)


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_takeaway_follows_the_measured_recall(lang):
    # 256 pairs in 32 neurons of width 16: training stores a quarter of them, and the page must say so.
    at = open_page(PAGE, lang, d="16", m="32", n="256", steps="400")
    assert not at.exception, [e.value for e in at.exception]
    t = i18n.Translator(lang)
    res = keyvalue.measure(d=16, m=32, n=256, steps=400)
    recalled = round(res.trained.recall * 256)
    assert recalled < 256
    takeaway = _takeaway(at, t)
    assert t("keyvalue.takeaway_recalled_all", steps=400, n=256) not in takeaway
    assert t("keyvalue.takeaway_recalled_some", steps=400, n=256, recalled=recalled,
             recall=res.trained.recall) in takeaway
    assert any(e.value.startswith(f"**{t('common.claim')}**") and f"{recalled}" in e.value for e in at.error)
    # the means compare the same keys: those reaching 90% before and after; the others are counted, not dropped
    conc = res.concentration(0.9)
    assert conc.never_before > 0 and conc.keys + conc.never_before <= 256
    assert t("keyvalue.takeaway_never", never_before=conc.never_before, never_after=conc.never_after) in takeaway
    b = [x for x in res.untrained.counts_90]
    a = [x for x in res.trained.counts_90]
    both = [(x, y) for x, y in zip(b, a) if x and y]
    assert conc.mean_before == pytest.approx(sum(x for x, _ in both) / len(both))
    assert conc.mean_after == pytest.approx(sum(y for _, y in both) / len(both))


def test_token_beyond_the_stored_keys_is_a_warning():
    at = open_page(PAGE, "ko", n="16", token="20")
    assert not at.exception
    assert at.warning[0].value == i18n.Translator("ko")("keyvalue.token_out_of_range", token=20, n=16)
    assert not at.metric
