"""How long a new server's warm-up takes and what it holds, and whether a first visitor then waits.

    python bench/warmup.py

Starts a server with its warm-up on (ui/compute/warmup.py), opens the home page once (the first run of any
page starts the warm-up), waits for the warm-up's log line, and prints its time and server CPU, the
server's memory before and after, then each page's first visit afterwards (wall ms, experiments
computed for it: 0 when the warm-up did its job). With the load average.
"""
from __future__ import annotations

import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stclient import ROOT, AppPage, Server, Session, discover_pages, experiments, load_average  # noqa: E402

sys.path.insert(0, str(ROOT))


def main() -> int:
    from ui.compute import warmup

    server = Server(ROOT, warmup=True)
    try:
        server.wait_healthy()
        first = Session(server.url)
        try:
            run = first.open(AppPage("dashboard.py", ""))
            rss_home = server.rss_mb()
        finally:
            first.close()
        print(f"warm-up of a new server; {load_average()}")
        print(f"home's first visit (starts the warm-up): {run.seconds * 1000:.0f} ms; server RSS {rss_home:.0f} MB")
        while "FFN Lab warm-up:" not in server.log():
            if not server.alive():
                print(server.log()[-2000:])
                return 1
            time.sleep(0.5)
        line = next(ln for ln in server.log().splitlines() if "FFN Lab warm-up:" in ln)
        print(re.sub(r"^.*FFN Lab warm-up: ", "warm-up: ", line))
        print(f"server RSS after the warm-up {server.rss_mb():.0f} MB (+{server.rss_mb() - rss_home:.0f} MB)")
        pages = {p.url_path: p for p in discover_pages(ROOT)}
        before = experiments(server.url)["computed"]
        for name, query in warmup.views():
            if query:
                continue
            s = Session(server.url)
            try:
                r = s.open(pages[name], query)
            finally:
                s.close()
            now = experiments(server.url)["computed"]
            print(f"  first visit after warm-up {pages[name].name:<22} {r.seconds * 1000:6.0f} ms  computed {now - before}")
            before = now
        print(load_average())
        return 0
    finally:
        server.stop()


if __name__ == "__main__":
    raise SystemExit(main())
