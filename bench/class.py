"""A class of 100 students answering one question in one room, within 10 s, on a shared store.

    python bench/class.py                       # store mode: SQLite file, then PostgreSQL; 1 then 2 processes
    python bench/class.py --backends sqlite --replicas 1 --students 100 --window 10
    python bench/class.py --mode pages          # real sessions on the pages: one replica, then two behind nginx
    python bench/class.py --mode reload         # the reload storm, Reveal's way to waiting pages, per-client bounds

Store mode (this file's default) drives `ui/room/store.py` directly: it measures the database side
of the class room, what every page's guess and every poll costs below Streamlit. A "replica" is a
process of its own with its own engine and pool, as a `streamlit run` replica has, and its students
are threads in it: two replicas share one SQLite file (as replicas on one host behind deploy/'s nginx
do) or one PostgreSQL server (as replicas on several hosts do; started here from Debian's binaries
with fsync on, tests/ui/pg.py).

Each student joins over the first 2 s (the QR code goes up), and answers once at a moment drawn
uniformly in the rest of the window (default 10 s); 30% of them follow the instructor, reading the
room's view every 3 s (ui/room/follow.py's watching fragment). The instructor's live view reads the
room's snapshot every 2 s (its fragment's pace). Once every student answered, the second vote (peer
instruction): the instructor closes the vote, shows it, opens the second; each student, waiting for the
Reveal, looks at the room every 5 s (its watcher's pace), finds the second vote open and answers again
within 8 s; the instructor's view polls until all answered again, closes the vote, reveals, reads the
results. Printed per run:

- answers stored: the rows counted in the database afterwards, against the students who were told
  "stored" (none lost means both are N);
- when the instructor's view first showed the last answer, after that answer was acknowledged;
- a guess's acknowledgement (submit called -> committed, status back) p50 / p95 / max;
- the second vote: its answers in the database against those told "stored", the first vote's kept
  apart, its acknowledgements, when the instructor's view showed the last of them;
- what the class features cost: CPU seconds of every process doing class work (the replicas'
  store calls, the instructor's polls, the PostgreSQL server) over the run's wall time, in % of one core;
- the machine's load average before and after (the machine is shared: read timings beside it).

Pages mode drives the real app: every student is a Streamlit session over its websocket, as
bench/load.py makes them (bench/stclient.py), that opens the page with the room's join link
(`?room=CODE`), so the sidebar joins it, and commits a guess through the page's question form. The
instructor is a session too, seated by a one-time link, whose live panel (an st.fragment) is rerun
every 2 s as the browser would; the students' own fragments (waiting for a Reveal, following) are
rerun at the intervals the server asks for. The replicas get the store through FFNLAB_CLASS_DB:
`streamlit run` for one replica, deploy/run.sh (nginx in front) for two. There a guess's
acknowledgement is the whole rerun: commit pressed -> the page's "stored" line received; the class
features' cost is the replicas' CPU while the class sits answered and waiting (the panel and the
students' fragments polling), over 10 s, and during the answers.

Reload mode (`--mode reload`, one replica, SQLite): 30 students (`--students`) join a room on the
page, answer, and their pages fetch their seat's cookie as a browser does (the invisible image's
address, ui/room/passes.py); then all 30 reload within 5 s (`--storm`): a new session presenting the
cookie. Printed: each reload's whole run p50 / p95 / max, the room's seats and answers before and after
(unchanged when every reload took its own seat back), how many reloaded pages showed their guess again,
and the server's CPU over the storm. Then, the class waiting, the server's CPU over 10 s (what waiting
costs, in % of a core, and scaled to 100 students), and the instructor's Reveal: when each waiting
page's rerun arrived (the app's watcher, ui/room/push.py). Last, the per-client bounds on the store:
one client creating rooms until refused, another client's room after it; one client adding new seats
to a room until refused; one token leaving and joining 500 times (seats held after it).

The budgets (printed, not asserted): a guess stored and acknowledged p95 <= 300 ms at N = 100 on one
replica; the instructor's distribution current within 3 s of the last guess; Reveal on a waiting
student's page within about 3 s on a quiet 2-core machine; the class features <= 10 % of a core at N = 100.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QUESTION = "bench:q_width:000000000000"
FOLLOW_SHARE = 0.3
FOLLOW_EVERY = 3.0
INSTRUCTOR_EVERY = 2.0
JOIN_WINDOW = 2.0
WATCH_EVERY = 5.0  # a student waiting for the Reveal looks at the room this often (ui/room/follow.py)
SECOND_WINDOW = 8.0  # the second vote: each student answers again within this many seconds of seeing it open


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def load() -> float:
    return os.getloadavg()[0]


# --- a replica: students as threads on one engine -------------------------------------------


def replica(url: str, code: str, students: list[int], t0: float, window: float, seed: int) -> dict:
    """Run these students against the store; what happened to each (called in its own process)."""
    import sqlalchemy

    from ui.room.store import Status, Store, StoreUnavailable

    engine = sqlalchemy.create_engine(url, pool_size=20, max_overflow=80, pool_timeout=30)
    store = Store(engine)
    store.room_live(code, time.time())  # schema checked and a connection opened before the class
    rng = random.Random(seed)
    plans = [(i, rng.uniform(0, JOIN_WINDOW), rng.uniform(JOIN_WINDOW, window), rng.random() < FOLLOW_SHARE)
             for i in students]
    results: list[dict] = []
    lock = threading.Lock()
    cpu0 = time.process_time()

    def student(i: int, join_at: float, answer_at: float, follows: bool) -> None:
        token = f"bench-student-{i}-{seed}"
        out = {"student": i, "join": None, "status": None, "ack_s": None, "acked_at": None, "error": None,
               "view_reads": 0, "status2": None, "ack2_s": None, "acked2_at": None}
        try:
            time.sleep(max(0.0, t0 + join_at - time.time()))
            out["join"] = store.join(code, token, time.time()).value
            next_view = time.time()
            while True:
                now = time.time()
                if follows and now >= next_view:
                    store.view(code, now)
                    out["view_reads"] += 1
                    next_view = now + FOLLOW_EVERY
                if now >= t0 + answer_at:
                    break
                time.sleep(min(t0 + answer_at, next_view if follows else t0 + answer_at) - now)
            start = time.perf_counter()
            status = store.submit(code, token, QUESTION, round(rng.uniform(0, 4), 2), time.time())
            out["ack_s"] = time.perf_counter() - start
            out["acked_at"] = time.time()
            out["status"] = status.value
            # Waiting for the Reveal: the watcher's look every WATCH_EVERY s finds the second vote open.
            while time.time() < t0 + window + 90:
                time.sleep(WATCH_EVERY * rng.random() if out["view_reads"] == 0 else WATCH_EVERY)
                vote = store.vote(code, QUESTION, time.time())
                out["view_reads"] += 1
                if vote is not None and vote.round == 2 and vote.open:
                    time.sleep(rng.uniform(0, SECOND_WINDOW))
                    start = time.perf_counter()
                    status = store.submit(code, token, QUESTION, round(rng.uniform(0, 4), 2), time.time())
                    out["ack2_s"] = time.perf_counter() - start
                    out["acked2_at"] = time.time()
                    out["status2"] = status.value
                    break
        except StoreUnavailable as e:
            out["error"] = f"StoreUnavailable: {e} ({str(e.__cause__).splitlines()[0][:80]})"
        with lock:
            results.append(out)

    threads = [threading.Thread(target=student, args=plan) for plan in plans]
    for t in threads:
        t.start()
    for t in threads:
        t.join(window + 120)
    cpu = time.process_time() - cpu0
    engine.dispose()
    return {"students": results, "cpu_s": cpu, "status_ok": Status.STORED.value}


def _replica_main() -> None:
    spec = json.loads(sys.argv[sys.argv.index("--_replica") + 1])
    print(json.dumps(replica(**spec)))


# --- one run: an instructor, R replicas, N students -----------------------------------------


def run(url: str, label: str, n: int, replicas: int, window: float, seed: int, pg_pids: list[int]) -> dict:
    import psutil
    import sqlalchemy

    from ui.room import store as room_store
    from ui.room import store_tables

    engine = sqlalchemy.create_engine(url)
    store = room_store.Store(engine)
    made = store.create_room(time.time())
    assert made is not None, "no room: the server's bound of live rooms"
    code, key = made
    store.set_view(code, key, "width_sweep", {"d": "4"}, time.time())
    load_before = load()
    t0 = time.time() + 3.0  # the replicas' imports and first connection happen before the class
    groups = [list(range(n))[r::replicas] for r in range(replicas)]
    procs = []
    for r, group in enumerate(groups):
        spec = json.dumps(dict(url=url, code=code, students=group, t0=t0, window=window, seed=seed * 100 + r))
        procs.append(subprocess.Popen([sys.executable, __file__, "--_replica", spec],
                                      stdout=subprocess.PIPE, text=True, cwd=ROOT))

    def cpu_of(pids: list[int]) -> float:
        # A server's backends end with their connections: their CPU then counts in their parent's
        # children times, so both the live processes and what their parents reaped are summed.
        total = 0.0
        for pid in pids:
            try:
                p = psutil.Process(pid)
                for q in (p, *p.children(recursive=True)):
                    total += sum(q.cpu_times())
            except psutil.NoSuchProcess:
                pass
        return total

    def watch(deadline: float) -> list[tuple[float, int]]:
        """The instructor's view read every INSTRUCTOR_EVERY s until every student has answered or the deadline:
        (when it was read, answered) each time."""
        polls: list[tuple[float, int]] = []
        while time.time() < deadline:
            snap = store.snapshot(code, QUESTION, time.time())
            polls.append((time.time(), snap.answered if snap else -1))
            if snap and snap.answered >= n:
                break
            time.sleep(INSTRUCTOR_EVERY)
        return polls

    time.sleep(max(0.0, t0 - time.time()))
    pg_cpu0 = cpu_of(pg_pids)
    me0 = time.process_time()
    polls = watch(t0 + window + 30)
    # The second vote: closed, shown without the answer, opened again; the view polled until all answered again.
    store.close_vote(code, key, QUESTION, None, time.time())
    store.show_votes(code, key, QUESTION, True, time.time())
    store.second_vote(code, key, QUESTION, None, time.time())
    polls2 = watch(time.time() + 90)
    store.close_vote(code, key, QUESTION, None, time.time())
    store.reveal(code, key, QUESTION, time.time())
    tally = store.results(code, key, time.time())
    instructor_cpu = time.process_time() - me0
    outs = []
    for proc in procs:
        out, _ = proc.communicate(timeout=window + 180)
        outs.append(json.loads(out))
    wall = max(time.time() - t0, 1e-9)
    pg_cpu = cpu_of(pg_pids) - pg_cpu0
    with engine.connect() as conn:
        counted = conn.execute(sqlalchemy.select(sqlalchemy.func.count()).select_from(store_tables.guesses_table)
                               .where(store_tables.guesses_table.c.room == code,
                                      store_tables.guesses_table.c.question == QUESTION)).scalar_one()
    store.close(code, key, time.time())
    engine.dispose()
    students = [s for o in outs for s in o["students"]]
    acks2 = [s["ack2_s"] for s in students if s["status2"] == "stored"]
    last_ack2 = max((s["acked2_at"] for s in students if s["status2"] == "stored"), default=float("nan"))
    shown2 = next((at for at, answered in polls2 if answered >= n), None)
    acks = [s["ack_s"] for s in students if s["status"] == "stored"]
    last_ack = max((s["acked_at"] for s in students if s["status"] == "stored"), default=float("nan"))
    shown = next((at for at, answered in polls if answered >= n), None)
    replica_cpu = sum(o["cpu_s"] for o in outs)
    return {
        "label": label, "replicas": replicas, "n": n,
        "stored_said": len(acks), "counted": counted,
        "not_stored": sorted({f"{s['join']}/{s['status']}/{s['error']}" for s in students if s["status"] != "stored"}),
        "ack_p50": percentile(acks, 0.5), "ack_p95": percentile(acks, 0.95), "ack_max": max(acks, default=float("nan")),
        "view_after_last": (shown - last_ack) if shown is not None else None,
        "view_reads": sum(s["view_reads"] for s in students),
        "second_said": len(acks2), "second_counted": len(tally[0].last) if tally else 0,
        "first_kept": len(tally[0].first or ()) if tally else 0,
        "ack2_p50": percentile(acks2, 0.5), "ack2_p95": percentile(acks2, 0.95),
        "view_after_last2": (shown2 - last_ack2) if shown2 is not None else None,
        "cpu_pct": 100 * (replica_cpu + instructor_cpu + pg_cpu) / wall,
        "cpu_parts": (replica_cpu, instructor_cpu, pg_cpu), "wall": wall,
        "load": (load_before, load()),
    }


def _ms(seconds: float) -> str:
    return f"{1000 * seconds:.0f} ms"


def _report_answers(r: dict, budget_ms: float, said: str, not_stored: str, view: str, ack: str) -> None:
    """The lines both modes print alike: the answers stored against those the students were told, how soon
    the instructor's `view` showed the last one, the acknowledgement against its budget."""
    lost = r["stored_said"] - r["counted"]
    print(f"  answers stored: {r['counted']} in the database, {r['stored_said']} {said} 'stored'"
          f"{'' if lost == 0 else f'  ** {lost} {said} stored but not in the database **'}"
          f"{'' if not r['not_stored'] else not_stored}")
    shown = r["view_after_last"]
    print(f"  instructor's {view} showed the last answer: "
          + (f"{shown:.2f} s after it was acknowledged (budget 3 s: {'ok' if shown <= 3 else 'OVER'})"
             if shown is not None else "never (within the run)"))
    print(f"  {ack}: p50 {_ms(r['ack_p50'])}, p95 {_ms(r['ack_p95'])}, max {_ms(r['ack_max'])} "
          f"(budget p95 {budget_ms:.0f} ms at N = 100 on one replica: "
          f"{'ok' if r['ack_p95'] * 1000 <= budget_ms else 'OVER'})")


