"""The gated-FFN page's questions: does it collapse without its activation, how far a linear map misses with one,
how many weights at 8/3·d, how many units the gate turns down, and whether the gate buys accuracy at equal weights."""
from __future__ import annotations

import math

from ffn_core import gated
from ffn_core.sweep import gated as gated_sweep
from ui.base.text import Term
from ui.questions import Asked, Question, at, percent
from ui.registry import rules

SECTION = "gated"
LINEAR = Question("questions.gated_linear", "choice", options=("yes", "no"), measure="one_matrix")
FIT = Question("questions.gated_fit", "number", lo=0, hi=200, tolerance=10, unit="questions.unit_pct", measure="fit_error")
WEIGHTS = Question("questions.gated_weights", "choice", options=("fewer", "same", "more"), measure="weights_vs_plain")
DOWN = percent("questions.gated_down", 10, "turned_down")
WIDTH = Question("questions.gated_width", "choice", options=("better", "same", "worse"), measure="gated_vs_plain")


def ask(res: gated.Gated) -> tuple[Asked, ...]:
    settings = {"d": res.d_model, "act": res.act, "token": res.token, "seed": res.seed}
    shown = {"d": res.d_model, "m": res.d_ff, "m4": 4 * res.d_model, "act": Term(f"gated.act_{res.act}"),
             "token": res.token}
    asked = []
    if res.act == "none":
        asked.append(at(SECTION, settings, LINEAR, rules.gated_linear(res),
                        {"error": res.gated_fit_error, "residual": res.plain_collapse_residual}, shown))
    elif math.isfinite(res.gated_fit_error) and 100 * res.gated_fit_error <= FIT.hi:
        asked.append(at(SECTION, settings, FIT, 100 * res.gated_fit_error,
                        {"act": Term(f"gated.act_{res.act}"), "plain_error": res.plain_fit_error}, shown))
    asked.append(at(SECTION, settings, WEIGHTS, rules.compared(res.gated_params, res.plain_params),
                    {"gated": res.gated_params, "plain": res.plain_params, "m": res.d_ff, "m4": 4 * res.d_model}, shown))
    asked.append(at(SECTION, settings, DOWN, 100 * res.gate("silu").turned_down,
                    {"m": res.d_ff, "active": res.relu_active, "mean_down": res.gate("silu").mean_turned_down,
                     "tokens": gated.N_TOKENS}, shown))
    return tuple(asked)


def width(res: gated_sweep.GatedSweep) -> tuple[Asked, ...]:
    """At the largest pair of equal weight counts: better, the same or worse with the gate."""
    settings = {"target": res.target, "act": res.act, "seed": res.seed, "sizes": tuple(f.width for f in res.plain)}
    plain, gate = res.plain[-1], res.gated[-1]
    # `weights`: the index of the measure asked at (the largest equal weight count), as a teacher's `where` names it.
    shown = {"target": res.label, "params": plain.params, "weights": plain.params, "plain_width": plain.width,
             "gated_width": gate.width}
    return (at(SECTION, settings, WIDTH, rules.gate_outcome(plain.rmse, gate.rmse, res.floor),
               {"params": plain.params, "plain_rmse": plain.rmse, "gated_rmse": gate.rmse}, shown),)
