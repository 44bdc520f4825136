"""A bounded map shared by every session thread: the least recently used entry goes first.

What the server builds once for everyone and may rebuild at will (a chart's spec, a table in Arrow, a
frame derived from a cached result) is kept in one of these, out of any client's reach. The results of
the experiments themselves are bounded by bytes as well, in ui/compute/result_cache.py.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class LRU(Generic[V]):
    """At most `entries` values by key; a value read or written becomes the most recent."""

    def __init__(self, entries: int) -> None:
        self.entries = entries
        self._values: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            value = self._values.get(key)
            if value is not None:
                self._values.move_to_end(key)
            return value

    def put(self, key: Hashable, value: V) -> None:
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self.entries:
                self._values.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()

    def __len__(self) -> int:
        return len(self._values)
