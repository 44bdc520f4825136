"""The parameter-split page in both languages: controls move the counts, links reproduce them, bad links do no harm."""
from __future__ import annotations

import pytest

from ffn_core import model_counts, params, presets
from ui.base import i18n
from tests.conftest import chart_specs, open_page
from ui.verdicts import split as verdicts

PAGE = "pages/1_parameter_split.py"


def _metrics(at) -> list[str]:
    # In page order: attention, FFN, share; then the preset's block share, model share, total, published.
    return [m.value for m in at.metric]


def _dataset(at, column: str) -> list[dict]:
    for spec in chart_specs(at):
        for rows in spec["datasets"].values():
            if rows and column in rows[0]:
                return rows
    raise AssertionError(f"no chart data with a {column!r} column")


def _block_rows(at) -> list[list[dict]]:
    return [rows for spec in chart_specs(at) for rows in spec["datasets"].values() if rows and "matrix" in rows[0]]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_defaults_show_the_seed_figures(lang):
    at = open_page(PAGE, lang)
    assert not at.exception
    metrics = _metrics(at)
    assert metrics[:3] == ["1,048,576", "2,097,152", "66.67%"]
    assert metrics[3] == "66.66%" and metrics[6] == "124M"  # GPT-2 small, biases included
    # formula = modules and 2/3 for this block: ✓; past 80% and its two causes for each model: stated facts
    assert len(at.success) == 2 and not at.error
    facts = [i.value for i in at.info if i.value.startswith(f"**{i18n.Translator(lang)('common.fact')}**")]
    assert len(facts) == 3
    t = i18n.Translator(lang)
    assert t("split.claim_two_thirds", ffn=2_097_152, block=3_145_728, share=2 / 3) in at.success[1].value
    assert "66.67%" in at.success[1].value
    block = _block_rows(at)[0]
    assert [r["matrix"] for r in block] == ["w_q", "w_k", "w_v", "w_o", "w_1", "w_2"]
    assert sum(r["params"] for r in block) == 3_145_728
    shares = {r["name"]: r["ffn_share"] for r in _dataset(at, "ffn_share")}
    assert len(shares) == 10 and shares["LLaMA-2 70B"] > 0.8 and shares["Mistral 7B"] > 0.8
    assert {"x": 2 / 3, "label": "2/3"} in _dataset(at, "label")  # the reference line
    table = at.dataframe[1].value
    assert list(table[t("split.col_name")]) == ["GPT-2 small", "GPT-2 medium", "GPT-2 large", "GPT-2 XL", "BERT-base",
                                                "BERT-large", "LLaMA-2 7B", "LLaMA-2 13B", "LLaMA-2 70B", "Mistral 7B"]
    assert "id" not in table.columns
    formulas = at.dataframe[0].value
    assert list(formulas.iloc[:, 1]) == list(formulas.iloc[:, 3]) == [1_048_576, 2_097_152]


def test_titles_differ_between_languages():
    assert open_page(PAGE, "en").title[0].value != open_page(PAGE, "ko").title[0].value


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_controls_move_the_counts(lang):
    at = open_page(PAGE, lang)
    at.slider(key="d").set_value(768).run()
    at.select_slider(key="expansion").set_value("8/3").run()
    at.toggle(key="glu").set_value(True).run()
    assert not at.exception
    # d_ff = 8/3 · 768 = 2048 exactly, so SwiGLU keeps 8d² = 4,718,592.
    assert _metrics(at)[:3] == ["2,359,296", "4,718,592", "66.67%"]
    at.selectbox(key="kv_heads").select(2).run()
    # W_q, W_o: 768·768 each; W_k, W_v: 768·(2·96) each.
    assert _metrics(at)[:2] == ["1,474,560", "4,718,592"]
    assert "4" in at.info[0].value  # the takeaway names the group of 4 query heads per KV head
    at.toggle(key="bias").set_value(True).run()
    attention = 1_474_560 + 768 + 2 * 192 + 768
    ffn = 4_718_592 + 2 * 2048 + 768
    assert _metrics(at)[:2] == [f"{attention:,}", f"{ffn:,}"]
    assert sum(r["params"] for r in _block_rows(at)[0]) == attention + ffn
    assert at.success[0].value.count("✓") == 1
    at.selectbox(key="model").select("llama2-70b").run()
    metrics = _metrics(at)
    assert metrics[3] == "82.35%" and metrics[5] == "68.98B" and metrics[6] == "70B"
    chosen = {r["name"] for r in _dataset(at, "alpha") if r["alpha"] == 1.0}
    assert chosen == {"LLaMA-2 70B"}


def test_attention_can_outweigh_the_ffn():
    at = open_page(PAGE, "en", expansion="1")
    assert _metrics(at)[:3] == ["1,048,576", "524,288", "33.33%"]
    assert "attention holds more" in at.info[0].value


def test_a_link_reproduces_the_view():
    at = open_page(PAGE, "en", d="4096", expansion="8/3", heads="32", kv_heads="8", glu="true",
                   model="Mistral 7B")
    assert not at.exception
    assert at.slider(key="d").value == 4096 and at.toggle(key="glu").value is True
    # d_ff = round(10922.67) = 10923; attention 2·4096² + 2·4096·1024.
    assert _metrics(at)[:2] == ["41,943,040", f"{3 * 4096 * 10923:,}"]
    assert _metrics(at)[3] == "80.77%" and _metrics(at)[6] == "7.3B"


