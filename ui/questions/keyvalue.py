"""Page 5's questions: how many neurons carry a key's output, how many pairs are recalled, whether training
concentrated the output."""
from __future__ import annotations

from ffn_core import keyvalue
from ui.questions import Asked, Question, at
from ui.verdicts import keyvalue as verdicts

SECTION = "keyvalue"
RECALL = Question("questions.keyvalue_recall", "number", lo=0, hi=100, tolerance=10, unit="questions.unit_pct")
# A fact in "a few neurons"? For one key the output is a sum over a large share of the layer.
CONCENTRATED = Question("questions.keyvalue_concentrated", "choice", options=("fewer", "more"))


def n90_question(m: int) -> Question:
    """Neurons for 90% of a key's output: within a tenth of the layer (at least two) counts."""
    return Question("questions.keyvalue_n90", "number", lo=1, hi=m, tolerance=max(2, m // 10))


def active_question(m: int) -> Question:
    """Neurons active for a key: within a tenth of the layer (at least two) counts."""
    return Question("questions.keyvalue_active", "number", lo=0, hi=m, tolerance=max(2, m // 10))


def ask(res: keyvalue.KeyValue, seed: int) -> tuple[Asked, ...]:
    after = res.trained
    settings = {"d": res.d_model, "m": res.d_ff, "n": res.n_keys, "steps": res.steps, "token": res.token,
                "seed": seed}
    verdict = verdicts.judge(res)
    claims = {c.key: c for c in verdict.claims}
    shown = {"m": res.d_ff, "n": res.n_keys, "steps": res.steps, "token": res.token}
    asked = []
    if after.n_for_90 is not None:
        asked.append(at(SECTION, settings, n90_question(res.d_ff), after.n_for_90, "questions.keyvalue_n90_why",
                        {"token": res.token, "n90": after.n_for_90, "m": res.d_ff, "active": after.active}, shown))
    asked.append(at(SECTION, settings, active_question(res.d_ff), after.active, "questions.keyvalue_active_why",
                    {"token": res.token, "m": res.d_ff, "active": after.active, "before": res.untrained.active},
                    shown))
    recall = claims.get("keyvalue.claim_recall") or claims["keyvalue.fact_untrained"]
    asked.append(at(SECTION, settings, RECALL, 100 * after.recall, recall.key, recall.values, shown))
    concentration = claims.get("keyvalue.claim_concentration")
    if concentration is not None:
        asked.append(at(SECTION, settings, CONCENTRATED, "fewer" if concentration.ok else "more", concentration.key,
                        concentration.values, shown))
    return tuple(asked)
