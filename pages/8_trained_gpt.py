"""A small GPT trained here: its next-token answers, what each layer's attention and FFN add to them, its
trained key-value neurons, the parameter split of its own blocks, and how its memory forms over training."""
import streamlit as st

from ffn_core.gpt import ask, attribution, corpus, neurons, split, trace, weights
from ui import widgets
from ui.base import text
from ui.charts import gpt as charts
from ui.compute import cache
from ui.gpt import probes, sections
from ui.kit import controls, glossary, lede, shell
from ui.questions import Asked, quiz
from ui.questions import gpt as questions
from ui.registry import links
from ui.verdicts import gpt as verdicts

page = shell.setup("gpt")
t = page.t

st.title(t("gpt.title"))
lede.lesson(page, t("gpt.lesson", blocks=weights.config().n_layer),
            [r"p(w_{T+1} \mid w_1 \dots w_T) = \mathrm{softmax}\big(W_U\,\mathrm{LN}_f(x_T^{(L)})\big)"])
# "logit" is read in the tokens' lesson and every section after it: it is explained before its first use.
glossary.note(t, "logit", "softmax", "causal_mask", "embedding")


@shell.part
def checkpoint_part(words: tuple[str, ...], answer: str | None) -> None:
    sections.intro(page, "step")
    glossary.note(page.t, "checkpoint")
    step = controls.draw(page, "checkpoint")
    sections.checkpoint(page, step, words, answer)


@shell.part
def roles_part(country: str, template: str) -> None:
    sections.intro(page, "roles")
    glossary.note(page.t, "cosine_similarity")
    other = controls.draw(page, "other")
    sections.roles(page, country, other, template)


def neurons_section(top: neurons.Neurons, target: str, n_blocks: int) -> None:
    """3. Trained key-value neurons: the few FFN neurons whose values push the answer's logit most."""
    st.markdown(t("gpt.neurons_lesson"))
    with st.expander(t("gpt.precise_label")):
        st.markdown(t("gpt.neurons_precise"))
    st.latex(r"u_a\cdot\mathrm{FFN}_l(x) = \sum_{i=1}^{m} a_i\,(u_a\cdot v_i) + u_a\cdot b_2")
    ffn_total = sum(top.ffn_total)
    top_sum = sum(n.contribution for n in top.neurons)
    c1, c2, c3 = st.columns([2, 1, 1])  # four counts in one value: the first column gets the width
    c1.metric(t("gpt.metric_active"), " / ".join(str(a) for a in top.active), help=t("gpt.metric_active_help", m=top.d_ff))
    c2.metric(t("gpt.metric_top_sum", n=len(top.neurons)), f"{top_sum:+.2f}")
    c3.metric(t("gpt.metric_ffn_push"), f"{ffn_total:+.2f}")
    neuron_frame = cache.derive(top.to_frame)
    widgets.chart(page, charts.neurons, neuron_frame, t, n_blocks)
    shown = neuron_frame[["label", "coefficient", "value_on_answer", "contribution", "promotes", "top_prompts"]].rename(columns={
        "label": t("gpt.axis_neuron"), "coefficient": "aᵢ", "value_on_answer": "u·vᵢ",
        "contribution": t("gpt.axis_logit_term"), "promotes": t("gpt.col_promotes"), "top_prompts": t("gpt.col_prompts"),
    })
    widgets.table(page, shown.round(4), "gpt_neurons.csv", first=(t("gpt.col_promotes"), t("gpt.col_prompts")))
    lead = top.neurons[0] if top.neurons else None
    widgets.verdict(page, verdicts.neurons(
        target, [n.contribution for n in top.neurons], ffn_total, top.d_ff * len(top.active),
        "—" if lead is None else f"L{lead.layer}·#{lead.index}", "—" if lead is None else ", ".join(lead.promotes[:3])))
    if lead is not None:
        sections.polysemantic(page, lead.layer, lead.index, target)


