"""The key-value page's verdict: the sum is exact, how many pairs were recalled, whether training concentrated
the output (on the same keys before and after)."""
from __future__ import annotations

from ffn_core import keyvalue
from ui.verdicts import Claim, Verdict

# The decomposition is the same function regrouped: in float64 its residual is rounding, far below this.
EXACT = 1e-12


def judge(res: keyvalue.KeyValue) -> Verdict:
    """Claims and takeaway for one key-value measurement (res.steps of training on res.n_keys pairs)."""
    before, after = res.untrained, res.trained
    m, n, steps = res.d_ff, res.n_keys, res.steps
    conc = res.concentration(0.9)
    claims = [Claim("keyvalue.claim_sum", {"before": before.max_abs_residual, "after": after.max_abs_residual},
                    ok=res.max_abs_residual <= EXACT)]
    recalled = round(after.recall * n)
    values: dict[str, object] = {
        "m": m, "n": n, "steps": steps, "recall": after.recall, "recalled": recalled, "keys": conc.keys,
        "before": conc.mean_before, "after": conc.mean_after, "never_before": conc.never_before,
        "never_after": conc.never_after, "active": after.active,
    }
    if steps == 0:
        # Nothing was trained: both FFNs are the same module, so there is nothing to compare, only to state.
        claims.append(Claim("keyvalue.fact_untrained", values, ok=None))
        keys = "keyvalue.takeaway_untrained" + (" keyvalue.takeaway_never_untrained" if conc.never_before else "")
        return Verdict(tuple(claims), keys, values)

    claims.append(Claim("keyvalue.claim_recall", values, ok=recalled == n))
    keys = ["keyvalue.takeaway_recalled_all" if recalled == n else "keyvalue.takeaway_recalled_some"]
    if conc.keys == 0:
        claims.append(Claim("keyvalue.fact_no_common_keys", values, ok=None))
    else:
        concentrated = conc.mean_after < conc.mean_before
        claims.append(Claim("keyvalue.claim_concentration", values, ok=concentrated))
        values["share"] = conc.mean_after / m
        keys.append("keyvalue.takeaway_concentrated" if concentrated else "keyvalue.takeaway_spread")
    if conc.never_before or conc.never_after:
        keys.append("keyvalue.takeaway_never")
    return Verdict(tuple(claims), " ".join(keys), values)
