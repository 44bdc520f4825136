"""Key-value: FFN(x) = Σ relu(kᵢ·x + bᵢ) vᵢ, each neuron a key that fires on a token and a value it writes,
before and after training on a memorisation task; how few neurons carry most of the output."""
import pandas as pd
import streamlit as st

from ffn_core import keyvalue, memory_training
from ui import widgets
from ui.base import i18n, text
from ui.charts import keyvalue as charts
from ui.compute import cache
from ui.kit import controls, glossary, lede, shell
from ui.questions import quiz
from ui.questions import keyvalue as questions
from ui.verdicts import keyvalue as verdicts

page = shell.setup("keyvalue")
t = page.t

st.title(t("keyvalue.title"))
lede.lesson(page, t("keyvalue.lesson"),
            [r"\mathrm{FFN}(x) = \sum_{i=1}^{m} \underbrace{\mathrm{relu}(k_i \cdot x + b_i)}_{a_i}\; v_i \;+\; b_2"],
            more=[t("keyvalue.concentration_lesson")])
glossary.note(t, "active", "full_batch_adam")


@cache.cached(max_entries=64, lane=cache.LANE_PYTHON)
def memorise_pairs(d: int, m: int, n: int, steps: int, seed: int) -> keyvalue.Memory:
    return keyvalue.memorise_pairs(d=d, m=m, n=n, steps=steps, seed=seed)


# Choosing another key reads the trained FFN from the cache above (~40 ms) instead of training it
# anew; called inside this experiment's turn, the training needs no second turn.
@cache.cached(max_entries=128, lane=cache.LANE_PYTHON)
def measure(d: int, m: int, n: int, steps: int, token: int, seed: int) -> keyvalue.KeyValue:
    return keyvalue.read_token(memorise_pairs(d, m, n, steps, seed), token)


def _top_contributions(res: keyvalue.KeyValue, t: i18n.Translator, top_k: int) -> pd.DataFrame:
    return charts.top_contributions(res.to_frame(), t, top_k)


def contributions_section(res: keyvalue.KeyValue, top_k: int, token: int) -> None:
    """The chosen key's top neurons, each one's coefficient times its value, before and after training."""
    st.subheader(t("keyvalue.bars_heading", k=top_k, token=token))
    top = cache.derive(_top_contributions, res, t, top_k)
    left, right = st.columns(2)
    with left:
        widgets.chart(page, charts.contributions, top, t, "untrained")
    with right:
        widgets.chart(page, charts.contributions, top, t, "trained")


def concentration_curve(frame: pd.DataFrame, before: keyvalue.State, after: keyvalue.State) -> None:
    """The output's cumulative share by neurons ranked, with the counts that reach half and nine tenths of it."""
    st.subheader(t("keyvalue.curve_heading"))
    marks = pd.DataFrame(
        [{"state": name, "share": share, "neurons": value}
         for name, s in (("untrained", before), ("trained", after))
         for share, value in ((0.5, s.n_for_50), (0.9, s.n_for_90)) if value is not None]
    )
    widgets.chart(page, charts.cumulative, frame, marks, t)
    st.caption(t("keyvalue.curve_caption"))


def summary_table(res: keyvalue.KeyValue) -> None:
    """Both states side by side: loss, active neurons, the counts for half and nine tenths, their means over keys."""
    before, after = res.untrained, res.trained
    # Means over the same keys before and after: those that reach the share both times (the others are counted).
    c50, c90 = res.concentration(0.5), res.concentration(0.9)
    summary = pd.DataFrame(
        {
            t("keyvalue.col_state"): [t("keyvalue.state_untrained"), t("keyvalue.state_trained")],
            t("keyvalue.col_loss"): [f"{before.loss:.3g}", f"{after.loss:.3g}"],
            t("keyvalue.col_active"): [before.active, after.active],
            t("keyvalue.col_n50"): [before.n_for_50, after.n_for_50],
            t("keyvalue.col_n90"): [before.n_for_90, after.n_for_90],
            t("keyvalue.col_mean50"): [round(c50.mean_before, 1), round(c50.mean_after, 1)],
            t("keyvalue.col_mean90"): [round(c90.mean_before, 1), round(c90.mean_after, 1)],
            t("keyvalue.col_never90"): [c90.never_before, c90.never_after],
            t("keyvalue.col_residual"): [text.error(before.max_abs_residual), text.error(after.max_abs_residual)],
        }
    )
    widgets.table(page, summary, "key_value_summary.csv", transpose=True)


