"""What one address can do to a class room, over the real websocket, against what a real class does (issue 40).

    python bench/flood.py                      # the whole comparison on one `streamlit run` server, SQLite store
    python bench/flood.py --flood 200 --class 50
    python bench/flood.py --defaults           # also the 17 MB values on a server with Streamlit's own bounds

Every visitor is a Streamlit session over its own websocket that says which address it comes from the way
deploy/'s nginx does (X-Forwarded-For, trusted from 127.0.0.1 only: ui/room/passes.py), opens a page with the
room's join link (`?room=CODE`) and commits a guess through the page's question form. Printed:

- a real class: N students behind one school address join and vote; seats/min and votes/min as they came;
- a script: M fresh sessions from one address, as fast as the server answers, each joining and voting; the
  seats and votes it added (counted in the database) and per minute, beside the most it can add over the room's
  life (the store's bounds per address: new seats per room, votes per question); how many sessions got which note;
  the server's RSS before and after, and after its sessions closed;
- a session from another address joining at once, the instructor's door locking at once (then a newcomer
  refused), and the room's seats two minutes on (the store asked with `now` + 121 s: the flood's seats stop
  counting once unseen for SEAT_IDLE);
- sessions sending 17 MB widget values: whether the server took them, and its RSS before and after;
- wrong codes: how many one session, then one address, tried before being refused;
- a class's pages left open, their timers ticking: the heartbeat's cost in server CPU, and the seats here
  while open and two minutes after they closed;
- the largest message each page sends (what server.maxMessageSize must leave room for).

The machine is shared: the load average is printed beside every figure.
"""
from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import stclient  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402

from ui.base import i18n  # noqa: E402
from ui.compute import stream  # noqa: E402
from ui.room import store as room_store  # noqa: E402
from ui.room import seating  # noqa: E402

SCHOOL, SCRIPT, ELSEWHERE = "198.51.100.7", "203.0.113.66", "192.0.2.44"
PAGE = "pages/3_linear_collapse.py"
EN = i18n.Translator("en")


def _user_key(widget_id: str) -> str:
    parts = widget_id.split("-", 2)
    return parts[2] if widget_id.startswith("$$ID-") and len(parts) == 3 else ""


class Visitor:
    """One session from one address: what its runs drew (every text, note and warning; the question forms)."""

    def __init__(self, url: str, address: str, timeout_s: float = 180.0) -> None:
        self.stream = stream.Stream(stream.url_of(url), timeout_s, {"X-Forwarded-For": address})
        self.timeout_s = timeout_s
        self.page = ""
        self.query = ""
        self.fragments: dict[str, float] = {}  # fragment id -> seconds between the reruns its timer asks for
        self.due: dict[str, float] = {}

    def _read(self, sent: float) -> dict:
        out = {"texts": [], "inputs": {}, "commits": {}, "exceptions": [], "status": "", "closed": False}
        try:
            for fwd in self.stream.messages(until=sent + self.timeout_s):
                kind = fwd.WhichOneof("type")
                if kind == "page_info_changed":
                    self.query = fwd.page_info_changed.query_string
                elif kind == "auto_rerun":
                    self.fragments[fwd.auto_rerun.fragment_id] = fwd.auto_rerun.interval
                    self.due.setdefault(fwd.auto_rerun.fragment_id, time.time() + fwd.auto_rerun.interval)
                elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                    el = fwd.delta.new_element
                    what = el.WhichOneof("type")
                    if what == "markdown":
                        out["texts"].append(el.markdown.body)
                    elif what == "alert":
                        out["texts"].append(el.alert.body)
                    elif what == "exception":
                        out["exceptions"].append(f"{el.exception.type}: {el.exception.message}")
                    elif what == "text_input" and _user_key(el.text_input.id).startswith("_ask_in:"):
                        out["inputs"][_user_key(el.text_input.id)[8:]] = el.text_input.id
                    elif what == "button" and _user_key(el.button.id).startswith("_ask_commit:"):
                        out["commits"][_user_key(el.button.id)[12:]] = el.button.id
                status = stream.run_status(fwd)
                if status is not None:
                    out["status"] = status
                    return out
        except Exception as e:  # the server closed this websocket (a message past its bound)
            out["closed"] = type(e).__name__ != "TimeoutError"
            if not out["closed"]:
                raise
        return out

    def open(self, page: str, query: str) -> dict:
        self.page, self.query = _url_path(page), query
        return self._read(self.stream.rerun(self.page, query))

    def send(self, states: list[WidgetState]) -> dict:
        return self._read(self.stream.rerun(self.page, self.query, states))

    def commit(self, run: dict, value: str) -> tuple[str, dict] | None:
        """Commit `value` to the page's first number question: (its id, the run), or None without one."""
        for qid, input_id in run["inputs"].items():
            if qid in run["commits"]:
                state = WidgetState(id=input_id)
                state.string_value = value
                return qid, self.send([state, WidgetState(id=run["commits"][qid], trigger_value=True)])
        return None

    def tick(self) -> int:
        """Rerun every timed part that is due, as the browser's timers do; how many."""
        done = 0
        for fragment_id, interval in list(self.fragments.items()):
            if time.time() >= self.due.get(fragment_id, 0):
                self.due[fragment_id] = time.time() + interval
                self._read(self.stream.rerun(self.page, self.query, fragment_id=fragment_id))
                done += 1
        return done

    def close(self) -> None:
        try:
            self.stream.close()
        except Exception:
            pass


