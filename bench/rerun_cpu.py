"""A cached rerun's server CPU, page by page: what every student's redraw costs once results are cached.

    python bench/rerun_cpu.py [--reruns 10] [--url URL --pid PID] [--pages trained_gpt] [--before DIR] [--rounds 10]

One session opens each page (its default view, computed on first open), then
- moves the page's first control one step and back `--reruns` times, as the browser sends it (a
  control drawn inside an st.fragment reruns only that fragment): "move", what a student's change
  costs once both values are cached — the budget of 20 ms is for this;
- reruns the whole page `--reruns` times: "full", what a page load, a language switch or following
  the instructor to a new setting costs.
The server's CPU time (process and children, all threads) over those runs, divided by their number,
is each cost, beside the floor's (a bare page served in the same run): the budget is 1.5x the floor
for a move and for a whole run. `--before DIR` measures another checkout's server first, in the same run. Printed with the load average: CPU time is steadier than wall time on a shared
machine, but a loaded core still runs slower. `--rounds N` measures the floor again before each of N rounds
and prints each page's median ratio to its own round's floor: the steadier figure when the machine's speed drifts.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stclient import (ROOT, AppPage, FloorServer, Run, Server, Session, cpu_s, current_value, discover_pages,  # noqa: E402
                      load_average, neighbour, settle)

BUDGET_MS = 20.0
FLOOR_RATIO = 1.5  # a cached move and a cached whole run, against the floor's


def _moves(session: Session, pid: int, first: Run, reruns: int) -> tuple[float | None, float | None, list[str]]:
    """CPU ms per cached move of the page's first control and the median wall ms (None: no control)."""
    if not first.widgets:
        return None, None, []
    widget = first.widgets[0]
    back = current_value(widget)
    there = neighbour(widget, random.Random(0), back)
    errors: list[str] = []
    for value in (there, back):  # each value computed once, before the timing
        errors += session.set(widget, value).exceptions
    settle(pid)  # and what a page computes after its answer (page 7's seeds) done too
    walls, cpu0 = [], cpu_s(pid)
    for i in range(reruns):
        run = session.set(widget, there if i % 2 == 0 else back)
        walls.append(run.seconds)
        errors += run.exceptions
    return (cpu_s(pid) - cpu0) / reruns * 1000, statistics.median(walls) * 1000, errors


def measure(url: str, pid: int, reruns: int, query: str = "lang=en", pages: list[AppPage] | None = None,
            root: Path = ROOT) -> list[dict]:
    rows = []
    for page in discover_pages(root) if pages is None else pages:
        session = Session(url)
        try:
            first = session.open(page, query)
            session.rerun()  # a second run: anything the first run put in session state is settled
            move_cpu, move_wall, move_errors = _moves(session, pid, first, reruns)
            walls, cpu0 = [], cpu_s(pid)
            for _ in range(reruns):
                walls.append(session.rerun().seconds)
            cpu_ms = (cpu_s(pid) - cpu0) / reruns * 1000
        finally:
            session.close()
        rows.append({"page": page.name, "cpu_ms": cpu_ms, "wall_ms": statistics.median(walls) * 1000,
                     "move_cpu_ms": move_cpu, "move_wall_ms": move_wall,
                     "ok": first.ok and not move_errors, "errors": first.exceptions + move_errors})
    return rows


