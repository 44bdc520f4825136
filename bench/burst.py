"""A class pressing together: synchronised bursts, a cache wipe from one client, a Train flood.

    python bench/burst.py                       # every scenario, N = 30 and 100, on fresh servers
    python bench/burst.py --students 30 --only same own abandon wipe flood
    FFNLAB_APP_ROOT=/path/to/other/checkout python bench/burst.py   # the same against another version
    python bench/burst.py --students 30 --only own --workers 1 2 --before /tmp/old-checkout
        # before and after in one run: the old checkout, then this one with 1 and with 2 workers

The instructor says "now set the seed to 7" and the class presses in the same second. Each
student is a Streamlit session over its websocket (bench/stclient.py). Scenarios:

- same:    N students on the width sweep set the same new seed within 1 s. Budget: every page
           answers within 3 s, one computation shared.
- own:     N students each set a different seed within 1 s and wait. Each waiting student should
           see how many experiments are ahead; meanwhile another student's cached reruns (a
           watcher, rerunning all along) stay within 1 s.
- follow:  N students following the instructor to a new setting of the width sweep: within 1 s each
           page runs whole with the instructor's seed, as following does (ui/room/follow.py sets the
           instructor's values in the session, then reruns the whole page). Budget: all answered
           within 3 s on two replicas behind nginx (bench/load.py --balanced 2 --burst follow), 5 s on one.
- abandon: N students each send a different seed within 1 s and close the tab at once; then one
           more student sets a new seed. Budget: within 2x its time on an idle server.
- wipe:    one client sends BackMsg.clear_cache (the menu's "Clear cache"); another student's
           cached rerun before and after, and the experiments computed again.
- flood:   16 students press the width sweep's Train at once; one student presses it 10 times in
           2 s. The server's memory above idle, its CPU, the trainings computed.

The machine is a shared 2-core box: wall times count the time the server waited for a core held
by another program. Each scenario prints the load average beside its numbers; ui/compute/cache.py's
counters (/_stcore/metrics, ffnlab_experiments) are printed where the server has them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import stclient  # noqa: E402
from stclient import AppPage, Run, Server, Session, discover_pages, experiments, load_average  # noqa: E402

SWEEP = "width_sweep"
NOTE_MARK = ":material/hourglass_top:"  # the start of ui/compute's "experiments ahead" note
SAME_BUDGET_S = 3.0
FOLLOW_ONE_S, FOLLOW_TWO_S = 5.0, 3.0  # one replica, two behind nginx
CACHED_BUDGET_S = 1.0
ABANDON_RATIO = 2.0
FLOOD_MB = 200.0


def page(name: str) -> AppPage:
    return next(p for p in discover_pages() if p.name == name)


def spread(n: int, seconds: float) -> list[float]:
    """When each of n students acts: evenly over `seconds`."""
    return [seconds * i / max(1, n - 1) for i in range(n)] if n > 1 else [0.0]


def in_threads(jobs: list, timeout_s: float = 600.0) -> None:
    threads = [threading.Thread(target=job, daemon=True) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout_s)


def open_sessions(url: str, n: int, at: AppPage, query: str) -> list[tuple[Session, Run]]:
    """n students with `at` open on the same (soon cached) setting, opened one after another."""
    sessions = []
    for _ in range(n):
        s = Session(url, timeout_s=600)
        run = s.open(at, query)
        if not run.ok:
            raise RuntimeError(f"opening {at.name}?{query}: {run.exceptions}")
        sessions.append((s, run))
    return sessions


def move(s: Session, run: Run, key: str, value: object, whole: bool = False) -> float:
    """Set a control as a student lets it go, without waiting for the rerun; the time it was sent.

    As the browser does, a control drawn inside a part of the page (an st.fragment) reruns that part;
    `whole` reruns the whole page with the new value instead, as following the instructor does.
    """
    widget = next(w for w in run.widgets if w.key == key)
    s.stage(widget, value)
    return s.send_rerun(fragment_id="" if whole else widget.fragment_id)


def counts(url: str) -> dict[str, int]:
    return experiments(url) or {}


def delta(after: dict[str, int], before: dict[str, int]) -> dict[str, int] | None:
    if not after:
        return None  # a server without ui/compute's counters (an older checkout)
    return {k: after.get(k, 0) - before.get(k, 0) for k in after}


@dataclass(kw_only=True)
class Measured:
    """What every scenario prints after its own numbers, so that each can be read against the server's
    counters and the machine's load at the time."""
    outcome: dict[str, int] | None = None  # None: a server without ui/compute's counters
    load: str = ""

    def experiments(self) -> str:
        return f"experiments {self.outcome if self.outcome is not None else 'n/a'} [{self.load}]"


