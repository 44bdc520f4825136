"""A class of 100 students answering one question in one room, within 10 s, on a shared store.

    python bench/class.py                       # store mode: SQLite file, then PostgreSQL; 1 then 2 processes
    python bench/class.py --backends sqlite --replicas 1 --students 100 --window 10
    python bench/class.py --mode pages          # real sessions on the pages: one replica, then two behind nginx

Store mode (this file's default) drives `ui/room/store.py` directly: it measures the database side
of the class room, what every page's guess and every poll costs below Streamlit. A "replica" is a
process of its own with its own engine and pool, as a `streamlit run` replica has, and its students
are threads in it: two replicas share one SQLite file (as replicas on one host behind deploy/'s nginx
do) or one PostgreSQL server (as replicas on several hosts do; started here from Debian's binaries
with fsync on, tests/ui/pg.py).

Each student joins over the first 2 s (the QR code goes up), and answers once at a moment drawn
uniformly in the rest of the window (default 10 s); 30% of them follow the instructor, reading the
room's view every 3 s (ui/room/session.py's follow fragment). The instructor's live view reads the
room's snapshot every 2 s (its fragment's pace). Printed per run:

- answers stored: the rows counted in the database afterwards, against the students who were told
  "stored" (none lost means both are N);
- when the instructor's view first showed the last answer, after that answer was acknowledged;
- a guess's acknowledgement (submit called -> committed, status back) p50 / p95 / max;
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

The budgets (printed, not asserted): a guess stored and acknowledged p95 <= 300 ms at N = 100 on one
replica; the instructor's distribution current within 3 s of the last guess.
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
               "view_reads": 0}
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
            while follows and time.time() < t0 + window + 3:  # following goes on after the answer
                time.sleep(max(0.0, next_view - time.time()))
                store.view(code, time.time())
                out["view_reads"] += 1
                next_view += FOLLOW_EVERY
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

    time.sleep(max(0.0, t0 - time.time()))
    pg_cpu0 = cpu_of(pg_pids)
    me0 = time.process_time()
    polls: list[tuple[float, int]] = []  # (when the view was read, answered)
    deadline = t0 + window + 30
    while time.time() < deadline:
        snap = store.snapshot(code, QUESTION, time.time())
        polls.append((time.time(), snap.answered if snap else -1))
        if snap and snap.answered >= n:
            break
        time.sleep(INSTRUCTOR_EVERY)
    instructor_cpu = time.process_time() - me0
    outs = []
    for proc in procs:
        out, _ = proc.communicate(timeout=window + 180)
        outs.append(json.loads(out))
    wall = max(time.time() - t0, 1e-9)
    pg_cpu = cpu_of(pg_pids) - pg_cpu0
    with engine.connect() as conn:
        counted = conn.execute(sqlalchemy.select(sqlalchemy.func.count()).select_from(room_store.guesses_table)
                               .where(room_store.guesses_table.c.room == code,
                                      room_store.guesses_table.c.question == QUESTION)).scalar_one()
    store.close(code, key, time.time())
    engine.dispose()
    students = [s for o in outs for s in o["students"]]
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
        "cpu_pct": 100 * (replica_cpu + instructor_cpu + pg_cpu) / wall,
        "cpu_parts": (replica_cpu, instructor_cpu, pg_cpu), "wall": wall,
        "load": (load_before, load()),
    }


def report(r: dict, budget_ms: float = 300.0) -> None:
    ms = lambda s: f"{1000 * s:.0f} ms"  # noqa: E731
    lost = r["stored_said"] - r["counted"]
    print(f"\n{r['label']}, {r['replicas']} replica(s), N = {r['n']}  (load {r['load'][0]:.1f} -> {r['load'][1]:.1f} "
          f"on {os.cpu_count()} cores)")
    print(f"  answers stored: {r['counted']} in the database, {r['stored_said']} told 'stored'"
          f"{'' if lost == 0 else f'  ** {lost} told stored but not in the database **'}"
          f"{'' if not r['not_stored'] else '; not stored: ' + ', '.join(r['not_stored'])}")
    shown = r["view_after_last"]
    print("  instructor's view showed the last answer: "
          + (f"{shown:.2f} s after it was acknowledged (budget 3 s: {'ok' if shown <= 3 else 'OVER'})"
             if shown is not None else "never (within the run)"))
    print(f"  acknowledgement: p50 {ms(r['ack_p50'])}, p95 {ms(r['ack_p95'])}, max {ms(r['ack_max'])} "
          f"(budget p95 {budget_ms:.0f} ms at N = 100 on one replica: "
          f"{'ok' if r['ack_p95'] * 1000 <= budget_ms else 'OVER'})")
    rep, ins, pg = r["cpu_parts"]
    print(f"  class features' CPU: {r['cpu_pct']:.1f}% of a core over {r['wall']:.1f} s "
          f"(replicas {rep:.2f} s, instructor's view {ins:.2f} s, PostgreSQL server {pg:.2f} s; "
          f"{r['view_reads']} follow reads)")


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
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        out = {"captions": [], "inputs": {}, "radios": {}, "commits": {}, "exceptions": [], "status": "",
               "seconds": 0.0, "placeholders": {}}
        ws = self.session.ws
        while True:
            if time.perf_counter() > start + self.session.timeout_s:
                raise TimeoutError("no script_finished")
            data = ws.recv()
            if isinstance(data, str):
                continue
            fwd = ForwardMsg()
            fwd.ParseFromString(data)
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
            elif kind == "script_finished":
                status = ForwardMsg.ScriptFinishedStatus.Name(fwd.script_finished)
                if status == "FINISHED_EARLY_FOR_RERUN":
                    continue
                out["status"], out["seconds"] = status, time.perf_counter() - start
                return out

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
        joined = conn.execute(sqlalchemy.select(sqlalchemy.func.count()).select_from(room_store.students)
                              .where(room_store.students.c.room == code)).scalar_one()
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
        counted = conn.execute(sqlalchemy.select(sqlalchemy.func.count()).select_from(room_store.guesses_table)
                               .where(room_store.guesses_table.c.room == code)).scalar_one()
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
    ms = lambda s: f"{1000 * s:.0f} ms"  # noqa: E731
    lost = r["stored_said"] - r["counted"]
    print(f"\n{r['label']}, {r['replicas']} replica(s){' behind nginx' if r['replicas'] > 1 else ''}, "
          f"N = {r['n']}  (load {r['load'][0]:.1f} -> {r['load'][1]:.1f} on {os.cpu_count()} cores)")
    print(f"  joined: {r['joined']} (page opened with the join link: p95 {r['open_p95']:.2f} s)")
    print(f"  answers stored: {r['counted']} in the database, {r['stored_said']} shown 'stored'"
          f"{'' if lost == 0 else f'  ** {lost} shown stored but not in the database **'}"
          f"{'' if not r['not_stored'] else '; problems: ' + '; '.join(r['not_stored'][:5])}")
    shown = r["view_after_last"]
    print("  instructor's panel showed the last answer: "
          + (f"{shown:.2f} s after it was acknowledged (budget 3 s: {'ok' if shown <= 3 else 'OVER'})"
             if shown is not None else "never (within the run)"))
    print(f"  acknowledgement (commit -> 'stored' on the page): p50 {ms(r['ack_p50'])}, p95 {ms(r['ack_p95'])}, "
          f"max {ms(r['ack_max'])} (budget p95 {budget_ms:.0f} ms at N = 100 on one replica: "
          f"{'ok' if r['ack_p95'] * 1000 <= budget_ms else 'OVER'})")
    print(f"  replicas' CPU: {r['cpu_answer_pct']:.0f}% of a core while the class answered; "
          f"{r['cpu_idle_pct']:.1f}% while it waited (the class features alone: the panel and the students' "
          f"fragments polling, {r['idle_ticks']:.1f} fragment reruns/s, "
          f"{10 * r['cpu_idle_pct'] / max(r['idle_ticks'], 1e-9):.1f} ms each; budget 10%: "
          f"{'ok' if r['cpu_idle_pct'] <= 10 else 'OVER'}); "
          f"the simulated class itself used {r['client_pct']:.0f}% of a core of the same machine")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", type=int, default=100)
    ap.add_argument("--window", type=float, default=10.0, help="seconds in which the class answers")
    ap.add_argument("--backends", nargs="+", choices=("sqlite", "postgresql"), default=["sqlite", "postgresql"])
    ap.add_argument("--replicas", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--postgres-url", help="a running PostgreSQL (default: start one from Debian's binaries)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mode", choices=("store", "pages"), default="store")
    ap.add_argument("--arrive", type=float, default=20.0, help="pages mode: seconds over which the class opens the link")
    ap.add_argument("--page", default="pages/1_parameter_split.py", help="pages mode: the page whose question is answered")
    args = ap.parse_args(argv)
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


if __name__ == "__main__":
    if "--_replica" in sys.argv:
        _replica_main()
    else:
        sys.exit(main())
