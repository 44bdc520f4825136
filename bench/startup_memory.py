"""Start-up, per-page and memory costs of the server, measured over Streamlit's websocket protocol.

    python bench/startup_memory.py [--sessions 30]

- start: from spawning `streamlit run dashboard.py` to the home page's first script_finished
  (a session connects as soon as /_stcore/health answers, as a browser's first tab would);
- per page, its costliest link (COSTLIEST_LINKS): the most a crafted link can make one run cost;
- per page: its first visit (imports and the default computation), a rerun with a warm cache
  (median of 5), and the first run of new settings (one control moved) minus the warm rerun,
  which is what the computation itself costs;
- memory: the server's RSS (with children) after one session visited every page, and with
  30 sessions connected that all visited every page (each moving one control, half in Korean).
Times are wall-clock on a shared 2-core machine: noisy; compare within one run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import threading
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stclient import Server, Session, cpu_s, discover_pages, load_average, neighbour  # noqa: E402


def measure_start(server: Server) -> dict:
    """Seconds from spawn to health, and to the home page's first finished run."""
    health_s = server.wait_healthy()
    session = Session(server.url)
    try:
        run = session.open(discover_pages()[0], "lang=en")
        home_s = time.perf_counter() - server.started
        return {"health_s": health_s, "home_s": home_s, "home_cpu_s": server.cpu_s(), "home_ok": run.ok,
                "home_errors": run.exceptions, "load": load_average()}
    finally:
        session.close()


def measure_pages(url: str, pid: int, warm_reruns: int = 5) -> list[dict]:
    """Per page, from one session: first visit, warm rerun, first run of new settings.

    Each in wall seconds (what the student waits) and in the server's CPU seconds (what the
    run costs; steadier on a shared machine). Warm reruns: the median wall, the mean CPU.
    """
    rows = []
    session = Session(url)
    try:
        for page in discover_pages():
            cpu0 = cpu_s(pid)
            opened = session.open(page, "lang=en")
            cpu1 = cpu_s(pid)
            warm = statistics.median(session.rerun().seconds for _ in range(warm_reruns))
            warm_cpu = (cpu_s(pid) - cpu1) / warm_reruns
            row = {"page": page.name, "first_visit_s": opened.seconds, "first_visit_cpu_s": cpu1 - cpu0,
                   "warm_rerun_s": warm, "warm_rerun_cpu_s": warm_cpu, "errors": list(opened.exceptions),
                   "new_settings_s": None, "new_settings_cpu_s": None, "control": None}
            movable = sorted(opened.widgets, key=lambda w: w.kind != "slider")
            if movable:
                widget = movable[0]
                cpu2 = cpu_s(pid)
                moved = session.set(widget, neighbour(widget, random.Random(11), None))
                row.update(new_settings_s=moved.seconds, new_settings_cpu_s=cpu_s(pid) - cpu2,
                           control=widget.key or widget.kind)
                row["errors"] += moved.exceptions
            rows.append(row)
    finally:
        session.close()
    return rows


_WIDEST_SWEEP = "&".join(f"widths={m}" for m in (2, 4, 8, 16, 32, 64, 128, 256))
# Per page, the costliest link its bounds accept (every size at the largest the page allows
# together, and the slower choice where one costs more), worked out from the core's limits:
# position n·d ≤ 1,024 (cost ~ (n·d)²·4d, so 8 × 128), memorisation n·d·m·steps ≤ 2³¹, at most
# 8 widths up to 256 for the sweep, gelu and both methods being its slowest. Every slider at its
# maximum at once is refused by most pages, and a refusal costs nothing, so it measures nothing.
COSTLIEST_LINKS: dict[str, str] = {
    "parameter_split": "d=8192&expansion=8&glu=true&bias=true",
    "position_wise": "n=8&d=128&heads=8&act=gelu&causal=true",
    "linear_collapse": "d=128&m=1024&act=gelu&bias=true",
    "width_sweep": f"{_WIDEST_SWEEP}&method=both&act=gelu",
    "key_value": "d=128&m=512&n=256&steps=100&top=50",
    "activation_sparsity": "d=128&m=512&steps=200&act=gelu&task=random_labels",
    # The GPT pages have no sizes to raise: their costliest links ask for a new fact and, on the surgery
    # page, a new ablation, the ROME edit in the last block and a checkpoint that is not the final one.
    "trained_gpt": "country=Japan&relation=currency&plang=ko&form=일본+은+통화+로",
    "gpt_surgery": "target=attn_4&edit_country=Japan&edit_lang=ko&block=4&method=covariance&step=0",
}


def measure_worst_case(url: str, pid: int) -> list[dict]:
    """Per page: its costliest link, opened by a new student; that run's wall and CPU seconds.

    DESIGN.md bounds every size so that no link costs more than about 2 s. The page is visited
    first on its defaults (its imports are paid, as on a server in use). A row fails when the
    page refuses the link or has no control by one of its names (a renamed control must not
    turn the row into a measure of the defaults), and a page without a listed link fails too.
    """
    rows = []
    warm = Session(url)
    try:
        for page in discover_pages()[1:]:
            warm.open(page, "lang=en")
            link = COSTLIEST_LINKS.get(page.name)
            if link is None:
                rows.append({"page": page.name, "controls": [], "wall_s": float("nan"), "cpu_s": float("nan"),
                             "errors": ["no costliest link listed in bench/startup_memory.py"], "ok": False})
                continue
            # A new session: a session that has drawn a page keeps its controls and ignores a link's values.
            session = Session(url)
            try:
                cpu0 = cpu_s(pid)
                run = session.open(page, f"lang=en&{link}")
                cost = cpu_s(pid) - cpu0
            finally:
                session.close()
            asked = {key for key, _ in urllib.parse.parse_qsl(link)}
            errors = run.exceptions + [f"refused: {w}" for w in run.warnings]
            errors += [f"no control named {key}" for key in sorted(asked - run.bound_keys)]
            rows.append({"page": page.name, "controls": sorted(asked), "wall_s": run.seconds, "cpu_s": cost,
                         "errors": errors, "ok": run.ok and not errors})
    finally:
        warm.close()
    return rows


