"""Linear collapse: without its activation the FFN's two layers are one d×d matrix."""
import streamlit as st

from ffn_core import collapse
from ui import widgets
from ui.base import text
from ui.charts import collapse as charts
from ui.compute import cache
from ui.kit import controls, glossary, lede, shell
from ui.questions import quiz
from ui.questions import collapse as questions
from ui.verdicts import collapse as verdicts

page = shell.setup("collapse")
t = page.t

st.title(t("collapse.title_asking" if quiz.asks_first(page) else "collapse.title"))  # the title answers a question
lede.lesson(page, t("collapse.lesson"), [r"W_2(W_1 x + b_1) + b_2 = \underbrace{(W_2 W_1)}_{d \times d}\,x + (W_2 b_1 + b_2),"
                                          r"\qquad \operatorname{rank}(W_2 W_1) \le \min(d, m)"])
glossary.note(t, "affine", "least_squares", "rank", "singular_value")


@cache.cached(max_entries=256)
def measure(d: int, m: int, act: str, bias: bool, seed: int) -> collapse.Collapse:
    return collapse.measure(d, m, act, bias, seed)


@cache.cached(max_entries=256)
def sample(d: int, m: int, act: str, bias: bool, seed: int) -> collapse.FitSample:
    return collapse.fit_sample(d, m, act, bias, seed)


@cache.cached(max_entries=256)
def stack(d: int, layers: int, narrow: int, bias: bool, seed: int) -> collapse.Stack:
    return collapse.stack(d, collapse.hidden_widths(d, layers, narrow), bias, seed)


def product_results(res: collapse.Collapse) -> None:
    """No activation: W₂W₁'s singular values beside the rank bound and the two parameter counts."""
    chart_column, numbers = st.columns([3, 2], gap="large")
    with chart_column:
        st.subheader(t("collapse.spectrum_heading"))
        widgets.chart(page, charts.singular_values, cache.frame(res.to_frame), t)
        st.caption(t("collapse.spectrum_caption"))
    with numbers:
        left, right = st.columns(2)
        left.metric(t("collapse.metric_bound"), res.rank_bound)
        right.metric(t("collapse.metric_eff_rank"), f"{res.effective_rank:.1f}", help=t("collapse.metric_eff_rank_help"))
        left.metric(t("collapse.metric_two"), f"{res.two_layer_params:,}", help=t("collapse.metric_two_help"))
        right.metric(t("collapse.metric_one"), f"{res.single_matrix_params:,}", help=t("collapse.metric_one_help"))


def fit_results(res: collapse.Collapse, d: int, m: int, act: str, bias: bool, seed: int) -> None:
    """With an activation: the best one-matrix fit's outputs against the layer's, beside the parameter counts."""
    # With an activation between them, W₂W₁ is only the product of the weights, not the layer's map:
    # its rank and spectrum would describe a function this layer does not compute.
    st.caption(t("collapse.no_product", act=t(f"collapse.act_{act}")))
    chart_column, numbers = st.columns([3, 2], gap="large")
    with chart_column:
        st.subheader(t("collapse.fit_heading"))
        widgets.chart(page, charts.fit_scatter, cache.frame(sample(d, m, act, bias, seed).to_frame), t)
        st.caption(t("collapse.fit_caption"))
    with numbers:
        st.metric(t("collapse.metric_two"), f"{res.two_layer_params:,}", help=t("collapse.metric_two_help"))
        st.metric(t("collapse.metric_one"), f"{res.single_matrix_params:,}", help=t("collapse.metric_one_help"))


def singular_value_table(res: collapse.Collapse) -> None:
    """The details view's table of W₂W₁'s singular values and which count toward its rank."""
    box = widgets.folded(t("collapse.table_heading"), "collapse_singular_values", icon=":material/table_chart:")
    if not box.open:
        return
    with box:
        frame = cache.derive(res.to_frame).rename(columns={"index": t("collapse.col_k"), "singular_value": t("collapse.col_sv"),
                                               "counted": t("collapse.col_counted")})
        widgets.table(page, frame, "collapse_singular_values.csv")


def stack_section(d: int, bias: bool, seed: int) -> None:
    """A deeper stack of linear layers is one matrix too: its rank is bounded by its narrowest layer."""
    st.header(t("collapse.stack_heading"))
    st.markdown(t("collapse.stack_lesson"))
    st.latex(r"W_L \cdots W_2 W_1 x = W x, \qquad \operatorname{rank}(W) \le \min(d, w_1, \dots, w_{L-1})")
    left, right = st.columns(2)
    layers = controls.draw(page, "layers", left)
    narrow = controls.draw(page, "narrow", right)  # 0: every hidden layer d wide
    with st.spinner(t("common.computing")):
        tower = stack(d, int(layers), int(narrow), bias, seed)
    stack_asked = quiz.questions(page, questions.stack(tower, bias), measured=("stack", {"stack": tower}))
    if quiz.shown(page, stack_asked):
        chart_column, numbers = st.columns([3, 2], gap="large")
        with chart_column:
            st.subheader(t("collapse.stack_spectrum_heading"))
            widgets.chart(page, charts.singular_values, cache.frame(tower.to_frame), t)
        with numbers:
            st.metric(t("collapse.metric_stack_params"), f"{tower.layer_params:,}")
            st.metric(t("collapse.metric_stack_rank"), tower.rank)
            st.metric(t("collapse.metric_stack_residual"), text.error(tower.max_abs_residual))
        widgets.verdict(page, verdicts.judge_stack(tower))


@shell.part
def experiment() -> None:
    """The FFN's two layers at the chosen size: one matrix without an activation, no matrix fits with one;
    then a deeper linear stack."""
    headline = lede.headline_slot()  # the measured headline, above the fold on a projector
    asking = st.container()  # the questions, filled once the result they are about is measured

    d, m, act = controls.row(page, "d", "m", "act")
    left, right = lede.less_used(page, [1, 2])
    bias = controls.draw(page, "bias", left)
    seed = controls.draw(page, "seed", right)

    with st.spinner(t("common.computing")):
        res = measure(int(d), int(m), act, bool(bias), int(seed))
    asked = quiz.questions(page, questions.ask(res), asking, measured=("experiment", {"res": res}))
    if act == "none":
        lede.headline(page, headline, asked, (t("collapse.metric_rank"), str(res.rank), t("collapse.metric_rank_help")),
                      (t("collapse.metric_residual"), text.error(res.max_abs_residual), t("collapse.metric_residual_help")))
    else:
        lede.headline(page, headline, asked,
                      (t("collapse.metric_fit"), text.error(res.fit_relative_error), t("collapse.metric_fit_help")))

    st.caption(t("collapse.sizes_caption" if act == "none" else "collapse.sizes_caption_act", d=d, m=m,
                 n_fit=f"{collapse.N_FIT:,}", n_test=f"{collapse.N_TEST:,}"))

    if quiz.shown(page, asked):
        if act == "none":
            product_results(res)
        else:
            fit_results(res, int(d), int(m), act, bool(bias), int(seed))
        if page.show_details and act == "none":
            singular_value_table(res)
        widgets.verdict(page, verdicts.judge(res))

    stack_section(int(d), bool(bias), int(seed))

    widgets.show_code(page, collapse.measure, collapse.collapsed, collapse.best_affine_fit, collapse.fit_sample,
                      collapse.stack)


experiment()