def report(r: dict, budget_ms: float = 300.0) -> None:
    print(f"\n{r['label']}, {r['replicas']} replica(s), N = {r['n']}  (load {r['load'][0]:.1f} -> {r['load'][1]:.1f} "
          f"on {os.cpu_count()} cores)")
    _report_answers(r, budget_ms, "told", "; not stored: " + ", ".join(r["not_stored"]), "view", "acknowledgement")
    shown2 = r["view_after_last2"]
    print(f"  second vote: {r['second_counted']} stored in the database ({r['second_said']} told 'stored'), the first "
          f"vote's {r['first_kept']} kept apart; acknowledgement p50 {_ms(r['ack2_p50'])}, p95 {_ms(r['ack2_p95'])}; "
          "the view showed the last " + (f"{shown2:.2f} s after it was acknowledged" if shown2 is not None else "never"))
    rep, ins, pg = r["cpu_parts"]
    print(f"  class features' CPU: {r['cpu_pct']:.1f}% of a core over {r['wall']:.1f} s "
          f"(replicas {rep:.2f} s, instructor's view {ins:.2f} s, PostgreSQL server {pg:.2f} s; "
          f"{r['view_reads']} follow and watcher reads)")


# --- pages mode: real sessions -----------------------------------------------------------------


def _strings(root: Path, lang: str = "en") -> dict[str, str]:
    """The app's locale strings (ui/base/i18n.py's merge, read here so no streamlit import is needed)."""
    import tomllib

    def flat(table: dict, prefix: str = "") -> dict[str, str]:
        out: dict[str, str] = {}
        for k, v in table.items():
            out.update(flat(v, f"{prefix}{k}.") if isinstance(v, dict) else {f"{prefix}{k}": str(v)})
        return out

    merged: dict[str, str] = {}
    for path in [root / "ui" / "locales" / f"{lang}.toml", *sorted((root / "ui" / "locales").glob(f"{lang}.*.toml"))]:
        merged.update(flat(tomllib.loads(path.read_text(encoding="utf-8"))))
    return merged


