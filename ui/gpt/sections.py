"""Page 8's sections on the checkpoints and on one word in context, drawn after the page's own sections.

Kept apart from pages/8_trained_gpt.py so the page reads as its lesson and these sections as theirs.
The page draws the two controls (ui/registry/catalog.py declares them) between `intro` and the section they drive.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from ffn_core.gpt import context, corpus, progress, superposition
from ui import widgets
from ui.base import text
from ui.base.page import Page
from ui.charts import gpt as gpt_charts
from ui.charts import gpt_checkpoints as charts
from ui.gpt import checkpoints, probes
from ui.questions import Asked, quiz
from ui.questions import gpt as questions
from ui.registry import catalog
from ui.verdicts import gpt as gpt_verdicts
from ui.verdicts import gpt_checkpoints as verdicts


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


def intro(page: Page, section: str) -> None:
    """A section's heading and lesson ("step" and "roles" are drawn before the control the page adds)."""
    st.header(page.t(f"gptmemory.{section}_heading"))
    st.markdown(page.t(f"gptmemory.{section}_lesson"))


def checkpoint(page: Page, step: int, words: tuple[str, ...], answer: str | None) -> None:
    """The chosen prompt at one shipped checkpoint, everything recomputed from its weights."""
    t = page.t
    step = int(step)
    with st.spinner(t("common.computing")):
        snap = checkpoints.snapshot(step, tuple(words), answer)
    attr, acc = snap.attribution, snap.accuracy
    asked = questions.checkpoint(step, words, answer, snap.next.tokens[0], snap.next.probs[0])
    quiz.questions(page, asked, measured=("checkpoint", {"snap": snap}))
    if not quiz.shown(page, asked):
        return
    c1, c2, c3, c4 = st.columns(4)
    c1.metric(t("gptmemory.metric_top", step=step), snap.next.tokens[0])
    c2.metric(t("gptmemory.metric_prob"), text.pct(snap.next.probs[0]))
    c3.metric(t("gptmemory.metric_seen"), text.pct(acc.seen), help=t("gptmemory.metric_seen_help", n=acc.n_seen))
    c4.metric(t("gptmemory.metric_heldout"), text.pct(acc.heldout),
              help=t("gptmemory.metric_heldout_help", n=acc.n_heldout))
    widgets.side_by_side(page, (t("gptmemory.attribution_heading", answer=snap.target, step=step), gpt_charts.attribution,
                                attr.to_frame(), t),
                         (t("gptmemory.neurons_heading", answer=snap.target, step=step), gpt_charts.neurons,
                          snap.neurons.to_frame(), t, len(attr.attn)))
    row = checkpoints.logged().get(step)
    logged = None if row is None else (float(row["fact_accuracy_seen"]), float(row["fact_accuracy_heldout"]))
    widgets.verdict(page, verdicts.checkpoint(step, answer, snap.next.tokens[0], snap.next.probs[0], acc.seen,
                                             acc.heldout, logged, attr.attn, attr.ffn))


def curve(page: Page, asked: tuple[Asked, ...] = ()) -> None:
    """The whole corpus across training, from the training log; folded while `asked` (which it answers) waits."""
    t = page.t
    intro(page, "curve")
    if not quiz.shown(page, asked):
        return
    measured = checkpoints.curve()
    widgets.chart(page, charts.curve, measured.to_frame(), t)
    widgets.chart(page, charts.writers, measured.writers_frame(), t)
    seen_90 = measured.first_at_least("seen")
    widgets.verdict(page, verdicts.curve(
        seen_90, measured.first_at_least("heldout"), measured.first_at_least("template"),
        None if seen_90 is None else measured.at("heldout", seen_90), measured.ffn_onset(),
        measured.ffn[-1] if measured.ffn else ()))


def contexts(page: Page, country: str) -> None:
    """The country's vector in each of its facts' answer-first sentences, both languages, by stage."""
    t = page.t
    intro(page, "context")
    sim = checkpoints.word_similarity(country)
    within, across = context_pairs(sim.labels, page.lang)
    stage_labels = {s: charts.stage_label(t, s) for s in sim.stages}
    frame = sim.to_frame(within + across)
    labels = {label: _context_label(page, label) for label in sim.labels}
    frame = frame.assign(stage_label=frame["stage"].map(stage_labels),
                         pair_label=[f"{labels[a]} ~ {labels[b]}" for a, b in zip(frame["a"], frame["b"])])
    widgets.chart(page, charts.similarity, frame, t)
    first = sorted(checkpoints.word_contexts(country), key=lambda c: c.label.split(".")[1] != page.lang)
    st.caption(t("gptmemory.context_caption", sentences=" · ".join(f"“{' '.join(c.words)}”" for c in first)))
    widgets.verdict(page, verdicts.contexts(catalog.country_label(t, country), mean_by_stage(sim, within),
                                           mean_by_stage(sim, across) or None))


