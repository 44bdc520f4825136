"""The position-wise page's verdicts: the FFN's exact checks, attention's equivariance, the block's mixing."""
from __future__ import annotations

from ffn_core import position
from ui.registry import rules
from ui.verdicts import Claim, Verdict


def judge(res: position.PositionWise) -> Verdict:
    """Claims about the FFN (row by row, shuffled tokens, diagonal influence) and the takeaway beside attention."""
    moved_any = res.moved > 0
    claims = (
        Claim("position.claim_rowwise", {"diff": res.rowwise_max_abs_diff},
              res.rowwise_max_abs_diff <= rules.EXACT),
        # A permutation that moved nothing would pass without testing anything.
        Claim("position.claim_perm", {"diff": res.permutation_max_abs_diff, "moved": res.moved, "n": res.n_tokens},
              moved_any and res.permutation_max_abs_diff <= rules.EXACT),
        Claim("position.claim_diagonal", {"share": res.ffn_off_diagonal_fraction,
                                          "attention": res.attention_off_diagonal_fraction},
              res.ffn_off_diagonal_fraction == 0),
    )
    values = {"n": res.n_tokens, "ffn_share": res.ffn_off_diagonal_fraction, "rowwise": res.rowwise_max_abs_diff,
              "attention_share": res.attention_off_diagonal_fraction, "moved": res.moved,
              "attention_perm": res.attention_permutation_max_abs_diff}
    ffn_ok = res.ffn_off_diagonal_fraction == 0 and res.rowwise_max_abs_diff <= rules.EXACT
    first = "position.takeaway_ok" if ffn_ok else "position.takeaway_leak"
    attention_same = moved_any and rules.follows(res) == "follows"
    if res.causal:
        # A causal mask ties each token to its position: shuffling changes what each one may read.
        second = "position.takeaway_causal_same" if attention_same else "position.takeaway_causal"
    else:
        second = "position.takeaway_equivariant" if attention_same else "position.takeaway_attention_differs"
    return Verdict(claims, f"{first} {second}", values)


def judge_block(res: position.BlockInfluence) -> Verdict:
    """The block (attention, then FFN, with residuals) mixes tokens although its FFN, measured at its input, does not."""
    mixes = res.block_off_diagonal_fraction > 0 and res.ffn_off_diagonal_fraction == 0
    claim = Claim("position.claim_block", {"block": res.block_off_diagonal_fraction,
                                           "ffn": res.ffn_off_diagonal_fraction}, mixes)
    return Verdict((claim,), "position.takeaway_block" if mixes else "position.takeaway_block_odd",
                   {"block": res.block_off_diagonal_fraction, "ffn": res.ffn_off_diagonal_fraction})


def judge_sequential(res: position.SequentialCheck) -> Verdict:
    """The project's FFN and nn.Sequential(Linear, GELU, Linear) with the same weights: the same outputs."""
    same = res.max_abs_diff <= rules.EXACT
    shapes = {"x": list(res.input_shape), "h": list(res.hidden_shape), "y": list(res.output_shape)}
    claim = Claim("position.claim_sequential", {"diff": res.max_abs_diff, **shapes},
                  same and res.input_shape == res.output_shape)
    return Verdict((claim,), "", {})
