"""The experiments' results, kept: a bounded, thread-safe cache of pickled results keyed on plain values.

Nothing here imports Streamlit; ui/compute/cache.py holds the one instance every session shares.
"""
from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Hashable


def plain_key(value: object) -> Hashable:
    """A cache key from plain values (None, bool, int, float, str, tuples/lists of them), types kept apart.

    True and 1, 0.0 and -0.0 give different results in an experiment, so they are different keys;
    a float is keyed by its exact bits, so a NaN finds itself.
    """
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, tuple | list):
        return ("seq", tuple(plain_key(v) for v in value))
    if isinstance(value, dict):
        return ("map", tuple(sorted((str(k), plain_key(v)) for k, v in value.items())))
    raise TypeError(f"an experiment is keyed on plain values, not {type(value).__name__}")


class ResultCache:
    """A thread-safe LRU of pickled results: at most `max_entries` per function and `max_bytes` in all.

    Results are stored pickled and handed out unpickled, so each caller gets its own copy and the
    byte count is exact. Only code holding this object can empty it: no client message reaches it.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._blobs: OrderedDict[Hashable, bytes] = OrderedDict()  # every entry, least recent first
        self._by_function: dict[str, OrderedDict[Hashable, None]] = {}
        self._bytes = 0
        self.evictions: Counter[str] = Counter({"max_entries": 0, "max_size": 0})
        self.refused = 0  # background results not kept because they would have evicted others

    def get(self, function: str, key: Hashable) -> bytes | None:
        with self._lock:
            blob = self._blobs.get((function, key))
            if blob is not None:
                self._blobs.move_to_end((function, key))
                self._by_function[function].move_to_end(key)
            return blob

    def put(self, function: str, key: Hashable, blob: bytes, max_entries: int, *, evict: bool = True) -> None:
        """Keep a result, evicting the least recent ones past the bounds; with `evict=False`, only where it fits
        without evicting (the server's own background work must not push out what students asked for)."""
        if len(blob) > self.max_bytes:
            return
        with self._lock:
            entries = self._by_function.setdefault(function, OrderedDict())
            if not evict and (function, key) not in self._blobs and (
                    len(entries) >= max_entries or self._bytes + len(blob) > self.max_bytes):
                self.refused += 1
                return
            old = self._blobs.pop((function, key), None)
            if old is not None:
                self._bytes -= len(old)
            self._blobs[(function, key)] = blob
            entries[key] = None
            entries.move_to_end(key)
            self._bytes += len(blob)
            while len(entries) > max_entries:
                self._drop(function, next(iter(entries)), "max_entries")
            while self._bytes > self.max_bytes:
                self._drop(*next(iter(self._blobs)), "max_size")

    def _drop(self, function: str, key: Hashable, reason: str) -> None:
        self._bytes -= len(self._blobs.pop((function, key)))
        del self._by_function[function][key]
        self.evictions[reason] += 1

    def clear(self) -> None:
        with self._lock:
            self._blobs.clear()
            self._by_function.clear()
            self._bytes = 0

    def size(self) -> tuple[int, int]:
        """Entries and bytes held now."""
        with self._lock:
            return len(self._blobs), self._bytes
