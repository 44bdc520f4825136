"""Experiments take turns fairly: shared when identical, dropped when nobody waits, one per session.

The scheduler (ui/compute/fair_queue.py) is driven by plain threads; each "session" is a Caller whose check
raises once the test says the session has gone. Threads meet on Events, never on sleeps, and
no assertion is about time: only what was computed, for whom, and what each caller got.
"""
from __future__ import annotations

import pickle
import threading
import time

import pytest

from ui.compute import cache, fair_queue, result_cache

pytestmark = pytest.mark.usefixtures("fresh_caches")  # counts what is computed: starts from empty caches

WAIT_S = 60.0  # generous: a deadline for things that happen at once on an idle machine


class Gone(Exception):
    """The session of a caller has ended (as Streamlit's StopException)."""


class Moved(Exception):
    """The same session asked for something else (as a superseded run)."""


def caller(session: str | None, gone: threading.Event | None = None) -> fair_queue.Caller:
    def check() -> None:
        if gone is not None and gone.is_set():
            raise Gone()

    return fair_queue.Caller(session, check, Moved, (Gone,))


def _waiting_for(turns: fair_queue.Scheduler, session: str):
    """The key a session's one call waits for, if any (read under the queue's own lock)."""
    with turns._cond:
        call = turns._sessions.get(session)
        return call.ticket.key if call is not None else None


def until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.005)


class Lab:
    """A scheduler, a record of what was computed, and threads that ask for things."""

    def __init__(self) -> None:
        self.turns = fair_queue.Scheduler(poll_s=0.01)
        self.computed: list[object] = []
        self.results: dict[str, object] = {}
        self.threads: list[threading.Thread] = []
        self.release = threading.Event()

    def work(self, key, block: bool = False):
        def run(publish):
            self.computed.append(key)
            if block:
                assert self.release.wait(WAIT_S)
            return {"key": key, "values": [key] * 3}

        return run

    def ask(self, name: str, key, who: fair_queue.Caller, block: bool = False, **hooks) -> threading.Thread:
        def go() -> None:
            try:
                self.results[name] = self.turns.run(key, self.work(key, block), who, **hooks)
            except BaseException as err:  # kept for the assertions
                self.results[name] = err

        thread = threading.Thread(target=go, daemon=True)
        thread.start()
        self.threads.append(thread)
        return thread

    def blocker(self) -> None:
        """Something running that holds the turn until `release` is set."""
        self.ask("blocker", "blocker", caller(None), block=True)
        until(lambda: self.computed == ["blocker"], "the blocker started")

    def waiting(self, n: int) -> None:
        until(lambda: self.turns.queued() == n, f"{n} tickets queued or running")

    def join(self) -> None:
        for thread in self.threads:
            thread.join(WAIT_S)
            assert not thread.is_alive()


def test_identical_requests_in_flight_are_computed_once_and_each_caller_gets_its_own_copy():
    lab = Lab()
    lab.blocker()
    for i in range(30):
        lab.ask(f"s{i}", "same", caller(f"s{i}"))
    until(lambda: lab.turns.counts["shared"] == 29, "29 callers joined the first one's ticket")
    lab.release.set()
    lab.join()
    assert lab.computed == ["blocker", "same"]
    got = [lab.results[f"s{i}"] for i in range(30)]
    assert all(r == {"key": "same", "values": ["same"] * 3} for r in got)
    assert len({id(r) for r in got}) == 30  # copies: one student cannot change another's result


def test_work_for_sessions_that_left_is_never_computed_and_the_next_student_is_not_behind_it():
    lab = Lab()
    lab.blocker()
    gone = threading.Event()
    for i in range(30):
        lab.ask(f"s{i}", ("own", i), caller(f"s{i}", gone))
    lab.waiting(31)
    gone.set()  # all thirty close their tabs while waiting
    lab.waiting(1)
    lab.ask("next", "next", caller("next"))
    lab.release.set()
    lab.join()
    assert lab.computed == ["blocker", "next"]
    assert all(isinstance(lab.results[f"s{i}"], Gone) for i in range(30))
    assert lab.turns.counts["dropped"] == 30 and lab.turns.counts["abandoned"] == 30


