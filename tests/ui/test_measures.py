"""The pages' measures (ui/registry/measures.py): declared for every demo page, each one the number or word the page
shows (a metric, a table cell, a chart's data, a claim) over the page's control space, the very answer of every
built-in question, and read from the same results the page computes (lessons/measured.py against the pages run)."""
from __future__ import annotations

import importlib
import math
import pkgutil
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ffn_core import memory_training, model_counts
from ffn_core import position as position_core
from ffn_core.gpt import corpus
from lessons import measured
from tests.conftest import open_page
from ui import questions as questions_package
from ui.base import i18n, text
from ui.questions import Asked, Question
from ui.questions import collapse, gated, gpt, gptsurgery, keyvalue, moe, position, sparsity, split, sweep
from ui.registry import catalog, measures, rules
from ui.registry.kinds import Choice, Number, Several, Text, Toggle
from ui.room import plan
from ui.verdicts import Verdict
from ui.verdicts import collapse as collapse_verdicts
from ui.verdicts import gated as gated_verdicts
from ui.verdicts import gpt as gpt_verdicts
from ui.verdicts import gpt_checkpoints as checkpoint_verdicts
from ui.verdicts import keyvalue as keyvalue_verdicts
from ui.verdicts import moe as moe_verdicts
from ui.verdicts import position as position_verdicts
from ui.verdicts import sparsity as sparsity_verdicts

Results = Mapping[str, Any]
Settings = Mapping[str, Any]

# Each part's built-in questions, from the results a part computes (the pages' own calls, pages/*.py).
BUILT_IN: dict[tuple[str, str], Callable[[Results, Settings], tuple[Asked, ...]]] = {
    ("split", "block"): lambda r, c: split.block(r["split"], c["expansion"]),
    ("split", "model"): lambda r, c: (split.model(r["model"]),),
    ("position", "experiment"): lambda r, c: position.ask(r["res"]),
    ("position", "block"): lambda r, c: position.block(r["block"], dict(c)),
    ("collapse", "experiment"): lambda r, c: collapse.ask(r["res"]),
    ("collapse", "stack"): lambda r, c: collapse.stack(r["stack"], c["bias"]),
    ("gated", "experiment"): lambda r, c: gated.ask(r["res"]),
    ("gated", "width"): lambda r, c: gated.width(r["sweep"]),
    ("sweep", "experiment"): lambda r, c: sweep.ask(r["results"], dict(c)),
    ("keyvalue", "experiment"): lambda r, c: keyvalue.ask(r["res"], c["seed"]),
    ("sparsity", "experiment"): lambda r, c: sparsity.at_init(r["start"], c["seed"])
    + sparsity.training(r["start"], r["run"], c["act"], dict(c)),
    ("gpt", "experiment"): lambda r, c: gpt.prompt(r["next"].words, r["next"].answer, r["next"].tokens[0],
                                                   r["attribution"].attn, r["attribution"].ffn) + gpt.heldout(r["accuracy"]),
    ("gpt", "checkpoint"): lambda r, c: gpt.checkpoint(int(c["checkpoint"]), r["snap"].next.words, r["snap"].next.answer,
                                                       r["snap"].next.tokens[0], r["snap"].next.probs[0]),
    ("gptsurgery", "ablation"): lambda r, c: gptsurgery.ablation(c["target"], c["target"], r["base"], r["after"]),
    ("gptsurgery", "edit"): lambda r, c: gptsurgery.edit(r["edit"], "prompt"),
    ("moe", "toy"): lambda r, c: moe.ask(r["res"]),
    ("moe", "trained"): lambda r, c: moe.trained(r["routes"], r["cut"]),
}
# Examples per part: the GPT parts run the shipped model over the corpus, the sweep and sparsity train.
EXAMPLES = {"gpt": 3, "gptsurgery": 3, "sweep": 3, "sparsity": 4, "moe": 4, "keyvalue": 4}


# --- what a page shows ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Written:
    """A number as the page writes it ("66.67%", "1,048,576", "3.3e-16", "0.5092", "—"), in units of `scale`
    of the measure's (100: a fraction written where the measure is a percentage)."""

    text: str
    scale: float = 1.0


@dataclass(frozen=True)
class Ratio:
    """Two numbers as the page writes them: the measure is the first over the second, to their shown digits."""

    over: Written
    under: Written


