"""Page 9's questions: take FFNs out (do facts or grammar fall further, how many facts stay), edit a memory (does
the other language follow, how large is a rank-one edit). The same inputs as the page's verdicts."""
from __future__ import annotations

import math

from ffn_core.gpt.ablation import Scores
from ffn_core.gpt.edit import Edit
from ui.base.text import Term
from ui.questions import Asked, Question, at, percent
from ui.registry import rules
from ui.verdicts import gpt as verdicts

SECTION = "gptsurgery"
# Facts live in the FFNs, so surely facts fall further? With every FFN zeroed the grammar falls further.
FALLS = Question("questions.gptsurgery_falls", "choice", options=("facts", "grammar", "same"), measure="falls")
FACTS_AFTER = percent("questions.gptsurgery_facts_after", 10, "facts_after", cases=("fell", "held", "kept"))
# One language's prompt edited: is the fact stored once for both languages, or once per language?
OTHER_LANG = Question("questions.gptsurgery_other_lang", "choice", options=("yes", "no"), measure="other_lang")
# "A rank-one edit is a tiny nudge": at the default it is about as large as the matrix it is added to.
# A ratio of norms spans orders of magnitude, so a guess counts within a factor of 2.
EDIT_SIZE = Question("questions.gptsurgery_edit_size", "number", lo=0, hi=1000, factor=2, cases=("large", "small"),
                     measure="edit_size")
# From this ratio up, the change is called as large as the matrix (half its norm or more).
LARGE = 0.5


def facts_case(shipped: Scores, ablated: Scores) -> str:
    """"fell" (at least half the facts lost, the verdict's test), "held" (some lost), "kept" (none lost)."""
    drop = shipped.seen - ablated.seen
    if drop <= 0:
        return "kept"
    return "fell" if drop >= verdicts.SEVERE * shipped.seen else "held"


def ablation(target: str, label: str, shipped: Scores, ablated: Scores) -> tuple[Asked, ...]:
    """label: the target as the page names it. Nothing to ask with nothing removed."""
    if target == "none":
        return ()
    settings, shown = {"target": target}, {"target": label}
    numbers = {"target": label, "before": shipped.seen, "after": ablated.seen, "t_before": shipped.template,
               "t_after": ablated.template, "facts": 100 * (shipped.seen - ablated.seen),
               "grammar": 100 * (shipped.template - ablated.template)}
    return (
        at(SECTION, settings, FALLS, rules.falls(shipped, ablated), numbers, shown),
        at(SECTION, settings, FACTS_AFTER, 100 * ablated.seen, numbers, shown, case=facts_case(shipped, ablated)),
    )


def edit(res: Edit, prompt: str) -> tuple[Asked, ...]:
    """prompt: the edited prompt's words as the page shows them."""
    settings = {"country": res.country, "lang": res.lang, "new": res.new_answer, "layer": res.layer,
                "method": res.method}
    shown = {"prompt": prompt, "new": res.new_answer, "lang": Term(f"gpt.lang_{res.lang}"),
             "other": res.new_answer_other, "layer": res.layer}
    asked = []
    crosses = rules.crosses(res)
    if crosses is not None and res.other_lang is not None:
        asked.append(at(SECTION, settings, OTHER_LANG, crosses,
                        {"other": res.new_answer_other, "value": res.other_lang[1]}, shown))
    ratio = rules.edit_size(res)
    if ratio is not None and math.isfinite(ratio) and ratio <= EDIT_SIZE.hi:
        asked.append(at(SECTION, settings, EDIT_SIZE, ratio,
                        {"delta": res.delta_norm, "weight": res.weight_norm, "layer": res.layer}, shown,
                        case="large" if ratio >= LARGE else "small"))
    return tuple(asked)