def _user_key(widget_id: str) -> str:
    # "$$ID-<hash>-<user key>": the user key may itself hold "-".
    parts = widget_id.split("-", 2)
    return parts[2] if widget_id.startswith("$$ID-") and len(parts) == 3 else ""


class Tab:
    """A session (bench/stclient.py) that also keeps what a class page needs: the fragments' rerun
    intervals, the question forms' inputs and buttons, every caption."""

    def __init__(self, url: str) -> None:
        import stclient

        self.session = stclient.Session(url, timeout_s=120)
        self.fragments: dict[str, float] = {}  # fragment id -> seconds between reruns
        self.due: dict[str, float] = {}
        self.ticks = 0  # fragment reruns sent

    def _read(self, start: float) -> dict:
        from ui.compute import stream

        out = {"captions": [], "inputs": {}, "radios": {}, "commits": {}, "exceptions": [], "status": "",
               "seconds": 0.0, "placeholders": {}}
        for fwd in self.session.stream.messages(until=start + self.session.timeout_s):
            kind = fwd.WhichOneof("type")
            if kind == "auto_rerun":
                self.fragments[fwd.auto_rerun.fragment_id] = fwd.auto_rerun.interval
                self.due.setdefault(fwd.auto_rerun.fragment_id, time.time() + fwd.auto_rerun.interval)
            elif kind == "stop_auto_rerun":
                self.fragments.clear()
                self.due.clear()
            elif kind == "page_info_changed":
                self.session.query_string = fwd.page_info_changed.query_string
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                el = fwd.delta.new_element
                what = el.WhichOneof("type")
                if what == "markdown":
                    out["captions"].append(el.markdown.body)
                elif what == "text_input" and _user_key(el.text_input.id).startswith("_ask_in:"):
                    out["inputs"][_user_key(el.text_input.id)[8:]] = el.text_input.id
                    out["placeholders"][_user_key(el.text_input.id)[8:]] = el.text_input.placeholder
                elif what == "radio" and _user_key(el.radio.id).startswith("_ask_in:"):
                    out["radios"][_user_key(el.radio.id)[8:]] = (el.radio.id, list(el.radio.options))
                elif what == "button" and _user_key(el.button.id).startswith("_ask_commit:"):
                    out["commits"][_user_key(el.button.id)[12:]] = el.button.id
                elif what == "exception":
                    out["exceptions"].append(f"{el.exception.type}: {el.exception.message}")
                elif what == "html":
                    out.setdefault("html", []).append(el.html.body)
                elif what == "arrow_vega_lite_chart" or what == "vega_lite_chart":
                    out["charts"] = out.get("charts", 0) + 1
            elif stream.run_status(fwd) is not None:
                out["status"], out["seconds"] = stream.run_status(fwd), time.perf_counter() - start
                return out
        raise AssertionError("unreachable: messages() yields until it times out")

    def open(self, page, query: str) -> dict:
        return self._read(self.session.start(page, query))

    def commit(self, input_id: str, commit_id: str, value: str) -> dict:
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        state = WidgetState(id=input_id)
        state.string_value = value
        return self._read(self.session.send_rerun([state, WidgetState(id=commit_id, trigger_value=True)]))

    def tick(self) -> list[dict]:
        """Rerun every fragment that is due, as the browser's timers do."""
        runs = []
        for fragment_id, interval in list(self.fragments.items()):
            if time.time() >= self.due.get(fragment_id, 0):
                self.due[fragment_id] = time.time() + interval
                self.ticks += 1
                runs.append(self._read(self.session.send_rerun(fragment_id=fragment_id)))
        return runs

    def next_due(self) -> float:
        return min(self.due.values(), default=float("inf"))

    def close(self) -> None:
        self.session.close()


