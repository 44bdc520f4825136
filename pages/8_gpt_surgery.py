import pandas as pd
import streamlit as st

from ffn_core import sparsity as ffn_sparsity
from ffn_core.gpt import ablation, corpus, edit, sparsity_curve, weights
from ui import ask, gpt_probes, query, shell, widgets
from ui import lessons as lesson_text
from ui.charts import gpt as charts
from ui.lessons import gpt as lessons
from ui.questions import gptsurgery as questions

page = shell.setup("gptsurgery")
t = page.t

st.title(t("gptsurgery.title"))
st.markdown(t("gptsurgery.lesson"))
asking = st.container()  # the ablation's questions, filled once the ablated model is scored

model = gpt_probes.shipped()
n_layers = len(model.blocks)
blocks = list(range(1, n_layers + 1))


def target_label(tr, target: str) -> str:
    if target in ("none", "ffn_all"):
        return tr(f"gptsurgery.target_{target}")
    part, layer = target.split("_")
    return tr(f"gptsurgery.target_{part}", layer=layer)


# 1. Take the FFN out
st.header(t("gptsurgery.ablation_heading"))
st.markdown(t("gptsurgery.ablation_lesson", examples="“of”, “is”, “의”, “수도”"))
st.latex(r"x \leftarrow x + \mathrm{attn}_l(\mathrm{LN}(x)),\qquad x \leftarrow x + \underbrace{\mathrm{FFN}_l(\mathrm{LN}(x))}_{\to\,0}")
target = widgets.choice(page, st.selectbox, t("gptsurgery.target"), ablation.targets(n_layers), key="target",
                        index=1, option_label=target_label)
with st.spinner(t("common.computing")):
    base = gpt_probes.base_scores()
    after = base if target == "none" else gpt_probes.ablated_scores(target)
ablation_asked = questions.ablation(target, target_label(t, target), (base.seen, after.seen),
                                    (base.template, after.template))
ask.questions(page, ablation_asked, asking)
if ask.shown(page, ablation_asked):
    c1, c2, c3 = st.columns(3)
    for column, name in zip((c1, c2, c3), ("seen", "heldout", "template")):
        column.metric(t(f"gptsurgery.measure_{name}"), f"{lesson_text.pct(getattr(base, name))} → {lesson_text.pct(getattr(after, name))}",
                      help=t(f"gptsurgery.measure_{name}_help"))
    frame = pd.DataFrame([{"measure": name, "state": state, "accuracy": getattr(scores, name)}
                          for name in ("seen", "heldout", "template")
                          for state, scores in (("shipped", base), ("ablated", after))])
    widgets.chart(page, charts.ablation, frame, t)
    widgets.verdict(page, lessons.ablation(target, target_label(t, target), (base.seen, after.seen),
                                           (base.template, after.template)))

# 2. Edit one memory
st.header(t("gptsurgery.edit_heading"))
st.markdown(t("gptsurgery.edit_lesson"))
st.latex(r"W_2 \leftarrow W_2 + \frac{\delta\,(C^{-1}k_*)^{\top}}{k_*^{\top}C^{-1}k_*}"
         r"\quad\text{" + t("gptsurgery.or") + r"}\quad W_2 \leftarrow W_2 + \frac{\delta\,k_*^{\top}}{k_*^{\top}k_*}")
capitals = [f for f in corpus.FACTS if f.relation == "capital"]
countries = sorted(f.country for f in capitals)
ko_names = {f.country: f.country_ko for f in capitals}
c1, c2, c3 = st.columns([2, 1, 2])
country = widgets.choice(page, c1.selectbox, t("gptsurgery.country"), countries, key="edit_country",
                         index=countries.index("France") if "France" in countries else 0,
                         option_label=lambda tr, c: ko_names[c] if tr.lang == "ko" else c)
elang = widgets.choice(page, c2.radio, t("gptsurgery.edit_lang"), list(corpus.LANGS), key="edit_lang",
                       option_label=lambda tr, lang: tr(f"gpt.lang_{lang}"))
fact = next(f for f in capitals if f.country == country)
answers = sorted({f.answer(elang) for f in capitals} - {fact.answer(elang)})
default_new = "Rome" if elang == "en" and "Rome" in answers else answers[0]
# Its options follow the language and the country, so the shared choice keeps it in the address by name.
new_answer = widgets.choice(page, c3.selectbox, t("gptsurgery.new_answer"), answers, key="new",
                            index=answers.index(default_new), option_label=lambda tr, a: a)
c1, c2, c3 = st.columns(3)
# Block 1: its FFN carries most of the facts (take it out above), and ROME's update there moves the fewest others.
layer = c1.select_slider(t("gptsurgery.block"), blocks, 1, key="block", bind="query-params")
method = widgets.choice(page, c2.radio, t("gptsurgery.method"), list(edit.METHODS), key="method",
                        index=1, option_label=lambda tr, m: tr(f"gptsurgery.method_{m}"), horizontal=True)
# Written to the address by hand, as the choices around it are: a bound switch on this page, whose
# run is long, could lose its address to the choices' writes in the same run.
if "apply" not in st.session_state:
    st.session_state["apply"] = query.flag("apply") is not False