BAD = [
    ("d", "abc"), ("d", "99999"), ("d", "-64"), ("d", "<script>alert(1)</script>"), ("d", "512.5"),
    ("expansion", "5/0"), ("expansion", "9"), ("expansion", "<img src=x>"),
    ("heads", "3"), ("heads", "x"), ("kv_heads", "16"), ("kv_heads", "-1"),
    ("bias", "maybe"), ("glu", "2"), ("model", "gpt5"), ("model", "<b>LLaMA</b>"),
]


@pytest.mark.parametrize("key, value", BAD)
def test_bad_link_values_fall_back(key, value):
    at = open_page(PAGE, "en", **{key: value})
    assert not at.exception
    assert len(at.metric) == 7  # the page ran to the end on defaults


def test_width_off_the_slider_steps_opens_the_default_width():
    at = open_page(PAGE, "ko", d="100", heads="8")
    assert not at.exception
    assert at.slider(key="d").value == 512 and "d" not in at.query_params
    assert not at.warning and _metrics(at)[:3] == ["1,048,576", "2,097,152", "66.67%"]


def test_all_garbage_at_once_in_korean():
    at = open_page(PAGE, "ko", d="<script>", expansion="", heads="[]", kv_heads="{}", bias="'", glu="%00",
                   model="../../etc/passwd")
    assert not at.exception
    assert _metrics(at)[:3] == ["1,048,576", "2,097,152", "66.67%"]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_gqa_at_eight_thirds_is_not_past_eighty_and_the_causes_are_split(lang):
    # LLaMA-2 70B's attention (64 query heads, 8 key/value heads) with a gated FFN at 8/3·d: 78.05%.
    at = open_page(PAGE, lang, d="8192", expansion="8/3", heads="64", kv_heads="8", glu="true")
    assert not at.exception
    assert _metrics(at)[2] == "78.05%"
    t = i18n.Translator(lang)
    two_thirds = [e.value for e in at.error if t("split.claim_two_thirds", ffn=0, block=0, share=0.0)[:10] in e.value]
    assert len(two_thirds) == 1  # computed for this block, not the lesson's: a ✗ at 78.05%
    texts = [e.value for e in at.info]
    # By hand: attention 2d² + 2d·(d/g), FFN 3·d·d_ff in units of d².
    for preset, group, gqa, both in (("llama2-70b", 8, 8 / (8 + 2.25), 10.5 / 12.75),
                                     ("mistral-7b", 4, 8 / (8 + 2.5), 10.5 / 13)):
        c = model_counts.causes(preset)
        assert c.group == group and c.expansion == 3.5 and c.share == pytest.approx(both)
        assert c.gqa_share == pytest.approx(gqa, abs=1e-4) and c.wide_share == pytest.approx(10.5 / 14.5)
        line = t("split.claim_causes", model=c.name, group=group, gqa=c.gqa_share, expansion=3.5,
                 wide=c.wide_share, both=c.share)
        assert any(line in x for x in texts), (preset, texts)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_expansion_three_and_a_half_is_offered(lang):
    at = open_page(PAGE, lang, d="4096", expansion="3.5", heads="32", kv_heads="8", glu="true")
    assert not at.exception
    assert at.select_slider(key="expansion").value == "3.5"
    assert _metrics(at)[2] == "80.77%"  # Mistral 7B's block
    t = i18n.Translator(lang)
    s = params.split(4096, "3.5", 32, 8, False, True)
    v = verdicts.judge_block(s, "3.5", params.split(4096, "3.5", 32, 32, False, True).attention_params)
    # both causes measured alone, grouped-query attention (+9.5 points) named before the wider FFN (+5.8)
    assert v.takeaway.split()[1:] == ["split.causes_lead", "split.cause_gqa", "split.cause_expansion"]
    for key in v.takeaway.split()[1:]:
        assert t(key, **v.takeaway_values) in at.info[0].value


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_model_caption_cites_its_sources_as_links(lang):
    at = open_page(PAGE, lang)
    at.selectbox(key="model").select("mistral-7b").run()
    assert not at.exception
    p = presets.get("mistral-7b")
    caption = " ".join(c.value for c in at.caption)
    assert f"[{p.config.name}]({p.config.url})" in caption
    assert f"[{p.published.name}]({p.published.url})" in caption
    sentence = i18n.Translator(lang)("split.model_caption", source="", total_source="", gap="")
    assert sentence[:5] in caption  # the sentence around them is in the page's language


@pytest.mark.usefixtures("fresh_caches")  # the page's cached catalogue of models must be built again with the new row
def test_a_new_preset_is_one_row(monkeypatch):
    # Adding a model to the page is adding a Preset row: no locale key, no table elsewhere.
    row = presets.Preset("tiny-test", "Tiny test model", 256, 1024, 4, 4, 4, 1000, 128, 0, True, True, False,
                         "layernorm", False, 3_000_000, "3M", presets.Source("a test config", "https://example.org/c"),
                         presets.Source("a test paper", "https://example.org/p"))
    monkeypatch.setattr(presets, "PRESETS", presets.PRESETS + (row,))
    monkeypatch.setattr(presets, "IDS", presets.IDS + (row.id,))
    for lang in ("en", "ko"):
        at = open_page(PAGE, lang)
        at.selectbox(key="model").select("tiny-test").run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.selectbox(key="model").value == "tiny-test"
        assert "[a test config](https://example.org/c)" in " ".join(c.value for c in at.caption)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_gated_width_cites_shazeer(lang):
    at = open_page(PAGE, lang)
    assert any("Shazeer" in m.value and "2020" in m.value and "8/3" in m.value for m in at.markdown)