Shown = Written | Ratio | float | int | str | None  # a number drawn (a chart's or table's value), a word, or nothing
_SUPER = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def _written(shown: str) -> tuple[float, float, str] | None:
    """A written number: its value, half a unit of its last digit, and "<" or ">" for a bound ("<0.1%"); None
    for a missing one ("—")."""
    raw = shown.strip()
    if raw in ("—", ""):
        return None
    bound = raw[0] if raw[0] in "<>" else ""
    raw = raw.lstrip("<>").rstrip("%").replace(",", "")
    mantissa, exponent = re.split(r"e| × 10", raw)[0], 0
    if "e" in raw:
        exponent = int(raw.split("e")[1])
    elif " × 10" in raw:
        exponent = int(raw.split(" × 10")[1].translate(_SUPER))
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return float(mantissa) * 10.0 ** exponent, 0.5 * 10.0 ** (exponent - decimals), bound


def after(change: str) -> str:
    """The second value of a "before → after" the page writes (text.change)."""
    return change.split(" → ")[1]


def _agrees(value: float, shown: Written) -> bool:
    """The measure's value within the shown number's last digit (or its bound)."""
    found = _written(shown.text)
    assert found is not None
    number, half, bound = found
    v = value / shown.scale
    if bound == "<":
        return 0 < v < number + half
    if bound == ">":
        return number - half < v
    return abs(v - number) <= half * (1 + 1e-9) + 1e-12 * max(1.0, abs(v))


def _claim(verdict: Verdict, key: str) -> Any:
    return next((c for c in verdict.claims if c.key == key), None)


def _first(frame: Any, **where: Any) -> Any:
    rows = frame
    for column, value in where.items():
        rows = rows[rows[column] == value]
    assert len(rows) == 1, (where, len(rows))
    return rows.iloc[0]


def _yes(ok: bool | None) -> str | None:
    return None if ok is None else "yes" if ok else "no"


# Page 5's options name the bands' edges (questions.sweep_rmse_opt_*), page 4's the gate's factors
# (questions.gated_width_opt_*): the page states these rules in words.
RMSE_EDGES = (0.001, 0.01, 0.1)


def _gate_said(plain: float, gate: float, floor: float) -> str:
    if plain <= floor and gate <= floor:
        return "same"
    return "better" if gate < 0.8 * plain else "worse" if gate > 1.25 * plain else "same"


def _kind(answer: str) -> set[str]:
    """Every answer, in either language, of a relation `answer` answers (what "a wrong answer of its kind" is)."""
    relations = {f.relation for f in corpus.FACTS if answer in (f.answer("en"), f.answer("ko"))}
    return {f.answer(lang) for f in corpus.FACTS if f.relation in relations for lang in corpus.LANGS}


def _step_said(snap: Any) -> str | None:
    # The checkpoint's verdict says whether its top word is the answer; the metric beside it names the word.
    answers = _claim(checkpoint_verdicts.checkpoint(snap.step, snap.next.answer, snap.next.tokens[0], snap.next.probs[0],
                                                    snap.accuracy.seen, snap.accuracy.heldout, None,
                                                    snap.attribution.attn, snap.attribution.ffn),
                     "gptmemory.claim_answers")
    if answers is None:
        return None
    return "right" if answers.ok else "kind" if snap.next.tokens[0] in _kind(snap.next.answer) else "other"


def _main_fits(r: Results) -> Any:
    return next(iter(r["results"].values())).rmse_frame()  # the table's and the pieces chart's rows, main method


def _sweep_gain(r: Results) -> Ratio | None:
    # The page's first two metrics: the narrowest and the widest fit's RMSE ("≈0" for an exact one).
    main = next(iter(r["results"].values()))
    narrow, wide = (text.fit_error(f.rmse, main.exact_tol) for f in (main.fits[0], main.fits[-1]))
    if len(main.fits) < 2 or "≈0" in (narrow, wide):
        return None
    return Ratio(Written(narrow), Written(wide))


def _gated_rmse(r: Results, kind: str, weights: int) -> float:
    return float(_first(r["sweep"].rmse_frame(), kind=kind, params=weights)["rmse"])


