"""A class of students on one server: N concurrent Streamlit sessions opening pages and moving controls.

    python bench/load.py                      # starts its own server per N, N = 1, 10, 30
    python bench/load.py --url http://127.0.0.1:8501 --students 30
    python bench/load.py --balanced 2 --students 30 100 200 --burst same own --burst-students 30 100
                                              # two replicas behind nginx (deploy/run.sh), fresh per run
    python bench/load.py --url http://host:8080 --replicas http://127.0.0.1:8601 http://127.0.0.1:8602
                                              # a running balancer; the replicas' own ports for memory and CPU

Each student is a real Streamlit session over its websocket protocol (bench/stclient.py), not a
browser: 30 Chromium tabs would need several GB and both cores for themselves, and would measure
the browser more than the server. The server cannot tell the difference: it gets the same BackMsg
(rerun with query string, page and widget states) and sends the same ForwardMsgs.

A student opens every page (half the class in Korean, half in English), reads it, then on each demo
page moves a control or two (a step or two along a slider, another option, a flip), looking at the
result between moves. The pacing is a class working through a lesson: arrivals spread over the
first 10 s after the link goes up, 5-15 s reading a page before touching it, 3-8 s looking at a
chart before the next move: about one action per student every 7 s. `--think` and `--read` change
it; `--think 1 4 --read 1 4 --arrive 1` is a stress pace no class keeps, which shows where one
server saturates. The instructor has the app open before the class arrives, so the server has
drawn the home page once (its imports are done); `--cold` starts the class on a fresh server; `--ready`
runs the app as deployed, its own warm-up and neighbours on, the class arriving once /ready says 200.

A rerun is "cached" when another session already finished a run with the same page and settings,
"first" otherwise. A page opened from the menu starts on its defaults whatever the session did
before (ui/kit/shell.py), so the link and the moves since are the whole of a page's settings. Printed
per N: rerun latency p50/p95/max (all, cached, first), errors (exception elements, failed runs,
client errors), the server's peak RSS, the server's CPU per rerun, the load client's own CPU (it
shares the machine's two cores with the server), and the server's own cache counters (hits,
misses, evictions of every st.cache_data function, from /_stcore/metrics).

Behind a balancer (--balanced N, or --url with --replicas) the memory and CPU are the replicas'
sums, and the cache counters are read from each replica's own port (nginx hides /_stcore/metrics).
`--burst same own` adds the synchronised bursts of bench/burst.py (N students on the width sweep
moving the seed within 1 s: all to the same new value, or each to its own) on the same target.

Two checks run beside it (--checks): a second student on the same settings must not recompute
(`check_cache`), and two students on different settings must each see only their own result
(`check_isolation`).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import psutil  # noqa: E402

import stclient  # noqa: E402
from stclient import AppPage, Run, Server, Session, discover_pages, neighbour, rss_mb  # noqa: E402


@dataclass
class Record:
    student: int
    page: str
    action: str  # "open" or "move"
    seconds: float
    cached: bool
    ok: bool
    errors: list[str] = field(default_factory=list)


class Class:
    """Shared bookkeeping of one load run: which settings some session has finished computing."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.done: set[str] = set()
        self.records: list[Record] = []
        self.client_errors: list[str] = []

    def record(self, student: int, page: AppPage, action: str, run: Run, seen_before: bool) -> None:
        with self.lock:
            self.done.add(run.settings)
            self.records.append(Record(student, page.name, action, run.seconds, seen_before, run.ok, run.exceptions))

    def seen(self, settings: str) -> bool:
        with self.lock:
            return settings in self.done


@dataclass(frozen=True)
class Pace:
    """How a student spends time: seconds (uniform ranges) to arrive, to read a page, between moves."""

    arrive: float = 10.0
    read: tuple[float, float] = (5.0, 15.0)
    think: tuple[float, float] = (3.0, 8.0)

    def describe(self) -> str:
        return (f"arrivals over {self.arrive:g} s, reading {self.read[0]:g}–{self.read[1]:g} s a page, "
                f"{self.think[0]:g}–{self.think[1]:g} s between moves")


CLASS_PACE = Pace()
READY_TIMEOUT_S = 300.0  # a warm-up of every default view on a loaded 2-core machine took about 100 s
STRESS_PACE = Pace(arrive=1.0, read=(1.0, 4.0), think=(1.0, 4.0))


