"""A cached rerun's server CPU, page by page: what every student's redraw costs once results are cached.

    python bench/rerun_cpu.py [--reruns 10] [--url URL --pid PID]

One session opens each page (its default view, computed on first open), then reruns it `--reruns`
times; the server's CPU time (process and children, all threads) over those reruns, divided by
their number, is the page's cached-rerun cost. The budget is 20 ms. Printed with the load average:
CPU time is steadier than wall time on a shared machine, but a loaded core still runs slower.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stclient import ROOT, Server, Session, cpu_s, discover_pages, load_average  # noqa: E402

BUDGET_MS = 20.0


def measure(url: str, pid: int, reruns: int, query: str = "lang=en") -> list[dict]:
    rows = []
    for page in discover_pages(ROOT):
        session = Session(url)
        try:
            first = session.open(page, query)
            session.rerun()  # a second run: anything the first run put in session state is settled
            walls, cpu0 = [], cpu_s(pid)
            for _ in range(reruns):
                walls.append(session.rerun().seconds)
            cpu_ms = (cpu_s(pid) - cpu0) / reruns * 1000
        finally:
            session.close()
        rows.append({"page": page.name, "cpu_ms": cpu_ms, "wall_ms": statistics.median(walls) * 1000,
                     "ok": first.ok, "errors": first.exceptions})
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
    try:
        print(f"cached rerun, server CPU per rerun (budget {BUDGET_MS:.0f} ms); {load_average()}")
        worst = 0.0
        for r in measure(url, pid, args.reruns):
            worst = max(worst, r["cpu_ms"])
            mark = "ok" if r["cpu_ms"] <= BUDGET_MS else "OVER"
            print(f"{r['page']:<22} {r['cpu_ms']:6.1f} ms CPU  {r['wall_ms']:6.0f} ms wall  {mark}"
                  f"{'' if r['ok'] else '  errors: ' + '; '.join(r['errors'])[:200]}")
        print(f"worst {worst:.1f} ms; {load_average()}")
        return 0 if worst <= BUDGET_MS else 1
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    raise SystemExit(main())
