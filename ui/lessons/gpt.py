"""Verdicts of the trained-GPT pages: pure functions from measured numbers to claim keys, ✓/✗ and a takeaway key.

Each function returns a Verdict of locale keys; the page formats them with the numbers it shows.
ok is True (✓) or False (✗) for a measured claim, None for a fact that cannot fail.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SUM_TOLERANCE = 1e-9  # float64 rounding of a sum of ~10 terms of size ~10 stays near 1e-14
KNOWS = 0.9  # "the model knows the facts it read": seen accuracy at least this
GENERALISES = 0.5  # held-out prompts answered at least this often
FEW_NEURONS = 0.5  # the top neurons carry at least this share of the FFNs' push
TWO_THIRDS_SLACK = 0.01  # the biases move a block's FFN share off 2/3 by less than this
LOG_TOLERANCE = 1e-3  # recomputed vs logged active fraction (float32 sums, another thread count)
LOCAL = 0.01  # an edit is local if it changes at most this share of the other facts' prompts
SEVERE, NOTICEABLE = 0.5, 0.1  # relative drop of accuracy: most lost / some lost / little lost


@dataclass(frozen=True)
class Verdict:
    claims: tuple[tuple[str, bool | None], ...]  # (locale key, ok)
    takeaway: str  # locale key


def ask(seen: float, heldout: float, correct: bool | None) -> Verdict:
    """Does the model know what it read (seen), and what it never read in that form (held-out)?"""
    knows = seen >= KNOWS
    generalises = not math.isnan(heldout) and heldout >= GENERALISES
    claims: list[tuple[str, bool | None]] = [("gpt.claim_seen", knows), ("gpt.claim_heldout", generalises)]
    if correct is not None:
        claims.append(("gpt.claim_prompt", correct))
    if knows and generalises:
        takeaway = "gpt.takeaway_ask_generalises"
    elif knows:
        takeaway = "gpt.takeaway_ask_memorised"
    else:
        takeaway = "gpt.takeaway_ask_weak"
    return Verdict(tuple(claims), takeaway)


def layers(max_abs_residual: float, attn_total: float, ffn_total: float) -> Verdict:
    """The attribution adds up; which kind of sublayer wrote more of the answer's logit."""
    adds_up = math.isfinite(max_abs_residual) and max_abs_residual <= SUM_TOLERANCE
    ffn_more = ffn_total > attn_total
    takeaway = "gpt.takeaway_layers_ffn" if ffn_more else "gpt.takeaway_layers_attn"
    return Verdict((("gpt.claim_sum", adds_up), ("gpt.claim_ffn_writes", ffn_more)), takeaway)


def neurons(top_share: float) -> Verdict:
    """A few neurons carry the FFNs' push on the answer, or it is spread over many."""
    few = math.isfinite(top_share) and top_share >= FEW_NEURONS
    return Verdict((("gpt.claim_few", few),), "gpt.takeaway_neurons_few" if few else "gpt.takeaway_neurons_spread")


def split(ffn_share_of_blocks: float) -> Verdict:
    """Inside each block the FFN holds about 2/3 of the parameters, as page 1 counts."""
    near = abs(ffn_share_of_blocks - 2 / 3) <= TWO_THIRDS_SLACK
    return Verdict((("gpt.claim_two_thirds", near),), "gpt.takeaway_split")


def _severity(before: float, after: float) -> str:
    if not before > 0:
        return "little"
    drop = (before - after) / before
    return "most" if drop >= SEVERE else "some" if drop >= NOTICEABLE else "little"


def ablation(target: str, seen: tuple[float, float], template: tuple[float, float]) -> Verdict:
    """seen, template: (shipped, ablated) accuracies. Did the facts fall, and did the grammar hold better?"""
    if target == "none":
        return Verdict((), "gptsurgery.takeaway_none")
    part = "attn" if target.startswith("attn") else "ffn"
    fact_drop = seen[0] - seen[1]
    grammar_drop = template[0] - template[1]
    claims = (
        ("gptsurgery.claim_facts_fall", seen[0] > 0 and fact_drop >= SEVERE * seen[0]),
        ("gptsurgery.claim_grammar_holds", grammar_drop < fact_drop),
    )
    return Verdict(claims, f"gptsurgery.takeaway_{part}_{_severity(*seen)}")


def edit(rank: int, edited: float, other_lang: float | None, changed_share: float, shipped_unchanged: bool) -> Verdict:
    """edited, other_lang: shares answering the new answer after the edit; changed_share: other facts' prompts changed."""
    took = edited >= 0.5
    local = changed_share <= LOCAL
    claims: list[tuple[str, bool | None]] = [
        ("gptsurgery.claim_rank", rank == 1),
        ("gptsurgery.claim_took", took),
        ("gptsurgery.claim_local", local),
    ]
    crosses = other_lang is not None and other_lang >= 0.5
    if other_lang is not None:
        claims.append(("gptsurgery.claim_other_lang", crosses))
    claims.append(("gptsurgery.claim_unchanged", shipped_unchanged))
    if not took:
        takeaway = "gptsurgery.takeaway_edit_failed"
    elif not local:
        takeaway = "gptsurgery.takeaway_edit_spill"
    elif crosses:
        takeaway = "gptsurgery.takeaway_edit_crosses"
    else:
        takeaway = "gptsurgery.takeaway_edit_stays"
    return Verdict(tuple(claims), takeaway)


def sparsity(start: Sequence[float], now: Sequence[float], log_gap: float | None) -> Verdict:
    """start, now: per-block active fraction at the first checkpoint and at the chosen one."""
    claims: list[tuple[str, bool | None]] = []
    if log_gap is not None:
        claims.append(("gptsurgery.claim_log", log_gap <= LOG_TOLERANCE))
    fell = [b < a for a, b in zip(start, now)]
    claims.append(("gptsurgery.claim_sparser", bool(fell) and all(fell)))
    if fell and all(fell):
        takeaway = "gptsurgery.takeaway_sparse_all"
    elif any(fell):
        takeaway = "gptsurgery.takeaway_sparse_some"
    else:
        takeaway = "gptsurgery.takeaway_sparse_none"
    return Verdict(tuple(claims), takeaway)