def _falls(r: Results) -> str:
    # The ablation chart's bars: each accuracy shipped and ablated.
    bars = {(row.measure, row.state): row.accuracy for row in _ablation_frame(r).itertuples()}
    facts = bars[("seen", "shipped")] - bars[("seen", "ablated")]
    grammar = bars[("template", "shipped")] - bars[("template", "ablated")]
    return "facts" if facts > grammar else "grammar" if grammar > facts else "same"


def _ablation_frame(r: Results) -> pd.DataFrame:
    # The frame pages/9_gpt_surgery.py draws its ablation chart from.
    return pd.DataFrame([{"measure": name, "state": state, "accuracy": getattr(scores, name)}
                         for name in ("seen", "heldout", "template")
                         for state, scores in (("shipped", r["base"]), ("ablated", r["after"]))])


def _surgery(r: Results, name: str) -> Written:
    # The ablation's headline metrics: "before → after" in percent.
    return Written(after(text.change((getattr(r["base"], name), getattr(r["after"], name)), text.pct)))


def _edit(r: Results) -> Verdict:
    return gpt_verdicts.edit(r["edit"], "prompt", True)


def _edit_size(r: Results) -> float | None:
    ratio = next(c for c in _edit(r).claims if c.key.startswith("gptsurgery.fact_norm")).values["ratio"]
    return ratio if math.isfinite(ratio) else None


def _capital_expert(r: Results, block: int) -> str:
    # The routes chart of the chosen block: prompts per expert, the capital relation's bars.
    frame = r["routes"].to_frame()
    bars = frame[(frame["block"] == block - 1) & (frame["group"] == "capital")]
    return str(int(bars.loc[bars["prompts"].idxmax(), "expert"]) + 1)


def _routed_share(r: Results, expert: int) -> float:
    # The tokens-per-expert chart at the page's k.
    frame = r["res"].to_frame()
    bars = frame[frame["k"] == r["res"].k]
    return 100 * float(_first(bars, expert=expert - 1)["tokens"]) / float(bars["tokens"].sum())


def _bigger(r: Results) -> str:
    # The block chart: one bar per matrix, by part.
    frame = r["split"].to_frame()
    attention, ffn = (frame[frame["part"] == part]["params"].sum() for part in ("attention", "ffn"))
    return "ffn" if ffn > attention else "attention" if attention > ffn else "even"


def _collapse_one(r: Results) -> str | None:
    v = collapse_verdicts.judge(r["res"])
    if r["res"].act == "none":
        return _yes(_claim(v, "collapse.claim_replace").ok)
    return _yes(not _claim(v, "collapse.claim_nonlinear").ok)


def _gated_one(r: Results) -> str:
    # The takeaway names the fit that failed to be nonlinear: "broken" without an activation, "nearly linear" with one.
    first = gated_verdicts.judge(r["res"]).takeaway.split()[0]
    return "yes" if first in ("gated.takeaway_broken", "gated.takeaway_nearly_linear") else "no"


def _trained_change(r: Results, c: Settings) -> str | None:
    keys = sparsity_verdicts.judge(r["start"], r["run"], c["act"]).takeaway.split()
    train = next((k for k in keys if k.startswith("sparsity.takeaway_train_")), None)
    return None if train is None else train.removeprefix("sparsity.takeaway_train_")


def _layers(r: Results) -> Verdict:
    attr = r["attribution"]
    return gpt_verdicts.layers(r["next"].tokens[0], attr.max_abs_residual, attr.embedding, attr.attn, attr.ffn, None)


def _logit_share(r: Results, block: int) -> float | None:
    # The attribution chart's FFN bar of the block, against the answer's logit (the metric above it).
    attr = r["attribution"]
    if not attr.logit:
        return None
    return 100 * float(_first(attr.to_frame(), part="ffn", layer=block)["contribution"]) / attr.logit


def _kv(r: Results) -> Any:
    return r["res"].untrained, r["res"].trained


