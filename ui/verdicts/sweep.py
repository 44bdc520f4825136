"""The width sweep's verdict: does the error fall with width, how near the best found, what exactly fits.

The error compared across widths is measured on the fit's grid. An error there at rounding level
(WidthFit.exact_on_grid) is "≈0", never a ratio: two such fits are equal, such a best cannot be divided by.
"Exact" (WidthFit.exact) means more: at rounding level halfway between the grid points as well. A fit that
is ≈0 on the grid only passes through the points it was fitted on; the verdict says so and names its error
between them. ReLU fits are told in kinks and pieces; GELU fits have neither.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ffn_core.sweep import lesson, sweep
from ui.base.text import Term, sig
from ui.verdicts import Claim, Verdict

# A width whose error stays within this factor of the best found is "near the best": what its pieces allow.
NEAR_BEST = 1.5
# The sign that stands for an error at rounding level inside a chain of numbers ("0.554 > 0.0802 > ≈0").
EXACT_MARK = "≈0"


def _shown(fit: sweep.WidthFit) -> str:
    return EXACT_MARK if fit.exact_on_grid else sig(fit.rmse)


def _flat(a: sweep.WidthFit, b: sweep.WidthFit) -> bool:
    return a.exact_on_grid and b.exact_on_grid


def _lower(a: sweep.WidthFit, b: sweep.WidthFit) -> bool:
    return b.rmse < a.rmse and not a.exact_on_grid


def falls(fits: Sequence[sweep.WidthFit]) -> bool:
    """Every step in width lowers the error on the grid, or both fits are already at rounding level there."""
    return all(_lower(a, b) or _flat(a, b) for a, b in zip(fits, fits[1:]))


def chain(fits: Sequence[sweep.WidthFit]) -> str:
    """"0.554 > 0.0802 ≤ 0.0811 > ≈0": each step's relation as measured, exact fits as ≈0."""
    text = _shown(fits[0])
    for a, b in zip(fits, fits[1:]):
        if _flat(a, b):
            rel = " = "
        elif _lower(a, b):
            rel = " > "
        else:
            rel = " ≤ "
        text += rel + _shown(b)
    return text


def _widths(ms: Iterable[int]) -> str:
    return ", ".join(str(m) for m in ms)


def gap_to_best(fits: Sequence[sweep.WidthFit], best: Sequence[float], exact_tol: float) -> tuple[str, int, float]:
    """How far this run stayed from the best found: ("exact_missed", m, rmse) if the best is exact and the fit
    at m is not; else ("ratio", m, worst rmse / best) over the inexact fits; ("all_exact", 0, 1.0) otherwise."""
    worst: tuple[str, int, float] = ("all_exact", 0, 1.0)
    for f, b in zip(fits, best):
        if f.exact_on_grid:
            continue
        if b <= exact_tol:
            return "exact_missed", f.width, f.rmse
        ratio = f.rmse / b
        if worst[0] == "all_exact" or ratio > worst[2]:
            worst = ("ratio", f.width, ratio)
    return worst