def polysemantic(page: Page, layer: int, index: int, answer: str) -> None:
    """The prompt's strongest neuron read over the corpus, and each block's hidden directions against its width."""
    t = page.t
    res = probes.polysemantic(layer, index, answer)
    spread = probes.directions()
    label = f"L{layer}·#{index}"
    st.subheader(t("gpt.poly_heading"))
    st.markdown(t("gpt.poly_lesson", answer=answer, width=spread.width, facts=len(corpus.FACTS)))
    c1, c2 = st.columns(2)
    c1.metric(t("gpt.poly_metric_fires_on", neuron=label), text.pct(res.fires_on), help=t("gpt.poly_metric_fires_on_help"))
    c2.metric(t("gpt.poly_metric_rank", answer=answer), f"{res.answer_rank} / {res.vocab}")
    left, right = st.columns(2)
    with left:
        fires = pd.DataFrame({t("gpt.poly_col_prompt"): list(res.prompts), t("gpt.poly_col_answer"): list(res.answers),
                              t("gpt.poly_col_relation"): [t(f"gpt.relation_{r}") for r in res.relations],
                              t("gpt.poly_col_activation"): [round(a, 3) for a in res.activations]})
        widgets.table(page, fires, "gpt_neuron_prompts.csv", first=(t("gpt.poly_col_answer"),))
    with right:
        writes = pd.DataFrame({t("gpt.poly_col_writes"): list(res.writes),
                               t("gpt.poly_col_kind"): [t(f"gpt.word_kind_{k}") for k in res.kinds]})
        widgets.table(page, writes, "gpt_neuron_writes.csv")
    cols = st.columns(len(spread.participation))
    for i, (column, pr, k) in enumerate(zip(cols, spread.participation, spread.k90), start=1):
        column.metric(t("gpt.poly_metric_directions", layer=i), f"{pr:.1f} / {spread.width}",
                      help=t("gpt.poly_metric_directions_help", width=spread.width, k90=k))
    widgets.verdict(page, gpt_verdicts.superposition(label, answer, res.distinct, len(res.prompts), res.answer_rank,
                                                     res.vocab, spread.participation, spread.k90, spread.width,
                                                     len(corpus.FACTS)))


def meanings(page: Page) -> None:
    """The corpus's one word with two meanings, at both its places in one sentence of the page's language."""
    t = page.t
    res = checkpoints.two_meanings(page.lang)
    word, country, capital = res.words[res.country], res.reference[res.country], res.reference[res.city]
    st.subheader(t("gptmemory.two_heading"))
    st.markdown(t("gptmemory.two_lesson", sentence=" ".join(res.words), reference=" ".join(res.reference)))
    stage_labels = [charts.stage_label(t, s) for s in res.stages]
    names = {"two": t("gptmemory.line_two", word=word), "country": t("gptmemory.line_two_country", word=word, country=country),
             "city": t("gptmemory.line_two_city", word=word, capital=capital)}
    lines = pd.DataFrame(
        [{"stage_label": label, "line": names[line], "cosine": c}
         for line, series in (("two", res.cosine), ("city", res.like_city), ("country", res.like_country))
         for label, c in zip(stage_labels, series)],
        columns=["stage_label", "line", "cosine"])
    widgets.chart(page, charts.roles, lines, t)
    lens = pd.DataFrame({t("gptmemory.col_stage"): stage_labels,
                         t("gptmemory.col_lens_country", word=word): list(res.lens_country),
                         t("gptmemory.col_lens_city", word=word): list(res.lens_city)})
    widgets.table(page, lens, "gpt_two_meanings.csv")
    widgets.verdict(page, verdicts.two_meanings(word, capital, country, res.cosine, res.like_country, res.like_city,
                                                res.lens_country, res.lens_city))


def roles(page: Page, country: str, other: str, template: str) -> None:
    """Two countries in one sentence form: their own words and the prompt's last word, by stage."""
    t = page.t
    sim = checkpoints.role_similarity(template, country, other)
    stage_labels = {s: charts.stage_label(t, s) for s in sim.stages}
    own, last = (list(sim.pair(0, 1)), list(sim.pair(2, 3))) if len(sim.labels) == 4 else ([], [])
    lines = pd.DataFrame(
        [{"stage_label": stage_labels[s], "line": t("gptmemory.line_own"), "cosine": c} for s, c in zip(sim.stages, own)]
        + [{"stage_label": stage_labels[s], "line": t("gptmemory.line_last"), "cosine": c}
           for s, c in zip(sim.stages, last)],
        columns=["stage_label", "line", "cosine"])
    widgets.chart(page, charts.roles, lines, t)
    names = [catalog.country_label(t, c) for c in (country, other)]
    widgets.verdict(page, verdicts.roles(*names, own, last))


CODE = (progress.snapshot, progress.curve, context.word_contexts, context.role_contexts, context.states,
        context.compare, context.two_meanings, superposition.neuron, superposition.directions)
