"""Linear collapse: without its activation the FFN's two layers are one d×d matrix."""
import streamlit as st

from ffn_core import collapse, ffn
from ui import compute, shell, widgets
from ui.charts import collapse as charts

EXACT = 1e-12  # float64 rounding of a product stays many orders below this
NONLINEAR = 0.01  # a best linear fit missing more than 1% of the output's spread has clearly failed

page = shell.setup("collapse")
t = page.t

st.title(t("collapse.title"))
st.markdown(t("collapse.lesson"))
st.latex(r"W_2(W_1 x + b_1) + b_2 = \underbrace{(W_2 W_1)}_{d \times d}\,x + (W_2 b_1 + b_2),"
         r"\qquad \operatorname{rank}(W_2 W_1) \le \min(d, m)")

left, middle, right = st.columns(3)
d = left.slider(t("collapse.d"), 8, 128, 64, step=8, key="d", bind="query-params", help=t("collapse.d_help"))
m = middle.select_slider(t("collapse.m"), [4, 8, 16, 32, 64, 128, 256, 512, 1024], 256, key="m",
                         bind="query-params", help=t("collapse.m_help"))
act = widgets.choice(page, right.selectbox, t("collapse.act"), ffn.ACTIVATIONS, key="act",
                     option_label=lambda tr, a: tr(f"collapse.act_{a}"))
left, right = st.columns([1, 2])
bias = left.toggle(t("collapse.bias"), False, key="bias", bind="query-params", help=t("collapse.bias_help"))
seed = right.number_input(t("collapse.seed"), 0, 9999, 0, step=1, key="seed", bind="query-params",
                          help=t("collapse.seed_help"))


@compute.cached(max_entries=256)
def measure(d: int, m: int, act: str, bias: bool, seed: int) -> collapse.Collapse:
    return collapse.measure(d, m, act, bias, seed)


with st.spinner(t("common.computing")):
    res = measure(int(d), int(m), act, bool(bias), int(seed))


def err(x: float) -> str:
    return f"{x:.1e}" if x < 1e-3 else f"{x:.3g}"


st.caption(t("collapse.sizes_caption", d=d, m=m, n_fit=f"{collapse.N_FIT:,}", n_test=f"{collapse.N_TEST:,}"))

chart_column, numbers = st.columns([3, 2], gap="large")
with chart_column:
    st.subheader(t("collapse.spectrum_heading"))
    widgets.chart(page, charts.singular_values, res.to_frame(), t)
    st.caption(t("collapse.spectrum_caption"))
with numbers:
    left, right = st.columns(2)
    left.metric(t("collapse.metric_rank"), res.rank, help=t("collapse.metric_rank_help"))
    right.metric(t("collapse.metric_bound"), res.rank_bound)
    left.metric(t("collapse.metric_two"), f"{res.two_layer_params:,}", help=t("collapse.metric_two_help"))
    right.metric(t("collapse.metric_one"), f"{res.single_matrix_params:,}", help=t("collapse.metric_one_help"))
    left.metric(t("collapse.metric_eff_rank"), f"{res.effective_rank:.1f}", help=t("collapse.metric_eff_rank_help"))
    st.metric(t("collapse.metric_residual"), err(res.max_abs_residual), help=t("collapse.metric_residual_help"))
    st.metric(t("collapse.metric_fit"), err(res.fit_relative_error), help=t("collapse.metric_fit_help"))

widgets.claim(page, t("collapse.claim_rank", rank=res.rank, bound=res.rank_bound), ok=res.rank <= res.rank_bound)
act_name = t(f"collapse.act_{act}")
if act == "none":
    widgets.claim(page, t("collapse.claim_replace", residual=err(res.max_abs_residual)),
                  ok=res.max_abs_residual <= EXACT)
else:
    widgets.claim(page, t("collapse.claim_nonlinear", act=act_name, error=err(res.fit_relative_error)),
                  ok=res.fit_relative_error > NONLINEAR)

values = dict(d=d, m=m, rank=res.rank, residual=err(res.max_abs_residual), act=act_name,
               two=f"{res.two_layer_params:,}", one=f"{res.single_matrix_params:,}",
               extra=f"{res.two_layer_params - res.single_matrix_params:,}", lost=d - res.rank,
               error=f"{res.fit_relative_error:.0%}" if res.fit_relative_error >= 0.005 else err(res.fit_relative_error))
if act != "none" and res.fit_relative_error <= NONLINEAR:
    lines = [t("collapse.takeaway_nearly_linear", **values)]
elif act != "none":
    # With m ≤ d/2 the two layers hold no more weights than one d × d matrix: nothing "extra" to pay for.
    wide = res.two_layer_params > res.single_matrix_params
    lines = [t("collapse.takeaway_nonlinear" if wide else "collapse.takeaway_nonlinear_narrow", **values)]
elif res.max_abs_residual > EXACT:
    lines = [t("collapse.takeaway_broken", **values)]
else:
    bottleneck = m < d
    lines = [t("collapse.takeaway_same" if bottleneck else "collapse.takeaway_linear", **values),
             t("collapse.takeaway_bottleneck" if bottleneck else "collapse.takeaway_wide", **values)]
widgets.takeaway(page, " ".join(lines))

if page.show_details:
    with st.expander(t("collapse.table_heading")):
        frame = res.to_frame().rename(columns={"index": t("collapse.col_k"), "singular_value": t("collapse.col_sv"),
                                               "counted": t("collapse.col_counted")})
        widgets.table(page, frame, "collapse_singular_values.csv")
widgets.show_code(page, collapse.measure, collapse.collapsed, collapse.best_affine_fit)
