"""What each page measures: the quantities its built-in questions and a teacher's (`[[steps.ask]]`) ask about.

A measure is a named value the page's result already holds, a number (with its unit) or a word, read from
the results of one part of the page (handed to `quiz.questions(..., measured=(part, results))`), at an
index for some (the width m, a block, an expert). A word is read by the rule in ui/registry/rules.py that
the page's own question calls, so there is one way to answer a question.

A measure holds a value only where its page shows one (W₂W₁'s rank without an activation, kinks for ReLU):
elsewhere it is None, and a question on it is not asked. Readers only read: a teacher's question adds no wait.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ffn_core.gpt import corpus, moe_train, weights
from ffn_core.sweep import gated as gated_sweep
from ui.registry import rules

Results = Mapping[str, Any]
Settings = Mapping[str, object]
Kind = Literal["number", "word"]


@dataclass(frozen=True)
class Measure:
    """One quantity of one page: read from the results of `part`, at an index when it has one."""

    section: str
    id: str
    part: str  # the page's part whose results hold it (the name the page hands to quiz.questions)
    kind: Kind
    read: Callable[[Results], Any]  # the value, or {index: value} for a measure with an index
    unit: str = ""  # locale key of a number's unit ("" for a count)
    lo: float = 0.0  # the smallest guess a number question takes
    hi: float = 1e12  # the largest
    index: str = ""  # the index's name in a lesson file's `where` ("m", "block", "expert"); "" for none
    indices: Callable[[Settings], tuple[Any, ...]] | None = None  # the index's values at a step's settings
    words: Callable[[Settings], tuple[str, ...]] | None = None  # every word a word measure can take there

    @property
    def label(self) -> str:
        return f"measures.{self.section}_{self.id}"

    def value(self, results: Results, where: Any = None) -> float | str | None:
        """The measured value (at `where` for an indexed measure); None where the result holds none."""
        found = self.read(results)
        if self.index:
            found = found.get(where) if isinstance(found, Mapping) else None
        if found is None:
            return None
        return str(found) if self.kind == "word" else float(found)


PCT = "questions.unit_pct"


def _fixed(*words: str) -> Callable[[Settings], tuple[str, ...]]:
    return lambda s: words


def _percent(section: str, id: str, part: str, read: Callable[[Results], Any], **index: Any) -> Measure:
    """A share from 0 to 100%."""
    return Measure(section, id, part, "number", read, PCT, hi=100, **index)


def _chosen(key: str) -> Callable[[Settings], tuple[int, ...]]:
    """The one index a page shows at a time: the value of its control `key`."""
    return lambda s: (int(s[key]),) if key in s else ()  # type: ignore[call-overload]


# --- page 1: the parameter split -----------------------------------------------------------------

SPLIT = (
    _percent("split", "ffn_share", "block", lambda r: 100 * r["split"].ffn_share),
    Measure("split", "ffn_params", "block", "number", lambda r: r["split"].ffn_params),
    Measure("split", "attention_params", "block", "number", lambda r: r["split"].attention_params),
    Measure("split", "bigger", "block", "word", lambda r: rules.bigger(r["split"]),
            words=_fixed("attention", "ffn", "even")),
    _percent("split", "model_share", "model", lambda r: 100 * r["model"].ffn_share_of_model),
    _percent("split", "model_block_share", "model", lambda r: 100 * r["model"].block.ffn_share),
    Measure("split", "model_total", "model", "number", lambda r: r["model"].total),
)

# --- page 2: position-wise -----------------------------------------------------------------------

POSITION = (
    _percent("position", "ffn_off", "experiment", lambda r: 100 * r["res"].ffn_off_diagonal_fraction),
    _percent("position", "attention_off", "experiment", lambda r: 100 * r["res"].attention_off_diagonal_fraction),
    Measure("position", "shuffle", "experiment", "word", lambda r: rules.follows(r["res"]),
            words=_fixed("follows", "changes")),
    Measure("position", "rowwise_diff", "experiment", "number", lambda r: r["res"].rowwise_max_abs_diff),
    _percent("position", "block_off", "block", lambda r: 100 * r["block"].block_off_diagonal_fraction),
)

# --- page 3: the linear collapse -------------------------------------------------------------------

def _linear(r: Results, value: Callable[[Any], Any]) -> Any:
    # W₂W₁'s rank and the one-matrix residual describe the layer only without an activation: the page shows
    # them only then (with one, it says they would describe a function this layer does not compute).
    return value(r["res"]) if r["res"].act == "none" else None


COLLAPSE = (
    Measure("collapse", "rank", "experiment", "number", lambda r: _linear(r, lambda res: res.rank), hi=1024),
    Measure("collapse", "residual", "experiment", "number", lambda r: _linear(r, lambda res: res.max_abs_residual)),
    # The best affine fit is what the page shows with an activation; without one the residual says it all.
    Measure("collapse", "fit_error", "experiment", "number",
            lambda r: 100 * r["res"].fit_relative_error if r["res"].act != "none" else None, PCT),
    Measure("collapse", "two_layer_params", "experiment", "number", lambda r: r["res"].two_layer_params),
    Measure("collapse", "single_matrix_params", "experiment", "number", lambda r: r["res"].single_matrix_params),
    Measure("collapse", "stack_rank", "stack", "number", lambda r: r["stack"].rank, hi=1024),
    Measure("collapse", "one_matrix", "experiment", "word", lambda r: rules.one_matrix(r["res"]),
            words=_fixed("yes", "no")),
    Measure("collapse", "beyond_matrix", "experiment", "word", lambda r: rules.beyond_matrix(r["res"]),
            words=_fixed("yes", "no")),
)

# --- page 4: the gated FFN -------------------------------------------------------------------------

def _gate_outcomes(res: Any) -> dict[int, str]:
    # Equal weight counts pair up in order: plain width 5j beside gated width 3j.
    return {p.params: rules.gate_outcome(p.rmse, g.rmse, res.floor) for p, g in zip(res.plain, res.gated)}


def _equal_weights(s: Settings) -> tuple[int, ...]:
    # Plain width 5j and gated width 3j hold 15j + 1 weights each (ffn_core/sweep/gated.py).
    return tuple(15 * j + 1 for j in gated_sweep.JS if j <= int(s.get("most", 0)))  # type: ignore[arg-type]


GATED = (
    Measure("gated", "fit_error", "experiment", "number", lambda r: 100 * r["res"].gated_fit_error, PCT),
    # Page 3's plain linear FFN replaced by W₂W₁: the page sets it beside the gated fit without an activation only.
    Measure("gated", "plain_residual", "experiment", "number",
            lambda r: _linear(r, lambda res: res.plain_collapse_residual)),
    Measure("gated", "gated_params", "experiment", "number", lambda r: r["res"].gated_params),
    Measure("gated", "plain_params", "experiment", "number", lambda r: r["res"].plain_params),
    _percent("gated", "turned_down", "experiment", lambda r: 100 * r["res"].gate("silu").turned_down),
    Measure("gated", "plain_rmse", "width", "number", lambda r: {f.params: f.rmse for f in r["sweep"].plain},
            index="weights", indices=_equal_weights),
    Measure("gated", "gated_rmse", "width", "number", lambda r: {f.params: f.rmse for f in r["sweep"].gated},
            index="weights", indices=_equal_weights),
    Measure("gated", "one_matrix", "experiment", "word", lambda r: rules.gated_linear(r["res"]),
            words=_fixed("yes", "no")),
    Measure("gated", "weights_vs_plain", "experiment", "word",
            lambda r: rules.compared(r["res"].gated_params, r["res"].plain_params),
            words=_fixed("fewer", "same", "more")),
    Measure("gated", "gated_vs_plain", "width", "word", lambda r: _gate_outcomes(r["sweep"]), index="weights",
            indices=_equal_weights, words=_fixed("better", "same", "worse")),
)

# --- page 5: the width sweep -----------------------------------------------------------------------

def _fits(r: Results) -> dict[int, Any]:
    main = next(iter(r["results"].values()))
    return {f.width: f for f in main.fits}


def _widths(s: Settings) -> tuple[int, ...]:
    return tuple(int(w) for w in s.get("widths", ()))  # type: ignore[union-attr]


def _relu(r: Results, value: Callable[[Any], Any]) -> dict[int, Any]:
    # Kinks are a ReLU fit's: the page counts them (and the pieces) for ReLU only; GELU bends smoothly.
    main = next(iter(r["results"].values()))
    return {m: value(f) for m, f in _fits(r).items()} if main.act == "relu" else {}


SWEEP = (
    Measure("sweep", "rmse", "experiment", "number", lambda r: {m: f.rmse for m, f in _fits(r).items()},
            index="m", indices=_widths),
    Measure("sweep", "rmse_between", "experiment", "number",
            lambda r: {m: f.rmse_between for m, f in _fits(r).items()}, index="m", indices=_widths),
    Measure("sweep", "kinks", "experiment", "number", lambda r: _relu(r, lambda f: f.kinks_inside),
            index="m", indices=_widths),
    Measure("sweep", "pieces", "experiment", "number", lambda r: {m: f.pieces for m, f in _fits(r).items()},
            index="m", indices=_widths),
    Measure("sweep", "exact", "experiment", "word",
            lambda r: {m: "yes" if f.exact else "no" for m, f in _fits(r).items()}, index="m", indices=_widths,
            words=_fixed("yes", "no")),
    Measure("sweep", "gain", "experiment", "number", lambda r: rules.gain(next(iter(r["results"].values()))),
            hi=1_000_000),
    Measure("sweep", "rmse_band", "experiment", "word", lambda r: {m: rules.rmse_band(f) for m, f in _fits(r).items()},
            index="m", indices=_widths, words=_fixed("0", "1", "2", "3")),
)

# --- page 6: key-value -----------------------------------------------------------------------------

def _of_token(value: Callable[[Any], Any]) -> Callable[[Results], dict[int, Any]]:
    # The page reads one key at a time (its `token`): a question on it names the key it asks about, so a
    # lesson whose step shows another key is refused by the check, not asked about the wrong one.
    return lambda r: {r["res"].token: value(r["res"])}


KEYVALUE = (
    Measure("keyvalue", "n90", "experiment", "number", _of_token(lambda res: res.trained.n_for_90), index="token",
            indices=_chosen("token")),
    Measure("keyvalue", "active", "experiment", "number", _of_token(lambda res: res.trained.active), index="token",
            indices=_chosen("token")),
    _percent("keyvalue", "recall", "experiment", lambda r: 100 * r["res"].trained.recall),
    Measure("keyvalue", "residual", "experiment", "number", _of_token(lambda res: res.max_abs_residual),
            index="token", indices=_chosen("token")),
    Measure("keyvalue", "concentrates", "experiment", "word", lambda r: rules.concentrates(r["res"]),
            words=_fixed("fewer", "more")),
)

# --- page 7: activation sparsity -------------------------------------------------------------------

SPARSITY = (
    _percent("sparsity", "active", "experiment", lambda r: 100 * r["start"].mean_active_fraction),
    _percent("sparsity", "least_active", "experiment", lambda r: 100 * min(r["start"].per_neuron)),
    Measure("sparsity", "dead", "experiment", "number", lambda r: r["start"].dead),
    _percent("sparsity", "trained_active", "experiment", lambda r: 100 * r["run"].active_train[-1]),
    _percent("sparsity", "recall", "experiment", lambda r: 100 * r["run"].final_recall),
    Measure("sparsity", "trained_change", "experiment", "word", lambda r: rules.trained_change(r["run"]),
            words=_fixed("fell", "flat", "rose")),
)

# --- page 8: the trained GPT -----------------------------------------------------------------------

@functools.cache
def _vocabulary() -> tuple[str, ...]:
    return tuple(sorted(corpus.words()))


def _ffn_share(attr: Any) -> dict[int, float]:
    # Block b's FFN term as a share of the answer's logit (the page's attribution chart, one bar per block).
    return {b: 100 * f / attr.logit for b, f in enumerate(attr.ffn, 1)} if attr.logit else {}


GPT = (
    Measure("gpt", "top_word", "experiment", "word", lambda r: r["next"].tokens[0], words=lambda s: _vocabulary()),
    _percent("gpt", "top_prob", "experiment", lambda r: 100 * r["next"].probs[0]),
    _percent("gpt", "seen", "experiment", lambda r: 100 * r["accuracy"].seen),
    _percent("gpt", "heldout", "experiment", lambda r: 100 * r["accuracy"].heldout),
    Measure("gpt", "writes", "experiment", "word", lambda r: rules.writes(r["attribution"].attn, r["attribution"].ffn),
            words=_fixed("attn", "ffn")),
    Measure("gpt", "ffn_logit_share", "experiment", "number", lambda r: _ffn_share(r["attribution"]), PCT, lo=-1e6,
            index="block", indices=lambda s: tuple(range(1, weights.config().n_layer + 1))),
    # The prompt at the training step chosen below it (the page's checkpoint section).
    Measure("gpt", "step_said", "checkpoint", "word",
            lambda r: rules.said(r["snap"].next.tokens[0], r["snap"].next.answer),
            words=_fixed("right", "kind", "other")),
)

# --- page 9: GPT surgery ---------------------------------------------------------------------------

SURGERY = (
    _percent("gptsurgery", "facts_after", "ablation", lambda r: 100 * r["after"].seen),
    _percent("gptsurgery", "grammar_after", "ablation", lambda r: 100 * r["after"].template),
    _percent("gptsurgery", "heldout_after", "ablation", lambda r: 100 * r["after"].heldout),
    Measure("gptsurgery", "falls", "ablation", "word", lambda r: rules.falls(r["base"], r["after"]),
            words=_fixed("facts", "grammar", "same")),
    Measure("gptsurgery", "other_facts_changed", "edit", "number", lambda r: r["edit"].other_facts_changed),
    _percent("gptsurgery", "edited", "edit", lambda r: 100 * r["edit"].edited[1]),
    Measure("gptsurgery", "other_lang", "edit", "word", lambda r: rules.crosses(r["edit"]), words=_fixed("yes", "no")),
    Measure("gptsurgery", "edit_size", "edit", "number", lambda r: rules.edit_size(r["edit"]), hi=1000),
)

# --- page 10: mixture of experts -------------------------------------------------------------------

def _routed_share(res: Any) -> dict[int, float]:
    # Each expert's share of the routed slots (tokens × k) on the page's tokens.
    counts = res.routing(res.k).tokens_per_expert
    total = sum(counts)
    return {e: 100 * c / total for e, c in enumerate(counts, 1)} if total else {}


MOE = (
    Measure("moe", "total_params", "toy", "number", lambda r: r["res"].total_params),
    Measure("moe", "active_params", "toy", "number", lambda r: r["res"].routing(r["res"].k).active_params),
    _percent("moe", "active_share", "toy",
             lambda r: 100 * r["res"].routing(r["res"].k).active_params / r["res"].total_params),
    _percent("moe", "routed_share", "toy", lambda r: _routed_share(r["res"]), index="expert",
             indices=lambda s: tuple(range(1, int(s.get("experts", 1)) + 1))),  # type: ignore[arg-type]
    Measure("moe", "capital_expert", "trained", "word",
            lambda r: {b: str(r["routes"].top_expert(b - 1, "capital") + 1) for b in range(1, r["routes"].n_layer + 1)},
            index="block", indices=_chosen("block"),
            words=lambda s: tuple(str(e) for e in range(1, moe_train.config().n_experts + 1))),
    Measure("moe", "fell", "trained", "number", lambda r: r["cut"].fell_total),
    Measure("moe", "routed", "trained", "number", lambda r: r["cut"].routed),
    Measure("moe", "position_wise", "toy", "word", lambda r: rules.position_wise(r["res"]), words=_fixed("yes", "no")),
)

BY_PAGE: dict[str, tuple[Measure, ...]] = {
    "split": SPLIT, "position": POSITION, "collapse": COLLAPSE, "gated": GATED, "sweep": SWEEP,
    "keyvalue": KEYVALUE, "sparsity": SPARSITY, "gpt": GPT, "gptsurgery": SURGERY, "moe": MOE,
}


def of(section: str) -> tuple[Measure, ...]:
    """The measures of page `section` (none for a page without an experiment)."""
    return BY_PAGE.get(section, ())


def get(section: str, measure: str) -> Measure | None:
    return next((m for m in of(section) if m.id == measure), None)


def find(measure: str) -> list[Measure]:
    """Every page's measure of this id (to say which page a misplaced one belongs to)."""
    return [m for ms in BY_PAGE.values() for m in ms if m.id == measure]
