"""Experiments on every core: as many compute at once as there are workers, in arrival order, lanes kept
apart, the server's own background work behind every student.

Plain threads drive the scheduler (ui/compute/fair_queue.py) as in tests/ui/test_compute.py: threads meet on
Events, never on sleeps, and no assertion is about time.
"""
from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from tests.ui.test_compute import WAIT_S, Gone, _waiting_for, caller, until
from ui.compute import cache, fair_queue

ROOT = Path(__file__).resolve().parents[2]


class Workers:
    """A scheduler of `n` workers whose experiments each block until released by name."""

    def __init__(self, n: int) -> None:
        self.turns = fair_queue.Scheduler(poll_s=0.01, workers=n)
        self.started: list[object] = []
        self.gates: dict[object, threading.Event] = {}
        self.results: dict[str, object] = {}
        self.threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def ask(self, name: str, key, who: fair_queue.Caller, lane: str | None = None, **hooks) -> None:
        gate = self.gates.setdefault(key, threading.Event())

        def work(publish):
            with self._lock:
                self.started.append(key)
            assert gate.wait(WAIT_S)
            return key

        def go() -> None:
            try:
                self.results[name] = self.turns.run(key, work, who, lane=lane, **hooks)
            except BaseException as err:  # kept for the assertions
                self.results[name] = err

        thread = threading.Thread(target=go, daemon=True)
        thread.start()
        self.threads.append(thread)

    def running(self, keys) -> None:
        until(lambda: sorted(map(str, self.started)) == sorted(map(str, keys)), f"exactly {keys} started")

    def finish(self, key) -> None:
        self.gates[key].set()

    def join(self) -> None:
        for gate in self.gates.values():
            gate.set()
        for thread in self.threads:
            thread.join(WAIT_S)
            assert not thread.is_alive()


def background(session: str) -> fair_queue.Caller:
    return fair_queue.Caller(session, lambda: None, RuntimeError, (Gone,), background=True)


def test_as_many_compute_at_once_as_there_are_workers_and_the_rest_wait_in_arrival_order():
    lab = Workers(2)
    for i in range(5):
        lab.ask(f"s{i}", i, caller(f"s{i}"))
        until(lambda i=i: lab.turns.queued() == i + 1, "each request queued in turn")
    lab.running([0, 1])  # two at once, never a third
    assert lab.turns.running() == 2 and lab.turns.queued() == 5
    lab.finish(1)
    lab.running([0, 1, 2])  # the oldest waiting takes the freed worker
    lab.finish(0)
    lab.running([0, 1, 2, 3])
    lab.join()
    assert sorted(lab.started[:2]) == [0, 1] and lab.started[2:] == [2, 3, 4]
    assert lab.turns.most_running == 2
    assert all(lab.results[f"s{i}"] == i for i in range(5))


def test_a_waiting_student_is_told_the_running_and_the_queued_ahead():
    lab = Workers(2)
    for i in range(4):
        lab.ask(f"s{i}", i, caller(f"s{i}"))
        until(lambda i=i: lab.turns.queued() == i + 1, "queued in turn")
    notes: list[int] = []
    lab.ask("me", "mine", caller("me"), on_wait=notes.append)
    until(lambda: notes, "a first note")
    assert notes[0] == 4  # two computing, two queued before it
    lab.join()
    assert notes[-1] == 0 and notes == sorted(notes, reverse=True)


def test_one_lane_computes_one_at_a_time_and_lets_other_experiments_pass():
    lab = Workers(3)
    lab.ask("g1", "gpt-1", caller("g1"), lane="gpt")
    lab.running(["gpt-1"])
    lab.ask("g2", "gpt-2", caller("g2"), lane="gpt")
    until(lambda: lab.turns.queued() == 2, "the second probe queued")
    lab.ask("sweep", "sweep", caller("sweep"))  # arrived after g2, starts before it: its lane is free
    lab.running(["gpt-1", "sweep"])
    assert lab.turns.running() == 2  # a worker idles rather than run two probes of one model
    lab.finish("gpt-1")
    lab.running(["gpt-1", "sweep", "gpt-2"])
    lab.join()
    assert lab.results["g2"] == "gpt-2" and lab.results["sweep"] == "sweep"


