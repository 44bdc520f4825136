"""GPT surgery: take a block's FFN out and the facts go, edit one memory with a rank-one update and see
what else moved, and how sparsely the trained FFN fires at each checkpoint."""
import pandas as pd
import streamlit as st

from ffn_core import sparsity as ffn_sparsity
from ffn_core.gpt import ablation, corpus, edit, evaluate, sparsity_curve, states, weights
from ui import widgets
from ui.base import text
from ui.charts import gpt as charts
from ui.gpt import probes
from ui.kit import controls, glossary, lede, shell
from ui.questions import quiz
from ui.questions import gptsurgery as questions
from ui.registry import catalog
from ui.verdicts import gpt as verdicts

page = shell.setup("gptsurgery")
t = page.t

st.title(t("gptsurgery.title"))
lede.lesson(page, t("gptsurgery.lesson"))


@shell.part
def ablation_section() -> None:
    headline = lede.headline_slot()  # the measured headline, above the fold on a projector
    asking = st.container()  # the ablation's questions, filled once the ablated model is scored

    # 1. Take the FFN out
    st.header(t("gptsurgery.ablation_heading"))
    st.markdown(t("gptsurgery.ablation_lesson", examples="“of”, “is”, “의”, “수도”"))
    glossary.note(t, "ablation", "residual_stream")
    st.latex(r"x \leftarrow x + \mathrm{attn}_l(\mathrm{LN}(x)),\qquad x \leftarrow x + \underbrace{\mathrm{FFN}_l(\mathrm{LN}(x))}"
             r"_{\to\,0\ \text{" + t("gptsurgery.or") + r"}\ \overline{\mathrm{FFN}_l}}")
    c1, c2 = st.columns([2, 1])
    target = controls.draw(page, "target", c1)
    how = controls.draw(page, "how", c2, horizontal=True)
    with st.spinner(t("common.computing")):
        base = probes.base_scores()
        after = base if target == "none" else probes.ablated_scores(target, how)
    ablation_asked = questions.ablation(target, catalog.target_label(t, target), base, after)
    ablation_asked = quiz.questions(page, ablation_asked, asking, measured=("ablation", {"base": base, "after": after}))
    lede.headline(page, headline, ablation_asked, *((t(f"gptsurgery.measure_{name}"),
                                                text.change((getattr(base, name), getattr(after, name)), text.pct),
                                                t(f"gptsurgery.measure_{name}_help"))
                                               for name in ("seen", "heldout", "template")))
    if quiz.shown(page, ablation_asked):
        frame = pd.DataFrame([{"measure": name, "state": state, "accuracy": getattr(scores, name)}
                              for name in ("seen", "heldout", "template")
                              for state, scores in (("shipped", base), ("ablated", after))])
        widgets.chart(page, charts.ablation, frame, t)
        widgets.verdict(page, verdicts.ablation(target, catalog.target_label(t, target), base, after, how))


ablation_section()


