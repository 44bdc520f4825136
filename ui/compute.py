"""The pages' experiments: cached for every session, and computed one at a time."""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import streamlit as st

P = ParamSpec("P")
R = TypeVar("R")

# Streamlit runs each session's script on its own thread, and Python runs one thread at a time.
# Two experiments computing at once both take twice as long, and every student whose page is
# only being redrawn from the cache waits behind both. Taking turns keeps a cached rerun quick
# while a class explores, and bounds the memory held by experiments in flight.
_TURN = threading.Lock()


def _glibc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        return libc if libc is not None and hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


_LIBC = _glibc()  # None off glibc (macOS, musl): nothing to tune there
if _LIBC is not None:
    # glibc gives busy threads arenas of their own (up to 8 per core) that keep what they freed;
    # with a thread per session, 30 students leave ~30 MB more in them. Python runs one thread
    # at a time, so two arenas are plenty. -8 is M_ARENA_MAX.
    _LIBC.mallopt(ctypes.c_int(-8), ctypes.c_int(2))


def _give_back_memory() -> None:
    # An experiment's tensors are freed when it returns, but glibc keeps the pages for reuse;
    # handing them back keeps the server's footprint near what it holds, not what it once held.
    if _LIBC is not None:
        _LIBC.malloc_trim(ctypes.c_size_t(0))


def cached(max_entries: int) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """st.cache_data for one experiment (shared by every session), run under the server-wide turn.

    Only for functions that call no other cached function: Streamlit holds a lock per cache key
    while computing, and a cached call made while holding the turn could wait on a key whose
    owner waits for the turn.
    """

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(func)
        def in_turn(*args: P.args, **kwargs: P.kwargs) -> R:
            with _TURN:
                try:
                    return func(*args, **kwargs)
                finally:
                    _give_back_memory()

        return st.cache_data(max_entries=max_entries, show_spinner=False)(in_turn)

    return decorate