def test_the_pages_python_bound_experiments_share_the_python_lane():
    # Measured (ui/compute/cache.py): these run Python between small kernels, and two side by side took twice
    # as long each; the kernel-bound ones (the collapse, position-wise, gated experiments) run side by side.
    pages = {path.name: path.read_text(encoding="utf-8") for path in (ROOT / "pages").glob("*.py")}
    laned = {(name, fn) for name, text in pages.items()
             for fn in re.findall(r"@cache\.cached\([^)]*lane=cache\.LANE_PYTHON\)\ndef (\w+)", text)}
    assert laned == {("5_width_sweep.py", "run"), ("5_width_sweep.py", "reference"), ("6_key_value.py", "memorise_pairs"),
                     ("6_key_value.py", "measure"), ("7_activation_sparsity.py", "train"),
                     ("7_activation_sparsity.py", "seed_change"), ("10_mixture_of_experts.py", "measure")}
    assert "lane=cache.LANE_PYTHON" in pages["5_width_sweep.py"].split("cache.train(", 1)[1].split("\n\n", 1)[0]
    assert cache.LANE_PYTHON in cache._LANES and cache.LANE_PYTHON != cache.LANE_GPT


def test_background_work_waits_behind_every_student_and_leaves_a_worker_free():
    lab = Workers(2)
    lab.ask("warm1", "warm-1", background("w1"))
    lab.ask("warm2", "warm-2", background("w2"))
    lab.running(["warm-1"])  # one worker stays free for the next student
    assert lab.turns.running() == 1 and lab.turns.students_waiting() == 0
    lab.ask("student", "student", caller("student"))
    lab.running(["warm-1", "student"])
    lab.ask("student2", "student-2", caller("student2"))
    until(lambda: lab.turns.students_waiting() == 2, "the second student waits")
    lab.finish("warm-1")
    lab.running(["warm-1", "student", "student-2"])  # the student's turn comes before warm-2's
    lab.finish("student")
    lab.finish("student-2")
    lab.running(["warm-1", "student", "student-2", "warm-2"])
    lab.join()


def test_a_student_asking_for_what_the_background_queued_makes_it_a_students_ticket():
    lab = Workers(1)
    lab.ask("busy", "busy", caller("busy"))
    lab.running(["busy"])
    lab.ask("warm", "page-8", background("w"))
    lab.ask("other", "other", caller("other"))
    lab.ask("student", "page-8", caller("student"))  # the same view: shared, and now a student's
    until(lambda: lab.turns.counts["shared"] == 1, "the student joined the background's ticket")
    lab.finish("busy")
    lab.running(["busy", "other"])  # arrival order among students: "other" came first
    lab.finish("other")
    lab.running(["busy", "other", "page-8"])
    lab.join()
    assert lab.results["student"] == "page-8" and lab.results["warm"] == "page-8"


def test_with_workers_sessions_that_left_are_dropped_and_each_session_keeps_one_place():
    lab = Workers(2)
    gone = threading.Event()
    lab.ask("a", "a", caller("a"))
    lab.ask("b", "b", caller("b"))
    lab.running(["a", "b"])
    for i in range(20):
        lab.ask(f"s{i}", ("own", i), caller(f"s{i}", gone))
    for value in range(5):  # one student moving a slider five times while both workers are busy
        lab.ask(f"move{value}", ("seed", value), caller("mover"))
        until(lambda v=value: _waiting_for(lab.turns, "mover") == ("seed", v), "the newest move queued")
    until(lambda: lab.turns.queued() == 2 + 20 + 1, "bounded: two running, one place per session")
    gone.set()
    until(lambda: lab.turns.queued() == 3, "the twenty who left are out of the queue")
    lab.join()
    assert ("seed", 4) in lab.started and not any(k in lab.started for k in [("seed", v) for v in range(4)])
    assert not any(("own", i) in lab.started for i in range(20))
    assert lab.turns.counts["dropped"] >= 20


def test_a_scheduler_needs_a_worker():
    with pytest.raises(ValueError):
        fair_queue.Scheduler(workers=0)