@dataclass
class Burst(Measured):
    n: int
    seconds: list[float] = field(default_factory=list)
    noted: int = 0  # students who saw the "experiments ahead" note
    failed: int = 0
    watcher: list[float] = field(default_factory=list)

    def line(self) -> str:
        s = sorted(self.seconds) or [float("nan")]
        text = (f"N={self.n}: answered max {s[-1]:.2f} s, p50 {statistics.median(s):.2f} s; "
                f"saw the queue note {self.noted}/{len(self.seconds)}; failed {self.failed}")
        if self.watcher:
            w = sorted(self.watcher)
            text += f"; watcher's cached reruns max {w[-1]:.2f} s over {len(w)}"
        return text + f"; {self.experiments()}"


def _burst(url: str, n: int, seeds: list[int], base_seed: int, watch: bool, whole: bool = False) -> Burst:
    sweep = page(SWEEP)
    sessions = open_sessions(url, n, sweep, f"lang=en&seed={base_seed}")
    result = Burst(n)
    watcher = Session(url, timeout_s=600) if watch else None
    if watcher is not None:
        watcher.open(sweep, f"lang=en&seed={base_seed}")
    stop = threading.Event()
    before = counts(url)
    t0 = time.perf_counter() + 0.2
    lock = threading.Lock()

    def student(s: Session, opened: Run, seed: int, when: float) -> None:
        time.sleep(max(0.0, t0 + when - time.perf_counter()))
        try:
            run = s.read_run(move(s, opened, "seed", seed, whole))
        except Exception:  # counted, not raised: a bench reports
            with lock:
                result.failed += 1
            return
        with lock:
            result.seconds.append(run.seconds)
            result.noted += any(NOTE_MARK in c for c in run.captions)
            result.failed += not run.ok

    def watch_loop() -> None:
        while not stop.is_set():
            run = watcher.rerun()
            result.watcher.append(run.seconds)
            time.sleep(0.2)

    w = threading.Thread(target=watch_loop, daemon=True) if watcher is not None else None
    if w is not None:
        w.start()
    in_threads([lambda s=s, seed=seed, when=when: student(*s, seed, when)
                for s, seed, when in zip(sessions, seeds, spread(n, 1.0))])
    stop.set()
    if w is not None:
        w.join(120)
    result.outcome = delta(counts(url), before)
    result.load = load_average()
    for s in [*(s for s, _ in sessions), *([watcher] if watcher else [])]:
        s.close()
    return result


def same_value(url: str, n: int, seed: int) -> Burst:
    """N students set the same new seed within 1 s."""
    return _burst(url, n, [seed] * n, base_seed=0, watch=False)


def follow(url: str, n: int, seed: int) -> Burst:
    """N students following the instructor: within 1 s each page runs whole with the same new seed."""
    return _burst(url, n, [seed] * n, base_seed=0, watch=False, whole=True)


def own_values(url: str, n: int, first_seed: int) -> Burst:
    """N students each set their own new seed within 1 s; a watcher's cached reruns meanwhile."""
    return _burst(url, n, [first_seed + i for i in range(n)], base_seed=0, watch=True)


