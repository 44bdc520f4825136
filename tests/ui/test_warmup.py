"""A server warms itself from process start (the App's lifespan, ui/server.py): before anyone visits, every
page's default view (page 9 at each ablation target, the GPT pages in each language) is computed, /ready
says so, and a first visitor's view is answered from the cache, with no experiment computed for it.

Runs a real server (the warm-up is a websocket client of it), so it is slow: one server for the module.
"""
from __future__ import annotations

import sys
import time

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
stclient = pytest.importorskip("stclient")
from ui.base import i18n  # noqa: E402
from ui.compute import warmup  # noqa: E402

WARMUP_TIMEOUT_S = 600


@pytest.fixture(scope="module")
def server():
    # No neighbours after the default views: the test counts what a visit computes on a warm server.
    srv = stclient.Server(ROOT, warmup=True, env={"FFNLAB_NEIGHBOURS_S": "0"})
    try:
        srv.wait_healthy()
        yield srv
    finally:
        srv.stop()


def _views():
    pages = {p.url_path: p for p in stclient.discover_pages(ROOT)}
    return [(pages[name], query) for name, query in warmup.views()]


def test_views_cover_every_page_and_every_ablation_target():
    from ffn_core.gpt import ablation, weights
    from ui.registry import catalog

    listed = warmup.views()
    assert {name for name, _ in listed} == {p.url_path for p in stclient.discover_pages(ROOT)}
    default = next(c for c in catalog.GPTSURGERY if c.key == "target").default
    targets = {q.removeprefix("target=") if q else default for name, q in listed
               if name == "gpt_surgery" and not q.startswith("lang=")}
    assert targets == set(ablation.targets(weights.config().n_layer))
    assert {("trained_gpt", "lang=ko"), ("gpt_surgery", "lang=ko")} <= set(listed)  # English is the default


def test_the_lifespan_warms_every_default_view_before_anyone_visits_and_ready_says_so(server):
    seen = []
    deadline = time.monotonic() + WARMUP_TIMEOUT_S
    while True:  # nobody opens a page: the warm-up starts with the process
        code, status = stclient.ready(server.url)
        seen.append((code, status["state"], status["done"]))
        if code == 200:
            break
        assert code == 503 and status["state"] in ("starting", "running") and not status["warm"], status
        assert time.monotonic() < deadline and server.alive(), server.log()[-3000:]
        time.sleep(0.5)
    assert status["state"] == "done" and status["warm"] and status["failed"] == []
    assert status["done"] == status["views"] == len(warmup.views())
    assert [d for _, _, d in seen] == sorted(d for _, _, d in seen)  # progress only moves forward
    assert "FFN Lab warm-up:" in server.log()
    pending = [i18n.Translator(lang)("sparsity.seeds_pending", last=0).partition("0")[0] for lang in i18n.LANGS]
    before = stclient.experiments(server.url)
    assert before["computed"] > 0  # the warm-up itself computed through the turns
    for page, query in _views():
        visitor = stclient.Session(server.url)
        try:
            run = visitor.open(page, query)
        finally:
            visitor.close()
        assert run.ok, (page.name, query, run.exceptions)
        # What a page computes after its answer (page 7's seeds) was done by the warm-up too: no "under way" line.
        assert not [c for c in run.captions for p in pending if c.startswith(p)], (page.name, run.captions)
        after = stclient.experiments(server.url)
        assert after["computed"] == before["computed"], f"{page.name}?{query} computed on a warm server"


def test_ready_is_json_and_never_cached(server):
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"{server.url}/ready", timeout=5) as r:
            headers, body = r.headers, r.read()
    except urllib.error.HTTPError as err:  # 503 while warming: the same body
        headers, body = err.headers, err.read()
    assert headers["Content-Type"] == "application/json" and headers["Cache-Control"] == "no-store"
    assert b'"state"' in body