def test_a_session_that_left_does_not_take_a_free_worker_for_its_next_experiment():
    # A tab closed while its page's first experiment computed: the script goes on to the page's next one,
    # and a free worker is there at once, so it never waits (where the leaving was checked before).
    turns = fair_queue.Scheduler(poll_s=0.01, workers=2)
    gone = threading.Event()
    gone.set()
    computed = []
    with pytest.raises(Gone):
        turns.run("next", lambda _publish: computed.append("next"), caller("s", gone))
    assert computed == [] and turns.counts["abandoned"] == 1 and turns.queued() == 0
    assert turns.run("other", lambda _publish: "done", caller("t")) == "done"


def test_a_session_has_one_request_queued_its_newest():
    lab = Lab()
    lab.blocker()
    for value in range(5):  # one student moves a slider five times while the server is busy
        lab.ask(f"move{value}", ("seed", value), caller("student"))
        until(lambda: _waiting_for(lab.turns, "student") == ("seed", value), "the newest move is queued")
        assert lab.turns.queued() == 2  # the blocker and this student's newest, never more
    lab.release.set()
    lab.join()
    assert lab.computed == ["blocker", ("seed", 4)]
    assert all(isinstance(lab.results[f"move{v}"], Moved) for v in range(4))
    assert lab.results["move4"]["key"] == ("seed", 4)


def test_a_waiting_student_is_told_how_many_are_ahead_until_its_turn():
    lab = Lab()
    lab.blocker()
    for i in range(3):
        lab.ask(f"s{i}", ("own", i), caller(f"s{i}"))
    lab.waiting(4)
    notes: list[int] = []
    lab.ask("me", "mine", caller("me"), on_wait=notes.append)
    until(lambda: notes, "a first note")
    lab.release.set()
    lab.join()
    assert notes[0] == 4  # the blocker running and three queued
    assert notes[-1] == 0  # cleared once it is its turn
    assert notes == sorted(notes, reverse=True)
    assert lab.computed == ["blocker", ("own", 0), ("own", 1), ("own", 2), "mine"]  # arrival order


def test_a_caller_never_waits_on_the_turn_it_holds():
    scheduler = fair_queue.Scheduler(poll_s=0.01)
    inner = lambda publish: "inner"  # noqa: E731
    outer = lambda publish: ("outer", scheduler.run("b", inner, caller(None)))  # noqa: E731
    assert scheduler.run("a", outer, caller(None)) == ("outer", "inner")


def test_a_failure_reaches_every_caller_and_is_not_kept():
    scheduler = fair_queue.Scheduler(poll_s=0.01)
    calls = []

    def broken(publish):
        calls.append(1)
        raise ValueError("bad setting")

    for _ in range(2):
        with pytest.raises(ValueError):
            scheduler.run("k", broken, caller(None))
    assert len(calls) == 2 and scheduler.counts["failed"] == 2


# --- live training: shared progress, bounded whatever the presses ---------------------------------


def test_students_starting_the_same_training_share_one_run_and_its_progress():
    lab = Lab()
    lab.blocker()
    seen = {f"s{i}": [] for i in range(16)}
    steps = threading.Event()

    def training(publish):
        lab.computed.append("training")
        for step in range(1, 4):
            publish(step)
        assert steps.wait(WAIT_S)
        return "trained"

    def press(name):
        lab.results[name] = lab.turns.run("train", training, caller(name), on_progress=seen[name].append)

    threads = [threading.Thread(target=press, args=(f"s{i}",), daemon=True) for i in range(16)]
    for thread in threads:
        thread.start()
    until(lambda: lab.turns.counts["shared"] == 15, "sixteen presses on one ticket")
    lab.release.set()
    until(lambda: "training" in lab.computed, "the training started")
    until(lambda: sum(bool(s) for s in seen.values()) == 15, "the others watched its progress")
    steps.set()
    for thread in threads:
        thread.join(WAIT_S)
    lab.join()
    assert lab.computed == ["blocker", "training"]
    assert all(lab.results[f"s{i}"] == "trained" for i in range(16))
    assert all(s == sorted(s) and set(s) <= {1, 2, 3} for s in seen.values())