# (page, measure) → what the page shows for it at settings c (and index w): as pages/*.py writes it.
SHOWN: dict[tuple[str, str], Callable[[Results, Settings, Any], Shown]] = {
    # page 1: the three headline metrics, the block chart, the chosen model's metrics and the models' table
    ("split", "ffn_share"): lambda r, c, w: Written(f"{r['split'].ffn_share:.2%}"),
    ("split", "ffn_params"): lambda r, c, w: Written(f"{r['split'].ffn_params:,}"),
    ("split", "attention_params"): lambda r, c, w: Written(f"{r['split'].attention_params:,}"),
    ("split", "bigger"): lambda r, c, w: _bigger(r),
    ("split", "model_share"): lambda r, c, w: Written(f"{r['model'].ffn_share_of_model:.2%}"),
    ("split", "model_block_share"): lambda r, c, w: Written(f"{r['model'].block.ffn_share:.2%}"),
    ("split", "model_total"): lambda r, c, w: int(_first(model_counts.catalogue().to_frame(), id=c["model"])["total_params"]),
    # page 2: the headline metrics, the checks table, the block's claim
    ("position", "ffn_off"): lambda r, c, w: Written(text.pct(r["res"].ffn_off_diagonal_fraction)),
    ("position", "attention_off"): lambda r, c, w: Written(text.pct(r["res"].attention_off_diagonal_fraction)),
    ("position", "shuffle"): lambda r, c, w: "follows" if _written(text.error(
        r["res"].attention_permutation_max_abs_diff))[0] <= rules.EXACT else "changes",  # type: ignore[index]
    ("position", "rowwise_diff"): lambda r, c, w: Written(text.error(r["res"].rowwise_max_abs_diff)),
    ("position", "block_off"): lambda r, c, w: 100 * position_verdicts.judge_block(r["block"]).claims[0].values["block"],
    # page 3: the headline (rank and residual without an activation, the fit with one), the counts, the claims
    ("collapse", "rank"): lambda r, c, w: Written(str(r["res"].rank)) if c["act"] == "none" else None,
    ("collapse", "residual"): lambda r, c, w: Written(text.error(r["res"].max_abs_residual)) if c["act"] == "none" else None,
    ("collapse", "fit_error"): lambda r, c, w: Written(text.error(r["res"].fit_relative_error), 100)
    if c["act"] != "none" else None,
    ("collapse", "two_layer_params"): lambda r, c, w: Written(f"{r['res'].two_layer_params:,}"),
    ("collapse", "single_matrix_params"): lambda r, c, w: Written(f"{r['res'].single_matrix_params:,}"),
    ("collapse", "stack_rank"): lambda r, c, w: Written(str(r["stack"].rank)),
    ("collapse", "one_matrix"): lambda r, c, w: _collapse_one(r),
    ("collapse", "beyond_matrix"): lambda r, c, w: {"yes": "no", "no": "yes"}[_collapse_one(r)],  # type: ignore[index]
    # page 4: the headline, the gate chart, the params fact, the width chart
    ("gated", "fit_error"): lambda r, c, w: Written(text.error(r["res"].gated_fit_error), 100),
    ("gated", "plain_residual"): lambda r, c, w: Written(text.error(r["res"].plain_collapse_residual))
    if c["act"] == "none" else None,
    ("gated", "gated_params"): lambda r, c, w: Written(f"{r['res'].gated_params:,}"),
    ("gated", "plain_params"): lambda r, c, w: _claim(gated_verdicts.judge(r["res"]), "gated.fact_params").values["plain"],
    ("gated", "turned_down"): lambda r, c, w: 100 * float(_first(r["res"].fractions_frame(), gate="silu")["turned_down"]),
    ("gated", "plain_rmse"): lambda r, c, w: _gated_rmse(r, "plain", w),
    ("gated", "gated_rmse"): lambda r, c, w: _gated_rmse(r, "gated", w),
    ("gated", "one_matrix"): lambda r, c, w: _gated_one(r),
    ("gated", "weights_vs_plain"): lambda r, c, w: (lambda v: "same" if v["gated"] == v["plain"] else
                                                    "fewer" if v["gated"] < v["plain"] else "more")(
        _claim(gated_verdicts.judge(r["res"]), "gated.fact_params").values),
    ("gated", "gated_vs_plain"): lambda r, c, w: _gate_said(_gated_rmse(r, "plain", w), _gated_rmse(r, "gated", w),
                                                            r["sweep"].floor),
    # page 5: the fits' table (the pieces chart's rows), the headline metrics
    ("sweep", "rmse"): lambda r, c, w: float(_first(_main_fits(r), width=w)["rmse"]),
    ("sweep", "rmse_between"): lambda r, c, w: float(_first(_main_fits(r), width=w)["rmse_between"]),
    ("sweep", "kinks"): lambda r, c, w: int(_first(_main_fits(r), width=w)["kinks_inside"]) if c["act"] == "relu" else None,
    ("sweep", "pieces"): lambda r, c, w: int(_first(_main_fits(r), width=w)["pieces_used"]) if c["act"] == "relu" else None,
    ("sweep", "exact"): lambda r, c, w: "yes" if _first(_main_fits(r), width=w)["exact"] else "no",
    ("sweep", "gain"): lambda r, c, w: _sweep_gain(r),
    ("sweep", "rmse_band"): lambda r, c, w: str(sum(float(_first(_main_fits(r), width=w)["rmse"]) >= e for e in RMSE_EDGES)),
    # page 6: the headline metrics (before → after), the summary table, the concentration claim
    ("keyvalue", "n90"): lambda r, c, w: Written(after(text.change((_kv(r)[0].n_for_90, _kv(r)[1].n_for_90)))),
    ("keyvalue", "active"): lambda r, c, w: _kv(r)[1].active,
    ("keyvalue", "recall"): lambda r, c, w: Written(after(text.change((_kv(r)[0].recall, _kv(r)[1].recall),
                                                                      "{:.0%}".format))),
    ("keyvalue", "residual"): lambda r, c, w: Written(text.error(r["res"].max_abs_residual)),
    ("keyvalue", "concentrates"): lambda r, c, w: (lambda claim: None if claim is None else
                                                   "fewer" if claim.ok else "more")(
        _claim(keyvalue_verdicts.judge(r["res"]), "keyvalue.claim_concentration")),
    # page 7: the init headline, the per-neuron chart, the training metrics and takeaway
    ("sparsity", "active"): lambda r, c, w: Written(f"{r['start'].mean_active_fraction:.4f}", 100),
    ("sparsity", "least_active"): lambda r, c, w: 100 * float(r["start"].neuron_frame()["firing_rate"].min()),
    ("sparsity", "dead"): lambda r, c, w: Written(str(r["start"].dead)),
    ("sparsity", "trained_active"): lambda r, c, w: Written(after(text.change(
        (r["run"].active_train[0], r["run"].active_train[-1]), "{:.3f}".format)), 100),
    ("sparsity", "recall"): lambda r, c, w: Written(f"{r['run'].final_recall:.0%}"),
    ("sparsity", "trained_change"): lambda r, c, w: _trained_change(r, c),
    # page 8: the top-tokens chart and headline, the accuracy metrics, the layers' claim and chart, the checkpoint
    ("gpt", "top_word"): lambda r, c, w: str(_first(r["next"].to_frame(), rank=1)["token"]),
    ("gpt", "top_prob"): lambda r, c, w: Written(text.pct(r["next"].probs[0])),
    ("gpt", "seen"): lambda r, c, w: Written(text.pct(r["accuracy"].seen)),
    ("gpt", "heldout"): lambda r, c, w: Written(text.pct(r["accuracy"].heldout)),
    ("gpt", "writes"): lambda r, c, w: "ffn" if _claim(_layers(r), "gpt.claim_ffn_writes").ok else "attn",
    ("gpt", "ffn_logit_share"): lambda r, c, w: _logit_share(r, w),
    ("gpt", "step_said"): lambda r, c, w: _step_said(r["snap"]),
    # page 9: the ablation's headline and chart, the edit's metrics and claims
    ("gptsurgery", "facts_after"): lambda r, c, w: _surgery(r, "seen"),
    ("gptsurgery", "grammar_after"): lambda r, c, w: _surgery(r, "template"),
    ("gptsurgery", "heldout_after"): lambda r, c, w: _surgery(r, "heldout"),
    ("gptsurgery", "falls"): lambda r, c, w: _falls(r),
    ("gptsurgery", "other_facts_changed"): lambda r, c, w: Written(
        f"{r['edit'].other_facts_changed} / {r['edit'].other_facts}".split(" / ")[0]),
    ("gptsurgery", "edited"): lambda r, c, w: Written(after(text.pct_change(r["edit"].edited))),
    ("gptsurgery", "other_lang"): lambda r, c, w: (lambda claim: None if claim is None else _yes(claim.ok))(
        _claim(_edit(r), "gptsurgery.claim_other_lang")),
    ("gptsurgery", "edit_size"): lambda r, c, w: _edit_size(r),
    # page 10: the headline, the counts' fact, the tokens chart, the position claim; the routes chart, the ablation claim
    ("moe", "total_params"): lambda r, c, w: Written(f"{r['res'].total_params:,}"),
    ("moe", "active_params"): lambda r, c, w: Written(f"{r['res'].routing(r['res'].k).active_params:,}"),
    ("moe", "active_share"): lambda r, c, w: 100 * _claim(moe_verdicts.judge(r["res"]), "moe.fact_params").values["share"],
    ("moe", "routed_share"): lambda r, c, w: _routed_share(r, w),
    ("moe", "position_wise"): lambda r, c, w: _yes(_claim(moe_verdicts.judge(r["res"]), "moe.claim_position").ok),
    ("moe", "capital_expert"): lambda r, c, w: _capital_expert(r, w),
    ("moe", "fell"): lambda r, c, w: moe_verdicts.judge_ablation(r["cut"]).claims[0].values["fell"],
    ("moe", "routed"): lambda r, c, w: moe_verdicts.judge_ablation(r["cut"]).claims[0].values["routed"],
}


