"""The pages' experiments: cached for every session, computed on every core, in fair turns.

A class presses together: thirty students set a new value in the same second. Experiments take
turns (ui/compute/fair_queue.py), as many at once as the process has cores, each on one torch thread:
torch's kernels release the GIL, so they run side by side; more at once would only make each take
longer, and every student whose page is being redrawn wait behind them. Probes of the one shared GPT
model take one lane (LANE_GPT): they run one at a time, because some hook the model while they read it.
Experiments that are mostly Python around small tensors (the width sweep's fits, the key-value
memorising, the sparsity and MoE trainings) take another (LANE_PYTHON): they hold the GIL between
kernels, so two side by side took twice as long each (measured with two threads on two cores: the width
sweep ×0.51, the key-value memorising ×0.52, where the collapse, position-wise and gated experiments ran
×1.5–1.8 faster); one at a time, the second core stays free for the experiments whose kernels do release it.

The results live in the project's own bounded cache, not st.cache_data: Streamlit empties every
st.cache_data cache of the server when any client sends "clear cache", and one student must not
be able to make the whole class recompute. They are also kept on disk (ui/compute/disk_cache.py),
shared by the replicas of one host and across restarts.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import os
import pickle
import threading
import time
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import pandas as pd
import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from ui.compute import allocator, calls, chart_spec, disk_cache, fair_queue, lru, metrics, result_cache, sessions

P = ParamSpec("P")
R = TypeVar("R")

# Every experiment's result together stays under this many bytes (pickled, as stored). A result
# is 1-30 kB, so the per-function max_entries bound comes first in practice.
MAX_BYTES = int(float(os.environ.get("FFNLAB_CACHE_MB", "64")) * 2**20)



def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))  # the cores this process may use (a container's share)
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


# FFNLAB_WORKERS overrides (1 gives the one-at-a-time queue of before).
WORKERS = max(1, int(os.environ.get("FFNLAB_WORKERS", "0")) or _cores())
RESULTS = result_cache.ResultCache(MAX_BYTES)
TURNS = fair_queue.Scheduler(workers=WORKERS)
LANE_GPT = "gpt"
# One lock per lane, held while a lane's experiment computes and while a lane's shared object is built
# (re-entrant: a probe builds the model's pass inside its own turn).
LANE_PYTHON = "python"
_LANES: dict[str, threading.RLock] = {LANE_GPT: threading.RLock(), LANE_PYTHON: threading.RLock()}

_ROOT = Path(__file__).resolve().parents[2]


def _disk() -> disk_cache.DiskCache | None:
    """The results folder (FFNLAB_RESULTS_DIR, else results/ in FFNLAB_DATA_DIR, else .data/results): None when off."""
    folder = os.environ.get("FFNLAB_RESULTS_DIR") or str(Path(os.environ.get("FFNLAB_DATA_DIR", _ROOT / ".data")) / "results")
    megabytes = float(os.environ.get("FFNLAB_DISK_CACHE_MB", "256"))
    if megabytes <= 0:
        return None
    # The code that computes the results, and the weights it reads: other code, other entries.
    sources = [*(_ROOT / "ffn_core").rglob("*.py"), *(_ROOT / "ui").rglob("*.py"), *(_ROOT / "pages").glob("*.py"),
               _ROOT / "dashboard.py", *(_ROOT / "ffn_core" / "gpt" / "weights").glob("*")]
    cache = disk_cache.DiskCache(Path(folder), disk_cache.code_version(sources), int(megabytes * 2**20))
    return cache if cache.enabled else None


DISK = _disk()
_CLAIMING = threading.local()  # whether this thread holds a disk claim (a nested experiment must not claim again)


# --- the experiments --------------------------------------------------------------------------


def _disk_name(name: str, key: Hashable) -> str:
    return f"{name}\0{key!r}"


def _from_disk(name: str, key: Hashable, max_entries: int) -> bytes | None:
    blob = DISK.get(_disk_name(name, key)) if DISK is not None else None
    if blob is not None:
        RESULTS.put(name, key, blob, max_entries)
    return blob


def _compute(lane: str | None, func: Callable[..., R], *args: Any, **kwargs: Any) -> R:
    """func(*args, **kwargs) holding its lane, the memory it freed handed back after."""
    try:
        with _LANES[lane] if lane is not None else contextlib.nullcontext():
            return func(*args, **kwargs)
    finally:
        allocator.give_back()


def cached(max_entries: int, *, lane: str | None = None) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Cache an experiment for every session (plain-valued arguments) and compute it in its turn.

    A cached result (in memory, or on disk) is returned at once, without queueing; a miss waits for its
    turn (ui/compute/fair_queue.py). Each caller gets its own copy of the result (it is stored pickled,
    as st.cache_data stores it). `lane`: experiments of one lane compute one at a time (LANE_GPT: the
    probes of the shared GPT model).
    """

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        name = calls.name(func)
        signature = inspect.signature(func)

        @functools.wraps(func)
        def in_turn(*args: P.args, **kwargs: P.kwargs) -> R:
            metrics.register(RESULTS, TURNS)
            key = calls.key(signature, args, kwargs)
            blob = RESULTS.get(name, key)
            metrics.count_lookup(name, blob is not None)
            blob = blob or _from_disk(name, key, max_entries)
            if blob is not None:
                return calls.remember(pickle.loads(blob), (name, key))
            _on_miss()

            read_back: list[bool] = []

            def work(_publish: Callable[[Any], None]) -> R:
                if DISK is None or getattr(_CLAIMING, "held", False):
                    return _compute(lane, func, *args, **kwargs)
                # Another replica computing the same result holds its claim: wait, then read theirs.
                with DISK.claim(_disk_name(name, key)):
                    _CLAIMING.held = True
                    try:
                        found = DISK.get(_disk_name(name, key))
                        if found is not None:
                            read_back.append(True)
                            return pickle.loads(found)
                        return _compute(lane, func, *args, **kwargs)
                    finally:
                        _CLAIMING.held = False

            def keep(blob: bytes) -> None:
                # The warm-up's neighbours fill only free room: under a class they would evict its results.
                RESULTS.put(name, key, blob, max_entries, evict=caller.awaited or not caller.background)
                if DISK is not None and not read_back:
                    DISK.put(_disk_name(name, key), blob)

            caller = sessions.caller()
            return calls.remember(TURNS.run((name, key), work, caller, lane=lane, on_wait=sessions.waiting_note(caller),
                                       on_result=keep), (name, key))

        def peek(*args: P.args, **kwargs: P.kwargs) -> R | None:
            """The result when it is computed already (here, or on disk by another replica), else None: never computes."""
            key = calls.key(signature, args, kwargs)
            blob = RESULTS.get(name, key) or _from_disk(name, key, max_entries)
            return None if blob is None else calls.remember(pickle.loads(blob), (name, key))

        in_turn.peek = peek  # type: ignore[attr-defined]
        return in_turn

    return decorate


