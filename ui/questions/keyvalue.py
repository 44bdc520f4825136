"""Page 6's questions: how many neurons carry a key's output, how many pairs the layer recalls, whether training
concentrated the output."""
from __future__ import annotations

from ffn_core import keyvalue
from ui.questions import Asked, Question, at, percent
from ui.registry import rules

SECTION = "keyvalue"
# Can m neurons hold more than m pairs? "One neuron per fact" says no; a layer of 32 recalls most of 128.
RECALL = percent("questions.keyvalue_recall", 10, "recall", cases=("all", "some", "beyond"))
# A fact in "a few neurons"? For one key the output is a sum over a large share of the layer.
CONCENTRATED = Question("questions.keyvalue_concentrated", "choice", options=("fewer", "more"), measure="concentrates")


def n90_question(m: int) -> Question:
    """Neurons for 90% of a key's output. The count spans orders of magnitude (1 to m), and "one neuron per
    fact" is the misconception asked about: a guess counts within a factor of 1.5 (or one neuron)."""
    return Question("questions.keyvalue_n90", "number", lo=1, hi=m, tolerance=1, factor=1.5, cases=("one",), measure="n90")


def active_question(m: int) -> Question:
    """Neurons active for a key. "A fact lives in a few neurons" guesses a handful; about half the layer is on,
    so a guess counts within 15% of the count (at least two neurons)."""
    return Question("questions.keyvalue_active", "number", lo=0, hi=m, tolerance=2, relative=0.15,
                    cases=("wide", "untrained", "untrained_wide"), measure="active")


# From this share of the layer on, the neurons a key switches on are called a large share, not a few.
WIDE = 0.2


def active_case(active: int, m: int, steps: int) -> str:
    """"untrained" before any step, "wide" when at least WIDE of the layer is on ("untrained_wide" both)."""
    parts = (["untrained"] if steps == 0 else []) + (["wide"] if active >= WIDE * m else [])
    return "_".join(parts)


def recall_case(recalled: int, n: int, m: int) -> str:
    """"beyond" when more pairs came back than there are neurons; else "all" or "some"."""
    if recalled > m:
        return "beyond"
    return "all" if recalled == n else "some"


def ask(res: keyvalue.KeyValue, seed: int) -> tuple[Asked, ...]:
    after = res.trained
    settings = {"d": res.d_model, "m": res.d_ff, "n": res.n_keys, "steps": res.steps, "token": res.token,
                "seed": seed}
    shown = {"m": res.d_ff, "n": res.n_keys, "steps": res.steps, "token": res.token}
    asked = []
    if after.n_for_90 is not None:
        asked.append(at(SECTION, settings, n90_question(res.d_ff), after.n_for_90, {"token": res.token, "m": res.d_ff},
                        shown, case="one" if after.n_for_90 == 1 else ""))
    asked.append(at(SECTION, settings, active_question(res.d_ff), after.active,
                    {"token": res.token, "m": res.d_ff, "steps": res.steps, "before": res.untrained.active}, shown,
                    case=active_case(after.active, res.d_ff, res.steps)))
    recalled = round(after.recall * res.n_keys)
    asked.append(at(SECTION, settings, RECALL, 100 * after.recall, {**shown, "recalled": recalled}, shown,
                    case=recall_case(recalled, res.n_keys, res.d_ff)))
    conc, concentrates = res.concentration(0.9), rules.concentrates(res)
    if concentrates is not None:  # trained, and some key reaches 90% both times
        asked.append(at(SECTION, settings, CONCENTRATED, concentrates,
                        {"keys": conc.keys, "before": conc.mean_before, "after": conc.mean_after}, shown))
    return tuple(asked)