def student(i: int, url: str, pages: list[AppPage], moves: int, pace: Pace,
            deadline: float, klass: Class, start: threading.Barrier) -> None:
    rng = random.Random(i)
    # Half the class does what the instructor says ("set d to 128"): the same moves in the same
    # order, drawn from one shared generator per page; the other half explores on its own.
    follows = i % 2 == 0
    lang = "ko" if i % 4 < 2 else "en"
    session = None
    try:
        start.wait(timeout=120)
        time.sleep(rng.uniform(0, pace.arrive))
        session = Session(url)
        for page in pages:
            if time.monotonic() > deadline:
                return
            link = f"lang={lang}"
            run = _timed(klass, i, page, "open", lambda: session.open(page, link),
                         stclient.settings_key(page, link, {}))
            plan = random.Random(page.name)
            time.sleep(rng.uniform(*pace.read))
            # The page's controls as last drawn: a move reruns only the part of the page that holds the
            # control (as the browser sends it), and that run draws only that part's controls.
            drawn = {w.key or w.id: w for w in run.widgets}
            for move in range(moves if page.url_path else 0):
                if time.monotonic() > deadline or not drawn:
                    break
                if move:
                    time.sleep(rng.uniform(*pace.think))
                chooser = plan if follows else rng
                # Same kind and key in both languages; only labels differ.
                widgets = sorted(drawn.values(), key=lambda w: (w.key, w.kind))
                widget = chooser.choice(widgets)
                value = neighbour(widget, chooser, session.values.get(widget.key or widget.id))
                session.stage(widget, value)
                run = _timed(klass, i, page, "move", lambda w=widget: session.read_run(
                    session.send_rerun(fragment_id=w.fragment_id)), session.settings())
                drawn.update({w.key or w.id: w for w in run.widgets})
            time.sleep(rng.uniform(*pace.think))
    except Exception as e:  # a dropped socket or a timeout is an error of the run, not of the script
        where = traceback.extract_tb(e.__traceback__)[-1]
        with klass.lock:
            klass.client_errors.append(f"student {i}: {type(e).__name__}: {e} ({Path(where.filename).name}:{where.lineno})")
    finally:
        if session is not None:
            session.close()


def _timed(klass: Class, i: int, page: AppPage, action: str, call, settings: str) -> Run:
    # Cached means: some session had finished these settings before this request was sent.
    seen_before = klass.seen(settings)
    run = call()
    klass.record(i, page, action, run, seen_before)
    return run


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


class PeakRSS:
    """Samples the servers' summed RSS (with children) every 0.2 s until stopped."""

    def __init__(self, pids: list[int]) -> None:
        self.pids, self._stop = pids, threading.Event()
        self.peak = self._now()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _now(self) -> float:
        return sum(rss_mb(pid) for pid in self.pids)

    def _loop(self) -> None:
        while not self._stop.wait(0.2):
            self.peak = max(self.peak, self._now())

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._now())
        return self.peak


class Balanced:
    """deploy/run.sh: `replicas` replicas of the app and nginx in front, on free ports of 127.0.0.1."""

    def __init__(self, replicas: int) -> None:
        ports = []
        while len(ports) < replicas + 1:
            port = stclient.free_port()
            ports += [] if port in ports else [port]
        listen, *self.ports = ports
        self.url = f"http://127.0.0.1:{listen}"
        self.replica_urls = [f"http://127.0.0.1:{p}" for p in self.ports]
        self.run_dir = tempfile.mkdtemp(prefix="ffnlab-balanced-")
        # The replicas share one results folder (ui/compute/disk_cache.py), fresh for this run: nothing computed before.
        self.env = {**os.environ, "FFNLAB_RUN_DIR": self.run_dir, "FFNLAB_PORTS": " ".join(map(str, self.ports)),
                    "FFNLAB_RESULTS_DIR": str(Path(self.run_dir) / "results"),
                    "FFNLAB_LISTEN": f"127.0.0.1:{listen}", "FFNLAB_PYTHON": sys.executable}
        self._script = str(stclient.ROOT / "deploy" / "run.sh")
        subprocess.run(["bash", self._script, "start"], env=self.env, check=True, timeout=300,
                       stdout=subprocess.DEVNULL)

    @property
    def pids(self) -> list[int]:
        return [pid for pid in (server_pid(url) for url in self.replica_urls) if pid]

    def stop(self) -> None:
        subprocess.run(["bash", self._script, "stop"], env=self.env, timeout=120)