# `later`: results computed on threads of their own for pages that show them when done.
MAX_LATER = 16
_LATER: set[Hashable] = set()
_LATER_FAILED: set[Hashable] = set()
_LATER_LOCK = threading.Lock()


def later(ident: Hashable, work: Callable[[], object]) -> bool:
    """Run `work` (calls of cached experiments) on a thread of its own, each experiment behind every student's.

    For a part of a page that can come after the rest: the page shows it when `peek` finds its results.
    Each experiment `work` calls is a turn of its own, so a student's experiment goes between two of them.
    At most MAX_LATER at once, each `ident` once: False when not started (already under way, too many, or
    it failed here before: the page then computes it in its own run, where a failure is shown).
    """
    with _LATER_LOCK:
        if ident in _LATER or ident in _LATER_FAILED or len(_LATER) >= MAX_LATER:
            return False
        _LATER.add(ident)

    def run() -> None:
        sessions.LATER.on = True
        try:
            work()
        except Exception:  # noqa: BLE001 - told to the page by `under_way` turning False without a result
            with _LATER_LOCK:
                if len(_LATER_FAILED) >= 256:
                    _LATER_FAILED.clear()
                _LATER_FAILED.add(ident)
        finally:
            with _LATER_LOCK:
                _LATER.discard(ident)

    threading.Thread(target=run, name="ffnlab-later", daemon=True).start()
    return True


def later_count() -> int:
    """How many `later` works are running now."""
    with _LATER_LOCK:
        return len(_LATER)


def under_way(ident: Hashable) -> bool:
    """Whether `later(ident, ...)` is still running (False too when it failed)."""
    with _LATER_LOCK:
        return ident in _LATER


# Told of every miss a student's page meets (ui/compute/warmup.py computes the neighbours of the views students open).
_MISS_LISTENERS: list[Callable[[], None]] = []


def on_miss(listener: Callable[[], None]) -> None:
    """Call `listener()` in the script's thread whenever a student's page asks for a result not yet computed."""
    _MISS_LISTENERS.append(listener)


def _on_miss() -> None:
    if get_script_run_ctx(suppress_warning=True) is None or sessions.background():
        return
    for listener in _MISS_LISTENERS:
        try:
            listener()
        except Exception:  # noqa: S110 - a listener's trouble must never reach the student's page
            pass


# --- what pages derive from a cached result -------------------------------------------------------

_DERIVED: lru.LRU[pd.DataFrame] = lru.LRU(entries=256)


