"""The pieces ui/compute/cache.py was split into: the metrics provider (ui/compute/metrics.py) reads the cache and
queue it is given, and the memory hand-back (ui/compute/allocator.py) is safe to call anywhere."""
import pickle

import pytest

from ui.compute import allocator, cache, fair_queue, lru, metrics, result_cache

pytestmark = pytest.mark.usefixtures("fresh_caches")  # counts what is computed: starts from empty caches


def _stats(results, turns, family):
    return metrics._Stats(results, turns).get_stats([family])[family]


def test_lookups_are_counted_per_function_and_result():
    name = "test_compute_parts.lookups"
    for hit in (True, False, False):
        metrics.count_lookup(name, hit)
    stats = _stats(result_cache.ResultCache(1000), fair_queue.Scheduler(poll_s=0.01), "cache_lookups")
    mine = {s.labels["result"]: s.value for s in stats if s.labels["cache"] == name}
    assert mine == {"hit": 1, "miss": 2}
    assert all(s.labels["cache_type"] == "ffnlab_compute" for s in stats)


def test_the_gauges_and_evictions_are_the_given_caches():
    results = result_cache.ResultCache(max_bytes=10_000)
    blobs = [pickle.dumps(i) for i in range(3)]
    for i, blob in enumerate(blobs):
        results.put("f", i, blob, max_entries=2)  # the third evicts the first
    turns = fair_queue.Scheduler(poll_s=0.01, workers=3)
    gauges = {s.labels["measure"]: s.value for s in _stats(results, turns, "ffnlab_cache")}
    assert gauges == {"entries": 2, "bytes": len(blobs[1]) + len(blobs[2]), "queued": 0, "running": 0, "most_running": 0, "workers": 3}
    evictions = {s.labels["reason"]: s.value for s in _stats(results, turns, "cache_evictions")}
    assert evictions == {"max_entries": 1, "max_size": 0}
    outcomes = {s.labels["result"]: s.value for s in _stats(results, turns, "ffnlab_experiments")}
    assert outcomes == dict.fromkeys(("computed", "shared", "abandoned", "dropped", "failed"), 0)


def test_a_cached_experiment_counts_its_lookups_in_the_provider():
    calls = []

    @cache.cached(max_entries=4)
    def square(x: int) -> int:
        calls.append(x)
        return x * x

    assert square(7) == 49 and square(7) == 49 and calls == [7]
    lookups = {(s.labels["cache"], s.labels["result"]): s.value
               for s in _stats(cache.RESULTS, cache.TURNS, "cache_lookups") if "square" in s.labels["cache"]}
    assert sorted(lookups.values()) == [1, 1] and {r for _, r in lookups} == {"hit", "miss"}


def test_giving_memory_back_is_harmless_to_call_anywhere():
    allocator.give_back()
    allocator.give_back()


def test_the_lru_keeps_the_most_recently_used_within_its_bound():
    kept = lru.LRU[int](entries=3)
    for i in range(3):
        kept.put(i, i * 10)
    assert kept.get(0) == 0  # read: now the most recent
    kept.put(3, 30)  # one too many: the least recently used (1) goes
    assert (kept.get(1), kept.get(0), kept.get(2), kept.get(3), len(kept)) == (None, 0, 20, 30, 3)
    kept.put(2, 21)  # a rewrite replaces, and counts once
    assert (kept.get(2), len(kept)) == (21, 3)
    kept.clear()
    assert (kept.get(0), len(kept)) == (None, 0)
