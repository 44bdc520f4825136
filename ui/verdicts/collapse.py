"""The linear-collapse page's verdicts: one matrix for a linear FFN or a linear stack, nothing linear with an activation."""
from __future__ import annotations

from ffn_core import collapse
from ui.base.text import Term
from ui.registry import rules
from ui.verdicts import Claim, Verdict


def judge(res: collapse.Collapse) -> Verdict:
    """Without an activation: the rank bound (a theorem, stated), the one-matrix residual (measured). With one: the fit."""
    values = {"d": res.d_model, "m": res.d_ff, "rank": res.rank, "bound": res.rank_bound,
              "residual": res.max_abs_residual, "seed_residual": collapse.SEED_RESIDUAL,
              "act": Term(f"collapse.act_{res.act}"), "two": res.two_layer_params, "one": res.single_matrix_params,
              "extra": res.two_layer_params - res.single_matrix_params, "lost": res.d_model - res.rank,
              "error": res.fit_relative_error}
    if res.act != "none":
        # W₂W₁ is not this layer's map once an activation sits between the factors: no rank claim about it.
        nonlinear = res.fit_relative_error > rules.NONLINEAR
        claims = (Claim("collapse.claim_nonlinear", values, nonlinear),)
        if not nonlinear:
            takeaway = "collapse.takeaway_nearly_linear"
        elif res.two_layer_params > res.single_matrix_params:
            takeaway = "collapse.takeaway_nonlinear"
        else:  # m ≤ d/2: the two layers hold no more weights than one d × d matrix
            takeaway = "collapse.takeaway_nonlinear_narrow"
        return Verdict(claims, takeaway, values)
    exact = res.max_abs_residual <= rules.EXACT
    claims = (
        Claim("collapse.fact_rank", values, None),  # rank(W₂W₁) ≤ min(d, m) holds for any two matrices
        Claim("collapse.claim_replace", values, exact),
        Claim("collapse.fact_seed_residual", values, None),
    )
    if not exact:
        return Verdict(claims, "collapse.takeaway_broken", values)
    if res.d_ff > res.d_model:
        keys = "collapse.takeaway_linear collapse.takeaway_wide"
    elif res.d_ff == res.d_model:
        keys = "collapse.takeaway_linear collapse.takeaway_square"
    else:
        # A rank-m product: the two layers reach only a subset of the d × d matrices.
        keys = "collapse.takeaway_same collapse.takeaway_bottleneck"
    return Verdict(claims, keys, values)


def judge_stack(res: collapse.Stack) -> Verdict:
    """L linear layers multiply into one matrix (measured residual) whose rank is at most the narrowest width (a theorem)."""
    values = {"layers": len(res.widths) + 1, "d": res.d_model, "params": res.layer_params,
              "one": res.single_matrix_params, "residual": res.max_abs_residual, "rank": res.rank,
              "bound": res.rank_bound}
    exact = res.max_abs_residual <= rules.EXACT
    claims = (Claim("collapse.claim_stack", values, exact), Claim("collapse.fact_stack_rank", values, None))
    if not exact:
        return Verdict(claims, "collapse.takeaway_broken_stack", values)
    narrowed = res.rank_bound < res.d_model
    return Verdict(claims, "collapse.takeaway_stack" + (" collapse.takeaway_stack_narrow" if narrowed else ""), values)
