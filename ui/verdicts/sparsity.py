"""The activation-sparsity page's verdict: about half fire at init; what training did, on each set of tokens.

A change in the active fraction counts as real from rules.MIN_CHANGE. Measured at the page's default setting
(d = 64, m = 256, 128 keys, seeds 0-5): the change on the training keys spreads by 0.4-0.6 percentage
points from seed to seed (100 or 400 steps, relu or gelu, either task), so a fall of one point is more
than twice that spread; below it the page says the fraction barely moved.
"""
from __future__ import annotations

from ffn_core import sparsity
from ui.base.text import Term
from ui.registry import rules
from ui.verdicts import Claim, Verdict

HALF = (0.45, 0.55)


def judge_init(start: sparsity.AtInit) -> Verdict:
    """The claim of the init section: about half the neurons fire (the seed measured 0.503)."""
    mean = start.mean_active_fraction
    return Verdict((Claim("sparsity.claim_half", {"value": mean}, ok=HALF[0] <= mean <= HALF[1]),), "")


def judge(start: sparsity.AtInit, run: sparsity.Training, act: str, spread: sparsity.SeedSpread | None = None) -> Verdict:
    """The takeaway of the training section, for the init measurement and the training run on screen, and
    (given the same setting's runs over seeds) what holds across seeds rather than for this one."""
    mean = start.mean_active_fraction
    steps = run.steps[-1]
    values: dict[str, object] = {"value": mean, "always_on": start.always_on, "dead": start.dead,
                                 "steps": steps, "act": Term(f"sparsity.act_{act}")}
    if steps == 0:
        return Verdict((), "sparsity.takeaway_untrained", values)
    train_change = run.active_train[-1] - run.active_train[0]
    fresh_change = run.active_fresh[-1] - run.active_fresh[0]
    values.update(before=run.active_train[0], after=run.active_train[-1], points=abs(100 * train_change),
                  fresh0=run.active_fresh[0], fresh1=run.active_fresh[-1], fresh_points=abs(100 * fresh_change))
    keys = [f"sparsity.takeaway_train_{rules.direction(train_change)}",
            f"sparsity.takeaway_fresh_{rules.direction(fresh_change)}"]
    if spread is not None:
        keys += across_seeds(spread, values)
    keys.append("sparsity.takeaway_reference_relu" if act == "relu" else "sparsity.takeaway_reference_smooth")
    return Verdict((), " ".join(keys), values)


def across_seeds(spread: sparsity.SeedSpread, values: dict[str, object]) -> list[str]:
    """The sentences on the same setting's runs over seeds: their range, how many fell, and whether that holds."""
    moves = [rules.direction(c) for c in spread.change_train]
    counts = {d: moves.count(d) for d in ("fell", "flat", "rose")}
    values.update(first=spread.seeds[0], last=spread.seeds[-1], runs=len(moves),
                  lo=100 * min(spread.change_train), hi=100 * max(spread.change_train),
                  seeds_fell=counts["fell"], seeds_flat=counts["flat"], seeds_rose=counts["rose"])
    same = [d for d, n in counts.items() if n == len(moves)]
    return ["sparsity.takeaway_seeds", f"sparsity.takeaway_seeds_all_{same[0]}" if same else "sparsity.takeaway_seeds_vary"]