@shell.part
def edit_section() -> None:
    # 2. Edit one memory
    st.header(t("gptsurgery.edit_heading"))
    st.markdown(t("gptsurgery.edit_lesson"))
    with st.expander(t("gptsurgery.precise_label")):
        st.markdown(t("gptsurgery.edit_precise"))
    glossary.note(t, "outer_product", "rank", "covariance", "c_inv_k")
    st.latex(r"W_2 \leftarrow W_2 + \frac{\delta\,(C^{-1}k_*)^{\top}}{k_*^{\top}C^{-1}k_*}"
             r"\quad\text{" + t("gptsurgery.or") + r"}\quad W_2 \leftarrow W_2 + \frac{\delta\,k_*^{\top}}{k_*^{\top}k_*}")
    capitals = [f for f in corpus.FACTS if f.relation == "capital"]
    c1, c2, c3 = st.columns([2, 1, 2])
    country = controls.draw(page, "edit_country", c1)
    elang = controls.draw(page, "edit_lang", c2)
    fact = next(f for f in capitals if f.country == country)
    new_answer = controls.draw(page, "new", c3)  # another capital: its options follow the country and the language
    c1, c2, c3 = st.columns(3)
    layer = controls.draw(page, "block", c1)
    method = controls.draw(page, "method", c2, horizontal=True)
    apply = controls.draw(page, "apply", c3)

    prompt_words = " ".join(next(p.words for p in corpus.prompts("all")
                                 if p.fact == fact and p.lang == elang and p.template == corpus.template_id("capital", elang, 0)))
    st.caption(t("gptsurgery.edit_prompt", prompt=prompt_words, old=fact.answer(elang), new=new_answer))
    if not apply:
        st.info(t("gptsurgery.undone", prompt=prompt_words, old=fact.answer(elang)))
    else:
        with st.spinner(t("common.computing")):
            res = probes.edit_fact(country, elang, new_answer, int(layer), method)
        unchanged = probes.shipped_unchanged()
        edit_asked = questions.edit(res, prompt_words)
        edit_asked = quiz.questions(page, edit_asked, measured=("edit", {"edit": res}))

        if quiz.shown(page, edit_asked):
            c1, c2, c3, c4 = st.columns(4)
            c1.metric(t("gptsurgery.metric_edited"), text.pct_change(res.edited), help=t("gptsurgery.metric_edited_help"))
            c2.metric(t("gptsurgery.metric_other_templates"), text.pct_change(res.other_templates),
                      help=t("gptsurgery.metric_other_templates_help"))
            c3.metric(t("gptsurgery.metric_other_lang"), text.pct_change(res.other_lang),
                      help=t("gptsurgery.metric_other_lang_help", answer=res.new_answer_other))
            c4.metric(t("gptsurgery.metric_changed"), f"{res.other_facts_changed} / {res.other_facts}",
                      help=t("gptsurgery.metric_changed_help", prompts=res.other_prompts_changed, total=res.other_prompts))
            rows = pd.DataFrame(res.rows, columns=["group", "lang", "prompt", "target", "before", "after"])
            rows["group"] = rows["group"].map(lambda g: t(f"gptsurgery.group_{g}"))
            rows["lang"] = rows["lang"].map(lambda lang: t(f"gpt.lang_{lang}"))
            rows = rows.rename(columns={"group": t("gptsurgery.col_group"), "lang": t("gptsurgery.col_lang"),
                                        "prompt": t("gptsurgery.col_prompt"), "target": t("gptsurgery.col_target"),
                                        "before": t("gptsurgery.col_before"), "after": t("gptsurgery.col_after")})
            widgets.table(page, rows, "gpt_edit.csv", first=(t("gptsurgery.col_prompt"), t("gptsurgery.col_after"),
                                                             t("gptsurgery.col_before")))
            widgets.verdict(page, verdicts.edit(res, prompt_words, unchanged))


edit_section()


@shell.part
def sparsity_section() -> None:
    # 3. Sparsity from training
    st.header(t("gptsurgery.sparsity_heading"))
    st.markdown(t("gptsurgery.sparsity_lesson"))
    glossary.note(t, "checkpoint", "active")
    st.latex(r"\text{" + t("gptsurgery.formula_lhs") + r"}_l = \frac{1}{N\,m}\sum_{n=1}^{N}\sum_{i=1}^{m}\mathbf{1}\left[k_i\cdot \mathrm{LN}(x_n) + b_i > 0\right]")
    steps = list(weights.steps())
    step = controls.draw(page, "step")
    with st.spinner(t("common.computing")):
        # The final checkpoint's fraction comes with the shipped model's scores: one corpus pass for both.
        now = probes.base_scores().active if step == steps[-1] else probes.active_at(int(step))
    logged_steps, logged = probes.logged_curve()
    curve = sparsity_curve.Curve((int(step),), (now,), logged_steps, logged)
    start = logged[0] if logged else now
    gap = curve.max_log_gap()
    # Two to a row: "0.495 → 0.304" needs half the width, or the numbers the lesson is about are cut off.
    for row in range(0, len(now), 2):
        cols = st.columns(2)
        for column, i in zip(cols, range(row, min(row + 2, len(now)))):
            column.metric(t("gpt.block_n", layer=i + 1), text.change((start[i], now[i]), "{:.3f}".format),
                          help=t("gptsurgery.metric_block_help", step=step))
    widgets.chart(page, charts.sparsity, curve.to_frame(), ffn_sparsity.PUBLISHED, t)
    st.caption(t("gptsurgery.sparsity_caption"))
    widgets.verdict(page, verdicts.sparsity(int(step), start, now, gap))

    # Exactly what this page calls (through ui/gpt_probes): the other core functions run inside these.
    widgets.show_code(page, states.corpus_states, ablation.kept_scores, ablation.scores_from, states.key_covariance,
                      edit.edit, evaluate.active_fraction, sparsity_curve.logged_curve, sparsity_curve.Curve.max_log_gap)


sparsity_section()
