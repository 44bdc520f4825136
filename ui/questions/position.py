"""Page 2's questions: how much the FFN mixes tokens, how much attention does, and whether shuffling moves attention."""
from __future__ import annotations

from ffn_core import position
from ui.questions import Asked, Question, at
from ui.verdicts import position as verdicts

SECTION = "position"
FFN_OFF = Question("questions.position_ffn_off", "number", lo=0, hi=100, tolerance=1, unit="questions.unit_pct")
ATTENTION_OFF = Question("questions.position_attention_off", "number", lo=0, hi=100, tolerance=10,
                         unit="questions.unit_pct")
# Attention mixes tokens, so shuffling them surely changes what it computes? Without positions it only
# shuffles its outputs the same way; with the causal mask it does change them.
SHUFFLE = Question("questions.position_shuffle", "choice", options=("follows", "changes"))


def shuffle(res: position.PositionWise) -> str:
    """"follows": attention's outputs for shuffled tokens are its outputs shuffled (to rounding); else "changes"."""
    return "follows" if res.attention_permutation_max_abs_diff <= verdicts.EXACT else "changes"


def ask(res: position.PositionWise) -> tuple[Asked, ...]:
    settings = {"n": res.n_tokens, "d": res.d_model, "act": res.act, "heads": res.n_heads, "causal": res.causal,
                "perm": tuple(res.permutation), "seed": res.seed}
    verdict = verdicts.judge(res)
    diagonal = next(c for c in verdict.claims if c.key == "position.claim_diagonal")
    shown = {"n": res.n_tokens}
    return (
        at(SECTION, settings, FFN_OFF, 100 * res.ffn_off_diagonal_fraction, diagonal.key, diagonal.values, shown),
        at(SECTION, settings, ATTENTION_OFF, 100 * res.attention_off_diagonal_fraction, diagonal.key,
           diagonal.values, shown),
        at(SECTION, settings, SHUFFLE, shuffle(res), verdict.takeaway.split()[1], verdict.takeaway_values,
           {"moved": res.moved, "n": res.n_tokens}),
    )
