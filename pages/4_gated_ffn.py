"""The gated FFN: W₂(act(W₁x) ⊙ W₃x); the gate multiplies, so even without its activation it is not one matrix."""
import streamlit as st

from ffn_core import collapse, gated
from ffn_core.sweep import gated as gated_sweep
from ui import widgets
from ui.base import text
from ui.compute import cache
from ui.kit import controls, glossary, lede, shell
from ui.questions import quiz
from ui.charts import gated as charts
from ui.verdicts import gated as verdicts
from ui.questions import gated as questions

page = shell.setup("gated")
t = page.t

st.title(t("gated.title_asking" if quiz.asks_first(page) else "gated.title"))  # the title answers a question
lede.lesson(page, t("gated.lesson"), [r"\mathrm{FFN}_{\mathrm{GLU}}(x) = W_2\,\big(\operatorname{act}(W_1 x) \odot W_3 x\big),"
                                       r"\qquad W_1, W_3 \in \mathbb{R}^{m\times d},\; W_2 \in \mathbb{R}^{d\times m}",
                                       r"3 \cdot d \cdot \tfrac{8}{3} d = 2 \cdot d \cdot 4d = 8d^2"])
glossary.note(t, "glu", "affine", "least_squares", "relu_gelu")


@cache.cached(max_entries=256)
def measure(d: int, act: str, token: int, seed: int) -> gated.Gated:
    return gated.measure(d, act, token, seed)


@cache.cached(max_entries=64)
def fit(target: str, act: str, most: int, seed: int) -> gated_sweep.GatedSweep:
    return gated_sweep.fit(target, tuple(j for j in gated_sweep.JS if j <= most), act, seed)


@shell.part
def experiment() -> None:
    headline = lede.headline_slot()  # the measured headline, above the fold on a projector
    asking = st.container()

    d, act, token = controls.row(page, "d", "act", "token")
    (seed,) = controls.row(page, "seed", columns=lede.less_used(page, 1))

    with st.spinner(t("common.computing")):
        res = measure(int(d), act, int(token), int(seed))
    asked = quiz.questions(page, questions.ask(res), asking, measured=("experiment", {"res": res}))
    lede.headline(page, headline, asked,
                  (t("gated.metric_fit"), text.error(res.gated_fit_error), t("gated.metric_fit_help")),
                  (t("gated.metric_plain_fit" if act != "none" else "gated.metric_collapse"),
                   text.error(res.plain_fit_error if act != "none" else res.plain_collapse_residual)),
                  (t("gated.metric_params"), f"{res.gated_params:,}", t("gated.metric_params_help")))
    st.caption(t("gated.sizes_caption", d=res.d_model, m=res.d_ff, m4=4 * res.d_model, fit=collapse.N_FIT,
               test=collapse.N_TEST))

    if quiz.shown(page, asked):
        st.subheader(t("gated.gate_heading", token=res.token))
        chart_column, numbers = st.columns([3, 2], gap="large")
        with chart_column:
            widgets.chart(page, charts.gate_curve, cache.frame(res.to_frame), t)
            st.caption(t("gated.gate_caption"))
        with numbers:
            widgets.chart(page, charts.gate_fractions, cache.frame(res.fractions_frame), res.relu_active, t)
        widgets.verdict(page, verdicts.judge(res))

    st.header(t("gated.width_heading"))
    st.markdown(t("gated.width_lesson"))
    st.latex(r"\text{plain: } \sum_{i=1}^{5j} v_i\,\operatorname{act}(w_i x + b_i) + c"
             r"\qquad \text{gated: } \sum_{i=1}^{3j} v_i\,\operatorname{act}(w_i x + b_i)\,(u_i x + e_i) + c")
    target, wact, most = controls.row(page, "target", "wact", "most")
    with st.spinner(t("common.computing")):
        sweep = fit(target, wact, int(most), int(seed))
    width_asked = quiz.questions(page, questions.width(sweep), measured=("width", {"sweep": sweep}))
    if quiz.shown(page, width_asked):
        chart_column, curve_column = st.columns(2, gap="large")
        with chart_column:
            widgets.chart(page, charts.rmse_by_params, cache.frame(sweep.rmse_frame), t)
        with curve_column:
            largest = sweep.plain[-1].params
            widgets.chart(page, charts.curves, cache.frame(sweep.curves_frame, largest), t)
            st.caption(t("gated.curves_caption", params=largest))
        if page.show_details:
            box = widgets.folded(t("gated.table_heading"), "gated_width_table", icon=":material/table_chart:")
            if box.open:
                with box:
                    frame = cache.derive(sweep.rmse_frame).assign(
                        kind=lambda f: f["kind"].map({"plain": t("gated.kind_plain"), "gated": t("gated.kind_gated")}))
                    widgets.table(page, frame.rename(columns={"kind": t("gated.col_kind"), "width": t("gated.col_width"),
                                                              "params": t("gated.col_params"), "rmse": "RMSE"}),
                                  "gated_width.csv")
        widgets.verdict(page, verdicts.judge_width(sweep))

    widgets.show_code(page, gated.measure, gated.gate_on, gated.fit_error, gated_sweep.features, gated_sweep.train)


experiment()
