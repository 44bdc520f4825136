"""The parameter-split page's verdicts: the block on screen against 4d² + 8d², and why some models pass 80%."""
from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ffn_core import model_counts, params
from ui.base.text import Term
from ui.registry import rules
from ui.verdicts import Claim, Verdict

EIGHTY = 0.8
# The two published models whose FFN passes 80% of a block, and whose causes the page takes apart.
PAST_EIGHTY = ("llama2-70b", "mistral-7b")


def formula_share(d: int, d_ff: Fraction, n_heads: int, n_kv_heads: int, bias: bool, glu: bool) -> Fraction:
    """The FFN's share by the closed formulas, for a width that need not be whole (the lesson's 8/3·d)."""
    attention = params.attention_formula(d, n_heads, n_kv_heads, bias)
    feed_forward = params.ffn_formula(d, d_ff, glu, bias)  # type: ignore[arg-type]  # exact arithmetic on a Fraction
    return Fraction(feed_forward) / (attention + feed_forward)


def causes(s: params.Split, expansion: str) -> dict[str, Fraction]:
    """What moves this block off 2/3, each change measured alone on the lesson's block (its width exact,
    h_kv = h, no biases): the share that change alone gives, minus the share without it. Zero ones are left out."""
    # The width at which a block holds 4d² + 8d²: 4·d, or 8/3·d with three matrices (Shazeer 2020).
    lesson_width = (Fraction(8, 3) if s.glu else Fraction(4)) * s.d_model
    exact_width = params.parse_expansion(expansion) * s.d_model
    base = Fraction(2, 3)
    h = s.n_heads
    moved = {
        "gqa": formula_share(s.d_model, lesson_width, h, s.n_kv_heads, False, s.glu) - base,
        "expansion": formula_share(s.d_model, exact_width, h, h, False, s.glu) - base,
        "rounding": (formula_share(s.d_model, Fraction(s.d_ff), h, h, False, s.glu)
                     - formula_share(s.d_model, exact_width, h, h, False, s.glu)),
        "bias": formula_share(s.d_model, lesson_width, h, h, s.bias, s.glu) - base,
    }
    return {name: shift for name, shift in sorted(moved.items(), key=lambda kv: -abs(kv[1])) if shift}


def judge_block(s: params.Split, expansion: str, full_attention_params: int) -> Verdict:
    """The block on screen: modules against formulas, the 2/3 rule computed for it, and what moves it off 2/3,
    each cause measured alone and named largest first."""
    share = s.ffn_share_exact()
    formula = Claim("split.claim_formula", {"attention": s.attention_params, "attention_formula": s.attention_formula,
                                            "ffn": s.ffn_params, "ffn_formula": s.ffn_formula}, s.agree)
    two_thirds = Claim("split.claim_two_thirds", {"ffn": s.ffn_params, "block": s.block_params, "share": s.ffn_share},
                       share == Fraction(2, 3))
    keys = [f"split.takeaway_{rules.bigger(s)}"]
    chosen = params.parse_expansion(expansion)
    exact_width = chosen * s.d_model
    moved = causes(s, expansion) if share != Fraction(2, 3) else {}
    if moved:
        keys.append("split.causes_lead")
        keys += [f"split.cause_{name}" for name in moved]
    values = {
        "share": s.ffn_share, "attention_share": 1 - s.ffn_share, "ffn": s.ffn_params, "attention": s.attention_params,
        "ratio": (s.ffn_params / s.attention_params if s.ffn_params >= s.attention_params
                  else s.attention_params / s.ffn_params),
        "expansion": float(chosen), "lesson": Term("split.lesson_width_glu" if s.glu else "split.lesson_width"),
        "d_ff": s.d_ff, "exact": float(exact_width), "group": s.n_heads // s.n_kv_heads,
        "attention_fraction": s.attention_params / full_attention_params,
        "bias_ffn": s.ffn_formula - params.ffn_formula(s.d_model, s.d_ff, s.glu, False),
        "bias_attention": s.attention_formula - params.attention_formula(s.d_model, s.n_heads, s.n_kv_heads, False),
    }
    for name, shift in moved.items():
        values[f"{name}_share"] = float(Fraction(2, 3) + shift)
        values[f"{name}_points"] = abs(float(shift)) * 100
    return Verdict((formula, two_thirds), " ".join(keys), values)


def judge_models(catalogue: model_counts.Catalogue, causes: Sequence[model_counts.Causes], chosen: model_counts.ModelCount) -> Verdict:
    """Which models pass 80% and why (each cause measured alone), and the spread of the shares."""
    # The presets are fixed, so these are stated facts with their counts, not checks; each sentence
    # is chosen from the numbers, so a changed preset could never keep a sentence it no longer fits.
    by_id = {m.id: m for m in catalogue.models}
    past = [by_id[i] for i in PAST_EIGHTY]
    eighty = all(m.block.ffn_share > EIGHTY for m in past)
    claims = [Claim("split.claim_eighty" if eighty else "split.fact_shares",
                    {"llama": past[0].block.ffn_share, "mistral": past[1].block.ffn_share}, None)]
    for c in causes:
        both_needed = c.share > EIGHTY and c.gqa_share <= EIGHTY and c.wide_share <= EIGHTY
        claims.append(Claim("split.claim_causes" if both_needed else "split.fact_causes",
                            {"model": c.name, "group": c.group, "gqa": c.gqa_share, "expansion": c.expansion,
                             "wide": c.wide_share, "both": c.share}, None))
    models = catalogue.models
    low = min(models, key=lambda m: m.block.ffn_share)
    high = max(models, key=lambda m: m.block.ffn_share)
    full = [m for m in models if m.block.n_heads == m.block.n_kv_heads]
    spread = max(abs(m.block.ffn_share - 2 / 3) for m in full)
    values = {"low": low.name, "low_share": low.block.ffn_share, "high": high.name, "high_share": high.block.ffn_share,
              "spread": spread * 100, "model": chosen.name, "model_share": chosen.ffn_share_of_model}
    return Verdict(tuple(claims), "split.takeaway_models", values)
