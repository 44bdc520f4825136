"""Every page of the app: its file, its menu icon, and the controls its link carries.

A page's link is its declared controls, nothing else: the widgets are drawn from these declarations
(`controls.draw(page, key, column)`, ui/kit/controls.py), a link is cleaned against them, the class room
builds its join link and QR code from them. To add a page, add its row to PAGES and its controls to
CONTROLS (tests/ui/test_controls.py checks that pages/*.py, PAGES and CONTROLS agree).

Labels and helps are locale keys. Options that follow another control are functions of the values
declared before them; the GPT pages' options are all functions, so importing this module reads no
weights and builds no corpus.
"""
from __future__ import annotations

import functools
from typing import NamedTuple

from ffn_core import collapse, ffn, gated, memory_training, params, position, presets
from ffn_core.gpt import ablation, corpus, edit, moe_train, weights
from ffn_core.sweep import expr, net1d, sweep, targets
import streamlit as st

from ui.base import i18n, room_code
from ui.base.i18n import Translator
from ui.registry import query
from ui.registry.kinds import Choice, Code, Control, Lang, Number, Several, Text, Toggle, Values


class Entry(NamedTuple):
    section: str
    path: str
    icon: str


PAGES: tuple[Entry, ...] = (
    Entry("home", "dashboard.py", ":material/home:"),
    Entry("split", "pages/1_parameter_split.py", ":material/balance:"),
    Entry("position", "pages/2_position_wise.py", ":material/swap_horiz:"),
    Entry("collapse", "pages/3_linear_collapse.py", ":material/compress:"),
    # The gate right after the collapse it answers: a product of two linear maps does not collapse.
    Entry("gated", "pages/4_gated_ffn.py", ":material/call_merge:"),
    Entry("sweep", "pages/5_width_sweep.py", ":material/show_chart:"),
    Entry("keyvalue", "pages/6_key_value.py", ":material/key:"),
    Entry("sparsity", "pages/7_activation_sparsity.py", ":material/bolt:"),
    Entry("gpt", "pages/8_trained_gpt.py", ":material/psychology:"),
    Entry("gptsurgery", "pages/9_gpt_surgery.py", ":material/healing:"),
    # After the GPT pages: its trained router is read on their corpus, with their fact accuracy and ablations.
    Entry("moe", "pages/10_mixture_of_experts.py", ":material/hub:"),
    Entry("glossary", "pages/11_glossary.py", ":material/menu_book:"),
)


def page_path(section: str) -> str | None:
    """The file of page `section` (`pages/5_width_sweep.py`); None for a section this app does not have."""
    return next((e.path for e in PAGES if e.section == section), None)


# The experiments: every page but home and the glossary (the home page's cards and its count).
DEMOS: tuple[Entry, ...] = tuple(e for e in PAGES if e.section not in ("home", "glossary"))

LANG_NAMES = {"ko": "한국어", "en": "English"}

# The app-wide choices: kept in the session across pages and carried by every menu link.
APP: tuple[Control, ...] = (
    Lang("lang", i18n.LANGS, i18n.DEFAULT_LANG, option_label=lambda tr, lang: LANG_NAMES[lang], label="common.language"),
    Toggle("present", False, spelling=("0", "1"), label="common.presenter_mode", help="common.presenter_help"),
    Toggle("code", True, spelling=("0", "1"), label="common.show_details", help="common.show_details_help"),
    Toggle("ask", False, spelling=("0", "1"), label="common.ask_first", help="common.ask_first_help"),
    Code("room", "", most=room_code.CODE_LENGTH, pattern=room_code.CODE_PATTERN),
)


# --- 1. parameter split ---
HEADS = (1, 2, 4, 8, 16, 32, 64)

SPLIT = (
    Number("d", 64, params.MAX_D_MODEL, 512, step=64, label="split.d", help="split.d_help"),
    Choice("expansion", params.EXPANSIONS, "4", widget="slider", label="split.expansion", help="split.expansion_help"),
    Toggle("bias", False, label="split.bias"),
    Toggle("glu", False, label="split.glu", help="split.glu_help"),
    Choice("heads", HEADS, 8, label="split.heads"),
    # Only divisors of h, so no bad pair can be chosen; all heads their own keys by default.
    Choice("kv_heads", lambda v: [k for k in HEADS if v["heads"] % k == 0], lambda v: v["heads"],
           label="split.kv_heads", help="split.kv_help"),
    # Read from ffn_core.presets when drawn, not copied at import: a model is one row there.
    Choice("model", lambda v: presets.IDS, option_label=lambda tr, i: presets.get(i).name, label="split.model_pick"),
)

