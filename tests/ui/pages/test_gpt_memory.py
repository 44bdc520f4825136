"""Page 8's checkpoint and word-in-context sections, in both languages, at the defaults and with the
controls moved: each number on screen read back against the core run on its own."""
import pytest

from ffn_core.gpt import ask, context, corpus, progress, weights
from tests.conftest import chart_rows, chart_specs, metric_values, open_page
from ui.base import i18n
from ui.base.text import pct

PAGE = "pages/8_trained_gpt.py"
# The two controls' declared defaults (ui/registry/catalog.py): a step mid-training, a second country.
DEFAULT_STEP = 300
DEFAULT_OTHER = "Germany"


def _chart_with(at, field):
    return next(chart_rows(s) for s in chart_specs(at) if any(field in r for r in chart_rows(s)))


def _prompt(country="France", relation="capital", lang="en", form=0):
    return [p for p in corpus.prompts("all")
            if p.fact.country == country and p.fact.relation == relation and p.lang == lang][form]


def _check_step(at, t, step, p):
    model = weights.load(step)
    nxt = ask.next_token(model, p.words, p.answer)
    acc = ask.accuracy(model)
    metrics = metric_values(at)
    assert metrics[t("gptmemory.metric_top", step=step)] == nxt.tokens[0]
    assert metrics[t("gptmemory.metric_prob")] == pct(nxt.probs[0])
    assert metrics[t("gptmemory.metric_seen")] == pct(acc.seen)
    assert metrics[t("gptmemory.metric_heldout")] == pct(acc.heldout)
    headers = [h.value for h in at.header]
    for key in ("step_heading", "curve_heading", "context_heading", "roles_heading"):
        assert t(f"gptmemory.{key}") in headers


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_sections_at_the_defaults(lang):
    at = open_page(PAGE, lang)
    assert not at.exception, [e.value for e in at.exception]
    t = i18n.Translator(lang)
    p = next(q for q in corpus.prompts("all") if " ".join(q.words) == at.radio(key="form").value)
    assert at.select_slider(key="checkpoint").value == DEFAULT_STEP
    _check_step(at, t, DEFAULT_STEP, p)
    # The curve is the training log's, every logged step, three measures.
    curve = progress.curve(weights.log(), weights.steps())
    rows = _chart_with(at, "measure")
    assert sorted((r["step"], r["measure"], r["value"]) for r in rows) == sorted(
        (int(s), m, v) for s, m, v in curve.to_frame()[["step", "measure", "value"]].itertuples(index=False))
    # The heatmap holds France's sentences' cosines as context.compare gives them.
    sim = context.compare(weights.load(), context.word_contexts("France"))
    cells = _chart_with(at, "pair_label")
    stage = len(sim.stages) - 1
    want = {round(sim.cosine[stage][i][j], 9) for i in range(len(sim.labels)) for j in range(i + 1, len(sim.labels))
            if sim.labels[i].split(".")[1] == sim.labels[j].split(".")[1]
            or sim.labels[i].split(".")[0] == sim.labels[j].split(".")[0]}
    got = {round(r["cosine"], 9) for r in cells if r["stage"] == sim.stages[stage]}
    assert got == want
    # Korean page: the Korean sentences' pairs come first.
    first = cells[0]["pair_label"]
    assert (t("gpt.lang_ko") in first.split(" ~ ")[0]) == (lang == "ko")
    # The roles chart: France and the default second country in the chosen form.
    roles = context.compare(weights.load(), context.role_contexts(p.template, ("France", DEFAULT_OTHER)))
    line_charts = [chart_rows(c) for c in chart_specs(at) if any("line" in r for r in chart_rows(c))]
    lines = next(rows for rows in line_charts if any(r["line"] == t("gptmemory.line_last") for r in rows))
    last = [r["cosine"] for r in lines if r["line"] == t("gptmemory.line_last")]
    assert last == pytest.approx(list(roles.pair(2, 3)), abs=1e-12)
    # One word, two meanings: the page language's sentence, its cosines and its logit lens as the core gives them.
    two = context.two_meanings(weights.load(), lang)
    word = two.words[two.country]
    assert t("gptmemory.two_heading") in [h.value for h in at.subheader]
    rows = next(rows for rows in line_charts if any(r["line"] == t("gptmemory.line_two", word=word) for r in rows))
    assert [r["cosine"] for r in rows if r["line"] == t("gptmemory.line_two", word=word)] == pytest.approx(
        list(two.cosine), abs=1e-12)
    lens = next(d.value for d in at.dataframe if t("gptmemory.col_lens_city", word=word) in d.value.columns)
    assert list(lens[t("gptmemory.col_lens_city", word=word)]) == list(two.lens_city)
    assert list(lens[t("gptmemory.col_lens_country", word=word)]) == list(two.lens_country)
    assert len(at.success) + len(at.error) >= 13
    assert sum(1 for i in at.info if i.value.startswith(f"**{t('common.takeaway')}**")) == 10


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_moving_the_step_and_the_second_country(lang):
    at = open_page(PAGE, lang)
    t = i18n.Translator(lang)
    at.selectbox(key="country").set_value("Japan").run()
    at.select_slider(key="checkpoint").set_value(900).run()
    at.selectbox(key="other").set_value("China").run()
    assert not at.exception, [e.value for e in at.exception]
    p = next(q for q in corpus.prompts("all") if " ".join(q.words) == at.radio(key="form").value)
    assert p.fact.country == "Japan"
    _check_step(at, t, 900, p)
    roles = context.compare(weights.load(), context.role_contexts(p.template, ("Japan", "China")))
    own = [r["cosine"] for c in chart_specs(at) for r in chart_rows(c) if r.get("line") == t("gptmemory.line_own")]
    assert own == pytest.approx(list(roles.pair(0, 1)), abs=1e-12)
    at.select_slider(key="checkpoint").set_value(0).run()
    assert not at.exception
    _check_step(at, t, 0, p)


def test_a_link_opens_its_checkpoint_and_second_country():
    at = open_page(PAGE, "ko", checkpoint="500", other="Japan")
    assert not at.exception, [e.value for e in at.exception]
    assert at.select_slider(key="checkpoint").value == 500
    assert at.selectbox(key="other").value == "Japan"
    p = next(q for q in corpus.prompts("all") if " ".join(q.words) == at.radio(key="form").value)
    _check_step(at, i18n.Translator("ko"), 500, p)


@pytest.mark.parametrize("raw", ["7", "abc", "1e9", "-50"])
def test_a_crafted_step_opens_the_default(raw):
    at = open_page(PAGE, "en", checkpoint=raw)
    assert not at.exception, [e.value for e in at.exception]
    assert at.select_slider(key="checkpoint").value == DEFAULT_STEP
