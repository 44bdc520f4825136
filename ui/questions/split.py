"""Page 1's questions: the FFN's share of the block on screen, which part is bigger, a real model's share."""
from __future__ import annotations

from ffn_core import model_counts, params
from ui.questions import Asked, Question, at
from ui.verdicts import split as verdicts

SECTION = "split"
SHARE = Question("questions.split_share", "number", lo=0, hi=100, tolerance=2, unit="questions.unit_pct")
# Attention is the famous part of a transformer; at the lesson's block the FFN holds twice its weights.
BIGGER = Question("questions.split_bigger", "choice", options=("attention", "ffn", "even"))
MODEL = Question("questions.split_model", "number", lo=0, hi=100, tolerance=3, unit="questions.unit_pct")


def bigger(s: params.Split) -> str:
    """Which part of the block holds more parameters: "attention", "ffn" or "even"."""
    if s.ffn_params > s.attention_params:
        return "ffn"
    return "attention" if s.ffn_params < s.attention_params else "even"


def block(s: params.Split, expansion: str, full_attention_params: int) -> tuple[Asked, ...]:
    """The block section's questions, at the block's settings (the same the verdict judges)."""
    settings = {"d": s.d_model, "expansion": expansion, "bias": s.bias, "glu": s.glu, "heads": s.n_heads,
                "kv_heads": s.n_kv_heads}
    verdict = verdicts.judge_block(s, expansion, full_attention_params)
    two_thirds = next(c for c in verdict.claims if c.key == "split.claim_two_thirds")
    shown = {"d": s.d_model, "d_ff": s.d_ff, "heads": s.n_heads, "kv_heads": s.n_kv_heads}
    return (
        at(SECTION, settings, BIGGER, bigger(s), "questions.split_bigger_why",
           {"attention": s.attention_params, "ffn": s.ffn_params}, shown),
        at(SECTION, settings, SHARE, 100 * s.ffn_share, two_thirds.key, two_thirds.values, shown),
    )


def model(m: model_counts.ModelCount) -> Asked:
    """A published model's FFN share of all its parameters, embeddings included."""
    return at(SECTION, {"model": m.id}, MODEL, 100 * m.ffn_share_of_model, "questions.split_model_why",
              {"model": m.name, "block": m.block.ffn_share, "share": m.ffn_share_of_model}, {"model": m.name})
