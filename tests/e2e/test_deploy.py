"""The balancer path of deploy/: run.sh starts two replicas and nginx on free ports of 127.0.0.1;
a Streamlit session through nginx's websocket renders the home page, a browser's sessions stay on
one replica (the affinity cookie) while other browsers reach the other, the metrics are hidden
from outside, and run.sh stop ends every process it started."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from e2e_support import NGINX, active_sessions, discover_pages, settle
from e2e_support import balancer as start_balancer
from stclient import Session

if NGINX is None:
    pytest.skip("nginx not installed (apt-get install nginx): the balancer test (deploy/) skipped",
                allow_module_level=True)

HOME = discover_pages()[0]


def _get(url: str, cookie: str | None = None) -> tuple[int, str, list[str]]:
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.read().decode("utf-8", "replace"), r.headers.get_all("Set-Cookie") or []
    except urllib.error.HTTPError as e:
        return e.code, "", []


@pytest.fixture(scope="module")
def balancer(tmp_path_factory):
    with start_balancer(tmp_path_factory.mktemp("deploy")) as running:
        yield running


def test_the_home_page_through_the_balancer(balancer):
    url, replicas = balancer
    assert _get(f"{url}/_stcore/health")[:2] == (200, "ok")
    status, page, cookies = _get(f"{url}/")
    assert status == 200 and "<html" in page.lower()
    assert any(c.startswith("ffnlab_replica=") for c in cookies), cookies
    session = Session(url, timeout_s=120)
    try:
        run = session.open(HOME, "lang=en")
    finally:
        session.close()
    assert run.ok, (run.status, run.exceptions)
    assert run.charts >= 1 and run.texts, "the home page drew no chart or text"


def test_metrics_are_hidden_outside_and_readable_on_a_replica(balancer):
    url, replicas = balancer
    for path in ("/_stcore/metrics", "/_stcore/metrics?families=cache_lookups", "/_stcore/metrics/"):
        assert _get(url + path)[0] == 404, path
    assert all(_get(f"http://127.0.0.1:{port}/_stcore/metrics")[0] == 200 for port in replicas)


def test_a_browser_stays_on_one_replica_and_others_reach_the_other(balancer):
    url, replicas = balancer
    assert settle(replicas, [0, 0]) == [0, 0]
    cookie = "ffnlab_replica=student-0"
    first, second = Session(url, cookie=cookie), None
    try:
        for _ in range(2):
            assert first.open(HOME, "lang=en").ok
        counts = settle(replicas, [1, 0]) if active_sessions(replicas[0]) else settle(replicas, [0, 1])
        assert sorted(counts) == [0, 1], counts
        home = counts.index(1)
        # The same browser's second tab (or a reconnect): the same replica.
        second = Session(url, cookie=cookie)
        assert second.open(HOME, "lang=ko").ok
        want = [2, 0] if home == 0 else [0, 2]
        assert settle(replicas, want) == want
    finally:
        first.close()
        if second is not None:
            second.close()
    assert settle(replicas, [0, 0]) == [0, 0]
    # Other browsers: some cookie lands on the other replica (each try has an even chance).
    for i in range(1, 41):
        session = Session(url, cookie=f"ffnlab_replica=student-{i}")
        try:
            assert session.open(HOME, "lang=en").ok
            counts = settle(replicas, [1, 0]) if active_sessions(replicas[0]) else settle(replicas, [0, 1])
        finally:
            session.close()
        settle(replicas, [0, 0])
        if counts.index(1) != home:
            return
    pytest.fail("40 browsers all went to one replica: the balancer does not balance")
