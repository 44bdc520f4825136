"""How long a new server's warm-up takes and what it holds, and whether a first visitor then waits.

    python bench/warmup.py [--page gpt_surgery]

1. A server with its warm-up off: the first visit of `--page` (page 9 by default, the costliest), as the
   first student of a fresh server met it before the warm-up started with the process, then a second
   visit (warm). The budget: a first visit within 1.5x a warm one.
2. A server with its warm-up on (ui/compute/warmup.py, started by the App's lifespan, ui/server.py):
   nobody opens a page; /ready is polled until it answers 200. Prints the time from spawn, the warm-up's
   own time and server CPU, the server's memory before and after, then each page's first visit
   afterwards (wall ms, experiments computed for it: 0 when the warm-up did its job) and that page's
   second visit. The neighbours are left out (FFNLAB_NEIGHBOURS_S=0) so the counts are the visits' own.
With the load average: wall times on a shared machine move with it.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stclient import ROOT, Server, Session, discover_pages, experiments, load_average, ready  # noqa: E402

sys.path.insert(0, str(ROOT))
FIRST_RATIO = 1.5


def _visit(url: str, page, query: str = "") -> float:  # noqa: ANN001
    s = Session(url, timeout_s=600)
    try:
        run = s.open(page, query)
        if not run.ok:
            raise RuntimeError(f"{page.name}: {run.exceptions}")
        return run.seconds
    finally:
        s.close()


def main() -> int:
    from ui.compute import warmup

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--page", default="gpt_surgery")
    args = parser.parse_args()
    pages = {p.url_path: p for p in discover_pages(ROOT)}
    target = pages[args.page]

    cold = Server(ROOT, warmup=False)
    try:
        cold.wait_healthy()
        first, second = _visit(cold.url, target), _visit(cold.url, target)
        print(f"no warm-up: {target.name} first visit {first:.2f} s, second {second:.2f} s (x{first / second:.1f}); {load_average()}")
    finally:
        cold.stop()

    server = Server(ROOT, warmup=True, env={"FFNLAB_NEIGHBOURS_S": "0"})
    try:
        healthy = server.wait_healthy()
        rss_start = server.rss_mb()
        while True:
            code, status = ready(server.url)
            if code == 200:
                break
            if not server.alive():
                print(server.log()[-2000:])
                return 1
            time.sleep(0.5)
        since_spawn = time.perf_counter() - server.started
        print(f"warm-up from process start; {load_average()}")
        print(f"healthy {healthy:.1f} s after spawn; /ready 200 after {since_spawn:.1f} s: {status['state']}, "
              f"{status['done']} views in {status['seconds']:.1f} s, server CPU {status['cpu_s']:.1f} s, failed {status['failed']}")
        print(f"server RSS {rss_start:.0f} MB at health, {server.rss_mb():.0f} MB after the warm-up")
        before = experiments(server.url)["computed"]
        computed, ratio = 0, None
        for name, query in warmup.views():
            if query:
                continue
            first = _visit(server.url, pages[name])
            now = experiments(server.url)["computed"]
            again = _visit(server.url, pages[name])
            computed += now - before
            if pages[name] == target:
                ratio = first / again
            print(f"  first visit after warm-up {pages[name].name:<22} {first * 1000:6.0f} ms (again {again * 1000:4.0f} ms)"
                  f"  computed {now - before}")
            before = experiments(server.url)["computed"]
        # Below ~200 ms a visit's wall time on a shared machine is mostly waiting for a core: the budget is
        # that no first visit computes, and the costliest page's first visit stays within 1.5x a warm one.
        ok = computed == 0 and ratio is not None and ratio <= FIRST_RATIO
        print(f"{'✓' if ok else '✗'} no first visit computed ({computed} experiments); {target.name}'s first visit "
              f"x{ratio:.2f} its second (budget {FIRST_RATIO:g}x); {load_average()}")
        return 0 if ok else 1
    finally:
        server.stop()


if __name__ == "__main__":
    raise SystemExit(main())
