"""Page 3's questions: the rank of W₂W₁, whether widening buys anything without the activation, the best linear
fit with one, the rank of a linear stack."""
from __future__ import annotations

import math

from ffn_core import collapse
from ui.base.text import Term
from ui.questions import Asked, Question, at
from ui.verdicts import collapse as verdicts

SECTION = "collapse"
RANK = Question("questions.collapse_rank", "number", lo=0, hi=1024, tolerance=0)
# Four times wider must compute more? Without the activation the two layers are still one d × d matrix.
WIDE = Question("questions.collapse_wide", "choice", options=("yes", "no"))
LINEAR = Question("questions.collapse_linear", "choice", options=("yes", "no"))
FIT = Question("questions.collapse_fit", "number", lo=0, hi=200, tolerance=10, unit="questions.unit_pct")
STACK_RANK = Question("questions.collapse_stack_rank", "number", lo=0, hi=1024, tolerance=0)


def _settings(res: collapse.Collapse) -> dict[str, object]:
    return {"d": res.d_model, "m": res.d_ff, "act": res.act, "bias": res.bias, "seed": res.seed}


def ask(res: collapse.Collapse) -> tuple[Asked, ...]:
    settings = _settings(res)
    verdict = verdicts.judge(res)
    claims = {c.key: c for c in verdict.claims}
    shown = {"d": res.d_model, "m": res.d_ff, "ratio": res.d_ff / res.d_model, "act": Term(f"collapse.act_{res.act}")}
    if res.act == "none":
        rank, replace = claims["collapse.fact_rank"], claims["collapse.claim_replace"]
        more = "no" if replace.ok else "yes"
        return (
            at(SECTION, settings, WIDE, more, "questions.collapse_wide_why", verdict.takeaway_values, shown),
            at(SECTION, settings, RANK, res.rank, rank.key, rank.values, shown),
        )
    nonlinear = claims["collapse.claim_nonlinear"]
    asked = [at(SECTION, settings, LINEAR, "no" if nonlinear.ok else "yes", nonlinear.key, nonlinear.values,
                shown)]
    if math.isfinite(res.fit_relative_error) and 100 * res.fit_relative_error <= FIT.hi:
        asked.append(at(SECTION, settings, FIT, 100 * res.fit_relative_error, nonlinear.key, nonlinear.values,
                        shown))
    return tuple(asked)


def stack(res: collapse.Stack, bias: bool) -> tuple[Asked, ...]:
    settings = {"d": res.d_model, "widths": tuple(res.widths), "bias": bias, "seed": res.seed}
    verdict = verdicts.judge_stack(res)
    fact = next(c for c in verdict.claims if c.key == "collapse.fact_stack_rank")
    shown = {"layers": len(res.widths) + 1, "d": res.d_model, "narrow": min(res.widths)}
    return (at(SECTION, settings, STACK_RANK, res.rank, fact.key, fact.values, shown),)