class Target:
    """Where the class connects (`url`), and the servers that do the work behind it (their pids and own URLs)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.server = self.balanced = None
        if args.balanced:
            self.balanced = Balanced(args.balanced)
            self.url, self.replica_urls = self.balanced.url, self.balanced.replica_urls
        elif args.url:
            self.url, self.replica_urls = args.url, args.replicas or [args.url]
        else:
            self.server = Server(warmup=args.ready)
            self.server.wait_healthy()
            self.url, self.replica_urls = self.server.url, [self.server.url]
        if args.ready:  # the instructor woke the app before class: its warm-up is done on every replica
            deadline = time.monotonic() + READY_TIMEOUT_S
            while any(stclient.ready(url)[0] != 200 for url in self.replica_urls):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"not ready after {READY_TIMEOUT_S:.0f} s: {self.replica_urls}")
                time.sleep(1.0)

    @property
    def pids(self) -> list[int]:
        if self.server:
            return [self.server.proc.pid]
        return [pid for pid in (server_pid(url) for url in self.replica_urls) if pid]

    def describe(self) -> str:
        return (f"{len(self.replica_urls)} replica(s) behind nginx" if self.balanced or len(self.replica_urls) > 1
                else "one server")

    def stop(self) -> None:
        if self.server:
            self.server.stop()
        if self.balanced:
            self.balanced.stop()


def cache_counts(urls: list[str]) -> dict[str, int]:
    """The cache counters summed over every replica (read on their own ports)."""
    total: dict[str, int] = {}
    for url in urls:
        for name, value in stclient.cache_counts(url).items():
            total[name] = total.get(name, 0) + value
    return total


def server_pid(url: str) -> int | None:
    """The pid listening on the URL's port (to read the memory of a server we did not start)."""
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    for conn in psutil.net_connections(kind="tcp"):
        if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port and conn.pid:
            return conn.pid
    return None


def warm_up(url: str, sessions: int = 1) -> float:
    """The instructor opens the app before the class: one run of the home page. Its seconds.

    Behind a balancer each replica is a server of its own: `sessions` openings (one per replica
    and a few more) reach every replica with high odds.
    """
    seconds = 0.0
    for _ in range(sessions):
        session = Session(url)
        try:
            seconds = session.open(discover_pages()[0], "lang=en").seconds
        finally:
            session.close()
    return seconds


def run_load(url: str, n: int, pid: int | list[int] | None, moves: int = 2, pace: Pace = CLASS_PACE,
             max_seconds: float = 300.0, pages: list[AppPage] | None = None,
             replica_urls: list[str] | None = None) -> dict:
    """N students at once against a running server (or a balancer); the latency, error and memory summary.

    `pid` is the server's process, or the replicas' behind a balancer (memory and CPU are summed);
    `replica_urls` are where the cache counters are read (default: `url`).
    """
    pages = pages or discover_pages()
    pids = [] if pid is None else [pid] if isinstance(pid, int) else list(pid)
    replica_urls = replica_urls or [url]
    klass = Class()
    start = threading.Barrier(n)
    deadline = time.monotonic() + max_seconds
    peak = PeakRSS(pids) if pids else None
    cpu0 = sum(stclient.cpu_s(p) for p in pids) if pids else float("nan")
    caches0 = cache_counts(replica_urls)
    client0 = time.process_time()
    began = time.perf_counter()
    stclient.all_at_once(student, n, url, pages, moves, pace, deadline, klass, start)
    wall = time.perf_counter() - began
    client_cpu = time.process_time() - client0
    cpu = (sum(stclient.cpu_s(p) for p in pids) - cpu0) if pids else float("nan")
    caches = {k: v - caches0.get(k, 0) for k, v in cache_counts(replica_urls).items()}
    rss_end = sum(rss_mb(p) for p in pids) if pids else float("nan")
    peak_mb = peak.stop() if peak else float("nan")
    recs = klass.records
    script_errors = [f"{r.page}: {e}" for r in recs for e in (r.errors or ([] if r.ok else ["run not finished"]))]
    every = [r.seconds for r in recs]
    cached = [r.seconds for r in recs if r.cached]
    first = [r.seconds for r in recs if not r.cached]
    return {
        "students": n, "runs": len(recs), "wall_s": wall, "pace": pace.describe(),
        "runs_per_s": len(recs) / wall, "client_cpu_s": client_cpu,
        "p50": percentile(every, 0.5), "p95": percentile(every, 0.95), "max": max(every, default=float("nan")),
        "cached_runs": len(cached), "cached_p50": percentile(cached, 0.5), "cached_p95": percentile(cached, 0.95),
        "cached_max": max(cached, default=float("nan")),
        "first_runs": len(first), "first_p95": percentile(first, 0.95),
        "errors": len(script_errors) + len(klass.client_errors),
        "error_samples": (script_errors + klass.client_errors)[:5],
        "peak_rss_mb": peak_mb, "rss_end_mb": rss_end,
        # Server CPU per rerun: how many reruns a second one core can serve, whatever the load.
        "cpu_s": cpu, "cpu_per_run_s": cpu / max(len(recs), 1), "caches": caches, "servers": len(pids),
        "per_page": {p.name: (percentile([r.seconds for r in recs if r.page == p.name and r.cached], 0.95),
                              percentile([r.seconds for r in recs if r.page == p.name and not r.cached], 0.95))
                     for p in pages},
    }


