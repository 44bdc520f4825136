"""Width sweep: m ReLU neurons give at most m kinks, m + 1 pieces; the error falls as m grows (GELU: smooth bends)."""
import pandas as pd
import streamlit as st

from ffn_core.sweep import best, expr, lesson, net1d, snap, sweep, targets, varpro
from ui import widgets
from ui.base import text
from ui.charts import activations as act_charts
from ui.charts import sweep as charts
from ui.compute import cache
from ui.kit import controls, glossary, lede, shell
from ui.questions import quiz
from ui.questions import sweep as questions
from ui.verdicts import sweep as verdicts

page = shell.setup("sweep")
t = page.t

st.title(t("sweep.title"))
lede.lesson(page, t("sweep.lesson"), [t("sweep.formula")])
glossary.note(t, "relu_gelu", "kink", "least_squares", "rmse")


@cache.cached(max_entries=32, lane=cache.LANE_PYTHON)
def run(target: str, widths: tuple[int, ...], act: str, method: str, seed: int) -> sweep.Sweep:
    return sweep.fit_widths(target, widths, act=act, method=method, seed=seed)


@cache.cached(max_entries=32, lane=cache.LANE_PYTHON)
def reference(target: str, widths: tuple[int, ...], act: str) -> best.Reference:
    return best.reference(target, widths, act=act)


def best_found(results: dict[str, sweep.Sweep], ref: best.Reference) -> list[float]:
    return [best.combine(r, *(res.fits[j].rmse for res in results.values())) for j, r in enumerate(ref.rmse)]


# The 4x trade-off: widths 1x, 2x, 8/3x, 3x, 4x and 8x of d = 8 (8/3 * 8 rounds to 21).
EXPANSIONS = {8: "1×", 16: "2×", 21: "8/3×", 24: "3×", 32: "4×", 64: "8×"}


def expansion(key: str, act: str, seed: int) -> None:
    """The 4x expansion: finer pieces against the parameters they cost."""
    trade = run(key, tuple(EXPANSIONS), act, "pieces", seed)
    frame = trade.rmse_frame().assign(expansion=lambda d: d["width"].map(EXPANSIONS))
    widgets.chart(page, charts.by_params, frame, t)
    st.caption(t("sweep.params_caption"))
    widgets.verdict(page, verdicts.judge_expansion(trade))


def table(results: dict[str, sweep.Sweep], best_rmse: list[float], ref: best.Reference, show_seed: bool,
          relu: bool) -> None:
    """Every fit in numbers: its error, the best error found for its width, the seed's values, kinks and pieces."""
    box = widgets.folded(t("sweep.table_heading"), "sweep_table", icon=":material/table_chart:")
    if not box.open:
        return
    with box:
        rows = []
        for m, res in results.items():
            for f, b in zip(res.fits, best_rmse):
                row = {
                    t("sweep.col_method"): t(f"sweep.method_{m}"), t("sweep.col_width"): f.width,
                    t("sweep.col_rmse"): f.rmse, t("sweep.col_rmse_between"): f.rmse_between,
                    t("sweep.col_exact"): f.exact, t("sweep.col_best"): b,
                }
                if show_seed:
                    row[t("sweep.col_seed")] = lesson.SEED_RMSE.get(f.width)
                    row[t("sweep.col_seed_kinks")] = lesson.SEED_KINKS.get(f.width)
                if relu:
                    row.update({t("sweep.col_kinks"): f.kinks_inside, t("sweep.col_pieces_used"): f.pieces,
                                t("sweep.col_bound"): f.width + 1})
                rows.append(row)
        widgets.table(page, pd.DataFrame(rows), "width_sweep.csv")
        sources = ", ".join(t(f"sweep.source_{s}") for s in dict.fromkeys(ref.source))
        st.caption(t("sweep.table_caption", source=sources))