def _compare(m: measures.Measure, value: float | str | None, shown: Shown) -> bool:
    """The measure's value is what the page shows; True when the page showed one (False: it shows none there)."""
    if shown is None or (isinstance(shown, Written) and _written(shown.text) is None):
        assert value is None, (m.id, value, shown)
        return False
    assert value is not None, (m.id, shown)
    if m.kind == "word":
        assert value == shown, (m.id, value, shown)
    elif isinstance(shown, Written):
        assert _agrees(float(value), shown), (m.id, value, shown)
    elif isinstance(shown, Ratio):
        (a, da, _), (b, db, _) = _written(shown.over.text), _written(shown.under.text)  # type: ignore[misc]
        assert abs(float(value) / (a / b) - 1) <= da / a + db / b + 1e-9, (m.id, value, shown)
    else:
        assert float(value) == pytest.approx(float(shown), rel=1e-9, abs=1e-12), (m.id, value, shown)
    return True


# --- the declarations -------------------------------------------------------------------------------


def test_every_demo_page_declares_at_least_four_measures_with_labels_in_both_languages():
    demos = [e.section for e in catalog.DEMOS]
    assert sorted(measures.BY_PAGE) == sorted(demos)
    for section in demos:
        declared = measures.of(section)
        assert len(declared) >= 4, section
        assert len({m.id for m in declared}) == len(declared), section
        for m in declared:
            assert m.section == section and (section, m.part) in measured.PARTS, m
            assert (m.index == "") == (m.indices is None), m
            assert (m.kind == "word") == (m.words is not None), m
            for lang in i18n.LANGS:
                assert i18n.Translator(lang).has(m.label), (lang, m.label)


