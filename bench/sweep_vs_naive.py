"""Time the default width sweep against a naive per-width Adam loop of the same number of steps, in one run.

    python bench/sweep_vs_naive.py [--repeats 5] [--seed 0] [--seeds 5]

The naive loop is what a new user writes: for each width, ffn.FFN(1, m) with nn.Linear's default init,
torch.optim.Adam(lr=1e-2), `steps` steps. Both run on one torch thread (as the app does), alternately,
and the medians are compared; CPU time of this process is printed beside wall time because the machine
is shared and wall time then measures the neighbours too.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ffn_core import ffn  # noqa: E402
from ffn_core.sweep import best, lesson, sweep, targets  # noqa: E402


def naive_loop(widths: tuple[int, ...], steps: int, seed: int) -> list[float]:
    """One nn-module network and one Adam per width, a plain Python loop: RMSE per width."""
    x = targets.grid(sweep.X_RANGE, sweep.POINTS).float()[:, None]
    y = targets.values(targets.DEFAULT, x.double()).float()
    rmse = []
    for m in widths:
        net = ffn.FFN(1, m, act="relu", seed=seed)
        opt = torch.optim.Adam(net.parameters(), lr=1e-2)
        for _ in range(steps):
            opt.zero_grad()
            loss = ((net(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
        with torch.no_grad():
            rmse.append(float(((net(x) - y) ** 2).mean().sqrt()))
    return rmse


def timed(fn):  # noqa: ANN001, ANN201
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", type=int, default=5, help="also print RMSE by width for seeds 0..N-1")
    args = parser.parse_args()
    torch.set_num_threads(1)
    widths, steps = sweep.WIDTHS, sweep.STEPS
    sweep.fit_widths(seed=args.seed, steps=5)  # warm-up: first-call costs belong to neither side
    naive_loop((2,), 5, args.seed)
    ours_wall, ours_cpu, naive_wall, naive_cpu = [], [], [], []
    for _ in range(args.repeats):
        res, w, c = timed(lambda: sweep.fit_widths(seed=args.seed))
        ours_wall.append(w)
        ours_cpu.append(c)
        naive_rmse, w, c = timed(lambda: naive_loop(widths, steps, args.seed))
        naive_wall.append(w)
        naive_cpu.append(c)
    ref = best.reference(res.target, res.widths, res.x_range, res.points, res.act)
    med = statistics.median
    print(f"sin(3x) on {list(sweep.X_RANGE)}, {sweep.POINTS} points, widths {list(widths)}, {steps} steps each, "
          f"1 torch thread, median of {args.repeats}")
    print(f"{'':24}{'wall s':>10}{'cpu s':>10}")
    print(f"{'pieces (batched)':24}{med(ours_wall):10.3f}{med(ours_cpu):10.3f}")
    print(f"{'naive per-width loop':24}{med(naive_wall):10.3f}{med(naive_cpu):10.3f}")
    print(f"speed-up: {med(naive_wall) / med(ours_wall):.1f}x wall, {med(naive_cpu) / med(ours_cpu):.1f}x cpu")
    print(f"\n{'width':>6}{'pieces':>12}{'naive loop':>12}{'best found':>12}{'seed':>10}  pieces lower")
    for f, n, r in zip(res.fits, naive_rmse, ref.rmse):
        print(f"{f.width:>6}{f.rmse:>12.4g}{n:>12.4g}{best.combine(r, f.rmse):>12.4g}"
              f"{lesson.SEED_RMSE.get(f.width, float('nan')):>10.4f}  {'yes' if f.rmse < n else 'NO'}")
    if args.seeds:
        seed_table(args.seeds)


def seed_table(n_seeds: int) -> None:
    """RMSE by width and seed for the default sweep, the median, and the median over the best found."""
    table = [sweep.fit_widths(seed=seed) for seed in range(n_seeds)]
    ref = best.reference(table[0].target, table[0].widths)
    print(f"\nRMSE by width and seed (default sweep), kinks inside in brackets")
    print(f"{'width':>6}" + "".join(f"{'seed ' + str(s):>16}" for s in range(n_seeds))
          + f"{'median':>10}{'best':>10}{'median/best':>13}")
    monotone = all(all(a.rmse > b.rmse for a, b in zip(r.fits, r.fits[1:])) for r in table)
    for j, m in enumerate(table[0].widths):
        col = [r.fits[j].rmse for r in table]
        found = best.combine(ref.rmse[j], *col)
        med = statistics.median(col)
        print(f"{m:>6}" + "".join(f"{r.fits[j].rmse:>11.4g} ({r.fits[j].kinks_inside:>2})" for r in table)
              + f"{med:>10.4g}{found:>10.4g}{med / found if found > 0 else math.inf:>13.2f}")
    print(f"strictly decreasing for every seed: {monotone}")


if __name__ == "__main__":
    main()
