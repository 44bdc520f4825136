import streamlit as st

from ffn_core.gpt import ask, attribution, corpus, neurons, split, trace
from ui import gpt_memory_sections, gpt_probes, shell, widgets
from ui import lessons as lesson_text
from ui.charts import gpt as charts
from ui.lessons import gpt as lessons

page = shell.setup("gpt")
t = page.t

st.title(t("gpt.title"))
st.markdown(t("gpt.lesson"))
st.latex(r"p(w_{T+1} \mid w_1 \dots w_T) = \mathrm{softmax}\big(W_U\,\mathrm{LN}_f(x_T^{(L)})\big)")
example = next((" ".join(p.words) for p in corpus.prompts("all") if p.lang == "ko"), "")
with st.expander(t("gpt.tokens_heading")):
    st.markdown(t("gpt.tokens_lesson", example=example))

model = gpt_probes.shipped()
countries = sorted({f.country for f in corpus.FACTS})
ko_names = {f.country: f.country_ko for f in corpus.FACTS}

c1, c2, c3 = st.columns([2, 2, 1])
country = widgets.choice(page, c1.selectbox, t("gpt.country"), countries, key="country",
                         index=countries.index("France") if "France" in countries else 0,
                         option_label=lambda tr, c: ko_names[c] if tr.lang == "ko" else c)
relations = [r for r in corpus.RELATIONS if any(f.country == country and f.relation == r for f in corpus.FACTS)]
relation = widgets.choice(page, c2.selectbox, t("gpt.relation"), relations, key="relation",
                          option_label=lambda tr, r: tr(f"gpt.relation_{r}"))
plang = widgets.choice(page, c3.radio, t("gpt.prompt_lang"), list(corpus.LANGS), key="plang",
                       option_label=lambda tr, lang: tr(f"gpt.lang_{lang}"), horizontal=True)
fact = next(f for f in corpus.FACTS if f.country == country and f.relation == relation)
own = [p for p in corpus.prompts("all") if p.fact == fact and p.lang == plang]
# A form is named by its own words, so a link reads as the sentence it asks. The name must change
# whenever the words do: a radio whose labels change under the same names shows nothing checked.
by_words = {" ".join(p.words): p for p in own}
form = widgets.choice(page, st.radio, t("gpt.form"), list(by_words), key="form", horizontal=True,
                      option_label=lambda tr, words: f"{words} …")
typed = st.text_input(t("gpt.prompt"), "", key="prompt", bind="query-params", max_chars=200,
                      placeholder=t("gpt.prompt_placeholder"), help=t("gpt.prompt_help"))

chosen = by_words[form]
words, answer = chosen.words, chosen.answer
if typed.strip():
    parsed, unknown = gpt_probes.parse(typed)
    if unknown:
        st.info(t("gpt.unknown_words", words=", ".join(unknown)))
    elif parsed:
        words, answer = parsed, gpt_probes.known_answer(parsed)
st.caption(t("gpt.tokens_shown", tokens=" · ".join(words), n=len(words)))

with st.spinner(t("common.computing")):
    nxt = gpt_probes.next_token(words, answer)
    acc = gpt_probes.accuracy()
target = answer if answer is not None else nxt.tokens[0]
with st.spinner(t("common.computing")):
    attr = gpt_probes.attribute(words, target)
    top = gpt_probes.top_neurons(words, target)
    parts = gpt_probes.parameter_split()


# 1. Ask the model
st.header(t("gpt.ask_heading"))
c1, c2, c3, c4 = st.columns(4)
c1.metric(t("gpt.metric_top"), nxt.tokens[0], help=t("gpt.metric_top_help"))
c2.metric(t("gpt.metric_top_prob"), lesson_text.pct(nxt.probs[0]))
c3.metric(t("gpt.metric_answer_rank"), "—" if nxt.answer_rank is None else str(nxt.answer_rank),
          help=t("gpt.metric_answer_rank_help", answer=answer or "—"))
c4.metric(t("gpt.metric_answer_prob"), "—" if nxt.answer_prob is None else lesson_text.pct(nxt.answer_prob))
widgets.chart(page, charts.top_tokens, nxt.to_frame(), t)
if answer is None:
    st.caption(t("gpt.no_known_answer"))

c1, c2 = st.columns(2)
c1.metric(t("gpt.metric_seen"), lesson_text.pct(acc.seen), help=t("gpt.metric_seen_help", n=acc.n_seen))
c2.metric(t("gpt.metric_heldout"), lesson_text.pct(acc.heldout), help=t("gpt.metric_heldout_help", n=acc.n_heldout))
frame = acc.to_frame()
widgets.chart(page, charts.accuracy, frame, t)
if page.show_details:
    with st.expander(t("gpt.accuracy_table")):
        widgets.table(page, frame, "gpt_accuracy.csv")
