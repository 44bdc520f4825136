"""A class on one server, over the real websocket protocol: bursts, a cache wipe, a Train flood.

Students are Streamlit sessions (bench/stclient.py) talking to the `streamlit run` server that
tests/e2e starts on 127.0.0.1; the evidence is what the server itself counts on /_stcore/metrics
(ui/compute/cache.py's ffnlab_experiments and cache lookups) and its memory, never a timing. Waits
have generous deadlines and end as soon as the thing waited for has happened.
"""

from __future__ import annotations

import threading
import time

import pytest

from e2e_support import discover_pages
from stclient import Session, experiments, metric_values
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from ui.compute import stream

import burst  # bench/burst.py: the same students, timed there

DEADLINE_S = 180.0
COLLAPSE = next(p for p in discover_pages() if p.name == "linear_collapse")
SWEEP = next(p for p in discover_pages() if p.name == "width_sweep")
HEAVY = "lang=en&d=128&m=1024"  # the largest collapse: each new seed is a real computation


def until(condition, what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.05)


def lookups(url: str, function: str, result: str) -> int:
    """How often the server looked an experiment up in ui/compute's cache, by result."""
    return sum(int(v) for labels, v in metric_values(url, "cache_lookups").items()
               if 'cache_type="ffnlab_compute"' in labels and f".{function}:" in labels
               and f'result="{result}"' in labels)


class Reader:
    """A session's messages read in the background: the captions it was shown, the runs that ended."""

    def __init__(self, s: Session) -> None:
        self.captions: list[str] = []
        self.finished: list[str] = []
        self.exceptions: list[str] = []

        def loop() -> None:
            try:
                self._read(s)
            except Exception:  # the session was closed: nothing more to read
                return

        threading.Thread(target=loop, daemon=True).start()

    def _read(self, s: Session) -> None:
        for msg in s.stream.messages():
            kind = msg.WhichOneof("type")
            if kind == "script_finished":
                self.finished.append(ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished))
            elif stream.is_exception(msg):
                self.exceptions.append(msg.delta.new_element.exception.message)
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                el = msg.delta.new_element
                if el.WhichOneof("type") == "markdown" and el.markdown.element_type == el.markdown.Type.CAPTION:
                    self.captions.append(el.markdown.body)


def test_a_burst_whose_students_leave_is_not_computed_and_the_next_student_sees_its_place(server):
    leavers = 10
    sessions = burst.open_sessions(server.url, leavers + 1, COLLAPSE, HEAVY)
    (stayer, stayer_run), others = sessions[-1], sessions[:-1]
    before = experiments(server.url)
    missed = lookups(server.url, "measure", "miss")
    for i, (s, opened) in enumerate(others):  # ten students each set their own seed...
        burst.move(s, opened, "seed", 7000 + i)
    burst.move(stayer, stayer_run, "seed", 7999)  # ...and one more, who stays
    reader = Reader(stayer)
    until(lambda: lookups(server.url, "measure", "miss") - missed >= leavers + 1, "every request reached the queue")
    until(lambda: any(burst.NOTE_MARK in c for c in reader.captions), "the waiting student was told its place")
    at_close = experiments(server.url)
    for s, _ in others:  # ...the ten close their tabs while waiting
        s.close()
    until(lambda: reader.finished, "the student who stayed got its result")
    after = experiments(server.url)
    stayer.close()

    # The seed is drawn in a part of the page: the move reruns that part (a fragment run).
    assert reader.finished == ["FINISHED_FRAGMENT_RUN_SUCCESSFULLY"] and not reader.exceptions
    done_before_close = at_close["computed"] - before["computed"]
    assert done_before_close <= leavers - 4, "the burst should still be queued when the students leave"
    # Only what was running when they left (one experiment a worker) and the student who stayed (its seed's
    # two experiments) are computed after it, one more if a turn was taken while the server was still
    # learning that they had left.
    workers = int(metric_values(server.url, "ffnlab_cache")['measure="workers"'])
    assert after["computed"] - at_close["computed"] <= workers + 3
    assert after["dropped"] - before["dropped"] >= leavers - done_before_close - workers - 3
    assert after["failed"] == before["failed"]


def test_a_clear_cache_message_from_any_client_leaves_the_experiments_cached(server):
    student = Session(server.url, timeout_s=DEADLINE_S)
    first = student.open(COLLAPSE, "lang=en&d=96&m=512&seed=4242")
    attacker = Session(server.url, timeout_s=DEADLINE_S)
    attacker.open(discover_pages()[0], "lang=en")
    before = experiments(server.url)
    hits = lookups(server.url, "measure", "hit")

    attacker.clear_cache()  # what the menu's "Clear cache" sends; any client can send it
    attacker.rerun()  # one socket is handled in order: the wipe is done once this run is
    again = student.rerun()
    after = experiments(server.url)
    student.close()
    attacker.close()

    assert first.ok and again.ok and again.fingerprint() == first.fingerprint()
    # The app keeps nothing in st.cache_data any more (experiments, frames and chart specs all live in its
    # own caches), so Streamlit's counters have no miss to show the wipe by; what matters is what follows:
    assert after["computed"] == before["computed"]
    assert lookups(server.url, "measure", "hit") > hits


def test_a_train_flood_takes_turns_and_stays_bounded_in_memory(server):
    sessions, extra_presses = 8, 5
    pairs = burst.open_sessions(server.url, sessions, SWEEP, "lang=en")
    buttons = [next(b for b in run.buttons if b.key == "train") for _, run in pairs]
    assert all(b.fragment_id for b in buttons)  # the Train button reruns only its fragment
    readers = [Reader(s) for s, _ in pairs]
    before = experiments(server.url)
    idle_mb = server.rss_mb()
    peak = [idle_mb]
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], server.rss_mb())
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    for (s, _), button in zip(pairs, buttons):  # everyone presses Train at once...
        s.press(button)
    for _ in range(extra_presses):  # ...and one student keeps pressing
        pairs[0][0].press(buttons[0])
    until(lambda: all("FINISHED_FRAGMENT_RUN_SUCCESSFULLY" in r.finished for r in readers),
          "every student's training ended")
    burst.settle(server.url)
    stop.set()
    sampler.join(10)
    after = experiments(server.url)
    for s, _ in pairs:
        s.close()

    # A press that arrives while its own training runs may cut that run short (Streamlit ends it
    # early and reruns the fragment): every student's training still ends, without an error.
    ended = {"FINISHED_FRAGMENT_RUN_SUCCESSFULLY", "FINISHED_EARLY_FOR_RERUN"}
    assert all("FINISHED_FRAGMENT_RUN_SUCCESSFULLY" in r.finished and set(r.finished) <= ended for r in readers)
    assert not any(r.exceptions for r in readers)
    trainings = after["computed"] - before["computed"]
    assert 1 <= trainings <= sessions + 1  # each press trains once at most, through the turns
    assert after["failed"] == before["failed"]
    assert peak[0] - idle_mb <= burst.FLOOD_MB, f"+{peak[0] - idle_mb:.0f} MB for {sessions} Train presses"
