"""A cached rerun's server CPU, page by page: what every student's redraw costs once results are cached.

    python bench/rerun_cpu.py [--reruns 10] [--url URL --pid PID]

One session opens each page (its default view, computed on first open), then
- moves the page's first control one step and back `--reruns` times, as the browser sends it (a
  control drawn inside an st.fragment reruns only that fragment): "move", what a student's change
  costs once both values are cached — the budget of 20 ms is for this;
- reruns the whole page `--reruns` times: "full", what a page load, a language switch or following
  the instructor to a new setting costs.
The server's CPU time (process and children, all threads) over those runs, divided by their number,
is each cost. Printed with the load average: CPU time is steadier than wall time on a shared
machine, but a loaded core still runs slower.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stclient import ROOT, AppPage, FloorServer, Run, Server, Session, cpu_s, current_value, discover_pages, load_average, neighbour  # noqa: E402

BUDGET_MS = 20.0


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
    walls, cpu0 = [], cpu_s(pid)
    for i in range(reruns):
        run = session.set(widget, there if i % 2 == 0 else back)
        walls.append(run.seconds)
        errors += run.exceptions
    return (cpu_s(pid) - cpu0) / reruns * 1000, statistics.median(walls) * 1000, errors


def measure(url: str, pid: int, reruns: int, query: str = "lang=en", pages: list[AppPage] | None = None) -> list[dict]:
    rows = []
    for page in discover_pages(ROOT) if pages is None else pages:
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reruns", type=int, default=10)
    ap.add_argument("--url", help="a running server (with --pid); default: start one")
    ap.add_argument("--pid", type=int)
    args = ap.parse_args(argv)
    server = None
    if args.url:
        url, pid = args.url, args.pid
    else:
        server = Server(ROOT)
        server.wait_healthy()
        url, pid = server.url, server.proc.pid
    floor = FloorServer()
    try:
        floor.wait_healthy()
        print(f"cached reruns, server CPU per run (budget {BUDGET_MS:.0f} ms for a move); {load_average()}")
        print(f"{'page':<22} {'move: CPU':>10} {'wall':>7}   {'full run: CPU':>13} {'wall':>7}")
        base = measure(floor.url, floor.proc.pid, args.reruns, "", [AppPage("dashboard.py", "")])[0]
        print(f"{'floor (1 slider, 1 chart)':<22} {base['move_cpu_ms']:7.1f} ms {base['move_wall_ms']:4.0f} ms"
              f"   {base['cpu_ms']:10.1f} ms {base['wall_ms']:4.0f} ms")
        worst = 0.0
        for r in measure(url, pid, args.reruns):
            move = r["move_cpu_ms"]
            if move is not None:
                worst = max(worst, move)
            mark = "" if move is None else ("ok" if move <= BUDGET_MS else "OVER")
            moved = "   no control" if move is None else f"{move:7.1f} ms {r['move_wall_ms']:4.0f} ms"
            mark += "" if move is None else f" ×{move / base['move_cpu_ms']:.1f} floor"
            print(f"{r['page']:<22} {moved}   {r['cpu_ms']:10.1f} ms {r['wall_ms']:4.0f} ms  {mark}"
                  f"{'' if r['ok'] else '  errors: ' + '; '.join(r['errors'])[:200]}")
        print(f"worst move {worst:.1f} ms; {load_average()}")
        return 0 if worst <= BUDGET_MS else 1
    finally:
        floor.stop()
        if server is not None:
            server.stop()


if __name__ == "__main__":
    raise SystemExit(main())