def test_every_part_that_holds_a_measure_has_its_built_in_questions_checked():
    assert {(m.section, m.part) for ms in measures.BY_PAGE.values() for m in ms} == set(BUILT_IN) == set(measured.PARTS)


def test_every_measure_is_compared_with_what_its_page_shows():
    assert set(SHOWN) == {(m.section, m.id) for ms in measures.BY_PAGE.values() for m in ms}


def _declared_questions() -> list[tuple[str, Question]]:
    """Every built-in Question of the pages' question modules with its page, those made per size included."""
    found = []
    for info in pkgutil.iter_modules(questions_package.__path__):
        module = importlib.import_module(f"ui.questions.{info.name}")
        section = getattr(module, "SECTION", None)
        if section not in measures.BY_PAGE:
            continue  # the ask form, the teacher's questions, the class chart
        sizes = getattr(module, "QUESTION_SIZES", (32, 256))
        found += [(section, v) for v in vars(module).values() if isinstance(v, Question)]
        found += [(section, v(m)) for name, v in vars(module).items() if name.endswith("_question") and callable(v)
                  for m in sizes]
    return found


def test_every_built_in_question_names_a_measure_of_its_page_of_its_kind():
    declared = _declared_questions()
    assert len({q.key for _, q in declared}) >= 38
    for section, q in declared:
        m = measures.get(section, q.measure)
        assert m is not None, (section, q.key, q.measure)
        assert m.kind == ("word" if q.kind == "choice" else "number"), q.key
        if m.words:  # every option a word the measure takes
            assert set(q.options) <= set(m.words(plan.values(section, {}) or {})), q.key


# --- over each page's control space ---------------------------------------------------------------


