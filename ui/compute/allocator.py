"""The server's memory: glibc tuned for many session threads, and freed pages handed back after each experiment.

A class of thirty keeps a thread per session; each experiment allocates tens of MB of tensors and frees
them. Without this, glibc keeps what was freed in per-thread arenas and the server's footprint grows to
what it once held rather than what it holds.
"""
from __future__ import annotations

import ctypes
import ctypes.util


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


def give_back() -> None:
    """Hand the pages of freed memory back to the system (after an experiment); nothing off glibc."""
    if _LIBC is not None:
        _LIBC.malloc_trim(ctypes.c_size_t(0))
