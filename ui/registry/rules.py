"""The rules a page's result is read by, shared so that its verdict, its built-in questions and its measures agree.

A claim on the page, a built-in question's answer and a teacher's question on the same measure call the
same rule here, with the same thresholds, so they cannot disagree. Pure functions of a core result, by page.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

from ffn_core.gpt import corpus


# --- page 1: the parameter split -----------------------------------------------------------------

def bigger(s: Any) -> str:
    """Which part of a block holds more parameters: "attention", "ffn" or "even" (params.Split)."""
    if s.ffn_params > s.attention_params:
        return "ffn"
    return "attention" if s.ffn_params < s.attention_params else "even"


# --- page 2: position-wise -----------------------------------------------------------------------

EXACT = 1e-12  # float64 rounding stays many orders below this; a real dependence would not


def follows(res: Any) -> str:
    """"follows" when attention's output is the shuffled output (equal to rounding), else "changes"."""
    return "follows" if res.attention_permutation_max_abs_diff <= EXACT else "changes"


# --- page 3: the linear collapse -------------------------------------------------------------------

NONLINEAR = 0.01  # a best affine fit missing more than 1% of the output's spread has clearly failed


def one_matrix(res: Any) -> str:
    """"yes" when one d × d matrix (plus a bias) stands in for the layers: to rounding without an activation
    (collapse.Collapse's residual), within NONLINEAR of the output's spread with one (its best affine fit)."""
    if res.act == "none":
        return "yes" if res.max_abs_residual <= EXACT else "no"
    return "yes" if res.fit_relative_error <= NONLINEAR else "no"


def beyond_matrix(res: Any) -> str:
    """"yes" when the two layers compute something no single d × d matrix does: one_matrix's other side."""
    return "no" if one_matrix(res) == "yes" else "yes"


# --- page 4: the gated FFN -------------------------------------------------------------------------

def gated_linear(res: Any) -> str:
    """"yes" when one d × d matrix plus a bias stands in for the gated FFN: its best affine fit misses at most
    NONLINEAR of the output's spread (gated.Gated)."""
    return "yes" if res.gated_fit_error <= NONLINEAR else "no"


def compared(ours: float, theirs: float) -> str:
    """"fewer", "same" or "more": `ours` against `theirs` (the gated FFN's weights against the plain one's)."""
    return "same" if ours == theirs else "fewer" if ours < theirs else "more"


# A gated network counts as better (or worse) at a size when its RMSE is below 0.8× (above 1.25×) the
# plain one's: restarts of the same training differ by up to about that factor at these sizes.
BETTER = 0.8
WORSE = 1.25


def gate_outcome(plain: float, gate: float, floor: float) -> str:
    """"better", "worse" or "same" for one size: both below the floor (too small to see) is the same."""
    if plain <= floor and gate <= floor:
        return "same"
    if gate < BETTER * plain:
        return "better"
    return "worse" if gate > WORSE * plain else "same"


# --- page 5: the width sweep -----------------------------------------------------------------------

def gain(main: Any) -> float | None:
    """How many times lower the widest fit's RMSE is than the narrowest's (sweep.Sweep); None with one width, or
    where either fit is exact on the grid (its error is rounding: a ratio against it says nothing)."""
    fits = main.fits
    narrow, wide = fits[0], fits[-1]
    if len(fits) < 2 or narrow.exact_on_grid or wide.exact_on_grid or wide.rmse <= 0:
        return None
    return narrow.rmse / wide.rmse


RMSE_EDGES = (0.001, 0.01, 0.1)  # RMSE spans orders of magnitude: its order is asked, as bands between these


def rmse_band(fit: Any) -> str:
    """The band ("0" below 0.001 … "3" from 0.1) of a fit's RMSE on the grid, an exact fit's as 0."""
    rmse = 0.0 if fit.exact_on_grid else fit.rmse
    return str(sum(rmse >= edge for edge in RMSE_EDGES))


# --- page 6: key-value -----------------------------------------------------------------------------

def concentrates(res: Any) -> str | None:
    """"fewer" when training lowered the mean count of neurons for 90% of a key's output (over the keys that
    reach it both times), else "more"; None untrained or with no such key (keyvalue.Concentration)."""
    conc = res.concentration(0.9)
    if res.steps == 0 or conc.keys == 0:
        return None
    return "fewer" if conc.mean_after < conc.mean_before else "more"


# --- page 7: activation sparsity -------------------------------------------------------------------

MIN_CHANGE = 0.01  # a change of the active fraction smaller than this either way is flat (ui/verdicts/sparsity.py)


def direction(change: float) -> str:
    """"fell", "rose" or "flat" (a change smaller than MIN_CHANGE either way)."""
    if change <= -MIN_CHANGE:
        return "fell"
    return "rose" if change >= MIN_CHANGE else "flat"


def trained_change(run: Any) -> str | None:
    """What training did to the active fraction on its keys (sparsity.Training); None with no step taken."""
    return direction(run.active_train[-1] - run.active_train[0]) if run.steps[-1] > 0 else None


# --- page 8: the trained GPT -----------------------------------------------------------------------

def writes(attn: Sequence[float], ffn: Sequence[float]) -> str:
    """"ffn" when the FFNs' terms add up to more of the logit than attention's (the page's verdict's test)."""
    return "ffn" if sum(ffn) > sum(attn) else "attn"


@functools.cache
def kind_of(answer: str) -> frozenset[str]:
    """Every answer, in either language, of the relations `answer` answers: the words of its kind."""
    relations = {f.relation for f in corpus.FACTS if answer in (f.answer("en"), f.answer("ko"))}
    return frozenset(w for f in corpus.FACTS if f.relation in relations for w in (f.answer("en"), f.answer("ko")))


def said(top: str, answer: str | None) -> str | None:
    """"right", "kind" (another answer of the same relations) or "other" (no answer of that kind); None for a
    prompt without a known answer."""
    if answer is None:
        return None
    if top == answer:
        return "right"
    return "kind" if top in kind_of(answer) else "other"


# --- page 9: GPT surgery ---------------------------------------------------------------------------

CROSSES = 0.5  # the edit reaches the other language when at least half its prompts give the new answer


def crosses(res: Any) -> str | None:
    """"yes" when the other language's prompts of the edited fact now give its new answer (edit.Edit); None
    where the fact has no prompt in the other language."""
    if res.other_lang is None:
        return None
    share = res.other_lang[1]
    return "yes" if math.isfinite(share) and share >= CROSSES else "no"


def edit_size(res: Any) -> float | None:
    """‖ΔW‖ / ‖W₂‖: the rank-one change against the matrix it is added to; None for a zero matrix."""
    return res.delta_norm / res.weight_norm if res.weight_norm > 0 else None


def falls(base: Any, after: Any) -> str:
    """Which accuracy dropped more: "facts" (seen templates), "grammar" (template words) or "same" (ablation.Scores)."""
    fact_drop, grammar_drop = base.seen - after.seen, base.template - after.template
    if fact_drop > grammar_drop:
        return "facts"
    return "grammar" if grammar_drop > fact_drop else "same"


# --- page 10: mixture of experts -------------------------------------------------------------------

def position_wise(res: Any) -> str:
    """"yes" when the MoE layer still computes each token from that token alone: row by row and shuffled it gives
    the same outputs to rounding, and no influence lies off the diagonal (moe.MoEResult)."""
    alone = max(res.rowwise_max_abs_diff, res.permutation_max_abs_diff) <= EXACT and res.off_diagonal_fraction == 0
    return "yes" if alone else "no"
