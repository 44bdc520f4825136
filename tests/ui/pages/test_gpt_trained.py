"""The trained-GPT page: the model's answer, accuracy, attribution and neurons read back, in both languages."""
import pytest

from ffn_core.gpt import ask, attribution, corpus, weights
from tests.conftest import chart_rows, chart_specs, metric_values, open_page, open_titled
from ui.base import i18n
from ui.base.text import pct

PAGE = "pages/8_trained_gpt.py"


@pytest.fixture(scope="module")
def model():
    return weights.load()


def _prompt(country="France", relation="capital", lang="en", form=0):
    own = [p for p in corpus.prompts("all") if p.fact.country == country and p.fact.relation == relation and p.lang == lang]
    return own[form]


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_page_shows_the_models_answer_and_where_it_comes_from(lang, model):
    at, t = open_titled(PAGE, lang, "gpt.title")
    p = _prompt(lang=lang)  # the page asks in its own language first
    nxt = ask.next_token(model, p.words, p.answer)
    acc = ask.accuracy(model)
    metrics = metric_values(at)
    assert metrics[t("gpt.metric_top")] == nxt.tokens[0]
    assert metrics[t("gpt.metric_answer_rank")] == str(nxt.answer_rank)
    assert metrics[t("gpt.metric_seen")] == pct(acc.seen)
    assert metrics[t("gpt.metric_heldout")] == pct(acc.heldout)
    assert float(metrics[t("gpt.metric_residual")]) <= 1e-9
    attr = attribution.attribute(model, p.words, p.answer)
    assert metrics[t("gpt.metric_logit", answer=p.answer)] == f"{attr.logit:.3f}"
    specs = chart_specs(at)
    top_rows = [r for r in chart_rows(specs[0]) if "prob" in r]
    assert [r["token"] for r in top_rows] == list(nxt.tokens)
    # The attribution chart's bars are the parts: embedding, attention and FFN per block, the norm's shift.
    contributions = [r["contribution"] for r in chart_rows(specs[2]) if "contribution" in r]
    assert len(contributions) == 2 * len(model.blocks) + 2
    assert sum(contributions) == pytest.approx(attr.logit, abs=1e-9)
    assert len(at.success) + len(at.error) >= 6  # every section's measured claims
    # Four takeaways of its own, four of the checkpoint and word-in-context sections (ui/gpt/sections.py).
    assert sum(1 for i in at.info if i.value.startswith(f"**{t('common.takeaway')}**")) == 10
    # The strongest neuron read over the corpus: its firing share and the answer's rank, as the core gives them.
    assert t("gpt.poly_heading") in [h.value for h in at.subheader]


def test_moving_controls_asks_another_fact(model):
    at = open_page(PAGE, "en")
    at.selectbox(key="country").set_value("Japan").run()
    at.selectbox(key="relation").set_value("currency").run()
    at.radio(key="plang").set_value("ko").run()
    assert not at.exception, [e.value for e in at.exception]
    p = _prompt("Japan", "currency", "ko", 0)
    nxt = ask.next_token(model, p.words, p.answer)
    metrics = metric_values(at)
    assert metrics["Predicted next token"] == nxt.tokens[0]
    assert metrics["Rank of the true answer"] == str(nxt.answer_rank)
    assert any(" · ".join(p.words) in c.value for c in at.caption)


def test_a_typed_prompt_is_tokenised_and_an_unknown_word_gets_a_note(model):
    at = open_page(PAGE, "ko", prompt="일본의 수도는")
    assert not at.exception, [e.value for e in at.exception]
    words = tuple(corpus.tokenize("일본의 수도는"))
    assert words == ("일본", "의", "수도", "는")
    assert metric_values(at)["예측한 다음 토큰"] == ask.next_token(model, words).tokens[0]
    at = open_page(PAGE, "en", prompt="The capital of Atlantis is")
    assert not at.exception, [e.value for e in at.exception]
    assert any("Atlantis" in i.value for i in at.info)
    # The chosen sentence is answered instead.
    p = _prompt()
    assert metric_values(at)["Predicted next token"] == ask.next_token(model, p.words).tokens[0]


@pytest.mark.parametrize("query", [
    {"country": "<script>alert(1)</script>", "relation": "gravity", "plang": "fr", "form": "9"},
    {"country": "프랑스", "relation": "수도", "plang": "한국어", "form": "-1"},
    {"prompt": "is " * 200},
    {"prompt": "???"},
])
def test_crafted_links_fall_back_without_an_error(query):
    at = open_page(PAGE, "en", **query)
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == i18n.Translator("en")("gpt.title")
    assert metric_values(at)