# --- the two checks -------------------------------------------------------------------------


def _first_movable(run: Run) -> list:
    # Sliders first: they change what is computed; then options, then flips.
    order = {"slider": 0, "number_input": 1, "selectbox": 2, "radio": 2, "checkbox": 3}
    return sorted(run.widgets, key=lambda w: order[w.kind])


def check_cache(url: str, pid: int | None = None, pages: list[AppPage] | None = None) -> list[dict]:
    """Per page: the first run of new settings, then two more students on the same settings.

    Seen from outside, a cache hit is a second student whose run costs the server about what a
    warm rerun costs, not what the first student's did. Costs are the server's CPU seconds when
    its pid is known (steadier on a shared machine), else wall seconds. A page whose computation
    costs under 0.15 s cannot be told apart from noise: `recomputed` is None there.
    """
    def cost(call) -> tuple[Run, float, float]:
        c0 = stclient.cpu_s(pid) if pid else 0.0
        run = call()
        return run, run.seconds, (stclient.cpu_s(pid) - c0) if pid else run.seconds

    rows = []
    for page in pages or discover_pages()[1:]:
        a, b, c = Session(url), Session(url), Session(url)
        try:
            opened = a.open(page, "lang=en")  # imports and default settings warm
            widgets = _first_movable(opened)
            if not widgets:
                continue
            widget = widgets[0]
            value = neighbour(widget, random.Random(7), None)
            first, first_wall, first_cost = cost(lambda: a.set(widget, value))
            warm = [cost(a.rerun) for _ in range(3)]
            warm_wall, warm_cost = min(w[1] for w in warm), min(w[2] for w in warm)
            seconds = []
            for other in (b, c):
                other.open(page, "lang=en")
                seconds.append(cost(lambda: other.set(widget, value)))  # the same settings, another session
            second = min(seconds, key=lambda r: r[2])  # the better of two students: the machine is shared
            compute = first_cost - warm_cost
            rows.append({
                "page": page.name, "control": widget.key or widget.kind, "unit": "CPU" if pid else "wall",
                "first_s": first_wall, "second_student_s": second[1], "warm_rerun_s": warm_wall,
                "first_cost": first_cost, "second_cost": second[2], "warm_cost": warm_cost,
                "same_result": first.fingerprint() == second[0].fingerprint(),
                "recomputed": None if compute < 0.15 else second[2] - warm_cost > 0.5 * compute,
                "errors": len(first.exceptions) + len(second[0].exceptions),
            })
        finally:
            for s in (a, b, c):
                s.close()
    return rows


