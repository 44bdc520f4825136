"""A server warms itself: after its warm-up, every page's default view (and page 8 at each ablation
target) is answered from the cache, with no experiment computed for the visitor.

Runs a real server (the warm-up is a websocket client of it), so it is slow: one server for the module.
"""
from __future__ import annotations

import sys
import time

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
stclient = pytest.importorskip("stclient")
from ui.compute import warmup  # noqa: E402

WARMUP_TIMEOUT_S = 600


@pytest.fixture(scope="module")
def server():
    srv = stclient.Server(ROOT, warmup=True)
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

    listed = warmup.views()
    assert {name for name, _ in listed} == {p.url_path for p in stclient.discover_pages(ROOT)}
    targets = {q.removeprefix("target=") for name, q in listed if name == "gpt_surgery" and q}
    assert targets == set(ablation.targets(weights.config().n_layer))


def test_after_the_warmup_every_default_view_hits_the_cache(server):
    # The first run of any page starts the warm-up, as a first visitor's would.
    first = stclient.Session(server.url)
    try:
        assert first.open(stclient.AppPage("dashboard.py", "")).ok
    finally:
        first.close()
    deadline = time.monotonic() + WARMUP_TIMEOUT_S
    while "FFN Lab warm-up:" not in server.log():
        assert time.monotonic() < deadline, server.log()[-3000:]
        assert server.alive(), server.log()[-3000:]
        time.sleep(0.5)
    assert "failed:" not in server.log().split("FFN Lab warm-up:")[1].splitlines()[0]
    before = stclient.experiments(server.url)
    assert before["computed"] > 0  # the warm-up itself computed through the turns
    for page, query in _views():
        visitor = stclient.Session(server.url)
        try:
            run = visitor.open(page, query)
        finally:
            visitor.close()
        assert run.ok, (page.name, query, run.exceptions)
        after = stclient.experiments(server.url)
        assert after["computed"] == before["computed"], f"{page.name}?{query} computed on a warm server"