apply = c3.toggle(t("gptsurgery.apply"), key="apply", help=t("gptsurgery.apply_help"))
query.set_value("apply", None if apply else "false")

prompt_words = " ".join(next(p.words for p in corpus.prompts("all")
                             if p.fact == fact and p.lang == elang and p.template == corpus.template_id("capital", elang, 0)))
st.caption(t("gptsurgery.edit_prompt", prompt=prompt_words, old=fact.answer(elang), new=new_answer))
if not apply:
    st.info(t("gptsurgery.undone", prompt=prompt_words, old=fact.answer(elang)))
else:
    with st.spinner(t("common.computing")):
        res = gpt_probes.edit_fact(country, elang, new_answer, int(layer), method)
    unchanged = gpt_probes.shipped_unchanged()
    edit_asked = questions.edit(country, elang, new_answer, int(layer), method, res.new_answer_other,
                                None if res.other_lang is None else res.other_lang[1], prompt_words)
    ask.questions(page, edit_asked)

    def pair(value: tuple[float, float] | None) -> str:
        return "—" if value is None else f"{lesson_text.pct(value[0], 0)} → {lesson_text.pct(value[1], 0)}"

    if ask.shown(page, edit_asked):
        c1, c2, c3, c4 = st.columns(4)
        c1.metric(t("gptsurgery.metric_edited"), pair(res.edited), help=t("gptsurgery.metric_edited_help"))
        c2.metric(t("gptsurgery.metric_other_templates"), pair(res.other_templates),
                  help=t("gptsurgery.metric_other_templates_help"))
        c3.metric(t("gptsurgery.metric_other_lang"), pair(res.other_lang),
                  help=t("gptsurgery.metric_other_lang_help", answer=res.new_answer_other))
        c4.metric(t("gptsurgery.metric_changed"), f"{res.other_facts_changed} / {res.other_facts}",
                  help=t("gptsurgery.metric_changed_help", prompts=res.other_prompts_changed, total=res.other_prompts))
        rows = pd.DataFrame(res.rows, columns=["group", "lang", "prompt", "target", "before", "after"])
        rows["group"] = rows["group"].map(lambda g: t(f"gptsurgery.group_{g}"))
        rows["lang"] = rows["lang"].map(lambda lang: t(f"gpt.lang_{lang}"))
        rows = rows.rename(columns={"group": t("gptsurgery.col_group"), "lang": t("gptsurgery.col_lang"),
                                    "prompt": t("gptsurgery.col_prompt"), "target": t("gptsurgery.col_target"),
                                    "before": t("gptsurgery.col_before"), "after": t("gptsurgery.col_after")})
        widgets.table(page, rows, "gpt_edit.csv")
        st.caption(t("gptsurgery.delta_caption", delta=f"{res.delta_norm:.3f}", weight=f"{res.weight_norm:.3f}", layer=layer))
        widgets.verdict(page, lessons.edit(
            int(layer), prompt_words, new_answer, res.new_answer_other, res.edited[1],
            None if res.other_lang is None else res.other_lang[1], res.other_prompts_changed, res.other_prompts,
            res.other_facts_changed, res.other_facts, unchanged))

# 3. Sparsity from training
st.header(t("gptsurgery.sparsity_heading"))
st.markdown(t("gptsurgery.sparsity_lesson"))
st.latex(r"\text{" + t("gptsurgery.formula_lhs") + r"}_l = \frac{1}{N\,m}\sum_{n=1}^{N}\sum_{i=1}^{m}\mathbf{1}\left[k_i\cdot \mathrm{LN}(x_n) + b_i > 0\right]")
steps = list(weights.steps())
step = st.select_slider(t("gptsurgery.step"), steps, steps[-1], key="step", bind="query-params",
                        help=t("gptsurgery.step_help"))
with st.spinner(t("common.computing")):
    # The final checkpoint's fraction comes with the shipped model's scores: one corpus pass for both.
    now = base.active if step == steps[-1] else gpt_probes.active_at(int(step))
logged_steps, logged = gpt_probes.logged_curve()
curve = sparsity_curve.Curve((int(step),), (now,), logged_steps, logged)
start = logged[0] if logged else now
gap = curve.max_log_gap()
sparsity_asked = questions.sparsity(int(step), start, now, gap)
ask.questions(page, sparsity_asked)
if ask.shown(page, sparsity_asked):
    # Two to a row: "0.495 → 0.304" needs half the width, or the numbers the lesson is about are cut off.
    for row in range(0, len(now), 2):
        cols = st.columns(2)
        for column, i in zip(cols, range(row, min(row + 2, len(now)))):
            column.metric(t("gpt.block_n", layer=i + 1), f"{start[i]:.3f} → {now[i]:.3f}",
                          help=t("gptsurgery.metric_block_help", step=step))
    widgets.chart(page, charts.sparsity, curve.to_frame(), ffn_sparsity.PUBLISHED, t)
    st.caption(t("gptsurgery.sparsity_caption"))
    widgets.verdict(page, lessons.sparsity(int(step), start, now, gap))

widgets.show_code(page, ablation.ablated, ablation.scores, edit.rank_one, edit.edit, sparsity_curve.curve)
