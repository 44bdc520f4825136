"""Page 8's questions: take FFNs out (do facts or grammar fall further), edit a memory (does the other language
follow), sparsity from training (how many fire at a checkpoint). Plain numbers in, as the verdicts take them."""
from __future__ import annotations

from collections.abc import Sequence

from ui.lessons import Term
from ui.lessons import gpt as lessons
from ui.questions import Asked, Question, at

SECTION = "gptsurgery"
# Facts live in the FFNs, so surely facts fall further? With every FFN zeroed the grammar falls further.
FALLS = Question("questions.gptsurgery_falls", "choice", options=("facts", "grammar", "same"))
FACTS_AFTER = Question("questions.gptsurgery_facts_after", "number", lo=0, hi=100, tolerance=10,
                       unit="questions.unit_pct")
# One language's prompt edited: is the fact stored once for both languages, or once per language?
OTHER_LANG = Question("questions.gptsurgery_other_lang", "choice", options=("yes", "no"))
ACTIVE = Question("questions.gptsurgery_active", "number", lo=0, hi=100, tolerance=5, unit="questions.unit_pct")


def falls(seen: tuple[float, float], template: tuple[float, float]) -> str:
    """Which accuracy dropped more from (shipped, ablated): "facts", "grammar" or "same"."""
    fact_drop, grammar_drop = seen[0] - seen[1], template[0] - template[1]
    if fact_drop > grammar_drop:
        return "facts"
    return "grammar" if grammar_drop > fact_drop else "same"


def ablation(target: str, label: str, seen: tuple[float, float], template: tuple[float, float]) -> tuple[Asked, ...]:
    """seen, template: (shipped, ablated) accuracies, as the verdict takes them. Nothing to ask with nothing removed."""
    if target == "none":
        return ()
    verdict = lessons.ablation(target, label, seen, template)
    claims = {c.key: c for c in verdict.claims}
    settings = {"target": target}
    shown = {"target": Term(f"gptsurgery.target_{target}")} if target in ("ffn_all",) else {"target": label}
    grammar, facts = claims["gptsurgery.claim_grammar_holds"], claims["gptsurgery.claim_facts_fall"]
    return (
        at(SECTION, settings, FALLS, falls(seen, template), grammar.key, grammar.values, shown),
        at(SECTION, settings, FACTS_AFTER, 100 * seen[1], facts.key, facts.values, shown),
    )


def edit(country: str, lang: str, new: str, layer: int, method: str, other: str,
         other_lang: float | None, prompt: str) -> tuple[Asked, ...]:
    """other_lang: share of the other language's prompts giving the new answer after the edit (None: no such prompts)."""
    if other_lang is None:
        return ()
    settings = {"country": country, "lang": lang, "new": new, "layer": layer, "method": method}
    value = "yes" if other_lang >= 0.5 else "no"
    return (at(SECTION, settings, OTHER_LANG, value, "gptsurgery.claim_other_lang", {"answer": other, "value": other_lang},
               {"prompt": prompt, "new": new, "lang": Term(f"gpt.lang_{lang}"), "other": other}),)


def sparsity(step: int, start: Sequence[float], now: Sequence[float], log_gap: float | None) -> tuple[Asked, ...]:
    """Block 1's active fraction at the checkpoint on screen."""
    if not now:
        return ()
    claim = next(c for c in lessons.sparsity(step, start, now, log_gap).claims if c.key == "gptsurgery.claim_sparser")
    return (at(SECTION, {"step": step}, ACTIVE, 100 * now[0], claim.key, claim.values,
               {"step": step, "start": 100 * start[0] if start else 50.0}),)