def neurons_table(frame: pd.DataFrame) -> None:
    """The details view's table of every neuron in both states."""
    # Folded: hundreds of rows a run cost a tenth of the page's run while the box stayed closed.
    box = widgets.folded(t("keyvalue.neurons_table"), "keyvalue_neurons", icon=":material/table_chart:")
    if not box.open:
        return
    with box:
        # Two states, hundreds of rows: translate each state once, not each row.
        neurons = frame.assign(state=frame["state"].map({k: t(f"keyvalue.state_{k}") for k in frame["state"].unique()}))
        neurons = neurons.rename(columns={name: t(f"keyvalue.col_{name}") for name in (
            "state", "neuron", "coefficient", "norm", "projection", "rank", "cumulative_share")})
        widgets.table(page, neurons, "key_value_neurons.csv")


@shell.part
def experiment() -> None:
    """One key of the memorised pairs read through the FFN, before and after training: the neurons it fires,
    what each writes, and how few carry most of the output."""
    headline = lede.headline_slot()  # the measured headline, above the fold on a projector
    asking = st.container()  # the questions, filled once the result they are about is measured

    d, m, n = controls.row(page, "d", "m", "n")
    c4, c5, c6, c7 = lede.less_used(page, 4)
    token = controls.draw(page, "token", c4)
    steps = controls.draw(page, "steps", c5)
    top_k = controls.draw(page, "top", c6)
    seed = controls.draw(page, "seed", c7)

    if token >= n:
        st.warning(t("keyvalue.token_out_of_range", token=token, n=n))
        st.stop()
    if memory_training.too_costly(n, d, m, steps):
        st.warning(t("keyvalue.too_costly"))
        st.stop()

    with st.spinner(t("common.computing")):
        res = measure(int(d), int(m), int(n), int(steps), int(token), int(seed))
    before, after = res.untrained, res.trained
    asked = quiz.questions(page, questions.ask(res, int(seed)), asking, measured=("experiment", {"res": res}))
    lede.headline(page, headline, asked,
                  (t("keyvalue.metric_residual"), text.error(res.max_abs_residual), t("keyvalue.metric_residual_help")),
                  (t("keyvalue.metric_50"), text.change((before.n_for_50, after.n_for_50)), t("keyvalue.metric_count_help")),
                  (t("keyvalue.metric_90"), text.change((before.n_for_90, after.n_for_90)), t("keyvalue.metric_count_help")),
                  (t("keyvalue.metric_recall"), text.change((before.recall, after.recall), "{:.0%}".format),
                   t("keyvalue.metric_recall_help")))

    if quiz.shown(page, asked):
        st.caption(t("keyvalue.active_caption", m=m, before=before.active, after=after.active,
                     norm_before=f"{before.output_norm:.2f}", norm_after=f"{after.output_norm:.2f}"))
        frame = cache.derive(res.to_frame)
        contributions_section(res, top_k, token)
        concentration_curve(frame, before, after)
        summary_table(res)
        if page.show_details:
            neurons_table(frame)
        widgets.verdict(page, verdicts.judge(res))

    widgets.show_code(page, keyvalue.memorise_pairs, keyvalue.read_token, keyvalue.explicit_sum, keyvalue.decompose,
                      keyvalue.neurons_for)


experiment()