def judge(results: Mapping[str, sweep.Sweep], best: Sequence[float]) -> Verdict:
    """The claims and takeaway for the sweeps on screen (one per method, same target, widths, act, seed)
    and the best error found per width."""
    main = next(iter(results.values()))
    fits, wide = main.fits, main.fits[-1]
    relu = main.act == "relu"
    claims = [Claim("sweep.claim_falls", {"method": Term(f"sweep.method_{m}"), "chain": chain(res.fits)},
                    ok=falls(res.fits)) for m, res in results.items()] if len(fits) > 1 else []
    if relu:
        # m neurons bend the curve at most m times: a theorem, so it is stated with the counts, not checked.
        counts = ", ".join(f"{f.kinks_inside} ≤ {f.width}" for f in fits)
        claims.append(Claim("sweep.fact_kinks", {"counts": counts}, ok=None))
    exact = [f.width for f in fits if f.exact]
    if exact:
        key = "sweep.fact_exact_relu" if relu else "sweep.fact_exact_gelu"
        claims.append(Claim(key, {"widths": _widths(exact), "target": main.label, "points": main.points,
                                  "between": main.points - 1}, ok=None))
    grid_only = [f for f in fits if f.exact_on_grid and not f.exact]
    if grid_only:
        # Measured, not a theorem: whether the curve meets the target between the points depends on the fit.
        claims.append(Claim("sweep.fact_grid_only", {
            "widths": _widths(f.width for f in grid_only), "points": main.points, "between": main.points - 1,
            "missed": sig(max(f.rmse_between for f in grid_only))}, ok=None))

    values: dict[str, object] = {"steps": main.steps, "m0": fits[0].width, "m1": wide.width, "r0": fits[0].rmse,
                                 "r1": wide.rmse, "target": main.label, "missed": sig(wide.rmse_between),
                                 "points": main.points}
    keys: list[str] = []
    if len(fits) == 1:
        keys.append("sweep.takeaway_one_exact" if wide.exact else
                    "sweep.takeaway_one_grid" if wide.exact_on_grid else "sweep.takeaway_one")
        values["pieces"] = wide.pieces
    elif all(f.exact for f in fits):
        keys.append("sweep.takeaway_all_exact")
    elif all(f.exact_on_grid for f in fits):
        keys.append("sweep.takeaway_all_grid")
    elif falls(fits):
        if wide.exact:
            keys.append("sweep.takeaway_falls_exact")
            values["m_exact"] = next(f.width for f in fits if f.exact)
        elif wide.exact_on_grid:
            keys.append("sweep.takeaway_falls_grid")
            values["m_exact"] = next(f.width for f in fits if f.exact_on_grid)
        else:
            keys.append("sweep.takeaway_falls")
            values["factor"] = fits[0].rmse / wide.rmse
        if relu:
            keys.append("sweep.takeaway_pieces" if wide.pieces != 1 else "sweep.takeaway_one_piece")
        else:
            keys.append("sweep.takeaway_smooth")
        values["pieces"] = wide.pieces
        values["kinks"] = wide.kinks_inside
    else:
        rises = [f"{a.width}→{b.width}" for a, b in zip(fits, fits[1:]) if not (_flat(a, b) or _lower(a, b))]
        keys.append("sweep.takeaway_not_falls")
        values["rises"] = ", ".join(rises)

    kind, m_gap, amount = gap_to_best(fits, best, main.exact_tol)
    if kind == "exact_missed":
        keys.append("sweep.takeaway_exact_missed")
        values.update(m_gap=m_gap, r_gap=amount)
    elif kind == "ratio":
        keys.append("sweep.takeaway_close" if amount <= NEAR_BEST else "sweep.takeaway_far")
        values.update(m_gap=m_gap, ratio=amount)

    if "naive" in results and len(results) == 2:
        naive_fits, ours = results["naive"].fits, results["pieces"].fits
        ratios = [n.rmse / p.rmse for p, n in zip(ours, naive_fits) if not p.exact_on_grid]
        missed = [p.width for p, n in zip(ours, naive_fits) if p.exact and not n.exact]
        if missed:
            keys.append("sweep.takeaway_naive_exact")
            values["naive_missed"] = _widths(missed)
        elif ratios and max(ratios) > NEAR_BEST:
            keys.append("sweep.takeaway_naive")
            values["gap"] = max(ratios)
        else:
            keys.append("sweep.takeaway_naive_close")

    seed_rmse = lesson.SEED_RMSE.get(wide.width)
    if main.target == "sin3x" and relu and seed_rmse is not None:
        keys.append("sweep.takeaway_seed")
        values.update(seed=seed_rmse, seed_kinks=lesson.SEED_KINKS[wide.width], ours=wide.rmse,
                      kinks=wide.kinks_inside, m1=wide.width)
    return Verdict(claims=tuple(claims), takeaway=" ".join(keys), takeaway_values=values)


def judge_expansion(trade: sweep.Sweep) -> Verdict:
    """The 4x trade-off: what going from 8/3x to 4x of d = 8 (m = 21 to 32) costs in weights and buys in error."""
    by_width = {f.width: f for f in trade.fits}
    low, high = by_width[21], by_width[32]
    values = {"more": sweep.params(32) / sweep.params(21) - 1, "r83": low.rmse, "r4": high.rmse}
    if low.exact_on_grid:
        key = "sweep.params_takeaway_exact"
    elif high.rmse < low.rmse:
        key = "sweep.params_takeaway"
        values["gain"] = low.rmse / high.rmse if not high.exact_on_grid else float("nan")
        if high.exact_on_grid:
            key = "sweep.params_takeaway_to_exact"
    else:
        key = "sweep.params_takeaway_worse"
    return Verdict(claims=(), takeaway=key, takeaway_values=values)
