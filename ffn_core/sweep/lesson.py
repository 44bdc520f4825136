"""The width sweep at the lesson's settings: the seed's table beside ours, and the report's entry."""
from __future__ import annotations

from ffn_core.sweep import best, sweep

# The seed's measured table for sin(3x) (blog post, "폭이 사는 것: 조각 수").
SEED_RMSE = {2: 0.6221, 4: 0.2251, 8: 0.0989, 16: 0.0388, 32: 0.0250}
SEED_KINKS = {2: 2, 4: 4, 8: 7, 16: 16, 32: 31}


def report(seed: int = 0) -> dict:
    """The width_sweep entry of the lesson report: sin(3x) on [-2, 2], 256 points, widths 2…32."""
    res = sweep.fit_widths(seed=seed)
    ref = best.reference(res.target, res.widths, res.x_range, res.points, res.act)
    return {
        "target": res.label,
        "x_range": list(res.x_range),
        "points": res.points,
        "rows": [
            {"width": f.width, "rmse": f.rmse, "kinks_inside": f.kinks_inside,
             "best_rmse": best.combine(r, f.rmse)}
            for f, r in zip(res.fits, ref.rmse)
        ],
    }
