"""Position-wise: the FFN treats every token alone; self-attention mixes them."""
import pandas as pd
import streamlit as st

from ffn_core import attention, ffn, position
from ui import widgets
from ui.base import text
from ui.charts import position as charts
from ui.compute import cache
from ui.kit import controls, glossary, lede, shell
from ui.questions import Asked, quiz
from ui.questions import position as questions
from ui.verdicts import position as verdicts

SEQUENTIAL_CODE = """x = torch.randn(batch, seq, d)              # [batch, seq, d]
ffn = nn.Sequential(
    nn.Linear(d, d_ff),                       # [batch, seq, d] -> [batch, seq, d_ff]
    nn.{act}(),
    nn.Linear(d_ff, d),                       # [batch, seq, d_ff] -> [batch, seq, d]
)
y = ffn(x)                                    # [batch, seq, d]"""

page = shell.setup("position")
t = page.t

st.title(t("position.title_asking" if quiz.asks_first(page) else "position.title"))  # the title answers a question
lede.lesson(page, t("position.lesson"), [
    r"y_i = \mathrm{FFN}(x_i) \;\Rightarrow\; \frac{\partial y_i}{\partial x_j} = 0 \;(i \neq j)"
    r"\qquad\text{vs.}\qquad y_i = \sum_j a_{ij}\, W_O W_V\, x_j"
])
glossary.note(t, "self_attention", "causal_mask", "jacobian", "equivariant")


@cache.cached(max_entries=256)
def measure(n: int, d: int, act: str, heads: int, causal: bool, perm: str, seed: int) -> position.PositionWise:
    return position.measure(n, d, 4 * d, act, heads, causal, perm, seed)


@cache.cached(max_entries=256)
def block(n: int, d: int, act: str, heads: int, causal: bool, seed: int) -> position.BlockInfluence:
    return position.block_influence(n, d, 4 * d, act, heads, causal, seed)


@cache.cached(max_entries=64)
def sequential(d: int, act: str, seed: int) -> position.SequentialCheck:
    return position.sequential_check(2, 8, d, 4 * d, seed, act)


def block_section(n: int, d: int, act: str, heads: int, causal: bool, seed: int, asked: tuple[Asked, ...]) -> None:
    """A whole block, attention then the FFN, each with its residual: the FFN's map stays diagonal, the block's does not."""
    st.header(t("position.block_heading"))
    st.markdown(t("position.block_lesson"))
    st.latex(r"h_i = x_i + \mathrm{Attn}(X)_i, \qquad y_i = h_i + \mathrm{FFN}(h_i)")
    with st.spinner(t("common.computing")):
        blk = block(int(n), int(d), act, int(heads), bool(causal), int(seed))
    block_asked = questions.block(blk, {"n": int(n), "d": int(d), "act": act, "heads": int(heads),
                                        "causal": bool(causal), "seed": int(seed)})
    block_asked = quiz.questions(page, block_asked, measured=("block", {"block": blk}))
    # Its FFN map answers the first question too (0% off the diagonal): it waits for both.
    if quiz.shown(page, asked + block_asked):
        block_frame = cache.derive(blk.to_frame)
        left, right = st.columns(2)
        with left:
            widgets.chart(page, charts.influence_heatmap, block_frame[block_frame["model"] == "ffn"], t,
                          t("position.block_ffn_chart_title"))
        with right:
            widgets.chart(page, charts.influence_heatmap, block_frame[block_frame["model"] == "block"], t,
                          t("position.block_chart_title"))
        widgets.verdict(page, verdicts.judge_block(blk))


def shapes_section(d: int, act: str, seed: int) -> None:
    """The shapes in code: a [batch, seq, d] tensor through nn.Sequential, which touches only the last axis."""
    st.header(t("position.shapes_heading"))
    st.markdown(t("position.shapes_lesson"))
    # The module written out is the one the check below runs: the page's activation, by torch's own name.
    st.code(SEQUENTIAL_CODE.format(act=type(ffn.activation(act)).__name__), language="python")
    shapes = sequential(int(d), act, int(seed))
    widgets.verdict(page, verdicts.judge_sequential(shapes))


