"""Width sweep: m ReLU neurons give at most m kinks, m + 1 pieces; the error falls as m grows."""
import pandas as pd
import streamlit as st

from ffn_core import best, expr, net1d, sweep, targets, varpro
from ui import compute, shell, widgets
from ui.charts import sweep as charts

WIDTH_OPTIONS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
TARGETS = (*targets.BUILTIN, "custom")
METHODS = ("pieces", "naive", "both")
CUSTOM_DEFAULT = "sin(x**2)"

page = shell.setup("sweep")
t = page.t

st.title(t("sweep.title"))
st.markdown(t("sweep.lesson"))
st.latex(t("sweep.formula"))

left, middle, right = st.columns([2, 3, 2])
# The URL carries the shown label: math names keep a link valid in either language.
target = widgets.choice(page, left.selectbox, t("sweep.target"), TARGETS, key="target",
                        option_label=lambda tr, k: targets.label(k) if k in targets.BUILTIN else tr("sweep.target_custom"))
text = CUSTOM_DEFAULT
if target == "custom":
    text = left.text_input(t("sweep.expr"), CUSTOM_DEFAULT, max_chars=expr.MAX_LENGTH, key="expr",
                           bind="query-params", help=t("sweep.expr_help"))
widths = middle.multiselect(t("sweep.widths"), WIDTH_OPTIONS, default=list(sweep.WIDTHS), key="widths",
                            bind="query-params", max_selections=sweep.MAX_WIDTHS, help=t("sweep.widths_help"))
act = widgets.choice(page, right.selectbox, t("sweep.act"), net1d.ACTS, key="act",
                     option_label=lambda tr, a: tr(f"sweep.act_{a}"))
left, right = st.columns([3, 2])
method = widgets.choice(page, left.radio, t("sweep.method"), METHODS, key="method", horizontal=True,
                        option_label=lambda tr, m: tr(f"sweep.method_{m}"), help=t("sweep.method_help"))
seed = right.number_input(t("sweep.seed"), 0, 9999, 0, step=1, key="seed", bind="query-params",
                          help=t("sweep.seed_help"))

key = target if target in targets.BUILTIN else targets.DEFAULT
if target == "custom":
    try:
        key = targets.key(text)
        targets.values(key, targets.grid(sweep.X_RANGE, sweep.POINTS))  # refused here, not inside the cache
    except expr.ExprError as err:
        st.warning(t("sweep.bad_expr", reason=t(f"sweep.expr_{err.code}")))
        key = targets.DEFAULT
if not widths:
    st.warning(t("sweep.no_widths"))
    st.stop()
widths = tuple(sorted(int(m) for m in widths))
methods = ("pieces", "naive") if method == "both" else (method,)


@compute.cached(max_entries=32)
def run(target: str, widths: tuple[int, ...], act: str, method: str, seed: int) -> sweep.Sweep:
    return sweep.fit_widths(target, widths, act=act, method=method, seed=seed)


@compute.cached(max_entries=32)
def reference(target: str, widths: tuple[int, ...], act: str) -> best.Reference:
    return best.reference(target, widths, act=act)


def best_found(results: dict[str, sweep.Sweep], ref: best.Reference) -> list[float]:
    return [best.combine(r, *(res.fits[j].rmse for res in results.values())) for j, r in enumerate(ref.rmse)]


@st.cache_data(max_entries=32, show_spinner=False)
def chart_frames(target: str, widths: tuple[int, ...], act: str, methods: tuple[str, ...], seed: int) -> tuple:
    """The long tables behind the three static charts, built once per setting."""
    results = {m: run(target, widths, act, m, seed) for m in methods}
    curves = pd.concat([r.curves_frame() for r in results.values()], ignore_index=True)
    kinks = pd.concat([r.kinks_frame() for r in results.values()], ignore_index=True)
    rows = [{"series": m, "width": f.width, "rmse": f.rmse} for m, r in results.items() for f in r.fits]
    rows += [{"series": "best", "width": m, "rmse": r}
             for m, r in zip(widths, best_found(results, reference(target, widths, act)))]
    if target == "sin3x" and act == "relu":
        rows += [{"series": "seed", "width": m, "rmse": r} for m, r in sweep.SEED_RMSE.items()]
    # A log axis cannot place an exact 0 (|x| is exact from width 2): such points are left out, not faked.
    by_width = pd.DataFrame([r for r in rows if r["rmse"] > 0])
    return curves, kinks, by_width, pd.concat([r.rmse_frame() for r in results.values()])


with st.spinner(t("sweep.computing")):
    results = {m: run(key, widths, act, m, int(seed)) for m in methods}
    ref = reference(key, widths, act)
    curves, kinks, by_width, pieces = chart_frames(key, widths, act, methods, int(seed))
main = results[methods[0]]
show_seed = key == "sin3x" and act == "relu"
best_rmse = best_found(results, ref)

st.caption(t("sweep.setup_caption", target=main.label, lo=sweep.X_RANGE[0], hi=sweep.X_RANGE[1],
             points=sweep.POINTS, steps=main.steps, act=t(f"sweep.act_{act}")))

# --- fits and kinks -------------------------------------------------------------------------------------------
st.subheader(t("sweep.fits_heading"))
widgets.chart(page, charts.fits, curves, kinks, t)
st.caption(t("sweep.fits_caption"))

