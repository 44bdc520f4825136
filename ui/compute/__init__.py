"""The experiments' machinery: cached for every session, computed on every core, in fair turns.

- cache.py: `cached`, `derive`, `resource`, `train`: the pages' one cache around their core calls
- calls.py: how a cached call is named (its function, its arguments) and which call a result came from
- sessions.py: who asks for an experiment (a student's session, the warm-up, a `later` thread) and the waiting note
- fair_queue.py: the turns experiments take
- result_cache.py: the bounded cache of pickled results every session shares
- chart_spec.py: a chart's Vega-Lite spec built once per data and language
- stream.py: a client of a Streamlit server's websocket (the warm-up, the benchmarks and the socket tests use it)
- lru.py: the bounded map (least recently used out first) the shared built things are kept in
- metrics.py: the cache and the queue in the server's /_stcore/metrics
- allocator.py: glibc tuned for many session threads, and freed memory handed back after each experiment
- warmup.py: a new server opens every page's default view from process start, then their neighbours, in the background
- neighbours.py: the views one control away from a view (what the warm-up opens after the defaults)
- disk_cache.py: results on disk, shared by the replicas of one host and kept across restarts
"""