@shell.part
def experiment() -> None:
    headline = lede.headline_slot()  # the measured headline, above the fold on a projector
    asking = st.container()  # the questions, filled once the result they are about is measured

    n, d, act = controls.row(page, "n", "d", "act")
    left, middle, right = lede.less_used(page, 3)
    heads = controls.draw(page, "heads", left)
    perm = controls.draw(page, "perm", middle)
    seed = controls.draw(page, "seed", right)
    causal = controls.draw(page, "causal", left if page.phone else st)

    if n * d > position.MAX_TOKENS_X_D:
        st.warning(t("position.too_big", n=n, d=d, size=f"{n * d:,}", limit=f"{position.MAX_TOKENS_X_D:,}"))
        st.stop()

    with st.spinner(t("common.computing")):
        res = measure(int(n), int(d), act, int(heads), bool(causal), perm, int(seed))
    asked = quiz.questions(page, questions.ask(res), asking, measured=("experiment", {"res": res}))
    lede.headline(page, headline, asked,
                  (t("position.metric_ffn_off"), text.pct(res.ffn_off_diagonal_fraction), t("position.metric_off_help")),
                  (t("position.metric_attention_off"), text.pct(res.attention_off_diagonal_fraction),
                   t("position.metric_off_help")))

    st.caption(t("position.sizes_caption", d=d, d_ff=res.d_ff, act=t(f"position.act_{act}"), heads=heads, d_h=d // heads))
    st.header(t("position.influence_heading"))
    if quiz.shown(page, asked):
        frame = cache.derive(res.to_frame)
        attention_title = t("position.attention_chart_title_causal" if causal else "position.attention_chart_title")
        left, right = st.columns(2)
        with left:
            widgets.chart(page, charts.influence_heatmap, frame[frame["model"] == "ffn"], t, t("position.ffn_chart_title"))
        with right:
            widgets.chart(page, charts.influence_heatmap, frame[frame["model"] == "attention"], t, attention_title)
        st.caption(t("position.influence_caption"))

        left, right = st.columns(2)
        left.metric(t("position.metric_rowwise"), text.error(res.rowwise_max_abs_diff), help=t("position.metric_rowwise_help"))
        right.metric(t("position.metric_perm"), text.error(res.permutation_max_abs_diff), help=t("position.metric_perm_help"))
        st.subheader(t("position.checks_heading"))
        checks = pd.DataFrame(
            {
                t("position.col_check"): [t("position.row_rowwise"), t("position.row_perm"), t("position.row_off")],
                t("position.col_ffn"): [text.error(res.rowwise_max_abs_diff), text.error(res.permutation_max_abs_diff),
                                        text.pct(res.ffn_off_diagonal_fraction)],
                t("position.col_attention"): [text.error(res.attention_rowwise_max_abs_diff),
                                              text.error(res.attention_permutation_max_abs_diff),
                                              text.pct(res.attention_off_diagonal_fraction)],
            }
        )
        widgets.table(page, checks, "position_checks.csv")
        st.caption(t("position.checks_caption"))

        widgets.verdict(page, verdicts.judge(res))

    block_section(int(n), int(d), act, int(heads), bool(causal), int(seed), asked)
    shapes_section(int(d), act, int(seed))

    if page.show_details and quiz.shown(page, asked, note=False):
        box = widgets.folded(t("position.perm_heading"), "position_perm", icon=":material/table_chart:")
        if box.open:
            with box:
                st.markdown(t("position.perm_lesson", perm=list(res.permutation)))
                st.dataframe(
                    pd.DataFrame(
                        {
                            t("position.col_position"): range(n),
                            t("position.col_token"): res.permutation,
                            t("position.col_diff"): [text.error(x) for x in res.permutation_row_diffs],
                        }
                    ),
                    hide_index=True,
                )
        box = widgets.folded(t("position.influence_table_heading"), "position_influence", icon=":material/table_chart:")
        if box.open:
            with box:
                widgets.table(
                    page,
                    frame.assign(model=frame["model"].map({"ffn": t("position.col_ffn"), "attention": t("position.col_attention")}))
                    .rename(columns={"model": t("position.col_layer"), "i": t("position.col_output"),
                                     "j": t("position.col_input"), "influence": t("position.col_influence")}),
                    "position_influence.csv",
                )
    widgets.show_code(page, position.measure, position.influence, attention.SelfAttention, position.block_influence,
                      position.sequential_check)


experiment()