# --- 2. position-wise ---
POSITION = (
    Number("n", 2, position.MAX_TOKENS, 8, label="position.n_tokens", help="position.n_tokens_help"),
    Choice("d", (8, 16, 32, 64, 128), 64, widget="slider", label="position.d", help="position.d_help"),
    Choice("act", ffn.ACTIVATIONS, "relu", option_label="position.act_", label="position.act"),
    Choice("heads", (1, 2, 4, 8), 1, label="position.heads", help="position.heads_help"),
    Choice("perm", position.PERMUTATIONS, option_label="position.perm_", label="position.perm", help="position.perm_help"),
    Number("seed", 0, 9999, 0, widget="box", label="position.seed", help="position.seed_help"),
    Toggle("causal", False, label="position.causal", help="position.causal_help"),
)

# --- 3. linear collapse ---
NARROW = (0, 1, 2, 4, 8, 16, 32)  # 0: every hidden layer d wide

COLLAPSE = (
    Number("d", 8, 128, 64, step=8, label="collapse.d", help="collapse.d_help"),
    Choice("m", (4, 8, 16, 32, 64, 128, 256, 512, 1024), 256, widget="slider", label="collapse.m", help="collapse.m_help"),
    Choice("act", ffn.ACTIVATIONS, option_label="collapse.act_", label="collapse.act"),
    Toggle("bias", False, label="collapse.bias", help="collapse.bias_help"),
    Number("seed", 0, 9999, 0, widget="box", label="collapse.seed", help="collapse.seed_help"),
    Number("layers", 2, collapse.MAX_LAYERS, 4, label="collapse.layers", help="collapse.layers_help"),
    Choice("narrow", NARROW, 0, option_label=lambda tr, k: tr("collapse.narrow_none") if k == 0 else str(k),
           label="collapse.narrow", help="collapse.narrow_help"),
)

# --- 4. width sweep ---
SWEEP = (
    # Math names as labels keep a link valid in either language.
    Choice("target", (*targets.BUILTIN, "custom"),
           option_label=lambda tr, k: targets.label(k) if k in targets.BUILTIN else tr("sweep.target_custom"),
           label="sweep.target"),
    Text("expr", "sin(x**2)", most=expr.MAX_LENGTH, label="sweep.expr", help="sweep.expr_help"),
    Several("widths", (1, 2, 4, 8, 16, 32, 64, 128, 256), sweep.WIDTHS, most=sweep.MAX_WIDTHS,
            label="sweep.widths", help="sweep.widths_help"),
    Choice("act", net1d.ACTS, option_label="sweep.act_", label="sweep.act"),
    Choice("method", ("pieces", "naive", "both"), option_label="sweep.method_", widget="radio",
           label="sweep.method", help="sweep.method_help"),
    Number("seed", 0, 9999, 0, widget="box", label="sweep.seed", help="sweep.seed_help"),
    Toggle("expansion", False, label="sweep.params_heading"),
)

# --- 5. key-value ---
KEYVALUE = (
    Number("d", 16, 128, 64, step=16, label="keyvalue.d"),
    Choice("m", (32, 64, 128, 256, 512), 256, widget="slider", label="keyvalue.m"),
    Choice("n", (16, 32, 64, 128, 256), 128, widget="slider", label="keyvalue.n", help="keyvalue.n_help"),
    Number("token", 0, 255, 0, widget="box", label="keyvalue.token", help="keyvalue.token_help"),
    Choice("steps", (0, 50, 100, 200, 400), memory_training.DEFAULT_STEPS, widget="slider", label="keyvalue.steps"),
    Number("top", 5, 50, 20, label="keyvalue.top_k"),
    Number("seed", 0, 9999, 0, widget="box", label="keyvalue.seed"),
)

# --- 6. activation sparsity ---
SPARSITY = (
    Choice("act", ffn.NONLINEAR, option_label="sparsity.act_", label="sparsity.act", help="sparsity.act_help"),
    Choice("init", ffn.INITS, option_label="sparsity.init_", label="sparsity.init", help="sparsity.init_help"),
    Toggle("bias", True, label="sparsity.bias", help="sparsity.bias_help"),
    Number("seed", 0, 9999, 0, widget="box", label="sparsity.seed", help="sparsity.seed_help"),
    Number("d", 16, 128, 64, step=16, label="sparsity.d"),
    Choice("m", (32, 64, 128, 256, 512), 256, widget="slider", label="sparsity.m"),
    Choice("task", memory_training.TASKS, option_label="sparsity.task_", widget="radio", label="sparsity.task",
           help="sparsity.task_help"),
    Choice("steps", (0, 50, 100, 200, 400, 600, 1000), memory_training.DEFAULT_STEPS, widget="slider", label="sparsity.steps"),
)