widgets.verdict(page, lessons.ask(acc.seen, acc.heldout, acc.n_seen, acc.n_heldout, answer, nxt.tokens[0]))

# 2. Layer by layer
st.header(t("gpt.layers_heading"))
st.markdown(t("gpt.layers_lesson"))
st.latex(r"\ell_{a} = u_a\cdot\Big(e + \sum_{l}\mathrm{attn}_l + \sum_{l}\mathrm{FFN}_l\Big) + c_a,\qquad "
         r"u_a = s\,P(\gamma \odot w_a),\; s = 1/\sqrt{\mathrm{var}(x)+\epsilon}\ \text{" + t("gpt.frozen") + "}")
c1, c2, c3, c4 = st.columns(4)
c1.metric(t("gpt.metric_logit", answer=target), f"{attr.logit:.3f}")
c2.metric(t("gpt.metric_attn_total"), f"{sum(attr.attn):+.3f}")
c3.metric(t("gpt.metric_ffn_total"), f"{sum(attr.ffn):+.3f}")
c4.metric(t("gpt.metric_residual"), f"{attr.max_abs_residual:.1e}", help=t("gpt.metric_residual_help"))
left, right = st.columns(2)
with left:
    st.markdown(f"**{t('gpt.attribution_heading', answer=target)}**")
    widgets.chart(page, charts.attribution, attr.to_frame(), t)
with right:
    st.markdown(f"**{t('gpt.lens_heading', answer=target)}**")
    widgets.chart(page, charts.lens, attr.lens_frame(), t)
first = next((lens.layer for lens in attr.lens if lens.answer_rank == 1), None)
widgets.verdict(page, lessons.layers(target, attr.max_abs_residual, attr.embedding, attr.attn, attr.ffn, first))

# 3. Trained key-value neurons
st.header(t("gpt.neurons_heading"))
st.markdown(t("gpt.neurons_lesson"))
st.latex(r"u_a\cdot\mathrm{FFN}_l(x) = \sum_{i=1}^{m} a_i\,(u_a\cdot v_i) + u_a\cdot b_2")
ffn_total = sum(top.ffn_total)
top_sum = sum(n.contribution for n in top.neurons)
c1, c2, c3 = st.columns([2, 1, 1])  # four counts in one value: the first column gets the width
c1.metric(t("gpt.metric_active"), " / ".join(str(a) for a in top.active), help=t("gpt.metric_active_help", m=top.d_ff))
c2.metric(t("gpt.metric_top_sum", n=len(top.neurons)), f"{top_sum:+.2f}")
c3.metric(t("gpt.metric_ffn_push"), f"{ffn_total:+.2f}")
neuron_frame = top.to_frame()
widgets.chart(page, charts.neurons, neuron_frame, t, len(model.blocks))
shown = neuron_frame[["label", "coefficient", "value_on_answer", "contribution", "promotes", "top_prompts"]].rename(columns={
    "label": t("gpt.axis_neuron"), "coefficient": "aᵢ", "value_on_answer": "u·vᵢ",
    "contribution": t("gpt.axis_logit_term"), "promotes": t("gpt.col_promotes"), "top_prompts": t("gpt.col_prompts"),
})
widgets.table(page, shown.round(4), "gpt_neurons.csv")
lead = top.neurons[0] if top.neurons else None
widgets.verdict(page, lessons.neurons(
    target, [n.contribution for n in top.neurons], ffn_total, top.d_ff * len(top.active),
    "—" if lead is None else f"L{lead.layer}·#{lead.index}", "—" if lead is None else ", ".join(lead.promotes[:3])))

# 4. The model's own parameter split
st.header(t("gpt.split_heading"))
st.markdown(t("gpt.split_lesson"))
split_frame = parts.to_frame()
widgets.chart(page, charts.parameter_split, split_frame, t)
c1, c2, c3 = st.columns(3)
c1.metric(t("gpt.metric_params"), f"{parts.total:,}")
c2.metric(t("gpt.metric_ffn_share_all"), lesson_text.pct(parts.ffn_share))
c3.metric(t("gpt.metric_ffn_share_blocks"), f"{parts.ffn_share_of_blocks:.4f}")
if parts.tied:
    st.caption(t("gpt.tied_caption"))
widgets.verdict(page, lessons.split(parts.count("ffn"), parts.count("attention"), parts.count("embeddings"), parts.total))

# 5–8. The checkpoints and one word in context (ui/gpt_memory_sections.py)
gpt_memory_sections.show(page, country, chosen.template, tuple(words), answer)

st.page_link("pages/8_gpt_surgery.py", label=t("gpt.link_surgery"), icon=":material/arrow_forward:",
             query_params=shell.link_params(page))
widgets.show_code(page, ask.next_token, trace.run, trace.readout, attribution.attribute, neurons.top_neurons, split.split,
                  *gpt_memory_sections.CODE)
