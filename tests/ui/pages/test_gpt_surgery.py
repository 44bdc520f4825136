"""The GPT surgery page: ablation, the rank-one edit and sparsity from training, read back in both languages."""
import pytest

from ffn_core.gpt import ablation, evaluate, weights
from tests.conftest import chart_rows, chart_specs, metric_values, open_page, open_titled
from ui.base import i18n
from ui.base.text import pct

PAGE = "pages/9_gpt_surgery.py"


@pytest.fixture(scope="module")
def scores():
    model = weights.load()
    return ablation.scores(model), ablation.scores(ablation.ablated(model, "ffn_all"))


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_page_measures_ablation_edit_and_sparsity(lang, scores):
    at, t = open_titled(PAGE, lang, "gptsurgery.title")
    base, no_ffn = scores
    metrics = metric_values(at)
    assert metrics[t("gptsurgery.measure_seen")] == f"{pct(base.seen)} → {pct(no_ffn.seen)}"
    assert metrics[t("gptsurgery.measure_template")] == f"{pct(base.template)} → {pct(no_ffn.template)}"
    for i, active in enumerate(base.active, start=1):
        assert metrics[t("gpt.block_n", layer=i)].endswith(f"→ {active:.3f}")
    assert t("gptsurgery.metric_edited") in metrics and t("gptsurgery.metric_changed") in metrics
    changed, others = metrics[t("gptsurgery.metric_changed")].split(" / ")
    assert 0 <= int(changed) <= int(others)
    ablation_chart, sparsity_chart = chart_specs(at)
    bars = [r["accuracy"] for r in chart_rows(ablation_chart) if "accuracy" in r]
    assert bars == pytest.approx([base.seen, no_ffn.seen, base.heldout, no_ffn.heldout, base.template, no_ffn.template],
                                 nan_ok=True)
    measured = [r["active"] for r in chart_rows(sparsity_chart) if r.get("source") == "measured"]
    assert measured == pytest.approx(list(base.active))
    # The rank-one claim is a fact by construction; the weights-untouched claim is measured and holds.
    assert any(t("gptsurgery.claim_unchanged") in s.value for s in at.success)


def test_moving_controls_changes_the_experiments(scores):
    at = open_page(PAGE, "en")
    at.selectbox(key="target").set_value("attn_1").run()
    at.toggle(key="apply").set_value(False).run()
    assert not at.exception, [e.value for e in at.exception]
    model = weights.load()
    attn = ablation.scores(ablation.ablated(model, "attn_1"))
    base = scores[0]
    assert metric_values(at)["Facts, seen templates"] == f"{pct(base.seen)} → {pct(attn.seen)}"
    assert "Edited prompt" not in metric_values(at)
    assert any(i.value.startswith("Undone") for i in at.info)
    steps = weights.steps()
    at.select_slider(key="step").set_value(steps[0]).run()
    assert not at.exception, [e.value for e in at.exception]
    first = evaluate.active_fraction(weights.load(steps[0]))
    assert metric_values(at)["Block 1"].endswith(f"→ {first[0]:.3f}")


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_a_link_to_mean_ablation_measures_it_and_says_so(lang, scores):
    at = open_page(PAGE, lang, target="ffn_3", how="mean")
    assert not at.exception, [e.value for e in at.exception]
    t = i18n.Translator(lang)
    model = weights.load()
    mean = ablation.scores(ablation.ablated(model, "ffn_3", ablation.ffn_means(model)))
    base = scores[0]
    # The page's means come from the kept pass: close to the whole pass's, so the scores agree at one decimal.
    assert metric_values(at)[t("gptsurgery.measure_seen")] == f"{pct(base.seen)} → {pct(mean.seen)}"
    assert at.radio(key="how").value == "mean"
    first = t("gptsurgery.takeaway_how_mean", target=t("gptsurgery.target_ffn", layer=3))
    assert any(first in m.value for m in (*at.markdown, *at.info))
    # Attention has no mean-ablation: the link's kind falls back to zeroing.
    at = open_page(PAGE, lang, target="attn_2", how="mean")
    assert not at.exception and at.radio(key="how").value == "zero"


@pytest.mark.parametrize("query", [
    {"target": "ffn_99", "how": "half", "block": "7", "method": "zzz", "step": "12345", "apply": "maybe"},
    {"edit_country": "<b>x</b>", "edit_lang": "fr", "new": "Atlantis"},
])
def test_crafted_links_fall_back_without_an_error(query):
    at = open_page(PAGE, "en", **query)
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == i18n.Translator("en")("gptsurgery.title")
    assert metric_values(at)
