"""Where a cached rerun's server CPU goes: cProfile inside a real server, page by page.

    python bench/profile_rerun.py [--reruns 6] [--top 25] [--pages key_value gpt_surgery]

Starts `streamlit run dashboard.py` in a child process whose script runs are each profiled
(ScriptRunner._run_script wrapped in cProfile; the profiles add up until the driver asks for them
with SIGUSR1, which writes them out and starts afresh). For each page: open it, rerun once, reset,
rerun `--reruns` times, print the top functions by own time and by cumulative time. Times include
the profiler's overhead (thread CPU time, so waiting for a core is not counted).
"""
from __future__ import annotations

import argparse
import os
import pstats
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

_CHILD = r'''
import cProfile, os, pstats, signal, sys, threading, time
from streamlit.runtime.scriptrunner import script_runner

out = os.environ["FFNLAB_PROFILE_OUT"]
lock = threading.Lock()
profiles = []
original = script_runner.ScriptRunner._run_script

def run(self, *args, **kwargs):
    p = cProfile.Profile(time.thread_time)  # CPU, not wall: a loaded machine preempts the thread
    p.enable()
    try:
        return original(self, *args, **kwargs)
    finally:
        p.disable()
        with lock:
            profiles.append(p)

def dump(_sig, _frame):
    with lock:
        taken = profiles[:]
        profiles.clear()
    if taken:
        stats = pstats.Stats(taken[0])
        for p in taken[1:]:
            stats.add(p)
        stats.dump_stats(out)
    else:
        open(out, "wb").close()
    open(out + ".ready", "w").close()

script_runner.ScriptRunner._run_script = run
signal.signal(signal.SIGUSR1, dump)
from streamlit.web import cli
sys.argv = ["streamlit", "run", "dashboard.py", *sys.argv[1:]]
cli.main()
'''


def main(argv: list[str] | None = None) -> int:
    import random

    from stclient import ROOT, Session, current_value, discover_pages, free_port, load_average, neighbour, settle

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reruns", type=int, default=6)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--pages", nargs="*", help="router names (default: every page)")
    ap.add_argument("--sort", default="tottime", choices=("tottime", "cumulative"))
    ap.add_argument("--move", action="store_true",
                    help="profile moves of the page's first control (as the browser sends them) instead of full reruns")
    args = ap.parse_args(argv)
    port = free_port()
    out = Path(tempfile.mkdtemp(prefix="ffnlab-profile-")) / "rerun.prof"
    log = open(out.with_suffix(".log"), "w")
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, "--server.port", str(port), "--server.address", "127.0.0.1",
                             "--server.headless", "true", "--browser.gatherUsageStats", "false"],
                            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "FFNLAB_PROFILE_OUT": str(out), "FFNLAB_WARMUP": "0"})
    url = f"http://127.0.0.1:{port}"

    def take() -> pstats.Stats | None:
        ready = Path(str(out) + ".ready")
        ready.unlink(missing_ok=True)
        proc.send_signal(signal.SIGUSR1)
        while not ready.exists():
            time.sleep(0.05)
        return pstats.Stats(str(out)) if out.stat().st_size else None

    try:
        import urllib.request

        for _ in range(600):
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.1)
        for page in discover_pages(ROOT):
            if args.pages and page.name not in args.pages and page.url_path not in args.pages:
                continue
            s = Session(url)
            try:
                first = s.open(page, "lang=en")
                s.rerun()
                if args.move and first.widgets:
                    widget = first.widgets[0]
                    back = current_value(widget)
                    there = neighbour(widget, random.Random(0), back)
                    s.set(widget, there)
                    s.set(widget, back)
                settle(proc.pid)  # what the page computes after its answer (page 7's seeds) is not a rerun's cost
                take()
                for i in range(args.reruns):
                    if args.move and first.widgets:
                        s.set(widget, there if i % 2 == 0 else back)
                    else:
                        s.rerun()
                stats = take()
            finally:
                s.close()
            print(f"\n=== {page.name}: {args.reruns} cached {'moves' if args.move else 'reruns'}; {load_average()}")
            if stats is not None:
                stats.sort_stats(args.sort).print_stats(args.top)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
