"""Page 6's questions: what share of neurons fire at random init, how many never fire, what training did to it."""
from __future__ import annotations

from collections.abc import Mapping

from ffn_core import sparsity
from ui.questions import Asked, Question, at
from ui.verdicts import sparsity as verdicts

SECTION = "sparsity"
# "Neurons fire sparsely" is true of trained models; at random init about half fire.
HALF = Question("questions.sparsity_half", "number", lo=0, hi=100, tolerance=5, unit="questions.unit_pct")
TRAINED = Question("questions.sparsity_trained", "choice", options=("fell", "flat", "rose"))


def dead_question(m: int) -> Question:
    """Neurons that fire for none of the tokens: within 2% of the layer (at least one) counts."""
    return Question("questions.sparsity_dead", "number", lo=0, hi=m, tolerance=max(1, m // 50))


def at_init(start: sparsity.AtInit, seed: int) -> tuple[Asked, ...]:
    settings = {"d": start.d_model, "m": start.d_ff, "act": start.act, "init": start.init, "bias": start.bias,
                "seed": seed}
    half = verdicts.judge_init(start).claims[0]
    shown = {"m": start.d_ff, "tokens": start.n_tokens}
    return (
        at(SECTION, settings, HALF, 100 * start.mean_active_fraction, half.key, half.values, shown),
        at(SECTION, settings, dead_question(start.d_ff), start.dead, "questions.sparsity_dead_why",
           {"dead": start.dead, "always_on": start.always_on, "m": start.d_ff, "tokens": start.n_tokens}, shown),
    )


def training(start: sparsity.AtInit, run: sparsity.Training, act: str,
             settings: Mapping[str, object]) -> tuple[Asked, ...]:
    """settings: every control the run depends on (d, m, steps, task, act, init, bias, seed)."""
    steps = run.steps[-1]
    if steps == 0:
        return ()
    verdict = verdicts.judge(start, run, act)
    direction = verdicts.direction(run.active_train[-1] - run.active_train[0])
    return (at(SECTION, settings, TRAINED, direction, verdict.takeaway.split()[0], verdict.takeaway_values,
               {"steps": steps, "n": run.n_keys}),)