def split_section(parts: split.Split) -> None:
    """4. The model's own parameter split: how much of this small GPT is FFN."""
    st.markdown(t("gpt.split_lesson"))
    split_frame = cache.derive(parts.to_frame)
    widgets.chart(page, charts.parameter_split, split_frame, t)
    c1, c2, c3 = st.columns(3)
    c1.metric(t("gpt.metric_params"), f"{parts.total:,}")
    c2.metric(t("gpt.metric_ffn_share_all"), text.pct(parts.ffn_share))
    c3.metric(t("gpt.metric_ffn_share_blocks"), f"{parts.ffn_share_of_blocks:.4f}")
    if parts.tied:
        st.caption(t("gpt.tied_caption"))
    widgets.verdict(page, verdicts.parameter_split(parts))


def layers_section(attr: attribution.Attribution, target: str, asked: tuple[Asked, ...]) -> None:
    """2. Layer by layer: what the embedding, each attention and each FFN add to the answer's logit."""
    st.markdown(t("gpt.layers_lesson"))
    box = widgets.folded(t("gpt.precise_label"), "gpt:layers_precise")
    if box.open:
        with box:
            st.markdown(t("gpt.layers_precise"))
    glossary.note(t, "residual_stream", "direct_logit_attribution")
    st.latex(r"\ell_{a} = u_a\cdot\Big(e + \sum_{l}\mathrm{attn}_l + \sum_{l}\mathrm{FFN}_l\Big) + c_a,\qquad "
             r"u_a = s\,P(\gamma \odot w_a),\; s = 1/\sqrt{\mathrm{var}(x)+\epsilon}\ \text{" + t("gpt.frozen") + "}")
    if quiz.shown(page, asked):
        widgets.metrics(st, (t("gpt.metric_logit", answer=target), f"{attr.logit:.3f}"),
                        (t("gpt.metric_attn_total"), f"{sum(attr.attn):+.3f}"),
                        (t("gpt.metric_ffn_total"), f"{sum(attr.ffn):+.3f}"),
                        (t("gpt.metric_residual"), text.error(attr.max_abs_residual), t("gpt.metric_residual_help")))
        widgets.side_by_side(page, (t("gpt.attribution_heading", answer=target), charts.attribution, cache.frame(attr.to_frame), t),
                             (t("gpt.lens_heading", answer=target), charts.lens, cache.frame(attr.lens_frame), t))
        first = next((lens.layer for lens in attr.lens if lens.answer_rank == 1), None)
        widgets.verdict(page, verdicts.layers(target, attr.max_abs_residual, attr.embedding, attr.attn, attr.ffn, first))