def _guess(run: dict, rng: random.Random) -> tuple[str, str, str, str] | None:
    """(question id, input id, commit button id, value) for the first question the page asks."""
    import re

    for qid, input_id in run["inputs"].items():
        if qid in run["commits"]:
            numbers = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", run["placeholders"].get(qid, ""))]
            lo, hi = (numbers[0], numbers[1]) if len(numbers) >= 2 else (0.0, 1.0)
            value = f"{rng.uniform(lo, hi):.0f}" if hi - lo >= 10 else f"{rng.uniform(lo, hi):.2f}"
            return qid, input_id, run["commits"][qid], value
    for qid, (input_id, options) in run["radios"].items():
        if qid in run["commits"] and options:
            return qid, input_id, run["commits"][qid], rng.choice(options)
    return None


def pages_run(target_url: str, replica_urls: list[str], db_url: str, label: str, replicas: int, n: int,
              arrive: float, window: float, seed: int, page_file: str, idle: float = 10.0) -> dict:
    """One class on running replicas: the instructor's session, N students' sessions, one question."""
    import re

    import sqlalchemy

    sys.path.insert(0, str(ROOT / "bench"))
    import load as bench_load
    import stclient

    from ui.room import store as room_store
    from ui.room import store_tables

    strings = _strings(stclient.ROOT)
    stored_text = strings["questions.stored"]
    counts_re = re.compile(re.escape(strings["room.panel_counts"]).replace(r"\{joined\}", r"(\d+)")
                           .replace(r"\{answered\}", r"(\d+)"))
    page = next(p for p in stclient.discover_pages() if p.file == page_file)
    engine = sqlalchemy.create_engine(db_url)
    store = room_store.Store(engine)
    code, key = store.create_room(time.time())
    token = store.one_time_link(code, key, time.time())
    pids = [pid for pid in (bench_load.server_pid(u) for u in replica_urls) if pid]

    def cpu() -> float:
        return sum(stclient.cpu_s(pid) for pid in pids)

    def answered(runs: list[dict]) -> int | None:
        # The panel has a line per question of the page; the class answers one of them.
        found = [int(m.group(2)) for run in runs for c in run["captions"] for m in [counts_re.search(c)] if m]
        return max(found) if found else None

    # The instructor opens the page first (in class: the projector shows the QR code), seated by a one-time link.
    teacher = Tab(target_url)
    first = teacher.open(page, f"lang=en&room={code}&take={token}")
    if first["exceptions"] or answered([first]) is None:
        raise RuntimeError(f"the instructor's page shows no live panel: {first['exceptions'] or first['captions'][:8]}")
    records: list[dict] = [{"errors": []} for _ in range(n)]
    tabs: list[Tab] = [teacher]
    lock = threading.Lock()
    ready = [0]
    go, stop = threading.Event(), threading.Event()
    answer_from = [0.0]

    def student(i: int) -> None:
        r = random.Random(seed * 1000 + i)
        rec, tab, plan = records[i], None, None
        try:
            time.sleep(r.uniform(0, arrive))
            tab = Tab(target_url)
            with lock:
                tabs.append(tab)
            run = tab.open(page, f"lang=en&room={code}")
            rec["open_s"] = run["seconds"]
            rec["errors"] += run["exceptions"]
            plan = _guess(run, r)
            if plan is None:
                rec["errors"].append("no question form on the page (not in the room?)")
        except Exception as e:  # noqa: BLE001 -- counted and printed
            rec["errors"].append(repr(e))
        with lock:
            ready[0] += 1
        go.wait()
        if plan is None:
            if tab:
                tab.close()
            return
        qid, input_id, commit_id, value = plan
        answer_at = answer_from[0] + r.uniform(0, window)
        try:
            while not stop.is_set():
                if "acked_at" not in rec and time.time() >= answer_at:
                    got = tab.commit(input_id, commit_id, value)
                    rec["ack_s"], rec["acked_at"] = got["seconds"], time.time()
                    rec["stored"] = any(stored_text in c for c in got["captions"])
                    rec["errors"] += got["exceptions"]
                    continue
                tab.tick()
                wake = min(tab.next_due(), answer_at if "acked_at" not in rec else float("inf"), time.time() + 1.0)
                stop.wait(max(0.0, wake - time.time()))
        except Exception as e:  # noqa: BLE001
            rec["errors"].append(repr(e))
        finally:
            tab.close()

    threads = [threading.Thread(target=student, args=(i,), daemon=True) for i in range(n)]
    load_before = load()
    for t in threads:
        t.start()
    arrived_by = time.time() + arrive + 300
    while ready[0] < n and time.time() < arrived_by:  # the class arrives; the panel keeps polling
        teacher.tick()
        time.sleep(0.2)
    with engine.connect() as conn:
        joined = conn.execute(sqlalchemy.select(sqlalchemy.func.count()).select_from(store_tables.students)
                              .where(store_tables.students.c.room == code)).scalar_one()
    answer_from[0] = t0 = time.time()
    cpu0, client0 = cpu(), time.process_time()
    go.set()
    shown_at, seen = None, None
    expected = sum(1 for rec in records if not rec["errors"])
    while time.time() < t0 + window + 30:
        seen = answered(teacher.tick()) if time.time() >= teacher.next_due() else seen
        if seen is not None and seen >= expected and all("acked_at" in rec for rec in records if not rec["errors"]):
            shown_at = time.time()
            break
        time.sleep(0.05)
    answer_wall = time.time() - t0
    answer_cpu = cpu() - cpu0
    client_cpu = time.process_time() - client0
    cpu1, idle_from, ticks1 = cpu(), time.time(), sum(t.ticks for t in tabs)
    while time.time() < idle_from + idle:  # the class sits answered: only the fragments poll
        teacher.tick()
        time.sleep(0.05)
    idle_wall = time.time() - idle_from
    idle_cpu = (cpu() - cpu1) / idle_wall
    idle_ticks = (sum(t.ticks for t in tabs) - ticks1) / idle_wall
    stop.set()
    for t in threads:
        t.join(30)
    teacher.close()
    with engine.connect() as conn:
        counted = conn.execute(sqlalchemy.select(sqlalchemy.func.count()).select_from(store_tables.guesses_table)
                               .where(store_tables.guesses_table.c.room == code)).scalar_one()
    store.close(code, key, time.time())
    engine.dispose()
    acks = [rec["ack_s"] for rec in records if rec.get("stored")]
    last_ack = max((rec["acked_at"] for rec in records if rec.get("stored")), default=float("nan"))
    errors = sorted({e[:120] for rec in records for e in rec["errors"]})
    return {
        "label": label, "replicas": replicas, "n": n, "joined": joined,
        "stored_said": len(acks), "counted": counted,
        "not_stored": errors + ([f"{sum(1 for r in records if 'acked_at' in r and not r.get('stored'))} acknowledged "
                                 "without the stored line"] if any('acked_at' in r and not r.get('stored') for r in records) else []),
        "ack_p50": percentile(acks, 0.5), "ack_p95": percentile(acks, 0.95), "ack_max": max(acks, default=float("nan")),
        "view_after_last": (shown_at - last_ack) if shown_at is not None else None,
        "open_p95": percentile([r["open_s"] for r in records if "open_s" in r], 0.95),
        "cpu_answer_pct": 100 * answer_cpu / answer_wall, "cpu_idle_pct": 100 * idle_cpu,
        "client_pct": 100 * client_cpu / answer_wall, "idle_ticks": idle_ticks,
        "load": (load_before, load()),
    }