def visit_every_page(url: str, i: int, keep: list[Session], errors: list[str]) -> None:
    rng = random.Random(100 + i)
    session = Session(url)
    keep.append(session)
    for page in discover_pages():
        run = session.open(page, f"lang={'ko' if i % 2 else 'en'}")
        errors += [f"{page.name} (open): {e}" for e in run.exceptions]
        if page.url_path and run.widgets:
            widget = rng.choice(run.widgets)
            value = neighbour(widget, rng, None)
            errors += [f"{page.name} ({widget.key}={value}): {e}" for e in session.set(widget, value).exceptions]


def measure_memory(server: Server, sessions: int = 30, parallel: int = 5) -> dict:
    """RSS after one session, and with `sessions` connected that each visited every page."""
    keep: list[Session] = []
    errors: list[str] = []
    try:
        before = server.rss_mb()
        visit_every_page(server.url, 0, keep, errors)
        one = server.rss_mb()
        pending = list(range(1, sessions))
        lock = threading.Lock()

        def worker() -> None:
            while True:
                with lock:
                    if not pending:
                        return
                    i = pending.pop()
                try:
                    visit_every_page(server.url, i, keep, errors)
                except Exception as e:
                    with lock:
                        errors.append(f"session {i}: {type(e).__name__}: {e}")

        threads = [threading.Thread(target=worker) for _ in range(parallel)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        many = server.rss_mb()
    finally:
        for s in keep:
            s.close()
    time.sleep(2)  # let the server drop the sessions
    return {"rss_idle_mb": before, "rss_1_session_mb": one, "rss_n_sessions_mb": many,
            "sessions": sessions, "rss_after_close_mb": server.rss_mb(), "errors": errors}


def measure_all(sessions: int = 30) -> dict:
    """One fresh server: start-up, then the pages, then memory (in that order, on one cache)."""
    server = Server()
    try:
        start = measure_start(server)
        pages = measure_pages(server.url, server.proc.pid)
        worst = measure_worst_case(server.url, server.proc.pid)
        memory = measure_memory(server, sessions)
        return {"start": start, "pages": pages, "worst": worst, "memory": memory,
                "tracebacks": tracebacks(server.log())}
    finally:
        server.stop()


def tracebacks(log: str, limit: int = 3) -> list[str]:
    """The server log's tracebacks (the browser only sees a redacted message): the last lines of each."""
    found = []
    for block in log.split("Traceback (most recent call last):")[1:limit + 1]:
        lines = [line for line in block.strip().splitlines() if line.strip()]
        found.append("\n".join(lines[-6:]))
    return found


def ms(x: float | None) -> str:
    return "—" if x is None else f"{x * 1000:.0f} ms"


def pair(wall: float | None, cpu: float | None) -> str:
    return "—" if wall is None else f"{ms(wall)} ({ms(cpu)})"


def compute(p: dict) -> tuple[float | None, float | None]:
    """What new settings cost beyond a warm rerun: (wall, CPU) seconds, or (None, None)."""
    if p["new_settings_s"] is None:
        return None, None
    return (max(0.0, p["new_settings_s"] - p["warm_rerun_s"]),
            max(0.0, p["new_settings_cpu_s"] - p["warm_rerun_cpu_s"]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=30)
    args = ap.parse_args(argv)
    r = measure_all(args.sessions)
    s, m = r["start"], r["memory"]
    print(f"start: health {s['health_s']:.2f} s, home page rendered {s['home_s']:.2f} s after spawn "
          f"(server CPU {s['home_cpu_s']:.2f} s; {s['load']})")
    print("wall time (server CPU time) per run; compute = new settings − warm rerun")
    print(f"{'page':<22} {'first visit':>20} {'warm rerun':>20} {'new settings':>20} {'compute':>20}  control")
    for p in r["pages"]:
        print(f"{p['page']:<22} {pair(p['first_visit_s'], p['first_visit_cpu_s']):>20} "
              f"{pair(p['warm_rerun_s'], p['warm_rerun_cpu_s']):>20} "
              f"{pair(p['new_settings_s'], p['new_settings_cpu_s']):>20} {pair(*compute(p)):>20}  "
              f"{p['control'] or ''}" + (f"  ERRORS {p['errors'][:2]}" if p["errors"] else ""))
    for w in r["worst"]:
        print(f"costliest link: {w['page']:<22} {pair(w['wall_s'], w['cpu_s'])}  "
              f"({', '.join(w['controls'])})" + (f"  ERRORS {w['errors'][:2]}" if w["errors"] else ""))
    print(f"RSS: idle {m['rss_idle_mb']:.0f} MB, after 1 session {m['rss_1_session_mb']:.0f} MB, "
          f"{m['sessions']} sessions connected {m['rss_n_sessions_mb']:.0f} MB, after they closed "
          f"{m['rss_after_close_mb']:.0f} MB; errors {len(m['errors'])}")
    for tb in r["tracebacks"]:
        print("server traceback:\n" + tb)
    bad = s["home_errors"] or m["errors"] or any(p["errors"] for p in r["pages"] + r["worst"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