def test_a_training_whose_student_left_goes_on_for_the_others_and_not_for_nobody():
    scheduler = fair_queue.Scheduler(poll_s=0.01)
    runs = []
    started = threading.Event()
    leave = threading.Event()

    def training(publish):
        runs.append(threading.current_thread().name)
        publish("step")
        started.set()
        if threading.current_thread().name == "first":
            assert leave.wait(WAIT_S)
            raise Gone()  # its page drew progress and found its session gone
        return "trained"

    results = {}

    def press(name):
        try:
            results[name] = scheduler.run("train", training, caller(name))
        except Gone as err:
            results[name] = err

    first = threading.Thread(target=press, args=("first",), name="first", daemon=True)
    first.start()
    assert started.wait(WAIT_S)
    second = threading.Thread(target=press, args=("second",), name="second", daemon=True)
    second.start()
    until(lambda: scheduler.counts["shared"] == 1, "the second press joined the running training")
    leave.set()
    for thread in (first, second):
        thread.join(WAIT_S)
    assert runs == ["first", "second"]
    assert isinstance(results["first"], Gone) and results["second"] == "trained"

    # Alone, a training whose student left is dropped: nothing is left queued or running.
    leave.clear()
    lone = threading.Thread(target=press, args=("first",), name="first", daemon=True)
    started.clear()
    lone.start()
    assert started.wait(WAIT_S)
    leave.set()
    lone.join(WAIT_S)
    assert scheduler.queued() == 0 and scheduler.counts["dropped"] >= 1


def test_many_presses_from_one_session_and_from_many_train_a_bounded_number_of_times():
    lab = Lab()
    lab.blocker()
    settings = [("widths", i % 2) for i in range(10)]
    for i, setting in enumerate(settings):  # one student, ten presses while the server is busy
        lab.ask(f"one{i}", ("train", setting), caller("one"))
        until(lambda: _waiting_for(lab.turns, "one") == ("train", setting), "the newest press is queued")
        assert lab.turns.queued() == 2
    for i in range(16):  # sixteen students press Train on two settings
        lab.ask(f"many{i}", ("train", settings[i % 2]), caller(f"many{i}"))
    until(lambda: lab.turns.counts["shared"] == 15, "the class's presses share two tickets")
    assert lab.turns.queued() == 3
    lab.release.set()
    lab.join()
    assert sorted(map(str, lab.computed)) == sorted(map(str, ["blocker", ("train", ("widths", 0)),
                                                              ("train", ("widths", 1))]))


# --- the results cache ---------------------------------------------------------------------------


def test_plain_keys_keep_types_and_float_bits_apart():
    key = result_cache.plain_key
    assert key((1, 2.0, "a")) == key([1, 2.0, "a"])
    assert len({key(1), key(True), key(1.0), key("1")}) == 4
    assert key(0.0) != key(-0.0)
    assert key(float("nan")) == key(float("nan"))
    with pytest.raises(TypeError):
        key(object())


def test_cache_bounds_entries_per_function_and_bytes_in_all():
    results = result_cache.ResultCache(max_bytes=1000)
    for i in range(5):
        results.put("f", i, b"x" * 100, max_entries=3)
    assert [results.get("f", i) is not None for i in range(5)] == [False, False, True, True, True]
    results.get("f", 2)  # recently used: kept when bytes run out
    for i in range(8):
        results.put("g", i, b"y" * 100, max_entries=10)
    entries, size = results.size()
    assert size <= 1000 and entries == 10
    assert results.get("f", 2) is not None and results.get("f", 3) is None
    results.put("h", 0, b"z" * 2000, max_entries=1)  # bigger than the whole budget: not kept
    assert results.get("h", 0) is None
    assert results.evictions["max_entries"] == 2 and results.evictions["max_size"] >= 1


def test_background_results_fill_only_free_room_and_never_evict_a_students():
    results = result_cache.ResultCache(max_bytes=1000)
    results.put("f", "student", b"s" * 100, max_entries=2)
    results.put("f", "neighbour", b"n" * 100, max_entries=2, evict=False)  # room left: kept
    results.put("f", "another", b"a" * 100, max_entries=2, evict=False)  # full: not kept, nothing evicted
    results.put("g", "big", b"b" * 850, max_entries=5, evict=False)  # past the bytes: not kept
    assert results.get("f", "student") and results.get("f", "neighbour")
    assert results.get("f", "another") is None and results.get("g", "big") is None
    assert results.refused == 2 and sum(results.evictions.values()) == 0
    results.put("f", "next", b"x" * 100, max_entries=2)  # a student's result still makes room
    assert results.get("f", "next") and results.evictions["max_entries"] == 1


