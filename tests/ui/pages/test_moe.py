"""The mixture-of-experts page: the toy layer's counts and routing, the published models, the trained router."""
import pytest

from ffn_core import moe, moe_presets
from ffn_core.gpt import moe_probes, moe_train
from tests.conftest import chart_rows, chart_specs, metric_values, open_page, open_titled
from ui.base import i18n

PAGE = "pages/10_mixture_of_experts.py"


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_defaults(lang):
    at, t = open_titled(PAGE, lang, "moe.title")
    ref = moe.measure(64, 256, 8, 2, 256, 0)
    metrics = metric_values(at)
    assert metrics[t("moe.metric_total")] == f"{ref.total_params:,}"
    assert metrics[t("moe.metric_active")] == f"{ref.routing(2).active_params:,}"
    specs = chart_specs(at)
    assert len(specs) == 4  # tokens per expert, the published models, the routes, the ablation
    counts = {(r["k_label"], r["expert_label"]): r["tokens"] for r in chart_rows(specs[0])}
    assert counts[(t("moe.k_label", k=1), "1")] == ref.routing(1).tokens_per_expert[0]
    assert sum(v for (k, _), v in counts.items() if k == t("moe.k_label", k=2)) == 512
    claims = [s.value for s in at.success]
    for c in map(moe_presets.count, moe_presets.PRESETS):
        assert any(c.name in claim and c.published_text in claim for claim in claims)
    model = moe_train.load()
    base = moe_probes.run(model)
    cut = moe_probes.ablate(model, 0, 2, base)  # the default: block 1, expert 3
    ablation_rows = chart_rows(specs[3])
    assert len(ablation_rows) == 2 * len(cut.rows)
    everything = " ".join(s.value for s in (*at.success, *at.error, *at.info))
    assert f"{cut.before:,}" in everything and f"{cut.after:,}" in everything


def test_moving_the_controls():
    at = open_page(PAGE, "en")
    at.select_slider(key="experts").set_value(4).run()
    at.radio(key="k").set_value(1).run()
    at.select_slider(key="block").set_value(2)
    at.radio(key="expert").set_value(3)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    t = i18n.Translator("en")
    ref = moe.measure(64, 256, 4, 1, 256, 0)
    assert metric_values(at)[t("moe.metric_active")] == f"{ref.routing(1).active_params:,}"
    model = moe_train.load()
    cut = moe_probes.ablate(model, 1, 2)
    everything = " ".join(s.value for s in (*at.success, *at.error, *at.info))
    assert t("moe.claim_ablation", block=2, expert=3, routed=cut.routed, fell=cut.fell_total, rose=cut.rose_total,
             after=cut.after, prompts=cut.prompts, before=cut.before) in everything
