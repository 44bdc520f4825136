"""Activation sparsity: at random init about half the neurons fire for a token; what the activation, the
init and a training run make of that fraction."""
import streamlit as st

from ffn_core import memory_training, sparsity
from ui import widgets
from ui.base import text
from ui.charts import activations as act_charts
from ui.charts import sparsity as charts
from ui.compute import cache
from ui.kit import controls, glossary, lede, shell
from ui.questions import quiz
from ui.questions import sparsity as questions
from ui.registry import links
from ui.verdicts import sparsity as verdicts

page = shell.setup("sparsity")
t = page.t

N_TOKENS = 1024  # the seed's measurement: Gaussian tokens at random init
N_KEYS = sparsity.N_KEYS  # pairs (or labelled keys) in the training run
NARROW = 170  # pixels: an activation's name or a seed, beside the long initialisation names

st.title(t("sparsity.title"))
lede.lesson(page, t("sparsity.lesson"),
            [r"\text{" + t("sparsity.formula_lhs") + r"}(x) = \frac{1}{m} \sum_{i=1}^{m} \mathbf{1}\left[k_i \cdot x + b_i > 0\right]"])
glossary.note(t, "active", "relu_gelu", "fan_in", "xavier_kaiming", "full_batch_adam", "cross_entropy")


@cache.cached(max_entries=256)
def at_init(d: int, m: int, act: str, init: str, bias: bool, seed: int) -> sparsity.AtInit:
    return sparsity.at_init(d=d, m=m, n_tokens=N_TOKENS, act=act, init=init, bias=bias, seed=seed)


@cache.cached(max_entries=256, lane=cache.LANE_PYTHON)
def train(d: int, m: int, steps: int, task: str, act: str, init: str, bias: bool, seed: int) -> sparsity.Training:
    return sparsity.train(n=N_KEYS, d=d, m=m, steps=steps, task=task, act=act, init=init, bias=bias, seed=seed)


@cache.cached(max_entries=512, lane=cache.LANE_PYTHON)
def seed_change(d: int, m: int, steps: int, task: str, act: str, init: str, bias: bool, seed: int) -> tuple[float, float]:
    return sparsity.seed_change(n=N_KEYS, d=d, m=m, steps=steps, task=task, act=act, init=init, bias=bias, seed=seed)


SPREAD = "_sparsity_spread"  # the session's last setting whose runs over seeds are all in, and their spread


def spread(args: tuple, *, wait: bool) -> sparsity.SeedSpread | None:
    """The setting's runs over seeds (`sparsity.seed_spread`, one cached turn a seed): None while any is not computed, unless `wait`.

    Without `wait`, in the page's run: kept in the session once complete. Every whole run looks for it, and
    one look there replaces a look into the result cache (a key and an unpickling) for each seed.
    """
    held = None if wait else st.session_state.get(SPREAD)
    if held is not None and held[0] == args:
        return held[1]
    seeds = range(sparsity.spread_seeds(N_KEYS, *args[:3]))
    changes = [seed_change(*args, s) if wait else seed_change.peek(*args, s) for s in seeds]
    if None in changes:
        return None
    done = sparsity.spread_of(changes)
    if not wait:
        st.session_state[SPREAD] = (args, done)
    return done


def _spread_later(args: tuple) -> bool:
    # One seed's run a turn: a student's experiment goes ahead between two of them.
    return cache.later(_later_ident(args), lambda: spread(args, wait=True))


def _spread_pending(args: tuple) -> bool:
    """Whether the setting's runs over seeds are still training on their own thread (False too when that failed)."""
    return cache.under_way(_later_ident(args))


def _later_ident(args: tuple) -> tuple:
    return ("sparsity-spread", args)


def init_results(start: sparsity.AtInit) -> None:
    """At random init (the headline above holds its numbers): the fraction of neurons that fire, per token and
    per neuron, and by initialisation."""
    widgets.side_by_side(page, (t("sparsity.hist_heading"), charts.per_token, cache.frame(start.token_frame), t),
                         (t("sparsity.neuron_heading"), charts.per_neuron, cache.frame(start.neuron_frame), t))
    st.markdown(t("sparsity.why_half"))

    # Folded, as the page reruns often and the table is read once: the claim below is about the init on screen.
    box = widgets.folded(t("sparsity.table_heading"), "sparsity_by_init", icon=":material/table_chart:")
    if box.open:
        with box:
            table = cache.derive(start.init_frame)
            table["init"] = table["init"].map({i: t(f"sparsity.init_{i}") for i in table["init"].unique()})
            table = table.rename(columns={
                "init": t("sparsity.col_init"), "bias": t("sparsity.col_bias"),
                "mean_active_fraction": t("sparsity.col_mean"), "dead": t("sparsity.col_dead"),
                "always_on": t("sparsity.col_always_on"),
            })
            widgets.table(page, table, "sparsity_by_init.csv")
            st.caption(t("sparsity.table_caption"))
    widgets.verdict(page, verdicts.judge_init(start))


