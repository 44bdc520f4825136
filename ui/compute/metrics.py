"""The experiments' cache and queue in the server's /_stcore/metrics.

The cache's lookups appear beside st.cache_data's (cache_type "ffnlab_compute"), so a load test that
counts hits and misses there sees them; the queue's outcomes are ffnlab_experiments_total, and the
cache's size and the queue's length are the gauge ffnlab_cache.
"""
from __future__ import annotations

import threading
from collections.abc import Sequence

from streamlit.runtime import Runtime
from streamlit.runtime.stats import CounterStat, GaugeStat

from ui.compute import fair_queue, result_cache

_LOOKUPS: dict[tuple[str, bool], int] = {}
_LOOKUPS_LOCK = threading.Lock()
_REGISTERED = threading.Lock()
_registered = False


def count_lookup(name: str, hit: bool) -> None:
    """One lookup of the cached experiment `name`, a hit or a miss."""
    with _LOOKUPS_LOCK:
        _LOOKUPS[name, hit] = _LOOKUPS.get((name, hit), 0) + 1


class _Stats:
    """A Streamlit stats provider (streamlit.runtime.stats.StatsProvider) for the cache and the queue."""

    stats_families: Sequence[str] = ("cache_lookups", "cache_evictions", "ffnlab_experiments", "ffnlab_cache")

    def __init__(self, results: result_cache.ResultCache, turns: fair_queue.Scheduler) -> None:
        self.results, self.turns = results, turns

    def get_stats(self, family_names: Sequence[str] | None = None) -> dict[str, list]:
        want = set(family_names or self.stats_families)
        labels = {"cache_type": "ffnlab_compute"}
        out: dict[str, list] = {}
        if "cache_lookups" in want:
            with _LOOKUPS_LOCK:
                lookups = dict(_LOOKUPS)
            out["cache_lookups"] = [
                CounterStat("cache_lookups", n, {**labels, "cache": name, "result": "hit" if hit else "miss"},
                            help="Total calls to a cached function by lookup result.")
                for (name, hit), n in sorted(lookups.items())]
        if "cache_evictions" in want:
            out["cache_evictions"] = [
                CounterStat("cache_evictions", self.results.evictions[reason], {**labels, "cache": "all", "reason": reason},
                            help="Total cache entries removed automatically, by reason.")
                for reason in ("max_entries", "max_size")]
        if "ffnlab_experiments" in want:
            counts_now = dict(self.turns.counts)
            out["ffnlab_experiments"] = [
                CounterStat("ffnlab_experiments", counts_now[result], {"result": result},
                            help="Experiments by outcome: computed, shared with an identical request in flight, "
                                 "abandoned by a caller that left or moved on, dropped unrun, failed.")
                for result in fair_queue.OUTCOMES]
        if "ffnlab_cache" in want:
            entries, size = self.results.size()
            # most_running: the most experiments that computed at once so far (above 1, cores used side by side).
            gauges = {"entries": entries, "bytes": size, "queued": self.turns.queued(), "running": self.turns.running(),
                      "most_running": self.turns.most_running, "workers": self.turns.workers}
            out["ffnlab_cache"] = [GaugeStat("ffnlab_cache", value, {"measure": measure}, help="The results cache now.")
                                   for measure, value in gauges.items()]
        return out


def register(results: result_cache.ResultCache, turns: fair_queue.Scheduler) -> None:
    """Show this cache and queue in the running server's /_stcore/metrics, once (no server: nothing)."""
    global _registered
    if _registered or not Runtime.exists():
        return
    with _REGISTERED:
        if not _registered:
            Runtime.instance().stats_mgr.register_provider(_Stats(results, turns))
            _registered = True