def derive(func: Callable[..., pd.DataFrame], *args: Any) -> pd.DataFrame:
    """func(*args), a frame built from a cached experiment's result (`res.to_frame`, or a function of it), kept
    for every session: a cached rerun would otherwise rebuild it on every redraw. Keyed on the call that
    produced the result (calls.derived_key); each caller gets its own copy, since a page may change it.
    """
    key = calls.derived_key(func, args)
    if key is None:
        return func(*args)
    frame = _DERIVED.get(key)
    if frame is None:
        frame = func(*args)
        _DERIVED.put(key, frame)
    return frame.copy()


def frame(func: Callable[..., pd.DataFrame], *args: Any) -> chart_spec.Named | pd.DataFrame:
    """What a chart is drawn from: `derive(func, *args)`, named by its key and built only if the chart's
    spec is not cached yet (widgets.chart). A result not handed out by `cached` gives the frame itself."""
    key = calls.derived_key(func, args)
    if key is None:
        return func(*args)
    return chart_spec.Named(key, functools.partial(derive, func, *args))


# A press that lands while a training runs is not lost: Streamlit folds every such press into one
# more run of the fragment, which starts the moment the training ends. A student who presses again
# after watching it takes longer than this to do so.
REPEAT_S = 1.0
_STATE_KEY = "_compute_trained"
# Students watching one shared training each build charts from its snapshots; one at a time keeps
# the charts in flight (and the server's memory) bounded, and a student skips a snapshot drawn
# while another student draws: the next one, or the final result, follows.
_DRAWING = threading.Lock()


def train(func: Callable[..., R], *args: Any, on_step: Callable[[Any], None], lane: str | None = None,
          **kwargs: Any) -> R:
    """func(*args, on_step=..., **kwargs), a live training, computed in its turn like any experiment.

    Not cached (it is watched, not read back), but students who start the same training at the
    same time share one run, each seeing its progress through its own `on_step`. One training per
    session at a time: a press while the session's training waits replaces it (the newer run takes
    the place), and presses while it runs are ignored: the run they add, asking for the same
    training within REPEAT_S of the last, gets the last result at once instead of training again.
    `lane`: as for `cached`.
    """
    metrics.register(RESULTS, TURNS)
    key = ("train", calls.name(func), calls.key(inspect.signature(func), args, {**kwargs, "on_step": None}))
    in_session = get_script_run_ctx(suppress_warning=True) is not None
    # The session's latest trainings and when the last of them ended (a fragment may train several).
    ended, results = st.session_state.get(_STATE_KEY, (float("-inf"), {})) if in_session else (float("-inf"), {})
    if key in results and time.monotonic() - ended < REPEAT_S:
        st.session_state[_STATE_KEY] = (time.monotonic(), results)  # a burst of presses stays one
        return results[key]

    def work(publish: Callable[[Any], None]) -> R:
        def step(snapshot: Any) -> None:
            publish(snapshot)
            on_step(snapshot)

        return _compute(lane, func, *args, on_step=step, **kwargs)

    def watch(snapshot: Any) -> None:
        if _DRAWING.acquire(blocking=False):
            try:
                on_step(snapshot)
            finally:
                _DRAWING.release()

    caller = sessions.caller()
    result = TURNS.run(key, work, caller, lane=lane, on_wait=sessions.waiting_note(caller), on_progress=watch)
    if in_session:
        kept = {k: v for k, v in list(results.items())[-3:] if k != key}
        st.session_state[_STATE_KEY] = (time.monotonic(), {**kept, key: result})
    return result


_RESOURCES: dict[str, dict[Hashable, Any]] = {}
_RESOURCES_LOCK = threading.Lock()


def resource(func: Callable[P, R] | None = None, *, lane: str | None = None) -> Any:
    """One shared object per arguments for the whole server (a model, a table), like st.cache_resource but out
    of a client's reach: "clear cache" empties st.cache_resource too, and a student must not be able to make
    the server load its model again and again. Built once even when many sessions ask at once; never
    copied (callers must not change it) nor evicted. `lane`: built holding that lane (probing a shared model).
    """
    if func is None:
        return lambda f: resource(f, lane=lane)
    name, signature = calls.name(func), inspect.signature(func)
    build = _LANES[lane] if lane is not None else threading.RLock()

    @functools.wraps(func)
    def shared(*args: P.args, **kwargs: P.kwargs) -> R:
        key = calls.key(signature, args, kwargs)
        with _RESOURCES_LOCK:
            values = _RESOURCES.setdefault(name, {})
        if key in values:
            return values[key]
        with build:  # the others wait for the one building it
            if key not in values:
                values[key] = func(*args, **kwargs)
            return values[key]

    return shared


def clear() -> None:
    """Empty the results cache (tests start from it empty); nothing a client sends calls this."""
    RESULTS.clear()
    _DERIVED.clear()
