"""The pages' experiments: cached for every session, computed one at a time, in fair turns.

A class presses together: thirty students set a new value in the same second. Python runs one
thread at a time, so two experiments computing at once both take twice as long, and every
student whose page is only being redrawn waits behind both. So experiments take turns
(ui/compute/fair_queue.py): one computes, the others wait in arrival order, each student sees how many are
ahead, identical requests are computed once, and work for a student who has left or asked for
something newer is never started.

The results live in the project's own bounded cache, not st.cache_data: Streamlit empties every
st.cache_data cache of the server when any client sends "clear cache", and one student must not
be able to make the whole class recompute.

Beside this module: ui/compute/fair_queue.py (the queue and the bounded result cache), ui/compute/allocator.py (how the
server hands freed memory back), ui/compute/metrics.py (the cache and the queue in /_stcore/metrics).
"""
from __future__ import annotations

import functools
import inspect
import os
import pickle
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import pandas as pd
import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException, StopException
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx, in_cached_function

from ui.base import i18n
from ui.compute import allocator, chart_spec, fair_queue, metrics

P = ParamSpec("P")
R = TypeVar("R")

# Every experiment's result together stays under this many bytes (pickled, as stored). A result
# is 1-30 kB, so the per-function max_entries bound comes first in practice.
MAX_BYTES = int(float(os.environ.get("FFNLAB_CACHE_MB", "64")) * 2**20)

RESULTS = fair_queue.ResultCache(MAX_BYTES)
TURNS = fair_queue.Scheduler()


# --- who is asking ---------------------------------------------------------------------------


def _session_gone(session_id: str) -> bool:
    return Runtime.exists() and not Runtime.instance().is_active_session(session_id)


def _caller() -> fair_queue.Caller:
    """The running script's session, and how to tell it has gone or asked for something newer."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:  # a bare thread (tests, benchmarks): waits its turn, nothing to give up for
        return fair_queue.Caller(None, lambda: None, StopException)

    def check() -> None:
        # A newer rerun of this session, or its end (the tab closed: Streamlit asks the script to
        # stop), raises here exactly as it would at the script's next st call; a session the
        # server no longer knows is stopped too. Inside an st.cache_data function this drops that
        # function's run as well, which costs nothing: the experiment is what is slow, and it
        # was not started.
        ctx.yield_check()
        if _session_gone(ctx.session_id):
            raise StopException()

    return fair_queue.Caller(ctx.session_id, check, StopException, (ScriptControlException,))


class _Note:
    """'n experiments ahead of yours', in a placeholder drawn only while the student waits."""

    def __init__(self) -> None:
        self.slot = None
        self.t = i18n.Translator(st.session_state.get("lang", i18n.DEFAULT_LANG))

    def __call__(self, ahead: int) -> None:
        if ahead <= 0:
            if self.slot is not None:
                self.slot.empty()
            return
        if self.slot is None:
            self.slot = st.empty()
        self.slot.caption(self.t("compute.ahead", n=ahead))


def _waiting_note(caller: fair_queue.Caller) -> Callable[[int], None] | None:
    # Not from inside an st.cache_data function: what it draws would be replayed on every hit.
    return _Note() if caller.session is not None and not in_cached_function.get() else None


# --- the experiments --------------------------------------------------------------------------


def _name(func: Callable[..., Any]) -> str:
    # Every page script runs as __main__: the file tells two pages' `run` apart.
    code = func.__code__
    return f"{Path(code.co_filename).stem}.{func.__qualname__}:{code.co_firstlineno}"


def _key(signature: inspect.Signature, args: tuple, kwargs: dict) -> Hashable:
    """The call's arguments by name, defaults filled in; as with st.cache_data, a parameter whose name
    starts with "_" is left out (an object the result does not depend on, or that cannot be a key)."""
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple((name, fair_queue.plain_key(value)) for name, value in bound.arguments.items() if not name.startswith("_"))


def cached(max_entries: int) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Cache an experiment for every session (plain-valued arguments) and compute it in its turn.

    A cached result is returned at once, without queueing. A miss waits for its turn; a student
    waiting sees how many experiments are ahead; students asking for the same thing share one
    computation; a student who leaves or changes the setting while waiting gives up its place.
    Each caller gets its own copy of the result (it is stored pickled, as st.cache_data stores it).
    """

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        name = _name(func)
        signature = inspect.signature(func)

        @functools.wraps(func)
        def in_turn(*args: P.args, **kwargs: P.kwargs) -> R:
            metrics.register(RESULTS, TURNS)
            key = _key(signature, args, kwargs)
            blob = RESULTS.get(name, key)
            metrics.count_lookup(name, blob is not None)
            if blob is not None:
                return _remember(pickle.loads(blob), (name, key))

            def work(_publish: Callable[[Any], None]) -> R:
                try:
                    return func(*args, **kwargs)
                finally:
                    allocator.give_back()

            caller = _caller()
            return _remember(TURNS.run((name, key), work, caller, on_wait=_waiting_note(caller),
                                       on_result=lambda blob: RESULTS.put(name, key, blob, max_entries)), (name, key))

        return in_turn

    return decorate


# --- what pages derive from a cached result -------------------------------------------------------

