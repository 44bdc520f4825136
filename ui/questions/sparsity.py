"""Page 7's questions: what share of neurons fire at random init, how selective the most selective neuron is,
what training did to the active fraction."""
from __future__ import annotations

from collections.abc import Mapping

from ffn_core import sparsity
from ui.questions import Asked, Question, at, percent
from ui.registry import rules
from ui.verdicts import sparsity as verdicts

SECTION = "sparsity"
# "Neurons fire sparsely" is true of trained models; at random init about half fire.
HALF = percent("questions.sparsity_half", 5, "active", cases=("half", "off"))
# "Neurons are clean rules from the start": a rule fires for a few tokens. At init even the most selective
# neuron fires for about a third of them.
SELECTIVE = percent("questions.sparsity_selective", 10, "least_active", cases=("broad", "narrow"))
TRAINED = Question("questions.sparsity_trained", "choice", options=("fell", "flat", "rose"), measure="trained_change")
# A neuron firing for fewer tokens than this is selective, as a rule that picks out a few would be.
RULE = 0.1


def at_init(start: sparsity.AtInit, seed: int) -> tuple[Asked, ...]:
    settings = {"d": start.d_model, "m": start.d_ff, "act": start.act, "init": start.init, "bias": start.bias,
                "seed": seed}
    shown = {"m": start.d_ff, "tokens": start.n_tokens}
    mean = start.mean_active_fraction
    least, most = min(start.per_neuron), max(start.per_neuron)
    return (
        at(SECTION, settings, HALF, 100 * mean, shown, shown,
           case="half" if verdicts.HALF[0] <= mean <= verdicts.HALF[1] else "off"),
        at(SECTION, settings, SELECTIVE, 100 * least, {**shown, "most": most, "rule": RULE}, shown,
           case="broad" if least >= RULE else "narrow"),
    )


def training(start: sparsity.AtInit, run: sparsity.Training, act: str,
             settings: Mapping[str, object]) -> tuple[Asked, ...]:
    """settings: every control the run depends on (d, m, steps, task, act, init, bias, seed)."""
    steps, change = run.steps[-1], rules.trained_change(run)
    if change is None:  # no step taken
        return ()
    before, after = run.active_train[0], run.active_train[-1]
    return (at(SECTION, settings, TRAINED, change,
               {"steps": steps, "n": run.n_keys, "before": before, "after": after}, {"steps": steps, "n": run.n_keys}),)
