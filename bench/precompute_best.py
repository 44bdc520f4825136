"""Regenerate ffn_core/sweep/data/best_rmse.json: the best width-m networks a long search finds for the built-in targets.

    python bench/precompute_best.py            # full search (about half an hour on one thread)
    python bench/precompute_best.py --extra    # then: more seeds for the narrow widths, kept where better
    python bench/precompute_best.py --quick    # a small search, for checking the script itself

Each stored network's weights are rounded to 12 significant digits, the output layer is re-solved for the
rounded hidden layer, and the RMSE stored is the one of exactly those numbers, so tests can re-evaluate it.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ffn_core.sweep import best, net1d, sweep, targets  # noqa: E402

WIDTHS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
# (widths, rows, steps, seeds) per activation: narrow widths get many restarts and long runs; wide
# ones start near their optimum (kinks on a grid) and each step costs more.
PLAN = {
    "relu": [((1, 2, 4, 8, 16, 32), 8, 1200, (0, 1)), ((64, 128, 256), 2, 400, (0,))],
    "gelu": [((1, 2, 4, 8, 16, 32), 2, 800, (0, 1)), ((64, 128, 256), 1, 200, (0,))],
}
# A second pass of many short runs from other seeds: cheap diversity for the narrow widths,
# whose losses have the most local minima (--extra keeps whichever network is better).
# It also runs the live default (150 steps, seeds 0-9), so the stored best is at least as good as those.
EXTRA = {
    "relu": [((1, 2, 4, 8, 16, 32), 2, 300, tuple(range(10, 22))), (sweep.WIDTHS, 1, 150, tuple(range(10)))],
    "gelu": [((1, 2, 4, 8, 16, 32), 1, 300, tuple(range(10, 16))), (sweep.WIDTHS, 1, 150, tuple(range(10)))],
}
QUICK = {
    "relu": [((1, 2, 4, 8, 16, 32), 2, 100, (0,)), ((64, 128, 256), 1, 10, (0,))],
    "gelu": [((1, 2, 4, 8, 16, 32), 1, 50, (0,)), ((64, 128, 256), 1, 5, (0,))],
}


def rounded(fit: sweep.WidthFit, target: str, act: str) -> dict:
    """The network with 12-digit weights, its output layer re-solved, and the RMSE of exactly those numbers."""
    x = targets.grid(sweep.X_RANGE, sweep.POINTS)
    y = targets.values(target, x)
    r12 = lambda t: torch.tensor([float(f"{v:.12g}") for v in t.tolist()], dtype=torch.float64)  # noqa: E731
    w, b = r12(torch.tensor(fit.w))[None], r12(torch.tensor(fit.b))[None]
    mask = torch.ones_like(w)
    v, c = net1d.solve_output(w, b, mask, x, y, act)
    v, c = r12(v[0])[None], r12(c)
    rmse = float(((net1d.forward(w, b, v, c, mask, x, act)[0] - y) ** 2).mean().sqrt())
    return {"rmse": rmse, "w": w[0].tolist(), "b": b[0].tolist(), "v": v[0].tolist(), "c": float(c[0])}


def padded(net: dict, width: int) -> dict:
    """A narrower network as a width-m one: the extra neurons have w = b = v = 0 and change nothing."""
    extra = width - len(net["w"])
    return {**net, "w": net["w"] + [0.0] * extra, "b": net["b"] + [0.0] * extra, "v": net["v"] + [0.0] * extra}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--extra", action="store_true", help="add the EXTRA pass to the existing file")
    parser.add_argument("--out", type=Path, default=best.DATA)
    args = parser.parse_args()
    torch.set_num_threads(1)
    plan = QUICK if args.quick else EXTRA if args.extra else PLAN
    entries: dict[str, dict] = dict(best.table()["entries"]) if args.extra else {}
    for act, groups in plan.items():
        for target in targets.BUILTIN:
            for widths, rows, steps, seeds in groups:
                start = time.perf_counter()
                for fit in best.search(target, widths, sweep.X_RANGE, sweep.POINTS, act, seeds, steps, rows):
                    key, net = best.entry_key(act, target, fit.width), rounded(fit, target, act)
                    if key not in entries or net["rmse"] < entries[key]["rmse"]:
                        entries[key] = net
                print(f"  {act} {target} {widths} searched in {time.perf_counter() - start:.0f} s", flush=True)
            # A width-m network can switch neurons off, so it is never worse than the best narrower one.
            for narrow, wide in zip(WIDTHS, WIDTHS[1:]):
                small, large = (entries[best.entry_key(act, target, m)] for m in (narrow, wide))
                if small["rmse"] < large["rmse"]:
                    entries[best.entry_key(act, target, wide)] = padded(small, wide)
            print(f"{act} {target:9} " + " ".join(
                f"{m}:{entries[best.entry_key(act, target, m)]['rmse']:.4g}" for m in WIDTHS), flush=True)
    data = {
        "about": "best RMSE found for width-m one-hidden-layer networks (output bias); bench/precompute_best.py",
        "x_range": list(sweep.X_RANGE),
        "points": sweep.POINTS,
        "plan": "PLAN, then EXTRA" if args.extra else ("QUICK" if args.quick else "PLAN"),
        "entries": entries,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e3:.0f} kB)")


if __name__ == "__main__":
    main()
