"""The mixture of experts: E expert FFNs, a router picks k per token; total weights against those one token uses."""
import pandas as pd
import streamlit as st

from ffn_core import moe, moe_presets
from ffn_core.gpt import moe_probes as probes
from ffn_core.gpt import moe_train
from ui import widgets
from ui.base import text
from ui.compute import cache
from ui.gpt import moe_probes
from ui.kit import controls, glossary, lede, shell
from ui.questions import quiz
from ui.registry import catalog
from ui.charts import moe as charts
from ui.verdicts import moe as verdicts
from ui.questions import moe as questions

page = shell.setup("moe")
t = page.t

st.title(t("moe.title"))
lede.lesson(page, t("moe.lesson"), [r"\mathrm{MoE}(x) = \sum_{i \in \operatorname{top}_k p(x)} p_i(x)\,\mathrm{FFN}_i(x),"
                                     r"\qquad p(x) = \operatorname{softmax}(W_r x)",
                                     r"\mathcal{L}_{\mathrm{balance}} = E \sum_{i=1}^{E} f_i\,P_i"])
glossary.note(t, "softmax", "jacobian", "ablation")


@cache.cached(max_entries=256, lane=cache.LANE_PYTHON)
def measure(d: int, experts: int, k: int, n: int, seed: int) -> moe.MoEResult:
    return moe.measure(d, 4 * d, experts, k, n, seed)


@cache.cached(max_entries=2)
def published() -> tuple[moe_presets.MoECount, ...]:
    return tuple(moe_presets.count(p) for p in moe_presets.PRESETS)


@shell.part
def toy() -> None:
    headline = lede.headline_slot()  # the measured headline, above the fold on a projector
    asking = st.container()
    experts, k, d = controls.row(page, "experts", "k", "d")
    n, seed = controls.row(page, "n", "seed", columns=lede.less_used(page, 2))
    with st.spinner(t("common.computing")):
        res = measure(int(d), int(experts), int(k), int(n), int(seed))
    asked = quiz.questions(page, questions.ask(res), asking, measured=("toy", {"res": res}))
    routed = res.routing(res.k)
    lede.headline(page, headline, asked,
                  (t("moe.metric_total"), f"{res.total_params:,}", t("moe.metric_total_help")),
                  (t("moe.metric_active"), f"{routed.active_params:,}", t("moe.metric_active_help")))
    st.caption(t("moe.sizes_caption", d=res.d_model, m=res.d_ff, experts=res.n_experts, n=res.n_tokens))
    if quiz.shown(page, asked):
        chart_column, numbers = st.columns([3, 2], gap="large")
        with chart_column:
            widgets.chart(page, charts.tokens_per_expert, cache.frame(res.to_frame), t)
            st.caption(t("moe.tokens_caption", n=res.n_tokens))
        with numbers:
            r = res.routing(res.k)
            st.metric(t("moe.metric_balance"), f"{r.balance_loss:.3f}", help=t("moe.metric_balance_help"))
            st.metric(t("moe.metric_position"), text.error(max(res.rowwise_max_abs_diff, res.permutation_max_abs_diff)),
                      help=t("moe.metric_position_help"))
        widgets.verdict(page, verdicts.judge(res))


toy()

st.header(t("moe.presets_heading"))
st.markdown(t("moe.presets_lesson"))
counts = published()
widgets.chart(page, charts.total_active, moe_presets.frame(), t)
if page.show_details:
    box = widgets.folded(t("moe.presets_table"), "moe_presets", icon=":material/table_chart:")
    if box.open:
        with box:
            rows = [{t("moe.col_model"): c.name, t("moe.col_total"): f"{c.total:,}", t("moe.col_active"): f"{c.active:,}",
                     t("moe.col_published"): c.published_text, t("moe.col_source"): c.config.url} for c in counts]
            widgets.table(page, pd.DataFrame(rows), "moe_published.csv")
widgets.verdict(page, verdicts.judge_presets(counts))


@shell.part
def trained() -> None:
    st.header(t("moe.trained_heading"))
    config = moe_probes.shipped().config
    st.markdown(t("moe.trained_lesson", blocks=config.n_layer, experts=config.n_experts, width=config.d_ff,
                  k=config.k, units=config.n_experts * config.d_ff, alpha=moe_train.ALPHA))
    left, right = st.columns(2)
    block = controls.draw(page, "block", left)
    expert = controls.draw(page, "expert", right)
    with st.spinner(t("common.computing")):
        routed = moe_probes.routes()
        cut = moe_probes.ablate(int(block), int(expert))
    asked = quiz.questions(page, questions.trained(routed, cut), measured=("trained", {"routes": routed, "cut": cut}))
    if quiz.shown(page, asked):
        chart_column, ablation_column = st.columns(2, gap="large")
        with chart_column:
            st.subheader(t("moe.routes_heading", block=block))
            frame = cache.derive(routed.to_frame)
            widgets.chart(page, charts.routes, frame[frame["block"] == int(block) - 1], t)
            st.caption(t("moe.routes_caption", prompts=routed.prompts, accuracy=routed.accuracy))
        with ablation_column:
            st.subheader(t("moe.ablation_heading", block=block, expert=expert))
            widgets.chart(page, charts.ablation, cache.frame(cut.to_frame), t)
            if cut.fell:
                st.caption(t("moe.fell_caption", shown=", ".join(
                    f"{catalog.country_label(t, country)} ({t(f'gpt.relation_{rel}')}, {t(f'gpt.lang_{lang}')}) → {word}"
                    for country, rel, lang, word in cut.fell)))
        widgets.verdict(page, verdicts.judge_routes(routed, int(block) - 1))
        widgets.verdict(page, verdicts.judge_ablation(cut))


trained()
widgets.show_code(page, moe.MoE.route, moe.MoE.forward, moe.load_balance_loss, moe_presets.count,
                  probes.routes, probes.ablate)
