"""The `trained_gpt` section of `python -m ffn_core.report`: what the shipped weights do."""
from __future__ import annotations

import functools
from typing import Any

from ffn_core.gpt import ablation, corpus, edit, evaluate, progress, split, weights

# The report's fixed example edit, the surgery page's default: France's capital becomes Rome, written
# into block 1's W2 (ROME's update) from the English prompt "The capital of France is".
EDIT = {"country": "France", "relation": "capital", "lang": "en", "template": "capital.en.0",
        "new_answer": "Rome", "layer": 1, "method": "covariance", "scope": "template"}


def example_edit(model: Any) -> edit.Edit:
    """The report's fixed edit (EDIT), on a copy of `model`."""
    return edit.edit(model, **EDIT)


def report(seed: int = 0) -> dict[str, Any]:
    """The trained_gpt keys of the report contract; the shipped weights involve no randomness, so `seed` changes nothing."""
    del seed
    return dict(_measure())


# The numbers depend only on the shipped files: one measurement per process serves every seed.
@functools.cache
def _measure() -> dict[str, Any]:
    model = weights.load()
    parts = split.split(model)
    base = ablation.scores(model)
    no_ffn = ablation.ablate(model, "ffn_all", base)
    # The first checkpoint measured anew; the final one's fraction comes with the scores' corpus pass.
    start = evaluate.active_fraction(weights.load(weights.steps()[0]))
    moved = example_edit(model)
    # From the training log (every 100 steps and at each checkpoint), not recomputed: most logged steps
    # have no checkpoint on disk. The tests check the log against the checkpoints that are shipped.
    curve = progress.curve(weights.log(), weights.steps())
    seen_90 = curve.first_at_least("seen")
    return {
        "d_model": parts.d_model,
        "d_ff": parts.d_ff,
        "n_layers": parts.n_layers,
        "params": parts.total,
        "ffn_share": parts.ffn_share,
        "facts": len(corpus.FACTS),
        "fact_accuracy": base.seen,
        "heldout_accuracy": base.heldout,
        "fact_accuracy_no_ffn": no_ffn.seen,
        "template_accuracy": base.template,
        "template_accuracy_no_ffn": no_ffn.template,
        "active_fraction_init": list(start),
        "active_fraction_final": list(base.active),
        "edit_success": moved.success,
        "edit_other_facts_changed": moved.other_facts_changed,
        "seen_90_step": seen_90,
        "heldout_at_seen_90": None if seen_90 is None else curve.at("heldout", seen_90),
    }
