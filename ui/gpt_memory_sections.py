"""Page 7's sections on the checkpoints and on one word in context, drawn after the page's own sections.

Kept apart from pages/7_trained_gpt.py so the page reads as its lesson and these sections as theirs;
the page calls `show` once with what its controls chose (the country, the prompt, its sentence form).
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from ffn_core.gpt import context, corpus, progress, weights
from ui import gpt_memory, lessons as lesson_text, widgets
from ui.charts import gpt as gpt_charts
from ui.charts import gpt_memory as charts
from ui.lessons import gpt_memory as lessons
from ui.shell import Page

# The step a link without ?step= opens on: mid-training, where the facts are still forming.
DEFAULT_STEP = 300
DEFAULT_OTHER = "Germany"


def _name(page: Page, country: str) -> str:
    return next((f.country_ko for f in corpus.FACTS if f.country == country), country) if page.lang == "ko" else country


def _context_label(page: Page, label: str) -> str:
    relation, lang = label.split(".")
    return f"{page.t(f'gpt.relation_{relation}')} ({page.t(f'gpt.lang_{lang}')})"


def context_pairs(labels: tuple[str, ...], first_lang: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(within, across): pairs of different relations in one language (the page's language first), and
    pairs of the same relation in the two languages."""
    parsed = [label.split(".") for label in labels]
    order = sorted(range(len(labels)), key=lambda i: (parsed[i][1] != first_lang, i))
    within = [(i, j) for a, i in enumerate(order) for j in order[a + 1:] if parsed[i][1] == parsed[j][1]]
    across = [(i, j) for a, i in enumerate(order) for j in order[a + 1:]
              if parsed[i][0] == parsed[j][0] and parsed[i][1] != parsed[j][1]]
    return within, across


def mean_by_stage(sim: context.Similarity, pairs: list[tuple[int, int]]) -> list[float]:
    return [sum(sim.cosine[s][i][j] for i, j in pairs) / len(pairs) for s in range(len(sim.stages))] if pairs else []


def show(page: Page, country: str, template: str, words: tuple[str, ...], answer: str | None) -> None:
    t = page.t
    steps = list(weights.steps())

    # 5. The prompt at one checkpoint
    st.header(t("gptmemory.step_heading"))
    st.markdown(t("gptmemory.step_lesson"))
    step = widgets.choice(page, st.select_slider, t("gptmemory.step"), steps, key="checkpoint",
                          index=steps.index(DEFAULT_STEP) if DEFAULT_STEP in steps else len(steps) - 1,
                          option_label=lambda tr, s: tr("gptmemory.step_label", step=s), help=t("gptmemory.step_help"))
    with st.spinner(t("common.computing")):
        snap = gpt_memory.snapshot(step, tuple(words), answer)
    attr, acc = snap.attribution, snap.accuracy
    c1, c2, c3, c4 = st.columns(4)
    c1.metric(t("gptmemory.metric_top", step=step), snap.next.tokens[0])
    c2.metric(t("gptmemory.metric_prob"), lesson_text.pct(snap.next.probs[0]))
    c3.metric(t("gptmemory.metric_seen"), lesson_text.pct(acc.seen), help=t("gptmemory.metric_seen_help", n=acc.n_seen))
    c4.metric(t("gptmemory.metric_heldout"), lesson_text.pct(acc.heldout),
              help=t("gptmemory.metric_heldout_help", n=acc.n_heldout))
    left, right = st.columns(2)
    with left:
        st.markdown(f"**{t('gptmemory.attribution_heading', answer=snap.target, step=step)}**")
        widgets.chart(page, gpt_charts.attribution, attr.to_frame(), t)
    with right:
        st.markdown(f"**{t('gptmemory.neurons_heading', answer=snap.target, step=step)}**")
        widgets.chart(page, gpt_charts.neurons, snap.neurons.to_frame(), t, len(attr.attn))
    row = gpt_memory.logged().get(step)
    logged = None if row is None else (float(row["fact_accuracy_seen"]), float(row["fact_accuracy_heldout"]))
    widgets.verdict(page, lessons.checkpoint(step, answer, snap.next.tokens[0], snap.next.probs[0], acc.seen,
                                             acc.heldout, logged, attr.attn, attr.ffn))

    # 6. The whole corpus across training
    st.header(t("gptmemory.curve_heading"))
    st.markdown(t("gptmemory.curve_lesson"))
    curve = gpt_memory.curve()
    widgets.chart(page, charts.curve, curve.to_frame(), t)
    widgets.chart(page, charts.writers, curve.writers_frame(), t)
    seen_90 = curve.first_at_least("seen")
    widgets.verdict(page, lessons.curve(seen_90, curve.first_at_least("heldout"), curve.first_at_least("template"),
                                        None if seen_90 is None else curve.at("heldout", seen_90), curve.ffn_onset(),
                                        curve.ffn[-1] if curve.ffn else ()))

    # 7. One word in several sentences
    st.header(t("gptmemory.context_heading"))
    st.markdown(t("gptmemory.context_lesson"))
    sim = gpt_memory.word_similarity(country)
    within, across = context_pairs(sim.labels, page.lang)
    stage_labels = {s: charts.stage_label(t, s) for s in sim.stages}
    frame = sim.to_frame(within + across)
    labels = {label: _context_label(page, label) for label in sim.labels}
    frame = frame.assign(stage_label=frame["stage"].map(stage_labels),
                         pair_label=[f"{labels[a]} ~ {labels[b]}" for a, b in zip(frame["a"], frame["b"])])
    widgets.chart(page, charts.similarity, frame, t)
    first = sorted(context.word_contexts(country), key=lambda c: c.label.split(".")[1] != page.lang)
    st.caption(t("gptmemory.context_caption", sentences=" · ".join(f"“{' '.join(c.words)}”" for c in first)))
    widgets.verdict(page, lessons.contexts(_name(page, country), mean_by_stage(sim, within),
                                           mean_by_stage(sim, across) or None))

    # 8. Two words in the same place
    st.header(t("gptmemory.roles_heading"))
    st.markdown(t("gptmemory.roles_lesson"))
    others = [c for c in gpt_memory.countries_with(template) if c != country]
    other = widgets.choice(page, st.selectbox, t("gptmemory.other"), others, key="other",
                           index=others.index(DEFAULT_OTHER) if DEFAULT_OTHER in others else 0,
                           option_label=lambda tr, c: next((f.country_ko for f in corpus.FACTS if f.country == c), c)
                           if tr.lang == "ko" else c)
    roles = gpt_memory.role_similarity(template, country, other)
    own, last = (list(roles.pair(0, 1)), list(roles.pair(2, 3))) if len(roles.labels) == 4 else ([], [])
    lines = pd.DataFrame(
        [{"stage_label": stage_labels[s], "line": t("gptmemory.line_own"), "cosine": c} for s, c in zip(roles.stages, own)]
        + [{"stage_label": stage_labels[s], "line": t("gptmemory.line_last"), "cosine": c}
           for s, c in zip(roles.stages, last)],
        columns=["stage_label", "line", "cosine"])
    widgets.chart(page, charts.roles, lines, t)
    widgets.verdict(page, lessons.roles(_name(page, country), _name(page, other), own, last))


CODE = (progress.snapshot, progress.curve, context.word_contexts, context.role_contexts, context.states,
        context.compare)
