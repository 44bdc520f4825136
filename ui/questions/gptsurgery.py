"""Page 8's questions: take FFNs out (do facts or grammar fall further), edit a memory (does the other language
follow), sparsity from training (how many fire at a checkpoint). The same inputs as the page's verdicts."""
from __future__ import annotations

from collections.abc import Sequence

from ffn_core.gpt.ablation import Scores
from ffn_core.gpt.edit import Edit
from ui.base.text import Term
from ui.questions import Asked, Question, at
from ui.verdicts import gpt as verdicts

SECTION = "gptsurgery"
# Facts live in the FFNs, so surely facts fall further? With every FFN zeroed the grammar falls further.
FALLS = Question("questions.gptsurgery_falls", "choice", options=("facts", "grammar", "same"))
FACTS_AFTER = Question("questions.gptsurgery_facts_after", "number", lo=0, hi=100, tolerance=10,
                       unit="questions.unit_pct")
# One language's prompt edited: is the fact stored once for both languages, or once per language?
OTHER_LANG = Question("questions.gptsurgery_other_lang", "choice", options=("yes", "no"))
ACTIVE = Question("questions.gptsurgery_active", "number", lo=0, hi=100, tolerance=5, unit="questions.unit_pct")


def falls(shipped: Scores, ablated: Scores) -> str:
    """Which accuracy dropped more: "facts" (seen templates), "grammar" (template words) or "same"."""
    fact_drop, grammar_drop = shipped.seen - ablated.seen, shipped.template - ablated.template
    if fact_drop > grammar_drop:
        return "facts"
    return "grammar" if grammar_drop > fact_drop else "same"


def ablation(target: str, label: str, shipped: Scores, ablated: Scores) -> tuple[Asked, ...]:
    """label: the target as the page names it. Nothing to ask with nothing removed."""
    if target == "none":
        return ()
    claims = {c.key: c for c in verdicts.ablation(target, label, shipped, ablated).claims}
    grammar, facts = claims["gptsurgery.claim_grammar_holds"], claims["gptsurgery.claim_facts_fall"]
    settings, shown = {"target": target}, {"target": label}
    return (
        at(SECTION, settings, FALLS, falls(shipped, ablated), grammar.key, grammar.values, shown),
        at(SECTION, settings, FACTS_AFTER, 100 * ablated.seen, facts.key, facts.values, shown),
    )


def edit(res: Edit, prompt: str) -> tuple[Asked, ...]:
    """prompt: the edited prompt's words as the page shows them. Asked only when the other language has prompts."""
    if res.other_lang is None:
        return ()
    claim = next(c for c in verdicts.edit(res, prompt, True).claims if c.key == "gptsurgery.claim_other_lang")
    settings = {"country": res.country, "lang": res.lang, "new": res.new_answer, "layer": res.layer,
                "method": res.method}
    return (at(SECTION, settings, OTHER_LANG, "yes" if claim.ok else "no", claim.key, claim.values,
               {"prompt": prompt, "new": res.new_answer, "lang": Term(f"gpt.lang_{res.lang}"),
                "other": res.new_answer_other}),)


def sparsity(step: int, start: Sequence[float], now: Sequence[float], log_gap: float | None) -> tuple[Asked, ...]:
    """Block 1's active fraction at the checkpoint on screen."""
    if not now:
        return ()
    claim = next(c for c in verdicts.sparsity(step, start, now, log_gap).claims if c.key == "gptsurgery.claim_sparser")
    return (at(SECTION, {"step": step}, ACTIVE, 100 * now[0], claim.key, claim.values,
               {"step": step, "start": 100 * start[0] if start else 50.0}),)
