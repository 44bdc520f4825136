"""Page 3's questions: whether widening buys anything without the activation, the rank of W₂W₁, whether one
matrix can stand in for the layers with an activation and how far it misses, the rank of a linear stack."""
from __future__ import annotations

import math

from ffn_core import collapse
from ui.base.text import Term
from ui.questions import Asked, Question, at
from ui.registry import rules

SECTION = "collapse"
# "The expansion alone adds power": four times wider must compute more? Without the activation the two layers
# are still one d × d matrix. The options say nothing of why, so neither gives the answer away.
WIDE = Question("questions.collapse_wide", "choice", options=("yes", "no"), measure="beyond_matrix")
RANK = Question("questions.collapse_rank", "number", lo=0, hi=1024, tolerance=0, measure="rank")
LINEAR = Question("questions.collapse_linear", "choice", options=("yes", "no"), measure="one_matrix")
FIT = Question("questions.collapse_fit", "number", lo=0, hi=200, tolerance=10, unit="questions.unit_pct", measure="fit_error")
STACK_RANK = Question("questions.collapse_stack_rank", "number", lo=0, hi=1024, tolerance=0, measure="stack_rank")


def _settings(res: collapse.Collapse) -> dict[str, object]:
    return {"d": res.d_model, "m": res.d_ff, "act": res.act, "bias": res.bias, "seed": res.seed}


def ask(res: collapse.Collapse) -> tuple[Asked, ...]:
    settings = _settings(res)
    shown = {"d": res.d_model, "m": res.d_ff, "ratio": res.d_ff / res.d_model, "act": Term(f"collapse.act_{res.act}")}
    if res.act == "none":
        because = {"d": res.d_model, "m": res.d_ff, "rank": res.rank, "bound": res.rank_bound,
                   "residual": res.max_abs_residual}
        return (
            at(SECTION, settings, WIDE, rules.beyond_matrix(res), because, shown),
            at(SECTION, settings, RANK, res.rank, because, shown),
        )
    because = {"error": res.fit_relative_error, "act": Term(f"collapse.act_{res.act}")}
    asked = [at(SECTION, settings, LINEAR, rules.one_matrix(res), because, shown)]
    if math.isfinite(res.fit_relative_error) and 100 * res.fit_relative_error <= FIT.hi:
        asked.append(at(SECTION, settings, FIT, 100 * res.fit_relative_error, because, shown))
    return tuple(asked)


def stack(res: collapse.Stack, bias: bool) -> tuple[Asked, ...]:
    settings = {"d": res.d_model, "widths": tuple(res.widths), "bias": bias, "seed": res.seed}
    shown = {"layers": len(res.widths) + 1, "d": res.d_model, "narrow": min(res.widths)}
    return (at(SECTION, settings, STACK_RANK, res.rank, {**shown, "bound": res.rank_bound}, shown),)