def page_settings(section: str) -> st.SearchStrategy[dict[str, object]]:
    """Every control of page `section`, drawn in declared order (an option may follow an earlier value)."""
    @st.composite
    def draw(data: Any) -> dict[str, object]:
        chosen: dict[str, object] = {}
        for c in catalog.CONTROLS[section]:
            if isinstance(c, Toggle):
                chosen[c.key] = data(st.booleans())
            elif isinstance(c, Number):
                steps = int(round((c.hi - c.lo) / c.step))
                chosen[c.key] = c.lo + c.step * data(st.integers(0, min(steps, 50)))
            elif isinstance(c, Several):
                most = c.most or len(c.options)
                # Small widths: a sweep of width 256 trains for seconds.
                picked = data(st.lists(st.sampled_from([o for o in c.options if o <= 32]), min_size=1,
                                       max_size=min(most, 3), unique=True))
                chosen[c.key] = tuple(sorted(picked))
            elif isinstance(c, Choice):
                chosen[c.key] = data(st.sampled_from(c.options_for(chosen)))
            else:
                assert isinstance(c, Text)
                chosen[c.key] = c.default_for(chosen)
        return chosen
    return draw()


# Settings each page is checked at before the drawn ones, so every measure meets a value it shows: both sides of
# an activation switch, a second width, a trained run.
COVER: dict[str, tuple[dict[str, str], ...]] = {
    "collapse": ({"act": "none"}, {"act": "relu", "m": "32", "d": "16"}),
    "gated": ({"act": "none"}, {"act": "silu", "d": "48"}),
    "sweep": ({"widths": "2,8", "act": "relu"},),
    "keyvalue": ({"steps": "50", "m": "64", "n": "32", "token": "5"},),
    "sparsity": ({"steps": "50", "m": "64"},),
}


def _cheap(section: str, c: dict[str, object]) -> dict[str, object]:
    # Sizes the pages allow but a property test need not pay for on every example.
    if section == "sparsity":
        c["steps"] = min(int(c["steps"]), 200)  # type: ignore[arg-type]
    if section == "keyvalue":
        c["steps"] = min(int(c["steps"]), 100)  # type: ignore[arg-type]
    return c


def _computes(section: str, part: str, c: dict[str, object]) -> bool:
    """Whether the page computes this part at these settings (else it says why and shows nothing of it)."""
    if section == "sparsity" and 128 * int(c["d"]) * int(c["m"]) * int(c["steps"]) > memory_training.MAX_WORK:
        return False  # "too costly"
    if section == "position" and int(c["n"]) * int(c["d"]) > position_core.MAX_TOKENS_X_D:
        return False  # "too big"
    if section == "keyvalue" and int(c["token"]) >= int(c["n"]):
        return False  # the key is out of range
    return not (section == "gptsurgery" and part == "edit" and not c["apply"])  # undone: the shipped model


def _check_part(section: str, part: str, c: Mapping[str, object]) -> tuple[int, set[str]]:
    """The part's measures against what the page shows and its built-in questions' answers, from one computation:
    how many questions were answered by a measure, and which measures the page showed a value of."""
    results = measured.results(section, part, c)
    shown = set()
    for m in (m for m in measures.of(section) if m.part == part):
        for where in m.indices(c) if m.indices else (None,):
            value = m.value(results, where)
            if m.kind == "word" and value is not None:
                assert value in m.words(c), (m.id, where, value)  # type: ignore[misc]
            if _compare(m, value, SHOWN[(section, m.id)](results, c, where)):
                shown.add(m.id)
    # The page's own questions answer with the measure they name: one way to answer a question.
    checked = 0
    for a in BUILT_IN[(section, part)](results, c):
        m = measures.get(section, a.question.measure)
        assert m is not None and m.part == part, a.question
        where = a.values.get(m.index) if m.index else None
        assert where is None or where in m.indices(c), (a.question.key, where)  # type: ignore[misc]
        value = m.value(results, where)
        if m.kind == "word":
            assert a.answer == value, (a.question.key, a.answer, value)
        else:
            assert float(a.answer) == pytest.approx(value, rel=1e-12, abs=1e-12), (a.question.key, a.answer, value)
        checked += 1
    return checked, shown