def _url_path(page: str) -> str:
    from ui.registry import query

    return "" if page == "dashboard.py" else query.url_path(page)


NOTES = {"seated": "room.student_of", "join_limit": "room.join_limit", "sessions_limit": "room.sessions_limit",
         "locked": "room.locked", "tries_limit": "room.tries_limit", "unknown": "room.unknown", "full": "room.full",
         "unavailable": "room.unavailable"}


def outcome(run: dict, code: str) -> str:
    """Which note a session's run shows (seated, a bound's, or "other")."""
    if run["closed"]:
        return "closed"
    for name, key in NOTES.items():
        text = EN(key, code=code) if name == "seated" else EN(key)
        if any(text in t for t in run["texts"]):
            return name
    return "exception" if run["exceptions"] else "other"


def visit(url: str, address: str, code: str, vote: str | None, page: str = PAGE) -> dict:
    """One session: open the join link, commit a guess when seated; what happened and when."""
    v = Visitor(url, address)
    try:
        run = v.open(page, f"lang=en&room={code}")
        retried = outcome(run, code) == "unavailable"
        if retried:  # the store was busy: the page asks again on a run RETRY_S later, as a student's next click
            time.sleep(seating.RETRY_S)
            run = v.send([])
        got = {"outcome": outcome(run, code), "joined_at": time.time(), "qid": None, "exceptions": run["exceptions"],
               "retried": retried}
        if vote is not None and got["outcome"] == "seated":
            done = v.commit(run, vote)
            if done is not None:
                got["qid"], after = done
                got["voted_at"] = time.time()
                got["exceptions"] += after["exceptions"]
        return got
    finally:
        v.close()


def crowd(url: str, address: str, code: str, n: int, workers: int, spread_s: float = 0.0) -> tuple[list[dict], float]:
    """N visitors from one address, `workers` at a time, started over `spread_s` seconds; (results, wall time)."""
    t0 = time.time()

    def one(i: int) -> dict:
        wait = t0 + spread_s * i / max(1, n) - time.time()
        if wait > 0:
            time.sleep(wait)
        return visit(url, address, code, f"{1 + i % 5}")

    with ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(one, range(n)))
    return results, time.time() - t0


def per_minute(count: int, seconds: float) -> float:
    return 60.0 * count / max(seconds, 1e-9)