def test_cached_experiment_hits_without_computing_and_returns_the_same_value():
    calls = []

    @cache.cached(max_entries=4)
    def experiment(d: int, name: str) -> dict:
        calls.append((d, name))
        return {"d": d, "rows": list(range(d))}

    first = experiment(3, "a")
    again = experiment(3, "a")
    assert calls == [(3, "a")] and first == again and first is not again
    assert pickle.dumps(again) == pickle.dumps(first)
    experiment(4, "a")
    assert calls == [(3, "a"), (4, "a")]
    cache.clear()
    experiment(3, "a")
    assert len(calls) == 3


def test_a_class_setting_the_same_value_at_once_computes_it_once():
    calls = []
    release = threading.Event()

    @cache.cached(max_entries=4)
    def slow(seed: int) -> int:
        calls.append(seed)
        assert release.wait(WAIT_S)
        return seed * 2

    results = []
    threads = [threading.Thread(target=lambda: results.append(slow(7)), daemon=True) for _ in range(30)]
    before = cache.TURNS.counts["shared"]
    for thread in threads:
        thread.start()
    until(lambda: cache.TURNS.counts["shared"] - before == 29, "the class queued behind one computation")
    release.set()
    for thread in threads:
        thread.join(WAIT_S)
    assert calls == [7] and results == [14] * 30


def test_parameters_named_with_an_underscore_stay_out_of_the_key_as_with_st_cache_data():
    calls = []

    class Model:  # not a plain value: could not be a key
        pass

    @cache.cached(max_entries=4)
    def probe(layer: int, _model: Model, scale: float = 1.0) -> float:
        calls.append(layer)
        return layer * scale

    assert probe(2, Model()) == 2.0
    assert probe(2, _model=Model(), scale=1.0) == 2.0  # another object, same key: a hit
    assert probe(layer=2, _model=Model()) == 2.0
    assert calls == [2]
    assert probe(2, Model(), 3.0) == 6.0 and calls == [2, 2]
    with pytest.raises(TypeError):
        probe(Model(), Model())  # a parameter in the key must be a plain value


def test_a_shared_resource_is_built_once_for_everyone_and_no_cache_clear_reaches_it():
    import streamlit as st

    builds = []
    release = threading.Event()

    @cache.resource
    def model(size: int) -> dict:
        builds.append(size)
        assert release.wait(WAIT_S)
        return {"size": size}

    got = []
    threads = [threading.Thread(target=lambda: got.append(model(8)), daemon=True) for _ in range(10)]
    for thread in threads:
        thread.start()
    until(lambda: builds, "one thread building")
    release.set()
    for thread in threads:
        thread.join(WAIT_S)
    assert builds == [8] and len(got) == 10 and all(g is got[0] for g in got)
    st.cache_data.clear()
    st.cache_resource.clear()  # what a client's "clear cache" does on the server
    assert model(8) is got[0] and builds == [8]
    assert model(16) == {"size": 16} and builds == [8, 16]


def test_a_result_computed_later_is_found_by_peek_once_done_started_once_and_waits_behind_students():
    calls = []
    release = threading.Event()

    @cache.cached(max_entries=4)
    def seeds(n: int) -> list[int]:
        calls.append(n)
        assert release.wait(WAIT_S)
        return list(range(n))

    assert seeds.peek(3) is None  # never computes
    work = lambda: seeds(3)  # noqa: E731
    assert cache.later("seeds-3", work) and not cache.later("seeds-3", work)  # one thread for one result
    until(lambda: calls == [3], "the later computation started")
    assert cache.under_way("seeds-3") and seeds.peek(3) is None
    ticket = next(t for t in cache.TURNS._running if ".seeds:" in str(t.key[0]))
    assert ticket.background  # a student's experiment goes first
    release.set()
    until(lambda: not cache.under_way("seeds-3"), "the later computation ended")
    assert seeds.peek(3) == [0, 1, 2] and calls == [3]
    assert seeds(3) == [0, 1, 2] and calls == [3]  # kept: the page's own run finds it


def test_a_later_computation_that_failed_is_not_started_again():
    calls = []

    @cache.cached(max_entries=4)
    def broken(n: int) -> int:
        calls.append(n)
        raise ValueError("no")

    work = lambda: broken(1)  # noqa: E731
    assert cache.later("broken-1", work)
    until(lambda: not cache.under_way("broken-1"), "the failed computation ended")
    assert broken.peek(1) is None and not cache.later("broken-1", work) and calls == [1]  # the page computes it, and shows why
