"""Page 2's questions: how much the FFN mixes tokens, how much attention does, whether shuffling moves attention,
and how much of a whole block's output comes from other tokens."""
from __future__ import annotations

from ffn_core import position
from ui.questions import Asked, Question, at, percent
from ui.registry import rules

SECTION = "position"
# "The FFN mixes tokens" is the misconception: any guess above a point off the diagonal is it.
FFN_OFF = percent("questions.position_ffn_off", 1, "ffn_off", cases=("none", "leak"))
ATTENTION_OFF = percent("questions.position_attention_off", 10, "attention_off")
# Attention mixes tokens, so shuffling them surely changes what it computes? Without positions it only
# shuffles its outputs the same way; with the causal mask it does change them.
SHUFFLE = Question("questions.position_shuffle", "choice", options=("follows", "changes"), cases=("causal",), measure="shuffle")
# A block mixes through attention only; the residual around it keeps most of each token's own vector.
BLOCK_OFF = percent("questions.position_block_off", 10, "block_off", cases=("mixes", "odd"))


def ask(res: position.PositionWise) -> tuple[Asked, ...]:
    settings = {"n": res.n_tokens, "d": res.d_model, "act": res.act, "heads": res.n_heads, "causal": res.causal,
                "perm": tuple(res.permutation), "seed": res.seed}
    follows = rules.follows(res)
    return (
        at(SECTION, settings, FFN_OFF, 100 * res.ffn_off_diagonal_fraction, {"n": res.n_tokens}, {"n": res.n_tokens},
           case="none" if res.ffn_off_diagonal_fraction == 0 else "leak"),
        at(SECTION, settings, ATTENTION_OFF, 100 * res.attention_off_diagonal_fraction, {"n": res.n_tokens},
           {"n": res.n_tokens}),
        at(SECTION, settings, SHUFFLE, follows, {"diff": res.attention_permutation_max_abs_diff, "moved": res.moved},
           {"moved": res.moved, "n": res.n_tokens}, case="causal" if res.causal and follows == "changes" else ""),
    )


def block(blk: position.BlockInfluence, settings: dict[str, object]) -> tuple[Asked, ...]:
    """settings: the page's controls the block depends on (n, d, act, heads, causal, seed)."""
    mixes = blk.ffn_off_diagonal_fraction == 0 and blk.block_off_diagonal_fraction > 0
    return (at(SECTION, settings, BLOCK_OFF, 100 * blk.block_off_diagonal_fraction,
               {"ffn": blk.ffn_off_diagonal_fraction}, {"n": blk.n_tokens}, case="mixes" if mixes else "odd"),)