@dataclass
class Abandon(Measured):
    n: int
    idle_s: float
    next_s: float

    def line(self) -> str:
        ratio = self.next_s / self.idle_s if self.idle_s > 0 else float("inf")
        return (f"N={self.n} sent and left: next student's new setting {self.next_s:.2f} s vs idle {self.idle_s:.2f} s "
                f"(x{ratio:.1f}, budget x{ABANDON_RATIO:g}); {self.experiments()}")


def leave_in_a_burst(url: str, at: AppPage, key: str, values: list, seconds: float = 1.0) -> None:
    """Students on `at` each set their own value of a control (spread over `seconds`) and close the
    tab as soon as the server has started on it (its first redraw arrives): the rerun is then past
    the page's first lines and on its way to the experiment, as when a student leaves a second later."""
    sessions = open_sessions(url, len(values), at, "lang=en")
    t0 = time.perf_counter()
    for (s, opened), value, when in zip(sessions, values, spread(len(values), seconds)):
        time.sleep(max(0.0, t0 + when - time.perf_counter()))
        move(s, opened, key, value)
        for msg in s.stream.messages():
            if msg.WhichOneof("type") in ("delta", "script_finished"):
                break
        s.close()


def abandon(url: str, n: int, first_seed: int) -> Abandon:
    sweep = page(SWEEP)
    student = Session(url, timeout_s=600)
    opened = student.open(sweep, "lang=en")
    idle = student.read_run(move(student, opened, "seed", first_seed - 1)).seconds
    time.sleep(1.0)
    before = counts(url)
    leave_in_a_burst(url, sweep, "seed", [first_seed + i for i in range(n)])
    run = student.read_run(move(student, opened, "seed", first_seed + n))
    out = Abandon(n, idle, run.seconds, load=load_average())
    time.sleep(2.0)  # let what was running finish before counting
    out.outcome = delta(counts(url), before)
    student.close()
    return out


def wipe(url: str, seed: int) -> tuple[str, int | None]:
    """A student's cached rerun, then another client's clear_cache, then the same rerun."""
    collapse = page("linear_collapse")
    student = Session(url, timeout_s=600)
    first = student.open(collapse, f"lang=en&d=128&m=1024&seed={seed}")
    cached = [student.rerun().seconds for _ in range(3)]
    attacker = Session(url, timeout_s=600)
    attacker.open(discover_pages()[0], "lang=en")
    before = counts(url)
    attacker.clear_cache()
    attacker.rerun()  # its clear_cache was handled before this run (one socket, in order)
    after = [student.rerun().seconds for _ in range(3)]
    outcome = delta(counts(url), before)
    student.close()
    attacker.close()
    line = (f"first compute {first.seconds:.2f} s; cached reruns {', '.join(f'{s:.2f}' for s in cached)} s; "
            f"after another client's clear_cache {', '.join(f'{s:.2f}' for s in after)} s; "
            f"experiments {outcome if outcome is not None else 'n/a'} [{load_average()}]")
    return line, (outcome or {}).get("computed", max(after) > 3 * max(cached) + 0.1)


class Drain:
    """Read a session's messages in the background; count the runs that finished."""

    def __init__(self, s: Session) -> None:
        self.s = s
        self.finished = 0
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        try:
            for msg in self.s.stream.messages():
                if msg.WhichOneof("type") == "script_finished":
                    self.finished += 1
        except Exception:  # the session was closed: nothing more to count
            return


def settle(url: str, timeout_s: float = 300.0) -> None:
    """Wait until the server's queue has been empty for a moment (what was pressed is done)."""
    deadline = time.monotonic() + timeout_s
    quiet = 0
    while time.monotonic() < deadline and quiet < 3:
        queued = stclient.metric_values(url, "ffnlab_cache").get('measure="queued"')
        quiet = quiet + 1 if not queued else 0
        time.sleep(0.5)