def training_results(start: sparsity.AtInit, run: sparsity.Training, d: int, m: int, steps: int, task: str,
                     act: str, init: str, bias: bool) -> None:
    """Over a training run: the fraction from start to end, on training and fresh tokens, against published
    trained values, and what holds across seeds."""
    before, after = run.active_train[0], run.active_train[-1]
    # Two to a row: "0.509 → 0.495" needs half the width, or the number the lesson is about is cut off.
    first = st.container(horizontal=True, gap="small")
    first.metric(t("sparsity.metric_train"), text.change((before, after), "{:.3f}".format),
                 t("sparsity.delta_points", value=f"{100 * run.change:+.1f}"), delta_color="off",
                 help=t("sparsity.metric_train_help"), width="stretch")
    first.metric(t("sparsity.metric_fresh"), text.change((run.active_fresh[0], run.active_fresh[-1]), "{:.3f}".format),
                 help=t("sparsity.metric_fresh_help"), width="stretch")
    widgets.metrics(st, (t("sparsity.metric_recall"), f"{run.final_recall:.0%}", t(f"sparsity.metric_recall_help_{task}")),
                    (t("sparsity.metric_dead_after"), f"{run.dead_after} / {run.always_on_after}",
                     t("sparsity.metric_dead_after_help")))
    # The published fractions are ReLU measurements (an inactive ReLU neuron is exactly zero): drawn for ReLU only.
    published = sparsity.PUBLISHED if act == "relu" else {}
    widgets.chart(page, charts.training, cache.frame(run.to_frame), published, t)
    if act == "relu":
        st.caption(t("sparsity.reference_caption"))
    else:
        st.caption(t("sparsity.reference_caption_smooth", act=t(f"sparsity.act_{act}")))
    if page.show_details and steps > 0:
        box = widgets.folded(t("sparsity.loss_heading"), "sparsity_loss", icon=":material/show_chart:")
        if box.open:
            with box:
                widgets.chart(page, charts.loss, cache.frame(run.loss_frame), t)

    # One seed's run can fall by 1.4 points where the next barely moves: the takeaway says what holds across seeds.
    # Those runs cost several times this one: the page answers with this run at once and adds them when done.
    args = (int(d), int(m), int(steps), task, act, init, bool(bias))
    across = spread(args, wait=False) if steps > 0 else None
    if across is None and steps > 0 and not _spread_later(args) and not _spread_pending(args):
        across = spread(args, wait=True)  # not started on its own thread (too many under way): computed in this run
    widgets.verdict(page, verdicts.judge(start, run, act, across))
    if across is None and steps > 0:
        seeds_pending(args)


@widgets.timed(1)
def seeds_pending(args: tuple) -> None:
    """Until the same setting's runs over seeds are done: a line saying so; then the page again, whole."""
    if spread(args, wait=False) is not None or not _spread_pending(args):
        st.rerun(scope="app")  # done (or failed on its thread: the page's run computes it and shows why)
    d, m, steps = args[:3]
    st.caption(t("sparsity.seeds_pending", last=sparsity.spread_seeds(N_KEYS, d, m, steps) - 1))


@shell.part
def experiment() -> None:
    headline = lede.headline_slot()  # the measured headline, above the fold on a projector
    asking = st.container()  # the questions, filled once the results they are about are measured

    # One block, not a block a column; on a phone the four stack at full width, as columns would.
    row = st.container() if page.phone else st.container(horizontal=True, gap="small")
    narrow = "stretch" if page.phone else NARROW
    act = controls.draw(page, "act", row, width=narrow)
    init = controls.draw(page, "init", row)  # the rest of the row: the initialisation names are long
    bias = controls.draw(page, "bias", row)
    seed = controls.draw(page, "seed", row, width=narrow)
    # Drawn only when opened: a folded box costs its label alone on every run.
    box = widgets.folded(t("activations.heading"), "activations")
    if box.open:
        with box:
            widgets.chart(page, act_charts.activations, act, t)
            st.caption(t(f"activations.caption_{act}"))
    c1, c2, c3, c4 = lede.less_used(page, 4)
    d = controls.draw(page, "d", c1)
    m = controls.draw(page, "m", c2)
    task = controls.draw(page, "task", c3)
    steps = controls.draw(page, "steps", c4)

    if memory_training.too_costly(N_KEYS, d, m, steps):
        st.warning(t("sparsity.too_costly"))
        st.stop()

    with st.spinner(t("common.computing")):
        start = at_init(int(d), int(m), act, init, bool(bias), int(seed))
        run = train(int(d), int(m), int(steps), task, act, init, bool(bias), int(seed))
    init_asked = questions.at_init(start, int(seed))
    train_asked = questions.training(start, run, act, {"d": int(d), "m": int(m), "steps": int(steps), "task": task,
                                                       "act": act, "init": init, "bias": bool(bias), "seed": int(seed)})
    drawn = quiz.questions(page, init_asked + train_asked, asking, measured=("experiment", {"start": start, "run": run}))
    init_asked += drawn[len(init_asked + train_asked):]  # a lesson step's own questions fold with the first
    lede.headline(page, headline, init_asked,
                  (t("sparsity.metric_mean"), f"{start.mean_active_fraction:.4f}", t("sparsity.metric_mean_help", n=N_TOKENS)),
                  (t("sparsity.metric_token_range"), f"{min(start.per_token):.2f} – {max(start.per_token):.2f}"),
                  (t("sparsity.metric_dead"), str(start.dead), t("sparsity.metric_dead_help")),
                  (t("sparsity.metric_always_on"), str(start.always_on), t("sparsity.metric_always_on_help")))

    st.subheader(t("sparsity.init_heading"))
    if quiz.shown(page, init_asked):
        init_results(start)

    st.subheader(t("sparsity.train_heading"))
    st.markdown(t(f"sparsity.task_lesson_{task}", n=N_KEYS, classes=memory_training.N_CLASSES))
    if quiz.shown(page, init_asked + train_asked):  # its numbers start from the init's fraction
        training_results(start, run, d, m, steps, task, act, init, bias)

    widgets.page_link(st, "pages/9_gpt_surgery.py", label=t("sparsity.link_trained"), icon=":material/arrow_forward:",
                      query_params=links.app_link_params(page))
    widgets.show_code(page, sparsity.at_init, sparsity.train, sparsity.seed_change, sparsity.spread_of,
                      memory_training.train_module)


experiment()