narrow, wide = main.fits[0], main.fits[-1]
cols = st.columns(4)
cols[0].metric(t("sweep.metric_rmse", m=narrow.width), f"{narrow.rmse:.4g}")
cols[1].metric(t("sweep.metric_rmse", m=wide.width), f"{wide.rmse:.4g}")
cols[2].metric(t("sweep.metric_best", m=wide.width), f"{best_rmse[-1]:.4g}", help=t("sweep.metric_best_help"))
cols[3].metric(t("sweep.metric_kinks", m=wide.width), f"{wide.kinks_inside} / {wide.width}")

# --- RMSE by width and pieces ---------------------------------------------------------------------------------
left, right = st.columns(2, gap="large")
with left:
    st.subheader(t("sweep.rmse_heading"))
    widgets.chart(page, charts.rmse_by_width, by_width, t)
    st.caption(t("sweep.rmse_caption_seed" if show_seed else "sweep.rmse_caption"))
with right:
    st.subheader(t("sweep.pieces_heading"))
    widgets.chart(page, charts.pieces, pieces, t)
    st.caption(t("sweep.pieces_caption"))

# --- claims and takeaway --------------------------------------------------------------------------------------
for m, res in results.items():
    values = [f.rmse for f in res.fits]
    falls = all(a > b for a, b in zip(values, values[1:]))
    chain = f"{values[0]:.3g}" + "".join(f"{' > ' if b < a else ' ≤ '}{b:.3g}" for a, b in zip(values, values[1:]))
    widgets.claim(page, t("sweep.claim_falls", method=t(f"sweep.method_{m}"), chain=chain), ok=falls)
    counts = ", ".join(f"{f.kinks_inside} ≤ {f.width}" for f in res.fits)
    widgets.claim(page, t("sweep.claim_kinks", method=t(f"sweep.method_{m}"), counts=counts),
                  ok=all(f.kinks_inside <= f.width for f in res.fits))

values = [f.rmse for f in main.fits]
falls = all(a > b for a, b in zip(values, values[1:]))
worst = max(f.rmse / b if b > 0 else (1.0 if f.rmse == 0 else float("inf")) for f, b in zip(main.fits, best_rmse))
lines = []
if len(values) == 1:
    lines.append(t("sweep.takeaway_one", m=narrow.width, rmse=f"{narrow.rmse:.3g}", pieces=narrow.kinks_inside + 1))
elif falls:
    factor = values[0] / values[-1] if values[-1] > 0 else float("inf")
    lines.append(t("sweep.takeaway_falls", m0=narrow.width, m1=wide.width, r0=f"{values[0]:.3g}",
                   r1=f"{values[-1]:.3g}", factor=f"{factor:,.0f}" if factor < 1e6 else "≥10⁶",
                   kinks=wide.kinks_inside))
else:
    rises = [f"{a.width}→{b.width}" for a, b in zip(main.fits, main.fits[1:]) if b.rmse >= a.rmse]
    lines.append(t("sweep.takeaway_not_falls", steps=", ".join(rises)))
lines.append(t("sweep.takeaway_close" if worst <= 1.5 else "sweep.takeaway_far", ratio=f"{worst:.2g}"))
if len(results) == 2:
    naive_fits = results["naive"].fits
    gap = max(n.rmse / p.rmse if p.rmse > 0 else float("inf") for p, n in zip(main.fits, naive_fits))
    lines.append(t("sweep.takeaway_naive", gap=f"{gap:,.0f}" if gap < 1e6 else "≥10⁶", steps=main.steps))
if show_seed and (seed_rmse := sweep.SEED_RMSE.get(wide.width)):
    lines.append(t("sweep.takeaway_seed", m=wide.width, seed=f"{seed_rmse:.4f}", ours=f"{wide.rmse:.4f}"))
widgets.takeaway(page, " ".join(lines))

# --- live training --------------------------------------------------------------------------------------------


@st.fragment
def live_training() -> None:
    st.subheader(t("sweep.live_heading"))
    st.caption(t("sweep.live_caption"))
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

        final = compute.train(sweep.fit_widths, key, widths, act=act, method=m, seed=int(seed),
                              on_step=show, every=max(1, main.steps // 12))
        show(final)


live_training()

# --- table and code -------------------------------------------------------------------------------------------
if page.show_details:
    with st.expander(t("sweep.table_heading")):
        rows = []
        for m, res in results.items():
            for f, b in zip(res.fits, best_rmse):
                rows.append({
                    t("sweep.col_method"): t(f"sweep.method_{m}"), t("sweep.col_width"): f.width,
                    t("sweep.col_rmse"): f.rmse, t("sweep.col_best"): b,
                    t("sweep.col_seed"): sweep.SEED_RMSE.get(f.width) if show_seed else None,
                    t("sweep.col_kinks"): f.kinks_inside, t("sweep.col_pieces_used"): f.kinks_inside + 1,
                    t("sweep.col_bound"): f.width + 1,
                })
        widgets.table(page, pd.DataFrame(rows), "width_sweep.csv")
        st.caption(t("sweep.table_caption", source=", ".join(sorted(set(ref.source)))))
widgets.show_code(page, sweep.fit_widths, varpro.fit, varpro.step_relu)