def rounds(floor: Server, url: str, pid: int, reruns: int, pages: list[AppPage], root: Path, count: int) -> bool:
    """`count` rounds, each the floor and then every page; prints each page's median ratio to its round's floor.

    On a shared machine the speed drifts between one measurement and the next (the floor alone can cost 18 ms
    in one run and 27 ms in the next): a ratio to a floor measured minutes earlier moves with it, one to the
    floor measured just before does not. Returns whether every page's medians are within FLOOR_RATIO.
    """
    whole: dict[str, list[float]] = {}
    moved: dict[str, list[float]] = {}
    for _ in range(count):
        base = measure(floor.url, floor.proc.pid, reruns, "", [AppPage("dashboard.py", "")])[0]
        for r in measure(url, pid, reruns, pages=pages, root=root):
            whole.setdefault(r["page"], []).append(r["cpu_ms"] / base["cpu_ms"])
            if r["move_cpu_ms"] is not None:
                moved.setdefault(r["page"], []).append(r["move_cpu_ms"] / base["move_cpu_ms"])
    within = True
    print(f"{'page':<22} {'move: median':>13}   {'full run: median':>16} {'(min - max)':>14}")
    for name, ratios in whole.items():
        move = statistics.median(moved[name]) if name in moved else None
        full = statistics.median(ratios)
        within = within and full <= FLOOR_RATIO and (move or 0) <= FLOOR_RATIO
        shown = "   no control" if move is None else f"{move:10.2f}x"
        print(f"{name:<22} {shown}   {full:15.2f}x ({min(ratios):.2f} - {max(ratios):.2f})")
    return within


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reruns", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=1,
                    help="more than 1: the floor and the pages measured in turn that many times, each page's median "
                         "ratio to its round's floor printed (this tree only; the steadier figure on a shared machine)")
    ap.add_argument("--url", help="a running server (with --pid); default: start one")
    ap.add_argument("--pid", type=int)
    ap.add_argument("--pages", nargs="+", help="only these pages (their names in the address: trained_gpt, ...)")
    ap.add_argument("--before", type=Path, help="another checkout, measured first in the same run")
    args = ap.parse_args(argv)
    floor = FloorServer()
    worst = 0.0
    over_floor = False
    try:
        floor.wait_healthy()
        print(f"cached reruns, server CPU per run (budget {BUDGET_MS:.0f} ms for a move, {FLOOR_RATIO:g}x the floor); {load_average()}")
        print(f"{'page':<22} {'move: CPU':>10} {'wall':>7}   {'full run: CPU':>13} {'wall':>7}")
        base = measure(floor.url, floor.proc.pid, args.reruns, "", [AppPage("dashboard.py", "")])[0]
        print(f"{'floor (1 slider, 1 chart)':<22} {base['move_cpu_ms']:7.1f} ms {base['move_wall_ms']:4.0f} ms"
              f"   {base['cpu_ms']:10.1f} ms {base['wall_ms']:4.0f} ms")
        trees = ([("before: " + str(args.before), args.before)] if args.before else []) + [("this tree", ROOT)]
        for label, root in trees:
            server = None
            if args.url and root == ROOT:
                url, pid = args.url, args.pid
            else:
                server = Server(root)
                server.wait_healthy()
                url, pid = server.url, server.proc.pid
            try:
                pages = [p for p in discover_pages(root) if args.pages is None or p.url_path in args.pages or p.name in args.pages]
                print(f"# {label}; {load_average()}")
                if args.rounds > 1:
                    settle(pid)
                    if root == ROOT:
                        over_floor = not rounds(floor, url, pid, args.reruns, pages, root, args.rounds)
                    continue
                for r in measure(url, pid, args.reruns, pages=pages, root=root):
                    move = r["move_cpu_ms"]
                    if move is not None and root == ROOT:
                        worst = max(worst, move)
                    full_x = r["cpu_ms"] / base["cpu_ms"]
                    move_x = None if move is None else move / base["move_cpu_ms"]
                    if root == ROOT and (full_x > FLOOR_RATIO or (move_x or 0) > FLOOR_RATIO):
                        over_floor = True
                    mark = "" if move is None else ("ok" if move <= BUDGET_MS else "OVER")
                    moved = "   no control" if move is None else f"{move:7.1f} ms {r['move_wall_ms']:4.0f} ms"
                    mark += "" if move_x is None else f" move ×{move_x:.1f} floor"
                    mark += f", whole ×{full_x:.1f} floor"
                    print(f"{r['page']:<22} {moved}   {r['cpu_ms']:10.1f} ms {r['wall_ms']:4.0f} ms  {mark}"
                          f"{'' if r['ok'] else '  errors: ' + '; '.join(r['errors'])[:200]}")
            finally:
                if server is not None:
                    server.stop()
        if args.rounds > 1:  # the moves' budget in ms is read from a single-round run
            print(f"{'some page over' if over_floor else 'every page within'} {FLOOR_RATIO:g}x the floor by the median "
                  f"of {args.rounds} rounds (this tree); {load_average()}")
            return 1 if over_floor else 0
        print(f"worst move {worst:.1f} ms; {'some page over' if over_floor else 'every page within'} "
              f"{FLOOR_RATIO:g}x the floor (this tree); {load_average()}")
        return 0 if worst <= BUDGET_MS and not over_floor else 1
    finally:
        floor.stop()


if __name__ == "__main__":
    raise SystemExit(main())