@dataclass
class Flood(Measured):
    label: str
    seconds: float
    idle_mb: float
    peak_mb: float
    cpu_s: float

    def line(self) -> str:
        return (f"{self.label}: done in {self.seconds:.1f} s; RSS idle {self.idle_mb:.0f} MB, peak {self.peak_mb:.0f} MB "
                f"(+{self.peak_mb - self.idle_mb:.0f} MB, budget +{FLOOD_MB:.0f}); server CPU {self.cpu_s:.1f} s; "
                f"{self.experiments()}")


WIDE = "&".join(f"widths={m}" for m in (2, 4, 8, 16, 32, 64, 128, 256))  # the most a link may ask for


def train_flood(server: Server, label: str, queries: list[str], presses: int, over_s: float) -> Flood:
    """A student per query on the width sweep, each pressing Train `presses` times over `over_s` seconds."""
    url = server.url
    sweep = page(SWEEP)
    pairs = [open_sessions(url, 1, sweep, query)[0] for query in queries]
    opened = [s for s, _ in pairs]
    buttons = [next(b for b in run.buttons if b.key == "train") for _, run in pairs]
    drains = [Drain(s) for s in opened]
    time.sleep(1.0)
    idle = server.rss_mb()
    cpu0 = server.cpu_s()
    before = counts(url)
    peak = idle
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, server.rss_mb())
            time.sleep(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    t0 = time.perf_counter()
    for when in spread(presses, over_s):
        time.sleep(max(0.0, t0 + when - time.perf_counter()))
        for s, button in zip(opened, buttons):
            s.press(button)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and any(d.finished == 0 for d in drains):
        time.sleep(0.2)
    settle(url) if before else time.sleep(5.0)
    seconds = time.perf_counter() - t0
    stop.set()
    sampler.join(5)
    out = Flood(f"{len(queries)} session(s) x {presses} press(es) in {over_s:g} s, {label}", seconds, idle, peak,
                server.cpu_s() - cpu0, outcome=delta(counts(url), before), load=load_average())
    for s in opened:
        s.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, nargs="+", default=[30, 100])
    parser.add_argument("--only", nargs="+", default=["same", "follow", "own", "abandon", "wipe", "flood"])
    parser.add_argument("--workers", type=int, nargs="+", default=[0],
                        help="run the bursts once per number of experiments computed at once (FFNLAB_WORKERS; 0: one per core)")
    parser.add_argument("--before", type=Path, default=None,
                        help="another checkout whose server is measured first, in the same run (the tree before a change)")
    args = parser.parse_args()
    verdicts: list[tuple[str, bool]] = []  # the budgets, judged at N = 30 where it sets them
    servers = ([(f"before ({args.before})", args.before, {})] if args.before is not None else []) + [
        (f"this tree, {'one per core' if w == 0 else w} worker{'s' if w != 1 else ''}", stclient.ROOT,
         {"FFNLAB_WORKERS": str(w)}) for w in args.workers]
    for label, root, env in servers:
        print(f"# burst bench: {label} — {load_average()} (a shared machine: other programs use the cores too)", flush=True)
        verdicts += [(f"{label}: {budget}", ok) for budget, ok in _bursts(args, root, env)]
    if "flood" in args.only:
        verdicts += _floods()
    for budget, ok in verdicts:
        print(f"{'✓' if ok else '✗'} {budget}")
    print(f"({load_average()} now: wall times on a shared machine move a lot between runs)")
    return 0 if all(ok for _, ok in verdicts) else 1