def tally(results: list[dict]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in results:
        out[r["outcome"]] = out.get(r["outcome"], 0) + 1
    return out


def big_values(url: str, address: str, code: str, sessions: int, mb: int) -> list[bool]:
    """Sessions that each send a `mb` MB value in the question's number box; whether the server answered a run."""
    answered = []
    for _ in range(sessions):
        v = Visitor(url, address, timeout_s=60)
        try:
            run = v.open(PAGE, f"lang=en&room={code}")
            done = v.commit(run, "1" * (mb * 10**6))
            answered.append(done is not None and not done[1]["closed"] and bool(done[1]["status"]))
        except Exception:
            answered.append(False)
        finally:
            v.close()
    return answered


def wrong_codes(url: str, address: str, tries: int) -> tuple[int, int]:
    """(codes one session tried before its refusal, codes the address tried over fresh sessions until refused)."""
    alphabet = room_store.CODE_ALPHABET

    def code(i: int) -> str:
        return "".join(alphabet[(i // len(alphabet) ** k) % len(alphabet)] for k in range(6))

    first, total, i = None, 0, 0
    for _ in range(200):  # fresh sessions, until one is refused at its first try
        v = Visitor(url, address)
        here = 0
        try:
            while here < tries:
                run = v.open("dashboard.py", f"lang=en&room={code(i)}")
                i += 1
                if outcome(run, code(i - 1)) == "tries_limit":
                    break
                here += 1
        finally:
            v.close()
        first = here if first is None else first
        total += here
        if here == 0:
            break
    return first, total


def present(server: stclient.Server, db: room_store.Store, n: int, seconds: float) -> dict:
    """N seated students whose pages stay open for `seconds`, their timers ticking: the heartbeat's cost."""
    code, key = db.create_room(time.time(), client="192.0.2.4")
    tabs = []
    try:
        for i in range(n):
            v = Visitor(server.url, "198.51.100.8")
            tabs.append(v)
            v.open(PAGE, f"lang=en&room={code}")
        stclient.settle(server.proc.pid, most_s=20)
        cpu0, t0, ticks = server.cpu_s(), time.time(), 0
        while time.time() < t0 + seconds:
            ticks += sum(v.tick() for v in tabs)
            time.sleep(0.2)
        cpu = server.cpu_s() - cpu0
        wall = time.time() - t0
        here = db.seats(code, key, time.time()).here
    finally:
        for v in tabs:
            v.close()
    later = db.seats(code, key, time.time() + room_store.SEAT_IDLE + 1).here
    return {"n": n, "wall": wall, "cpu_pct": 100 * cpu / wall, "ticks": ticks, "here": here, "later": later}


def page_sizes(url: str) -> dict[str, int]:
    sizes = {}
    for page in stclient.discover_pages():
        s = stream.Stream(stream.url_of(url), 180.0, {"X-Forwarded-For": ELSEWHERE})
        try:
            sent = s.rerun(page.url_path, "lang=en")
            biggest = 0
            for fwd in s.messages(until=sent + 180):
                biggest = max(biggest, fwd.ByteSize())
                if stream.run_status(fwd) is not None:
                    break
            sizes[page.name] = biggest
        finally:
            s.close()
    return sizes


def _config(section: str, name: str) -> object:
    """One option of the app's own .streamlit/config.toml (what `streamlit run` in the repo serves with)."""
    import tomllib

    with (ROOT / ".streamlit" / "config.toml").open("rb") as f:
        return tomllib.load(f).get(section, {}).get(name)


def settle_rss(server: stclient.Server) -> float:
    stclient.settle(server.proc.pid, most_s=20)
    return server.rss_mb()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--class", dest="klass", type=int, default=100, help="students of the real class")
    ap.add_argument("--spread", type=float, default=60.0, help="seconds over which the real class joins")
    ap.add_argument("--flood", type=int, default=500, help="sessions the script opens")
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--present", type=float, default=90.0, help="seconds the class's pages stay open, ticking (0: skip)")
    ap.add_argument("--defaults", action="store_true", help="also send the 17 MB values to a server with Streamlit's defaults")
    args = ap.parse_args(argv)
    logging.getLogger("websockets").setLevel(logging.CRITICAL)  # a websocket the server closed is what is measured
    tmp = Path(tempfile.mkdtemp(prefix="ffnlab-flood-"))
    db_url = f"sqlite:///{tmp / 'class.sqlite'}"
    import sqlalchemy as sa

    db = room_store.Store(sa.create_engine(db_url))
    server = stclient.Server(env={"FFNLAB_CLASS_DB": db_url})
    print(f"bench/flood.py: one `streamlit run` server, SQLite store; {stclient.load_average()}")
    try:
        server.wait_healthy()
        visit(server.url, ELSEWHERE, "ZZZZZZ", None)  # warm: the page's experiment computed once
        # --- a real class behind one address
        code, key = db.create_room(time.time(), client="192.0.2.1")
        results, wall = crowd(server.url, SCHOOL, code, args.klass, args.workers, args.spread)
        seated = [r for r in results if r["outcome"] == "seated"]
        votes = db.snapshot(code, seated[0]["qid"], time.time()).answered if seated and seated[0]["qid"] else 0
        print(f"  a real class: {args.klass} students behind {SCHOOL} over {args.spread:.0f} s: {len(seated)} seated, "
              f"{votes} votes stored in {wall:.0f} s = {per_minute(len(seated), wall):.0f} seats/min, "
              f"{per_minute(votes, wall):.0f} votes/min; notes {tally(results)}; {stclient.load_average()}")
        # --- a script from one address
        code, key = db.create_room(time.time(), client="192.0.2.2")
        before = settle_rss(server)
        results, wall = crowd(server.url, SCRIPT, code, args.flood, args.workers * 2)
        during = server.rss_mb()
        seats = db.seats(code, key, time.time())
        qid = next((r["qid"] for r in results if r["qid"]), None)
        votes = db.snapshot(code, qid, time.time()).answered if qid else 0
        life_min = room_store.ROOM_TTL / 60
        print(f"  a script: {args.flood} sessions from {SCRIPT} as fast as the server answers, {wall:.0f} s: "
              f"{seats.held} seats, {votes} votes stored = {per_minute(seats.held, wall):.0f} seats/min and "
              f"{per_minute(votes, wall):.0f} votes/min while it lasted, then refused: over the room's "
              f"{life_min:.0f} min at most {room_store.MAX_JOINS_PER_CLIENT} seats and {room_store.CLASS_PER_CLIENT} "
              f"votes a question = {room_store.MAX_JOINS_PER_CLIENT / life_min:.1f} seats/min and "
              f"{room_store.CLASS_PER_CLIENT / life_min:.1f} votes/min a question (the issue measured 500 seats in 16 s, "
              f"40 votes in 4.4 s = 545 votes/min; a sliding seat window let one address store 900 votes on one "
              f"question in an hour); notes {tally(results)} "
              f"({sum(r['retried'] for r in results)} asked again after a busy store); "
              f"{stclient.load_average()}")
        other = visit(server.url, ELSEWHERE, code, None)["outcome"]
        t0 = time.perf_counter()
        locked = db.set_door(code, key, True, time.time())
        lock_ms = (time.perf_counter() - t0) * 1000
        newcomer = visit(server.url, "192.0.2.45", code, None)["outcome"]
        later = db.seats(code, key, time.time() + room_store.SEAT_IDLE + 1)
        print(f"  then: another address's student {other}; the door locked ({locked.value}) in {lock_ms:.0f} ms, a "
              f"newcomer then {newcomer}; two minutes on {later.here} of {later.held} seats count (the room holds "
              f"{db.max_students})")
        print(f"  server RSS: {before:.0f} MB before the flood, {during:.0f} MB after it (its sessions kept 300 s, "
              f"server.disconnectedSessionTTL), {settle_rss(server):.0f} MB settled")
        # --- 17 MB values
        code, _ = db.create_room(time.time(), client="192.0.2.3")
        before = settle_rss(server)
        answered = big_values(server.url, "203.0.113.67", code, 5, 17)
        after = settle_rss(server)
        print(f"  5 sessions sending a 17 MB number: {sum(answered)} answered, the others closed; server RSS "
              f"{before:.0f} -> {after:.0f} MB ({(after - before) / 5:+.1f} MB a session); {stclient.load_average()}")
        if args.defaults:  # the same on a server with Streamlit's own bounds (25 MB of widget state, 200 MB frames)
            plain = stclient.Server(env={"FFNLAB_CLASS_DB": db_url, "STREAMLIT_SERVER_MAX_WIDGET_STATE_SIZE": "25",
                                         "STREAMLIT_SERVER_MAX_MESSAGE_SIZE": "200"})
            try:
                plain.wait_healthy()
                visit(plain.url, ELSEWHERE, "ZZZZZZ", None)
                before = settle_rss(plain)
                answered = big_values(plain.url, "203.0.113.67", code, 5, 17)
                after = settle_rss(plain)
                print(f"    with Streamlit's defaults: {sum(answered)} answered; server RSS {before:.0f} -> {after:.0f} MB "
                      f"({(after - before) / 5:+.1f} MB a session)")
            finally:
                plain.stop()
        # --- wrong codes
        first, total = wrong_codes(server.url, "203.0.113.68", 40)
        print(f"  wrong codes: one session refused after {first}; the address after {total} over fresh sessions")
        if args.present:
            p = present(server, db, args.klass, args.present)
            print(f"  {p['n']} open student pages for {p['wall']:.0f} s: {p['ticks']} timed reruns (the heartbeat every "
                  f"{room_store.PRESENT_EVERY:.0f} s), server CPU {p['cpu_pct']:.1f}% of a core; {p['here']} seats "
                  f"here, {p['later']} two minutes after the pages closed; {stclient.load_average()}")
        sizes = page_sizes(server.url)
        name = max(sizes, key=sizes.get)
        print(f"  largest page message: {sizes[name] / 1e3:.0f} kB ({name}); server.maxMessageSize "
              f"{_config('server', 'maxMessageSize')} MB")
        print(f"  {stclient.load_average()}")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