@shell.part
def experiment() -> None:
    headline = lede.headline_slot()  # the measured headline, above the fold on a projector
    asking = st.container()  # the questions, filled once the model has answered the prompt
    example = next((" ".join(p.words) for p in corpus.prompts("all") if p.lang == "ko"), "")
    box = widgets.folded(t("gpt.tokens_heading"), "gpt:tokens")
    if box.open:
        with box:
            st.markdown(t("gpt.tokens_lesson", example=example))
            glossary.note(t, "logit_lens")

    model = probes.shipped()
    row = st.container(horizontal=True)  # one block, not a row of columns: this page draws the most
    country = controls.draw(page, "country", row)
    relation = controls.draw(page, "relation", row)  # the relations this country has facts for
    plang = controls.draw(page, "plang", row, horizontal=True, width="content")
    fact = next(f for f in corpus.FACTS if f.country == country and f.relation == relation)
    own = probes.prompts_of(fact, plang)
    by_words = {" ".join(p.words): p for p in own}  # a form is named by its own words (ui/registry/catalog.py)
    more, = lede.less_used(page, 1)
    form = controls.draw(page, "form", more, horizontal=True)
    typed = controls.draw(page, "prompt", more)

    chosen = by_words[form]
    words, answer = chosen.words, chosen.answer
    if typed.strip():
        parsed, unknown = probes.parse(typed)
        if unknown:
            st.info(t("gpt.unknown_words", words=", ".join(unknown)))
        elif parsed:
            words, answer = parsed, probes.known_answer(parsed)
    st.caption(t("gpt.tokens_shown", tokens=" · ".join(words), n=len(words)))

    with st.spinner(t("common.computing")):
        nxt = probes.next_token(words, answer)
        acc = probes.accuracy()
    target = answer if answer is not None else nxt.tokens[0]
    with st.spinner(t("common.computing")):
        attr = probes.attribute(words, target)
        top = probes.top_neurons(words, target)
        parts = probes.parameter_split()
    prompt_asked = questions.prompt(words, answer, nxt.tokens[0], attr.attn, attr.ffn)
    heldout_asked = questions.heldout(acc)
    drawn = quiz.questions(page, prompt_asked + heldout_asked, asking,
                           measured=("experiment", {"next": nxt, "accuracy": acc, "attribution": attr}))
    prompt_asked += drawn[len(prompt_asked + heldout_asked):]  # a lesson step's own questions fold with the prompt's
    lede.headline(page, headline, prompt_asked + heldout_asked,
                  (t("gpt.metric_top"), nxt.tokens[0], t("gpt.metric_top_help")),
                  (t("gpt.metric_top_prob"), text.pct(nxt.probs[0])),
                  (t("gpt.metric_answer_rank"), "—" if nxt.answer_rank is None else str(nxt.answer_rank),
                   t("gpt.metric_answer_rank_help", answer=answer or "—")),
                  (t("gpt.metric_answer_prob"), "—" if nxt.answer_prob is None else text.pct(nxt.answer_prob)))

    # 1. Ask the model
    st.header(t("gpt.ask_heading"))
    if quiz.shown(page, prompt_asked + heldout_asked):
        widgets.chart(page, charts.top_tokens, cache.frame(nxt.to_frame), t)
        if answer is None:
            st.caption(t("gpt.no_known_answer"))

        widgets.metrics(st, (t("gpt.metric_seen"), text.pct(acc.seen), t("gpt.metric_seen_help", n=acc.n_seen)),
                        (t("gpt.metric_heldout"), text.pct(acc.heldout), t("gpt.metric_heldout_help", n=acc.n_heldout)))
        frame = cache.derive(acc.to_frame)
        widgets.chart(page, charts.accuracy, frame, t)
        box = widgets.folded(t("gpt.accuracy_table"), "gpt:accuracy") if page.show_details else None
        if box is not None and box.open:
            with box:
                # Headers in the page's language, as every table's (the downloaded CSV keeps them).
                shown = frame.rename(columns={
                    "relation": t("gpt.col_relation"), "lang": t("gpt.col_lang"), "heldout": t("gpt.col_heldout"),
                    "correct": t("gpt.col_correct"), "prompts": t("gpt.axis_prompts"), "accuracy": t("gpt.axis_accuracy"),
                })
                widgets.table(page, shown, "gpt_accuracy.csv")
        widgets.verdict(page, verdicts.ask(acc, answer, nxt.tokens[0]))

    # 2–8 fold below the prompt's answer: a class reads them one at a time, and a page run draws only
    # the boxes that are open (page 8 was the costliest rerun of all: twelve charts). The boxes above
    # (the tokens' lesson, the precise reading, the accuracy table) are drawn only when open too.
    # 2. Layer by layer
    box = widgets.folded(t("gpt.layers_heading"), "gpt:layers")
    if box.open:
        with box:
            layers_section(attr, target, prompt_asked)

    # 3. Trained key-value neurons
    box = widgets.folded(t("gpt.neurons_heading"), "gpt:neurons")
    if box.open:
        with box:
            neurons_section(top, target, len(model.blocks))

    # 4. The model's own parameter split
    box = widgets.folded(t("gpt.split_heading"), "gpt:split")
    if box.open:
        with box:
            split_section(parts)

    box = widgets.folded(t("gpt.training_heading"), "gpt:training")
    if box.open:
        with box:
            # 5–8. The prompt at every checkpoint, the corpus across training, one word in context (ui/gpt/sections.py):
            # the training step and the other word each rerun their own section alone.
            checkpoint_part(tuple(words), answer)
            sections.curve(page, heldout_asked)  # its last point is the held-out answer
            sections.contexts(page, country)
            sections.meanings(page)
            roles_part(country, chosen.template)

    widgets.page_link(st, "pages/9_gpt_surgery.py", label=t("gpt.link_surgery"), icon=":material/arrow_forward:",
                      query_params=links.app_link_params(page))
    widgets.show_code(page, ask.next_token, trace.run, trace.readout, attribution.attribute, neurons.top_neurons, split.split,
                      *sections.CODE)


experiment()