# --- 7. a small GPT trained here ---
def page_lang(v: Values) -> str:
    """The page's language, read as the shell reads it (the address first, then the session): the GPT
    pages ask in the reader's language first. A link always carries `lang`, so a link that leaves the
    prompt's language out opens in the same language everywhere; one that differs carries it."""
    try:
        raw = query.text("lang")
        if raw in corpus.LANGS:
            return raw
        lang = st.session_state.get("lang")
    except Exception:  # no Streamlit session behind the call (a bare script, a core-side test)
        lang = None
    return lang if lang in corpus.LANGS else i18n.DEFAULT_LANG


@functools.cache
def _country_names() -> tuple[str, ...]:
    return tuple(sorted({f.country for f in corpus.FACTS}))


@functools.cache
def _korean_names() -> dict[str, str]:
    return {f.country: f.country_ko for f in corpus.FACTS}


def country_label(tr: Translator, country: str) -> str:
    # A select of 178 countries labels every option on every rerun: a scan of the fact table for
    # each was most of page 8's controls' cost.
    return _korean_names()[country] if tr.lang == "ko" else country


@functools.cache
def _relations_of(country: object) -> tuple[str, ...]:
    return tuple(r for r in corpus.RELATIONS if any(f.country == country and f.relation == r for f in corpus.FACTS))


@functools.lru_cache(maxsize=1024)  # every (country, relation, language): ~800
def _form_words(country: object, relation: object, lang: object) -> tuple[str, ...]:
    # Read on every rerun of page 8, several times: comparing each corpus prompt's fact cost ~10 ms a run.
    fact = next(f for f in corpus.FACTS if f.country == country and f.relation == relation)
    return tuple(" ".join(p.words) for p in corpus.prompts("all") if p.fact == fact and p.lang == lang)


@functools.lru_cache(maxsize=1024)  # read on every rerun of page 8; a scan of the corpus prompts each time costs ms
def _other_countries(form: object, country: object) -> tuple[str, ...]:
    # The countries with a prompt in the chosen sentence form, the chosen country left out.
    template = next((p.template for p in corpus.prompts("all") if " ".join(p.words) == form), None)
    return tuple(sorted({p.fact.country for p in corpus.prompts("all") if p.template == template} - {country}))


GPT = (
    Choice("country", lambda v: _country_names(), "France", option_label=country_label, label="gpt.country"),
    Choice("relation", lambda v: _relations_of(v["country"]), option_label="gpt.relation_", label="gpt.relation"),
    Choice("plang", corpus.LANGS, page_lang, option_label="gpt.lang_", widget="radio", label="gpt.prompt_lang"),
    # A form is named by its own words, so a link reads as the sentence it asks. The name must change
    # whenever the words do: a radio whose labels change under the same names shows nothing checked.
    Choice("form", lambda v: _form_words(v["country"], v["relation"], v["plang"]),
           option_label=lambda tr, words: f"{words} …", widget="radio", label="gpt.form"),
    Text("prompt", "", most=200, placeholder="gpt.prompt_placeholder", label="gpt.prompt", help="gpt.prompt_help"),
    # The checkpoint and word-in-context sections (ui/gpt/sections.py): a shipped step, mid-training
    # by default, where the facts are still forming; a second country in the chosen sentence form.
    Choice("checkpoint", lambda v: list(weights.steps()), lambda v: 300 if 300 in weights.steps() else weights.steps()[-1],
           widget="slider", label="gptmemory.step", help="gptmemory.step_help"),
    Choice("other", lambda v: _other_countries(v["form"], v["country"]), "Germany", option_label=country_label,
           label="gptmemory.other"),
)


# --- 8. GPT surgery ---
def target_label(tr: Translator, target: str) -> str:
    if target in ("none", "ffn_all"):
        return tr(f"gptsurgery.target_{target}")
    part, layer = target.split("_")
    return tr(f"gptsurgery.target_{part}", layer=layer)


def _new_answers(v: Values) -> list[str]:
    # Another capital, in the language of the prompt; so the options follow the country and the language.
    capitals = [f for f in corpus.FACTS if f.relation == "capital"]
    own = next(f for f in capitals if f.country == v["edit_country"])
    return sorted({f.answer(v["edit_lang"]) for f in capitals} - {own.answer(v["edit_lang"])})