def _bursts(args: argparse.Namespace, root: Path, env: dict[str, str]) -> list[tuple[str, bool]]:
    verdicts: list[tuple[str, bool]] = []
    seed = 5000
    if {"same", "follow", "own", "abandon", "wipe"} & set(args.only):
        server = Server(root, env=env)
        try:
            server.wait_healthy()
            warm = Session(server.url, timeout_s=600)
            warm.open(page(SWEEP), "lang=en&seed=0")  # the instructor's tab: imports done, defaults cached
            warm.close()
            for n in args.students:
                if "same" in args.only:
                    same = same_value(server.url, n, seed)
                    print(f"same value   {same.line()}", flush=True)
                    if n == 30:
                        verdicts.append((f"same value, N=30: every page <= {SAME_BUDGET_S:g} s",
                                         bool(same.seconds) and max(same.seconds) <= SAME_BUDGET_S and not same.failed))
                    seed += 1
                if "follow" in args.only:
                    followed = follow(server.url, n, seed)
                    print(f"follow       {followed.line()}", flush=True)
                    if n == 100:
                        verdicts.append((f"following the instructor, N=100, one replica: all <= {FOLLOW_ONE_S:g} s",
                                         bool(followed.seconds) and max(followed.seconds) <= FOLLOW_ONE_S
                                         and not followed.failed))
                    seed += 1
                if "own" in args.only:
                    cpu0, wall0 = server.cpu_s(), time.perf_counter()
                    own = own_values(server.url, n, seed)
                    cpu, wall = server.cpu_s() - cpu0, time.perf_counter() - wall0
                    # Above 1 core: experiments computed side by side (one core's worth is all one at a time can use).
                    most = stclient.metric_values(server.url, "ffnlab_cache").get('measure="most_running"')
                    print(f"own values   {own.line()}; server CPU {cpu:.1f} s over {wall:.1f} s "
                          f"({cpu / wall:.2f} cores); most experiments at once {most if most is None else int(most)}",
                          flush=True)
                    if n == 30:
                        verdicts.append((f"own values, N=30: every student answered <= {SAME_BUDGET_S:g} s",
                                         bool(own.seconds) and max(own.seconds) <= SAME_BUDGET_S and not own.failed))
                        verdicts.append((f"own values, N=30: others' cached reruns <= {CACHED_BUDGET_S:g} s",
                                         bool(own.watcher) and max(own.watcher) <= CACHED_BUDGET_S))
                        verdicts.append(("own values, N=30: waiting students see their place",
                                         own.noted >= n // 2))
                    seed += n
                if "abandon" in args.only:
                    left = abandon(server.url, n, seed + 1)
                    print(f"abandon      {left.line()}", flush=True)
                    if n == 30:
                        verdicts.append((f"sent and abandoned, N=30: next student <= {ABANDON_RATIO:g}x idle",
                                         left.next_s <= ABANDON_RATIO * left.idle_s))
                    seed += n + 2
            if "wipe" in args.only:
                line, recomputed = wipe(server.url, seed)
                print(f"cache wipe   {line}", flush=True)
                verdicts.append(("another client's clear_cache: nothing recomputed", not recomputed))
        finally:
            server.stop()
    return verdicts


def _floods() -> list[tuple[str, bool]]:
    verdicts: list[tuple[str, bool]] = []
    floods = (
        ("default widths, same settings", ["lang=en"] * 16, 1, 0.0),
        ("widths 2-256, same settings", [f"lang=en&{WIDE}"] * 16, 1, 0.0),
        ("widths 2-256, own seeds", [f"lang=en&{WIDE}&seed={i}" for i in range(16)], 1, 0.0),
        ("default widths", ["lang=en"], 10, 2.0),
    )
    for label, queries, presses, over in floods:
        server = Server()
        try:
            server.wait_healthy()
            flood = train_flood(server, label, queries, presses, over)
            print(f"train flood  {flood.line()}", flush=True)
            verdicts.append((f"Train flood ({flood.label}): <= +{FLOOD_MB:g} MB",
                             flood.peak_mb - flood.idle_mb <= FLOOD_MB))
        finally:
            server.stop()
    return verdicts


if __name__ == "__main__":
    sys.exit(main())