def pages_report(r: dict, budget_ms: float = 300.0) -> None:
    print(f"\n{r['label']}, {r['replicas']} replica(s){' behind nginx' if r['replicas'] > 1 else ''}, "
          f"N = {r['n']}  (load {r['load'][0]:.1f} -> {r['load'][1]:.1f} on {os.cpu_count()} cores)")
    print(f"  joined: {r['joined']} (page opened with the join link: p95 {r['open_p95']:.2f} s)")
    _report_answers(r, budget_ms, "shown", "; problems: " + "; ".join(r["not_stored"][:5]), "panel",
                    "acknowledgement (commit -> 'stored' on the page)")
    print(f"  replicas' CPU: {r['cpu_answer_pct']:.0f}% of a core while the class answered; "
          f"{r['cpu_idle_pct']:.1f}% while it waited (the class features alone: the panel and the students' "
          f"fragments polling, {r['idle_ticks']:.1f} fragment reruns/s, "
          f"{10 * r['cpu_idle_pct'] / max(r['idle_ticks'], 1e-9):.1f} ms each; budget 10%: "
          f"{'ok' if r['cpu_idle_pct'] <= 10 else 'OVER'}); "
          f"the simulated class itself used {r['client_pct']:.0f}% of a core of the same machine")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", type=int, default=None, help="default 100; 30 in reload mode")
    ap.add_argument("--window", type=float, default=10.0, help="seconds in which the class answers")
    ap.add_argument("--backends", nargs="+", choices=("sqlite", "postgresql"), default=["sqlite", "postgresql"])
    ap.add_argument("--replicas", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--postgres-url", help="a running PostgreSQL (default: start one from Debian's binaries)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mode", choices=("store", "pages", "reload"), default="store")
    ap.add_argument("--storm", type=float, default=5.0, help="reload mode: seconds within which the class reloads")
    ap.add_argument("--arrive", type=float, default=20.0, help="pages mode: seconds over which the class opens the link")
    ap.add_argument("--page", default="pages/1_parameter_split.py", help="pages mode: the page whose question is answered")
    args = ap.parse_args(argv)
    if args.mode == "reload":
        sys.path.insert(0, str(ROOT / "bench"))
        args.students = args.students or 30
        return reload_main(args)
    args.students = args.students or 100
    if args.mode == "pages":
        return pages_main(args)

    print("bench/class.py, store mode: the database side of the class room (ui/room/store.py), "
          f"{args.students} students answering within {args.window:.0f} s")
    results = []
    for label, replicas, url, pids in databases(args, "class_bench"):
        r = run(url, label, args.students, replicas, args.window, args.seed + replicas, pids)
        report(r)
        results.append(r)
    return 0 if all(r["counted"] == r["stored_said"] == r["n"] for r in results) else 1


def databases(args: argparse.Namespace, prefix: str):
    """For each backend and replica count asked for: (label, replicas, database URL, database server pids).

    A fresh database each time (an SQLite file in a temporary folder, or a database of its own on the
    PostgreSQL server started here), removed after.
    """
    for backend in args.backends:
        server = None
        try:
            if backend == "postgresql" and not args.postgres_url:
                from tests.ui import pg

                reason = pg.missing_reason()
                if reason:
                    print(f"\nPostgreSQL skipped: {reason}")
                    continue
                server = pg.PostgresServer(durable=True).start()
            for replicas in args.replicas:
                folder = tempfile.mkdtemp(prefix="ffnlab-class-bench-")
                try:
                    if backend == "sqlite":
                        url, pids = f"sqlite:///{folder}/class.sqlite", []
                    else:
                        url = args.postgres_url or server.create_database(f"{prefix}_{replicas}")
                        pids = [server.proc.pid] if server else []
                    label = "SQLite file (WAL)" if backend == "sqlite" else "PostgreSQL 15"
                    yield label, replicas, url, pids
                finally:
                    shutil.rmtree(folder, ignore_errors=True)
        finally:
            if server:
                server.stop()


def pages_main(args: argparse.Namespace) -> int:
    sys.path.insert(0, str(ROOT / "bench"))
    import load as bench_load
    import stclient

    print(f"bench/class.py, pages mode: {args.students} Streamlit sessions join one room on {args.page} "
          f"(arriving over {args.arrive:.0f} s) and answer within {args.window:.0f} s")
    results = []
    for label, replicas, url, _pids in databases(args, "class_pages"):
        os.environ["FFNLAB_CLASS_DB"] = url  # every replica started below reads it
        # The replicas' own warm-up (ui/compute/warmup.py) would compute every page beside the class:
        # off, as stclient.Server has it, so both targets measure the class alone.
        os.environ["FFNLAB_WARMUP"] = "0"
        app = balanced = None
        try:
            if replicas == 1:
                app = stclient.Server()  # the app at FFNLAB_APP_ROOT, else this checkout
                app.wait_healthy()
                target, replica_urls = app.url, [app.url]
            else:
                balanced = bench_load.Balanced(replicas)
                target, replica_urls = balanced.url, balanced.replica_urls
            bench_load.warm_up(target, sessions=2 * replicas)
            try:
                r = pages_run(target, replica_urls, url, label, replicas, args.students, args.arrive,
                              args.window, args.seed + replicas, args.page)
            except RuntimeError:
                if app:
                    print(app.log()[-3000:], file=sys.stderr)
                raise
            pages_report(r)
            results.append(r)
        finally:
            if app:
                app.stop()
            if balanced:
                balanced.stop()
                shutil.rmtree(balanced.run_dir, ignore_errors=True)
            os.environ.pop("FFNLAB_CLASS_DB", None)
    return 0 if results and all(r["counted"] == r["stored_said"] == r["n"] for r in results) else 1


# --- reload mode: the storm, the Reveal, the per-client bounds ------------------------------------


def _cookie_of(base_url: str, html: list[str]) -> str | None:
    """Fetch the seat's cookie as the browser does: the invisible image's address; its Set-Cookie."""
    import html as html_lib
    import re
    import urllib.request

    for body in html:
        found = re.search(r'src="([^"]*ffnlab/pass\?n=[^"]+)"', body)
        if found:
            with urllib.request.urlopen(base_url + html_lib.unescape(found.group(1)), timeout=30) as r:
                cookie = r.headers.get("Set-Cookie", "")
            return cookie.split(";", 1)[0] or None
    return None


def _counts(db, code: str, qid: str) -> tuple[int, int]:
    snap = db.snapshot(code, qid, time.time())
    return (snap.joined, snap.answered)


def reload_run(app, db_url: str, n: int, storm: float, page_path: str, seed: int) -> dict:
    import stclient

    from ui.room import store as room_store

    rng = random.Random(seed)
    page = next(p for p in stclient.discover_pages() if p.file == page_path)
    import sqlalchemy as sa

    engine = sa.create_engine(db_url)
    db = room_store.Store(engine)
    code, key = db.create_room(time.time())
    tabs, guessed, cookies = [], {}, []
    for i in range(n):
        tab = Tab(app.url)
        run = tab.open(page, f"room={code}&lang=en")
        pick = _guess(run, rng)
        if pick is None:
            raise RuntimeError(f"student {i}: the page asks nothing in a room ({run['exceptions']})")
        qid, input_id, commit_id, value = pick
        after = tab.commit(input_id, commit_id, value)
        guessed[i] = qid
        cookies.append(_cookie_of(app.url, run.get("html", []) + after.get("html", [])))
        tabs.append(tab)
    qid = next(iter(guessed.values()))
    before = _counts(db, code, qid)
    for tab in tabs:
        tab.close()
    # The storm: every student's reload (a new session with its cookie) starts within `storm` seconds.
    starts = sorted(rng.uniform(0, storm) for _ in range(n))
    results: list[dict | None] = [None] * n
    reloaded: list[Tab | None] = [None] * n
    cpu0, t0 = app.cpu_s(), time.perf_counter()

    def one(i: int) -> None:
        time.sleep(max(0.0, t0 + starts[i] - time.perf_counter()))
        tab = Tab.__new__(Tab)
        tab.session = stclient.Session(app.url, timeout_s=120, cookie=cookies[i])
        tab.fragments, tab.due, tab.ticks = {}, {}, 0
        reloaded[i] = tab
        results[i] = tab.open(page, f"room={code}&lang=en")

    stclient.all_at_once(one, n)
    storm_wall = time.perf_counter() - t0
    storm_cpu = app.cpu_s() - cpu0
    after = _counts(db, code, qid)
    stored = _strings(ROOT)["questions.stored"]
    shown_again = sum(1 for r in results if r and any(stored in c for c in r["captions"]) and qid not in r["commits"])
    # The class waits for the Reveal: what 10 s of waiting costs the server.
    time.sleep(2.0)
    cpu1, w0 = app.cpu_s(), time.perf_counter()
    time.sleep(10.0)
    waiting_pct = 100 * (app.cpu_s() - cpu1) / (time.perf_counter() - w0)
    # Reveal: each waiting page's rerun, pushed by the app's watcher.
    arrived: list[float | None] = [None] * n
    missed: list[str] = []
    revealed_at = time.perf_counter()
    db.reveal(code, key, qid, time.time())
    db.set_view(code, key, page.url_path or "home", {}, time.time())  # what the instructor's Reveal does too

    def wait(i: int) -> None:
        try:
            got = reloaded[i]._read(time.perf_counter())
            if got.get("charts", 0) and not got["exceptions"]:
                arrived[i] = time.perf_counter() - revealed_at
            else:
                missed.append(f"{got['status']}, {got.get('charts', 0)} charts, {got['exceptions'][:1]}")
        except Exception as e:
            missed.append(f"{type(e).__name__}: {e}")

    stclient.all_at_once(wait, n)
    for tab in reloaded:
        if tab:
            tab.close()
    engine.dispose()
    return {"n": n, "storm": storm, "storm_wall": storm_wall, "storm_cpu_pct": 100 * storm_cpu / storm_wall,
            "run_s": [r["seconds"] for r in results if r], "before": before, "after": after,
            "cookies": sum(1 for c in cookies if c), "shown_again": shown_again, "waiting_pct": waiting_pct,
            "reveal_s": [a for a in arrived if a is not None], "missed": missed}


def limits_run(db_url: str) -> dict:
    import sqlalchemy as sa

    from ui.room import store as room_store

    engine = sa.create_engine(db_url)
    db = room_store.Store(engine)
    now = time.time()
    t0 = time.perf_counter()
    made = 0
    while made < room_store.MAX_ROOMS:
        got = db.create_room(now, client="203.0.113.66")
        if not isinstance(got, tuple):
            break
        made += 1
    rooms_s = time.perf_counter() - t0
    other = db.create_room(now, client="198.51.100.20")
    code, _ = other
    t0 = time.perf_counter()
    seats = 0
    while seats <= room_store.MAX_STUDENTS:
        if db.join(code, f"flood-{seats}", now, client="203.0.113.66") is not room_store.Status.JOINED:
            break
        seats += 1
    seats_s = time.perf_counter() - t0
    code2, _ = db.create_room(now, client="198.51.100.21")
    t0 = time.perf_counter()
    for i in range(500):
        db.join(code2, "one-session", now + i * 0.11, client="203.0.113.67")
        db.leave(code2, "one-session", now + i * 0.11 + 0.05)
    db.join(code2, "one-session", now + 60, client="203.0.113.67")
    churn_s = time.perf_counter() - t0
    held = db.snapshot(code2, "q", now + 61).joined
    engine.dispose()
    return {"rooms": made, "rooms_s": rooms_s, "other_room": isinstance(other, tuple), "seats": seats,
            "seats_s": seats_s, "churn_held": held, "churn_s": churn_s}


def reload_main(args: argparse.Namespace) -> int:
    import stclient

    tmp = Path(tempfile.mkdtemp(prefix="ffnlab-class-reload-"))
    db_url = f"sqlite:///{tmp / 'class.sqlite'}"
    os.environ["FFNLAB_CLASS_DB"] = db_url
    os.environ["FFNLAB_WARMUP"] = "0"
    print(f"bench/class.py, reload mode: {args.students} students on {args.page} reload within {args.storm:.0f} s "
          f"(one replica, SQLite); load {load():.2f}")
    app = stclient.Server()
    try:
        app.wait_healthy()
        import load as bench_load

        bench_load.warm_up(app.url, sessions=2)
        r = reload_run(app, db_url, args.students, args.storm, args.page, args.seed)
    finally:
        app.stop()
        os.environ.pop("FFNLAB_CLASS_DB", None)
    p50, p95, mx = (percentile(r["run_s"], q) for q in (0.5, 0.95, 1.0))
    print(f"  reload storm: {len(r['run_s'])} reloads in {r['storm_wall']:.1f} s; a reload's whole run "
          f"p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, max {mx * 1000:.0f} ms; server CPU {r['storm_cpu_pct']:.0f}% of a core")
    print(f"  seats and answers before {r['before']}, after {r['after']} (cookies fetched: {r['cookies']}/{r['n']}); "
          f"guess shown again on {r['shown_again']}/{r['n']} reloaded pages")
    print(f"  waiting for the Reveal: server CPU {r['waiting_pct']:.1f}% of a core for {r['n']} students "
          f"(~{r['waiting_pct'] * 100 / r['n']:.1f}% for 100 at this rate)")
    rv = r["reveal_s"]
    print(f"  Reveal on the waiting pages: {len(rv)}/{r['n']} arrived; p50 {percentile(rv, 0.5):.2f} s, "
          f"p95 {percentile(rv, 0.95):.2f} s, max {percentile(rv, 1.0):.2f} s")
    if r["missed"]:
        print(f"  pages the Reveal did not reach: {r['missed'][:3]}")
    lim = limits_run(f"sqlite:///{tmp / 'limits.sqlite'}")
    print(f"  per client: one address created {lim['rooms']} rooms in {lim['rooms_s']:.2f} s before refused "
          f"(another address's room then: {'made' if lim['other_room'] else 'REFUSED'}); one address added "
          f"{lim['seats']} new seats in {lim['seats_s']:.1f} s before refused; one token leaving and joining 500 "
          f"times holds {lim['churn_held']} seat ({lim['churn_s']:.1f} s)")
    print(f"  load average after: {load():.2f}")
    shutil.rmtree(tmp, ignore_errors=True)
    ok = r["before"] == r["after"] and r["shown_again"] == r["n"] and len(rv) == r["n"]
    return 0 if ok else 1


if __name__ == "__main__":
    if "--_replica" in sys.argv:
        _replica_main()
    else:
        sys.exit(main())