# Which call each result handed out above came from, while the page holds it: a frame built from a
# result is then keyed on that call instead of on the result's contents, which would cost as much to
# hash as to rebuild. Keyed by id, each entry dropped when its result is collected (ids are reused).
_ORIGINS: dict[int, Hashable] = {}
_ORIGINS_LOCK = threading.Lock()
DERIVED_ENTRIES = 256
_DERIVED: OrderedDict[Hashable, Any] = OrderedDict()
_DERIVED_LOCK = threading.Lock()


def _remember(result: R, origin: Hashable) -> R:
    try:
        ref = weakref.ref(result, lambda _r, i=id(result): _forget(i))
    except TypeError:  # tuples, dicts: derive() recomputes from these
        return result
    with _ORIGINS_LOCK:
        _ORIGINS[id(result)] = (ref, origin)
    return result


def _forget(ident: int) -> None:
    with _ORIGINS_LOCK:
        entry = _ORIGINS.get(ident)
        if entry is not None and entry[0]() is None:
            del _ORIGINS[ident]


def _origin(result: object) -> Hashable | None:
    with _ORIGINS_LOCK:
        entry = _ORIGINS.get(id(result))
    return entry[1] if entry is not None and entry[0]() is result else None


def derive(func: Callable[..., pd.DataFrame], *args: Any) -> pd.DataFrame:
    """func(*args), a frame built from a cached experiment's result, kept for every session.

    `func` is a result's method (`res.to_frame`), or a function whose first argument is the result.
    A cached rerun would otherwise rebuild the same frames from the same result on every redraw.
    Keyed on the call that produced the result (see `cached`), func and the other arguments (plain
    values, or a translator by its language). Each caller gets its own copy: a page may change it.
    A result not handed out by `cached` is computed from directly.
    """
    if inspect.ismethod(func):
        result, plain, rest = func.__self__, func.__func__, args
    else:
        result, plain, rest = args[0], func, args[1:]
    origin = _origin(result)
    if origin is None:
        return func(*args)
    key = (_name(plain), origin, tuple(chart_spec.arg_key(a) for a in rest))
    with _DERIVED_LOCK:
        frame = _DERIVED.get(key)
        if frame is not None:
            _DERIVED.move_to_end(key)
    if frame is None:
        frame = func(*args)
        with _DERIVED_LOCK:
            _DERIVED[key] = frame
            while len(_DERIVED) > DERIVED_ENTRIES:
                _DERIVED.popitem(last=False)
    return frame.copy()


# A press that lands while a training runs is not lost: Streamlit folds every such press into one
# more run of the fragment, which starts the moment the training ends. A student who presses again
# after watching it takes longer than this to do so.
REPEAT_S = 1.0
_STATE_KEY = "_compute_trained"
# Students watching one shared training each build charts from its snapshots; one at a time keeps
# the charts in flight (and the server's memory) bounded, and a student skips a snapshot drawn
# while another student draws: the next one, or the final result, follows.
_DRAWING = threading.Lock()


def train(func: Callable[..., R], *args: Any, on_step: Callable[[Any], None], **kwargs: Any) -> R:
    """func(*args, on_step=..., **kwargs), a live training, computed in its turn like any experiment.

    Not cached (it is watched, not read back), but students who start the same training at the
    same time share one run, each seeing its progress through its own `on_step`. One training per
    session at a time: a press while the session's training waits replaces it (the newer run takes
    the place), and presses while it runs are ignored: the run they add, asking for the same
    training within REPEAT_S of the last, gets the last result at once instead of training again.
    """
    metrics.register(RESULTS, TURNS)
    key = ("train", _name(func), _key(inspect.signature(func), args, {**kwargs, "on_step": None}))
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

        try:
            return func(*args, on_step=step, **kwargs)
        finally:
            allocator.give_back()

    def watch(snapshot: Any) -> None:
        if _DRAWING.acquire(blocking=False):
            try:
                on_step(snapshot)
            finally:
                _DRAWING.release()

    caller = _caller()
    result = TURNS.run(key, work, caller, on_wait=_waiting_note(caller), on_progress=watch)
    if in_session:
        kept = {k: v for k, v in list(results.items())[-3:] if k != key}
        st.session_state[_STATE_KEY] = (time.monotonic(), {**kept, key: result})
    return result


_RESOURCES: dict[str, dict[Hashable, Any]] = {}
_RESOURCES_LOCK = threading.Lock()


def resource(func: Callable[P, R]) -> Callable[P, R]:
    """One shared object per arguments for the whole server (a model, a table built once), like
    st.cache_resource but out of a client's reach: "clear cache" empties st.cache_resource too,
    and a student must not be able to make the server load its model again and again.

    Built once even when many sessions ask at the same time; never copied (callers must not
    change it); never evicted, so only for a few objects. Parameters named "_..." stay out of the key.
    """
    name, signature = _name(func), inspect.signature(func)
    build = threading.RLock()

    @functools.wraps(func)
    def shared(*args: P.args, **kwargs: P.kwargs) -> R:
        key = _key(signature, args, kwargs)
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
    with _DERIVED_LOCK:
        _DERIVED.clear()