def print_cache(rows: list[dict]) -> None:
    for row in rows:
        verdict = {None: "compute too small to tell", True: "RECOMPUTED", False: "cached"}[row["recomputed"]]
        print(f"cache   {row['page']:<22} {row['control']:<10} server {row['unit']}: first {fmt_s(row['first_cost'])}, "
              f"second student {fmt_s(row['second_cost'])}, warm rerun {fmt_s(row['warm_cost'])} -> {verdict}"
              f"{'' if row['same_result'] else ', DIFFERENT RESULT'}")


def check_isolation(url: str, rounds: int = 5, pages: list[AppPage] | None = None) -> dict:
    """Two students on one page with different settings, rerunning at the same moment, each
    must read back exactly what that setting gives when run alone (metrics and texts)."""
    for page in pages or discover_pages()[1:]:
        ref = Session(url)
        try:
            opened = ref.open(page, "lang=en")
            for widget in _first_movable(opened):
                value_a = stclient.current_value(widget)
                value_b = neighbour(widget, random.Random(3), None)
                alone_b = ref.set(widget, value_b).fingerprint()
                alone_a = ref.set(widget, value_a).fingerprint()
                if alone_a != alone_b and (opened.metrics or opened.texts):
                    break
            else:
                continue
        finally:
            ref.close()
        a, b = Session(url), Session(url)
        try:
            a.open(page, "lang=en")
            b.open(page, "lang=en")
            leaks, runs = 0, 0
            barrier = threading.Barrier(2)
            seen: dict[str, list[str]] = {"a": [], "b": []}

            def go(name: str, session: Session, value) -> None:
                for _ in range(rounds):
                    barrier.wait(timeout=60)
                    seen[name].append(session.set(widget, value).fingerprint())

            ta = threading.Thread(target=go, args=("a", a, value_a))
            tb = threading.Thread(target=go, args=("b", b, value_b))
            ta.start(), tb.start()
            ta.join(), tb.join()
            for got in seen["a"]:
                leaks += got != alone_a
            for got in seen["b"]:
                leaks += got != alone_b
            runs = len(seen["a"]) + len(seen["b"])
            return {"page": page.name, "control": widget.key or widget.kind,
                    "values": (str(value_a), str(value_b)), "runs": runs, "leaks": leaks}
        finally:
            a.close()
            b.close()
    return {"page": None, "runs": 0, "leaks": 0, "note": "no page with a control that changes a metric or text"}


# --- the command ----------------------------------------------------------------------------


def fmt_s(x: float) -> str:
    return "—" if x != x else f"{x * 1000:.0f} ms"


def print_load(r: dict) -> None:
    print(f"N={r['students']:>3}  runs {r['runs']:>4}  errors {r['errors']}  "
          f"all p50 {fmt_s(r['p50'])} p95 {fmt_s(r['p95'])} max {fmt_s(r['max'])}  |  "
          f"cached ({r['cached_runs']}) p50 {fmt_s(r['cached_p50'])} p95 {fmt_s(r['cached_p95'])} "
          f"max {fmt_s(r['cached_max'])}  |  first ({r['first_runs']}) p95 {fmt_s(r['first_p95'])}  |  "
          f"peak RSS {r['peak_rss_mb']:.0f} MB  wall {r['wall_s']:.0f} s  {r['runs_per_s']:.1f} reruns/s  "
          f"server CPU {fmt_s(r['cpu_per_run_s'])}/rerun, {r['cpu_s'] / r['wall_s']:.0%} of a core"
          f"{' (summed over %d replicas)' % r['servers'] if r.get('servers', 1) > 1 else ''}  "
          f"client CPU {r['client_cpu_s'] / r['wall_s']:.0%} of a core")
    print("    p95 cached / first by page: " + ", ".join(
        f"{page} {fmt_s(cached)} / {fmt_s(first)}" for page, (cached, first) in r["per_page"].items()))
    if r["caches"]:
        c = r["caches"]
        # Every cached call counts, charts included; evictions show whether a class outgrew a cache.
        print(f"    server caches: {c['hits'] + c['misses']} lookups, {c['hits']} hits, {c['misses']} misses, "
              f"{c['evictions']} evictions")
    for sample in r["error_samples"]:
        print(f"    error: {sample}")


