"""Page 1's questions: which part of the block is bigger, the FFN's share of it, a real model's share."""
from __future__ import annotations

from fractions import Fraction

from ffn_core import model_counts, params
from ui.questions import Asked, Question, at, percent
from ui.registry import rules

SECTION = "split"
# The 2/3 of the lesson's block, or off it: each outcome its own sentence.
SHARE = percent("questions.split_share", 2, "ffn_share", cases=("two_thirds", "off"))
# Attention is the famous part of a transformer; at the lesson's block the FFN holds twice its weights.
BIGGER = Question("questions.split_bigger", "choice", options=("attention", "ffn", "even"), measure="bigger")
MODEL = percent("questions.split_model", 3, "model_share")


def share_case(s: params.Split) -> str:
    """"two_thirds" when the counts make exactly 2/3, else "off"."""
    return "two_thirds" if s.ffn_share_exact() == Fraction(2, 3) else "off"


def block(s: params.Split, expansion: str) -> tuple[Asked, ...]:
    """The block section's questions, at the block's settings."""
    settings = {"d": s.d_model, "expansion": expansion, "bias": s.bias, "glu": s.glu, "heads": s.n_heads,
                "kv_heads": s.n_kv_heads}
    shown = {"d": s.d_model, "d_ff": s.d_ff, "heads": s.n_heads, "kv_heads": s.n_kv_heads}
    counts = {"attention": s.attention_params, "ffn": s.ffn_params, "block": s.block_params,
              "ratio": max(s.ffn_params, s.attention_params) / min(s.ffn_params, s.attention_params)}
    return (
        at(SECTION, settings, BIGGER, rules.bigger(s), counts, shown),
        at(SECTION, settings, SHARE, 100 * s.ffn_share, counts, shown, case=share_case(s)),
    )


def model(m: model_counts.ModelCount) -> Asked:
    """A published model's FFN share of all its parameters, embeddings included."""
    return at(SECTION, {"model": m.id}, MODEL, 100 * m.ffn_share_of_model, {"model": m.name, "block": m.block.ffn_share},
              {"model": m.name})
