"""The position-wise page: exact checks, the two influence maps, controls and crafted links, in both languages."""
import pytest

from ffn_core import position
from tests.conftest import chart_rows, chart_specs, metric_values, open_page, open_titled
from ui.base import i18n

PAGE = "pages/2_position_wise.py"


def _maps(at) -> dict[str, dict[tuple[int, int], float]]:
    """Both heatmaps' data, keyed by model, as {(i, j): influence}."""
    maps = {}
    for spec in chart_specs(at)[:2]:  # the FFN's and attention's maps; the block's section follows
        rows = chart_rows(spec)
        [model] = {row["model"] for row in rows}
        maps[model] = {(row["i"], row["j"]): row["influence"] for row in rows}
    return maps


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_defaults_measure_a_diagonal_ffn_and_a_dense_attention(lang):
    at, t = open_titled(PAGE, lang, "position.title")
    ref = position.measure(8, 64, 256, "relu", 1, False, "random", 0)
    metrics = metric_values(at)
    assert metrics[t("position.metric_ffn_off")] == "0%"  # exactly none: no "<0.1%"
    assert metrics[t("position.metric_attention_off")] == f"{ref.attention_off_diagonal_fraction:.1%}"
    assert float(metrics[t("position.metric_rowwise")]) <= 1e-12
    assert float(metrics[t("position.metric_perm")]) <= 1e-12
    maps = _maps(at)
    assert set(maps) == {"ffn", "attention"}
    assert len(maps["ffn"]) == len(maps["attention"]) == 64
    assert all((v == 0) == (i != j) for (i, j), v in maps["ffn"].items())
    assert all(v > 0 for v in maps["attention"].values())
    assert maps["attention"][(2, 5)] == ref.attention_influence[2][5]
    claims = [s.value for s in at.success]
    # The FFN's three checks, the block's mixing, nn.Sequential's equality.
    assert len(claims) == 5 and all(c.endswith("✓") for c in claims)
    assert not at.error
    assert "84" in at.info[0].value  # the takeaway quotes attention's measured share (84.4% at seed 0)


def test_titles_differ_between_languages():
    assert open_page(PAGE, "en").title[0].value != open_page(PAGE, "ko").title[0].value


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_moving_the_controls(lang):
    at = open_page(PAGE, lang)
    at.slider(key="n").set_value(5).run()
    maps = _maps(at)
    assert len(maps["ffn"]) == len(maps["attention"]) == 25

    at.toggle(key="causal").set_value(True).run()
    assert not at.exception
    maps = _maps(at)
    assert all(v == 0 for (i, j), v in maps["attention"].items() if j > i)
    assert all(v > 0 for (i, j), v in maps["attention"].items() if j <= i)
    t = i18n.Translator(lang)
    assert t("position.takeaway_causal").split("{")[0] in at.info[0].value

    at.selectbox(key="perm").set_value("reverse").run()
    perm_table = at.dataframe[1].value
    assert list(perm_table[t("position.col_token")]) == [4, 3, 2, 1, 0]

    at.select_slider(key="d").set_value(16)
    at.selectbox(key="heads").set_value(2)
    at.selectbox(key="act").set_value("gelu")
    at.number_input(key="seed").set_value(3)
    at.run()
    assert not at.exception
    ref = position.measure(5, 16, 64, "gelu", 2, True, "reverse", 3)
    assert _maps(at)["attention"][(4, 1)] == ref.attention_influence[4][1]
    metrics = metric_values(at)
    assert metrics[t("position.metric_attention_off")] == f"{ref.attention_off_diagonal_fraction:.1%}"
    assert all(s.value.endswith("✓") for s in at.success)


def test_a_link_reproduces_the_view():
    at = open_page(PAGE, "ko", n="6", d="32", heads="4", causal="true", seed="7")
    assert not at.exception
    assert (at.slider(key="n").value, at.select_slider(key="d").value) == (6, 32)
    assert (at.selectbox(key="heads").value, at.toggle(key="causal").value, at.number_input(key="seed").value) == (
        4, True, 7)
    ref = position.measure(6, 32, 128, "relu", 4, True, "random", 7)
    assert _maps(at)["attention"][(5, 0)] == ref.attention_influence[5][0]


def test_too_many_numbers_stop_with_a_warning():
    at = open_page(PAGE, "en", n="32", d="64")
    assert not at.exception
    assert at.warning and "1,024" in at.warning[0].value
    assert not chart_specs(at)


def _colour_scales(node):
    if isinstance(node, dict):
        if isinstance(node.get("color"), dict) and "field" in node["color"]:
            yield node["color"]
        for value in node.values():
            yield from _colour_scales(value)
    elif isinstance(node, list):
        for value in node:
            yield from _colour_scales(value)


def test_heatmaps_use_no_identity_colour_scale():
    # A nominal colour with scale: null renders as an empty, zero-height chart in Streamlit 1.67's
    # frontend (seen in Chromium; AppTest cannot see it), so the cell ink needs an explicit scale.
    at = open_page(PAGE, "en")
    specs = chart_specs(at)
    assert len(specs) == 4
    for spec in specs:
        colours = list(_colour_scales(spec["layer"]))
        assert colours and all(c.get("scale", {}) is not None for c in colours), colours


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_causal_link_says_attention_is_not_equivariant_and_moves_tokens(lang):
    # Seed 0 with n = 4 once drew the identity permutation, and the page called both layers equivariant.
    at = open_page(PAGE, lang, n="4", causal="true")
    assert not at.exception, [e.value for e in at.exception]
    t = i18n.Translator(lang)
    ref = position.measure(4, 64, 256, "relu", 1, True, "random", 0)
    assert ref.permutation != (0, 1, 2, 3)
    takeaway = at.info[0].value
    assert t("position.takeaway_causal", attention_perm=ref.attention_permutation_max_abs_diff) in takeaway
    assert t("position.takeaway_equivariant", attention_perm=0.0, moved=4, n=4)[:20] not in takeaway
    perm_claim = at.success[1].value
    assert t("position.claim_perm", moved=ref.moved, n=4, diff=ref.permutation_max_abs_diff) in perm_claim


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_block_mixes_and_sequential_matches(lang):
    at = open_page(PAGE, lang, n="4", d="16")
    assert not at.exception, [e.value for e in at.exception]
    t = i18n.Translator(lang)
    blk = position.block_influence(4, 16, 64, "relu", 1, False, 0)
    assert blk.block_off_diagonal_fraction > 0.05 and blk.ffn_off_diagonal_fraction == 0
    texts = [s.value for s in at.success]
    assert any(t("position.claim_block", block=blk.block_off_diagonal_fraction, ffn=0.0) in x for x in texts)
    seq = position.sequential_check(2, 8, 16, 64, 0, "relu")
    assert seq.max_abs_diff <= 1e-12
    assert any(t("position.claim_sequential", x=[2, 8, 16], h=[2, 8, 64], y=[2, 8, 16], diff=seq.max_abs_diff) in x
               for x in texts)
    block_specs = chart_specs(at)[2:]
    rows = [row for spec in block_specs for row in chart_rows(spec)]
    assert {row["model"] for row in rows} == {"ffn", "block"}