def run_bursts(target: Target, n: int, kinds: list[str], seed: int) -> bool:
    """bench/burst.py's synchronised bursts on the width sweep against the target; True if one failed."""
    import burst

    failed = False
    warm = Session(target.url, timeout_s=600)
    try:
        warm.open(burst.page(burst.SWEEP), "lang=en&seed=0")  # the instructor's tab
    finally:
        warm.close()
    for kind in kinds:
        call = {"same": burst.same_value, "follow": burst.follow, "own": burst.own_values}[kind]
        result = call(target.url, n, seed)
        seed += n + 1
        print(f"burst {kind:<5} {target.describe()}: {result.line()}", flush=True)
        failed |= result.failed > 0
    return failed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", help="a running server or balancer (default: start one per N on a free port)")
    ap.add_argument("--replicas", nargs="+", metavar="URL",
                    help="with --url at a balancer: the replicas' own addresses, for their memory, CPU and caches")
    ap.add_argument("--balanced", type=int, metavar="R",
                    help="start R replicas behind nginx with deploy/run.sh per N (fresh each time)")
    ap.add_argument("--students", type=int, nargs="*", default=[1, 10, 30])
    ap.add_argument("--moves", type=int, default=2, help="control moves per demo page and student")
    ap.add_argument("--arrive", type=float, default=CLASS_PACE.arrive, metavar="S",
                    help="students arrive spread over this many seconds")
    ap.add_argument("--read", type=float, nargs=2, default=CLASS_PACE.read, metavar=("MIN", "MAX"),
                    help="seconds a student reads a page before the first move")
    ap.add_argument("--think", type=float, nargs=2, default=CLASS_PACE.think, metavar=("MIN", "MAX"),
                    help="seconds a student looks at a result before the next action")
    ap.add_argument("--cold", action="store_true", help="no warm-up: the class is the server's first visitor")
    ap.add_argument("--ready", action="store_true",
                    help="the app as deployed: its own warm-up (and the neighbours after it) on, the class arriving once "
                         "/ready says the warm-up is done (a checkout without /ready: leave this out)")
    ap.add_argument("--max-seconds", type=float, default=300.0, help="bound on each N's run")
    ap.add_argument("--burst", nargs="+", choices=("same", "follow", "own"), default=[],
                    help="also the synchronised bursts of bench/burst.py on the same target")
    ap.add_argument("--burst-students", type=int, nargs="+", default=[30, 100])
    ap.add_argument("--no-checks", action="store_true", help="skip the cache and isolation checks")
    args = ap.parse_args(argv)

    pace = Pace(args.arrive, tuple(args.read), tuple(args.think))
    print(f"pages: {', '.join(p.name for p in discover_pages())}")
    warmed = "the app's own warm-up done (/ready)" if args.ready else "server warmed by one visit to home"
    print(f"pace: {pace.describe()}; {'cold server' if args.cold else warmed}")
    print("latencies: BackMsg rerun sent -> script_finished received, per rerun (noisy: shared 2-core machine)")
    failed = False
    for n in args.students:
        target = Target(args)
        try:
            if not args.cold:
                warm_up(target.url, 1 if len(target.replica_urls) == 1 else 4 * len(target.replica_urls))
            print(f"    ({stclient.load_average()} before N={n}, {target.describe()})", flush=True)
            r = run_load(target.url, n, target.pids, args.moves, pace, args.max_seconds,
                         replica_urls=target.replica_urls)
            print_load(r)
            print(f"    ({stclient.load_average()} after)", flush=True)
            failed |= r["errors"] > 0
        finally:
            target.stop()
    for n in args.burst_students if args.burst else []:
        target = Target(args)
        try:
            print(f"    ({stclient.load_average()} before the bursts, N={n}, {target.describe()})", flush=True)
            # Seeds the width sweep takes (0-9999), new to this server, n + 1 apart per scenario.
            failed |= run_bursts(target, n, args.burst, seed=2000 + 10 * n)
        finally:
            target.stop()
    if not args.no_checks:
        target = Target(args)
        try:
            pid = target.pids[0] if len(target.pids) == 1 else None
            rows = check_cache(target.url, pid)
            print_cache(rows)
            failed |= any(bool(r["recomputed"]) or not r["same_result"] or r["errors"] > 0 for r in rows)
            iso = check_isolation(target.url)
            print(f"isolation  page {iso['page']}  control {iso.get('control')}  runs {iso['runs']}  leaks {iso['leaks']}")
            failed |= iso["leaks"] > 0
        finally:
            target.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
