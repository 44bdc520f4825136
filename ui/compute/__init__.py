"""The experiments' machinery: cached for every session, computed one at a time, in fair turns.

- cache.py: `cached`, `derive`, `resource`, `train`: the pages' one cache around their core calls
- fair_queue.py: the turns experiments take, and the bounded result cache
- chart_spec.py: a chart's Vega-Lite spec built once per data and language
- metrics.py: the cache and the queue in the server's /_stcore/metrics
- allocator.py: glibc tuned for many session threads, and freed memory handed back after each experiment
- warmup.py: a new server opens every page's default view once, in the background
"""