def _ablation_kinds(v: Values) -> tuple[str, ...]:
    # Mean-ablation is the FFNs' (their corpus mean is kept with the corpus pass); attention is only zeroed.
    return ablation.HOWS if str(v["target"]).startswith("ffn") else ("zero",)


GPTSURGERY = (
    Choice("target", lambda v: ablation.targets(weights.config().n_layer), "ffn_all", option_label=target_label,
           label="gptsurgery.target"),
    # Zero by default: the headline figures (README, report) are zero-ablation's.
    Choice("how", _ablation_kinds, "zero", option_label="gptsurgery.how_", widget="radio", label="gptsurgery.how",
           help="gptsurgery.how_help"),
    Choice("edit_country", lambda v: sorted(f.country for f in corpus.FACTS if f.relation == "capital"), "France",
           option_label=country_label, label="gptsurgery.country"),
    Choice("edit_lang", corpus.LANGS, page_lang, option_label="gpt.lang_", widget="radio", label="gptsurgery.edit_lang"),
    # Rome in either language: the report's fixed example edit (ffn_core/gpt/report.py).
    Choice("new", _new_answers, lambda v: "Rome" if v["edit_lang"] == "en" else "로마", label="gptsurgery.new_answer"),
    # Block 1: its FFN carries most of the facts (take it out above), and ROME's update there moves the fewest others.
    Choice("block", lambda v: range(1, weights.config().n_layer + 1), 1, widget="slider", label="gptsurgery.block"),
    Choice("method", edit.METHODS, "covariance", option_label="gptsurgery.method_", widget="radio",
           label="gptsurgery.method"),
    # By hand, as the choices around it are: a bound switch on this page, whose run is long, could
    # lose its address to the choices' writes in the same run.
    Toggle("apply", True, bound=False, label="gptsurgery.apply", help="gptsurgery.apply_help"),
    Choice("step", lambda v: list(weights.steps()), lambda v: weights.steps()[-1], widget="slider",
           label="gptsurgery.step", help="gptsurgery.step_help"),
)

# --- the gated FFN ---
GATED = (
    Choice("d", gated.D_MODELS, 96, widget="slider", label="gated.d", help="gated.d_help"),
    Choice("act", gated.FIT_ACTS, "none", option_label="gated.act_", label="gated.act", help="gated.act_help"),
    Number("token", 0, gated.N_TOKENS - 1, 0, widget="box", label="gated.token", help="gated.token_help"),
    Number("seed", 0, 9999, 0, widget="box", label="gated.seed", help="gated.seed_help"),
    Choice("target", tuple(targets.BUILTIN), targets.DEFAULT, option_label=lambda tr, k: targets.label(k),
           label="gated.target"),
    Choice("wact", net1d.ACTS, "relu", option_label="gated.wact_", label="gated.wact"),
    Choice("most", (1, 2, 4, 8), 4, widget="slider", label="gated.most", help="gated.most_help"),
)


# --- the mixture of experts ---
MOE = (
    Choice("experts", (1, 2, 4, 8, 16), 8, widget="slider", label="moe.experts", help="moe.experts_help"),
    Choice("k", lambda v: [k for k in (1, 2, 4, 8) if k <= v["experts"]], lambda v: min(2, v["experts"]),
           widget="radio", label="moe.k", help="moe.k_help"),
    Choice("d", (16, 32, 64, 128), 64, widget="slider", label="moe.d", help="moe.d_help"),
    Choice("n", (64, 256, 1024), 256, widget="slider", label="moe.n", help="moe.n_help"),
    Number("seed", 0, 9999, 0, widget="box", label="moe.seed", help="moe.seed_help"),
    Choice("block", lambda v: range(1, moe_train.config().n_layer + 1), 1, widget="slider", label="moe.block",
           help="moe.block_help"),
    # Block 1's expert whose removal costs the shipped model most facts (the report's block1_costliest_expert;
    # tests/core/test_gpt_moe.py holds the two equal, so a retrain that moves it moves this default too).
    Choice("expert", lambda v: range(1, moe_train.config().n_experts + 1), 3, widget="radio", label="moe.expert",
           help="moe.expert_help"),
)

CONTROLS: dict[str, tuple[Control, ...]] = {
    "home": (),
    "split": SPLIT,
    "position": POSITION,
    "collapse": COLLAPSE,
    "gated": GATED,
    "sweep": SWEEP,
    "keyvalue": KEYVALUE,
    "sparsity": SPARSITY,
    "gpt": GPT,
    "gptsurgery": GPTSURGERY,
    "moe": MOE,
    "glossary": (),
}