@pytest.mark.parametrize("section,part", sorted(measured.PARTS))
def test_measures_are_what_the_page_shows_and_what_its_questions_answer(section, part):
    checked, shown = [], set()

    def one(c: dict[str, object]) -> None:
        if _computes(section, part, c):
            asked, seen = _check_part(section, part, c)
            checked.append(asked)
            shown.update(seen)

    for query in ({}, *COVER.get(section, ())):
        c = plan.values(section, query)
        assert c is not None, (section, query)
        one(c)

    @settings(max_examples=EXAMPLES.get(section, 8), deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(c=page_settings(section))
    def run(c: dict[str, object]) -> None:
        one(_cheap(section, c))

    run()
    assert checked and sum(checked) > 0, (section, part, checked)
    # Every measure of the part met a value the page shows, at one setting at least.
    assert shown == {m.id for m in measures.of(section) if m.part == part}, (section, part, shown)


# --- the same results as the page ------------------------------------------------------------------

# A few settings per page besides its defaults, as a link carries them: other branches of each page.
VIEWS: dict[str, tuple[dict[str, str], ...]] = {
    "split": ({"d": "768", "expansion": "8/3", "glu": "true", "kv_heads": "2", "model": "llama2-70b"},),
    "position": ({"n": "5", "d": "16", "act": "gelu", "heads": "2", "causal": "true"},),
    "collapse": ({"act": "none", "d": "16", "m": "32", "layers": "3", "narrow": "4"},),
    "gated": ({"act": "silu", "d": "48", "token": "3", "most": "2"},),
    "sweep": ({"widths": "2,8", "act": "gelu", "method": "both"},),
    "keyvalue": ({"d": "32", "m": "64", "n": "32", "token": "7", "steps": "50"},),
    "sparsity": ({"act": "gelu", "m": "64", "steps": "50", "bias": "false"},),
    "gpt": ({"country": "Japan", "plang": "ko", "checkpoint": "900"},),
    "gptsurgery": ({"target": "ffn_1", "how": "mean", "block": "2", "method": "plain"},),
    "moe": ({"experts": "4", "k": "1", "d": "32", "block": "2", "expert": "1"},),
}


@pytest.fixture
def page_results(monkeypatch):
    """The results each part of a page run hands its questions (quiz.questions' `measured`), by (page, part).

    Page 8's checkpoint section hands its questions none yet (ui/gpt/sections.py): its snapshot is taken
    where the section computes it.
    """
    from ui.gpt import checkpoints
    from ui.questions import quiz

    seen: dict[tuple[str, str], Mapping[str, Any]] = {}
    ask, snapshot = quiz.questions, checkpoints.snapshot

    def questions(page, *args, measured=None, **kwargs):
        if measured is not None:
            seen[(page.section, measured[0])] = measured[1]
        return ask(page, *args, measured=measured, **kwargs)

    def snap(*args, **kwargs):
        result = snapshot(*args, **kwargs)
        seen.setdefault(("gpt", "checkpoint"), {"snap": result})
        return result

    monkeypatch.setattr(quiz, "questions", questions)
    monkeypatch.setattr(checkpoints, "snapshot", snap)
    return seen


def _same(m: measures.Measure, page: float | str | None, ours: float | str | None) -> bool:
    if m.kind == "word" or page is None or ours is None:
        return page == ours
    return float(page) == pytest.approx(float(ours), rel=1e-12, abs=1e-15) or (math.isnan(page) and math.isnan(ours))


@pytest.mark.parametrize("section", [e.section for e in catalog.DEMOS])
def test_lessons_measure_what_the_page_computes(section, page_results):
    """`python -m lessons measures` and a lesson's check compute a page's results with lessons/measured.py: at the
    defaults and at other settings, every measure holds what the page's own run computed."""
    path = catalog.page_path(section)
    for query in ({}, *VIEWS[section]):
        page_results.clear()
        at = open_page(path, "en", **query)
        assert not at.exception, [e.value for e in at.exception]
        c = plan.values(section, query)
        assert c is not None, query
        parts = {part for (s, part) in measured.PARTS if s == section}
        assert {part for (s, part) in page_results if s == section} == parts, (section, query, page_results.keys())
        for part in parts:
            page, ours = page_results[(section, part)], measured.results(section, part, c)
            for m in (m for m in measures.of(section) if m.part == part):
                for where in m.indices(c) if m.indices else (None,):
                    assert _same(m, m.value(page, where), m.value(ours, where)), (section, query, m.id, where)