@shell.part
def experiment() -> None:
    headline = lede.headline_slot()  # the measured headline, above the fold on a projector
    asking = st.container()  # the questions, filled once the fits they are about are made

    left, middle, right = st.columns([2, 3, 2])
    target = controls.draw(page, "target", left)
    typed = controls.draw(page, "expr", left) if target == "custom" else None  # a formula for a custom target only
    widths = controls.draw(page, "widths", middle)
    act = controls.draw(page, "act", right)
    left, right = lede.less_used(page, [3, 2])
    method = controls.draw(page, "method", left, horizontal=True)
    seed = controls.draw(page, "seed", right)
    # Drawn only when opened: a folded box costs its label alone on every run.
    box = widgets.folded(t("activations.heading"), "activations")
    if box.open:
        with box:
            widgets.chart(page, act_charts.activations, act, t, net1d.ACTS)
            st.caption(t(f"activations.caption_{act}"))

    key = target if target in targets.BUILTIN else targets.DEFAULT
    if target == "custom":
        try:
            key = targets.key(typed)
            targets.values(key, targets.grid(sweep.X_RANGE, sweep.POINTS))  # refused here, not inside the cache
        except expr.ExprError as err:
            st.warning(t("sweep.bad_expr", reason=t(f"sweep.expr_{err.code}")))
            key = targets.DEFAULT
    if not widths:
        st.warning(t("sweep.no_widths"))
        st.stop()
    widths = tuple(sorted(int(m) for m in widths))
    methods = ("pieces", "naive") if method == "both" else (method,)

    with st.spinner(t("sweep.computing")):
        results = {m: run(key, widths, act, m, int(seed)) for m in methods}
        ref = reference(key, widths, act)
    main = results[methods[0]]
    relu = act == "relu"
    show_seed = key == "sin3x" and relu
    best_rmse = best_found(results, ref)
    asked = questions.ask(results, {"target": key, "widths": widths, "act": act, "method": method,
                                               "seed": int(seed)})
    asked = quiz.questions(page, asked, asking, measured=("experiment", {"results": results}))
    narrow, wide = main.fits[0], main.fits[-1]
    firsts = [(t("sweep.metric_rmse", m=narrow.width), text.fit_error(narrow.rmse, main.exact_tol)),
              (t("sweep.metric_rmse", m=wide.width), text.fit_error(wide.rmse, main.exact_tol)),
              (t("sweep.metric_best", m=wide.width), text.fit_error(best_rmse[-1], main.exact_tol), t("sweep.metric_best_help"))]
    if act == "relu":
        firsts.append((t("sweep.metric_pieces", m=wide.width), f"{wide.pieces} / {wide.width + 1}", t("sweep.metric_pieces_help")))
    lede.headline(page, headline, asked, *firsts)
    # The charts' long tables, from the results' own frames (a few ms; the charts' specs are cached by widgets.chart).
    curves = pd.concat([r.curves_frame() for r in results.values()], ignore_index=True)
    kinks = pd.concat([r.kinks_frame() for r in results.values()], ignore_index=True)
    pieces = pd.concat([r.rmse_frame() for r in results.values()], ignore_index=True)
    by_width = charts.rmse_series(results.values(), best_rmse, lesson.SEED_RMSE if show_seed else None)

    st.caption(t("sweep.setup_caption", target=main.label, lo=sweep.X_RANGE[0], hi=sweep.X_RANGE[1],
                 points=sweep.POINTS, steps=main.steps, act=t(f"sweep.act_{act}")))

    # --- fits and kinks -------------------------------------------------------------------------------------------
    if quiz.shown(page, asked):
        st.subheader(t("sweep.fits_heading"))
        widgets.chart(page, charts.fits, curves, kinks, t)
        st.caption(t("sweep.fits_caption" if relu else "sweep.fits_caption_gelu"))


        # --- RMSE by width and pieces ---------------------------------------------------------------------------------
        left, right = st.columns(2, gap="large") if relu else (st.container(), None)
        with left:
            st.subheader(t("sweep.rmse_heading"))
            if by_width.empty:
                st.caption(t("sweep.rmse_all_exact"))
            else:
                widgets.chart(page, charts.rmse_by_width, by_width, t)
                st.caption(t("sweep.rmse_caption_seed" if show_seed else "sweep.rmse_caption"))
        if right is not None:
            with right:
                st.subheader(t("sweep.pieces_heading"))
                widgets.chart(page, charts.pieces, pieces, t)
                st.caption(t("sweep.pieces_caption"))

        # --- claims and takeaway --------------------------------------------------------------------------------------
        widgets.verdict(page, verdicts.judge(results, best_rmse))

    # --- the 4x expansion: finer pieces against parameters ---------------------------------------------------------
    if controls.draw(page, "expansion"):
        expansion(key, act, int(seed))

    @st.fragment
    def live_training() -> None:
        st.subheader(t("sweep.live_heading"))
        st.caption(t("sweep.live_caption" if act == "relu" else "sweep.live_caption_gelu"))
        if not st.button(t("sweep.train"), key="train", type="primary"):
            return
        for m in methods:
            bar = st.progress(0.0, text=t("sweep.progress", method=t(f"sweep.method_{m}"), step=0, steps=main.steps))
            fit_slot, loss_slot = st.empty(), st.empty()

            def show(snap: sweep.Sweep, bar=bar, fit_slot=fit_slot, loss_slot=loss_slot, m=m) -> None:  # noqa: ANN001
                bar.progress(snap.step / snap.steps,
                             text=t("sweep.progress", method=t(f"sweep.method_{m}"), step=snap.step, steps=snap.steps))
                with fit_slot.container():
                    widgets.chart(page, charts.fits(snap.curves_frame(), snap.kinks_frame(), t))
                with loss_slot.container():
                    widgets.chart(page, charts.loss(snap.loss_frame(), t))

            final = cache.train(sweep.fit_widths, key, widths, act=act, method=m, seed=int(seed),
                                on_step=show, every=max(1, main.steps // 12), lane=cache.LANE_PYTHON)
            show(final)

    live_training()

    # --- table and code -------------------------------------------------------------------------------------------
    if page.show_details and quiz.shown(page, asked, note=False):
        table(results, best_rmse, ref, show_seed, relu)
    widgets.show_code(page, sweep.fit_widths, varpro.fit, varpro.step_relu, snap.snap_fit, sweep.pieces_that_matter)


experiment()
