"""The gated-FFN page's verdicts: no collapse without the activation, 8d² at 8/3·d, the gate on one token,
and what the gate buys in page 5's fit at equal weights."""
from __future__ import annotations

from ffn_core import gated
from ffn_core.sweep import gated as gated_sweep
from ui.base.text import Term
from ui.registry import rules
from ui.verdicts import Claim, Verdict

HALF = (0.4, 0.6)  # "about half": the turned-down share over 256 tokens at init
# "The best affine map is about the mean": its error on fresh inputs is near 100%. With no linear part to
# find, fitting d + 1 coefficients per output to N_FIT tokens costs about √(1 + (d + 1)/N_FIT) on others:
# 1.01 to 1.03 for the page's d (measured over 40 seeds each); below 0.95 the map would have found a
# linear part after all, above 1.10 it would be worse than "a little over" the mean.
MEAN = (0.95, 1.10)


def judge(res: gated.Gated) -> Verdict:
    """The fit (no collapse, measured), the counts (arithmetic, stated), the gate on one token (measured at init)."""
    silu, gelu = res.gate("silu"), res.gate("gelu")
    values = {"d": res.d_model, "m": res.d_ff, "m4": 4 * res.d_model, "act": Term(f"gated.act_{res.act}"),
              "error": res.gated_fit_error, "plain_error": res.plain_fit_error,
              "residual": res.plain_collapse_residual, "gated": res.gated_params, "plain": res.plain_params,
              "eight": 8 * res.d_model ** 2, "twelve": res.gated_4d_params, "attention": res.attention_params,
              "share": res.gated_params / (res.gated_params + res.attention_params),
              "token": res.token, "down": silu.turned_down, "active": res.relu_active,
              "mean_down": silu.mean_turned_down, "tokens": gated.N_TOKENS, "leak_silu": silu.leak,
              "leak_gelu": gelu.leak, "negative": silu.negative}
    not_linear = res.gated_fit_error > rules.NONLINEAR
    if res.act == "none":
        claims = [Claim("gated.claim_bilinear", values, not_linear and res.plain_collapse_residual <= rules.EXACT)]
    else:
        claims = [Claim("gated.claim_nonlinear", values, not_linear)]
    claims += [
        Claim("gated.fact_params", values, None),  # 3·d·(8d/3) = 2·d·4d: arithmetic, whatever the seed
        Claim("gated.fact_relu", values, None),  # the same W₁: down + active = 1 by definition
        Claim("gated.claim_half", values, HALF[0] <= silu.mean_turned_down <= HALF[1]),
    ]
    if res.act == "none":
        keys = "gated.takeaway_bilinear" if not_linear else "gated.takeaway_broken"
        if not_linear and MEAN[0] <= res.gated_fit_error <= MEAN[1]:
            keys += " gated.takeaway_bilinear_mean"
    else:
        if not not_linear:
            keys = "gated.takeaway_nearly_linear"
        elif res.gated_fit_error > res.plain_fit_error:  # "further than the plain FFN" only when it is
            keys = "gated.takeaway_nonlinear"
        else:
            keys = "gated.takeaway_nonlinear_closer"
    return Verdict(tuple(claims), keys + " gated.takeaway_gate", values)


def judge_width(res: gated_sweep.GatedSweep) -> Verdict:
    """At equal weights, on page 5's targets: how many sizes the gate fits better, worse, the same."""
    outcomes = [rules.gate_outcome(p.rmse, g.rmse, res.floor) for p, g in zip(res.plain, res.gated)]
    better, worse = outcomes.count("better"), outcomes.count("worse")
    n = len(outcomes)
    plain, gate = res.plain[-1], res.gated[-1]
    values = {"target": res.label, "n": n, "better": better, "worse": worse, "same": n - better - worse,
              "sizes": ", ".join(f"{p.params}" for p in res.plain), "params": plain.params,
              "plain_width": plain.width, "gated_width": gate.width, "plain_rmse": plain.rmse,
              "gated_rmse": gate.rmse, "act": Term(f"gated.wact_{res.act}")}
    claims = (Claim("gated.fact_equal", values, None),  # 3·5j + 1 = 5·3j + 1 by construction
              Claim("gated.claim_width", values, better > n / 2))
    if better > n / 2:
        key = "gated.takeaway_width_buys"
    elif worse > n / 2:
        key = "gated.takeaway_width_costs"
    elif better == worse == 0:
        key = "gated.takeaway_width_nothing"
    else:
        key = "gated.takeaway_width_mixed"
    return Verdict(claims, key, values)
