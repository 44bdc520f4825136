"""The home page's verdict: the seed's block at d = 512, a fixed setting, so its split is stated, not checked."""
from __future__ import annotations

from fractions import Fraction

from ffn_core import params
from ui.verdicts import Claim, Verdict


def judge(split: params.Split) -> Verdict:
    """The measured counts of the lesson's block as a fact (2/3 when they make 2/3), and the ratio they give."""
    values = {"ffn": split.ffn_params, "block": split.block_params, "attention": split.attention_params,
              "share": split.ffn_share, "ratio": split.ffn_params / split.attention_params}
    two_thirds = split.ffn_share_exact() == Fraction(2, 3)
    # The home page shows one fixed block: nothing a visitor does can make this fail, so no ✓.
    claim = Claim("home.claim" if two_thirds else "home.fact_share", values, None)
    return Verdict((claim,), "home.takeaway", values)
