"""The balancer path of deploy/: run.sh starts two replicas and nginx on free ports of 127.0.0.1;
a Streamlit session through nginx's websocket renders the home page, a browser's sessions stay on
one replica (the affinity cookie) while other browsers reach the other, the metrics are hidden
from outside, and run.sh stop ends every process it started."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from e2e_support import APP_ROOT, discover_pages, free_port
from stclient import Session

NGINX = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)
if NGINX is None:
    pytest.skip("nginx not installed (apt-get install nginx): the balancer test (deploy/) skipped",
                allow_module_level=True)

RUN_SH = APP_ROOT / "deploy" / "run.sh"
HOME = discover_pages()[0]


def _ports(n: int) -> list[int]:
    ports: list[int] = []
    while len(ports) < n:
        port = free_port()
        if port not in ports:
            ports.append(port)
    return ports


def _get(url: str, cookie: str | None = None) -> tuple[int, str, list[str]]:
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.read().decode("utf-8", "replace"), r.headers.get_all("Set-Cookie") or []
    except urllib.error.HTTPError as e:
        return e.code, "", []


def _active(port: int) -> int:
    """The replica's own count of open sessions, read on its port (not through nginx)."""
    _, text, _ = _get(f"http://127.0.0.1:{port}/_stcore/metrics")
    line = next(line for line in text.splitlines() if line.startswith("active_sessions"))
    return int(float(line.split()[-1]))


def _settle(ports: list[int], want: list[int], timeout_s: float = 20.0) -> list[int]:
    deadline = time.monotonic() + timeout_s
    while (counts := [_active(p) for p in ports]) != want and time.monotonic() < deadline:
        time.sleep(0.2)
    return counts


@pytest.fixture(scope="module")
def balancer(tmp_path_factory):
    listen, *replicas = _ports(3)
    run_dir: Path = tmp_path_factory.mktemp("deploy")
    # Sessions per replica are what these tests read; the warm-up's own sessions (tests/ui/test_warmup.py) would count.
    env = {**os.environ, "FFNLAB_WARMUP": "0", "FFNLAB_RUN_DIR": str(run_dir), "FFNLAB_PORTS": " ".join(map(str, replicas)),
           "FFNLAB_LISTEN": f"127.0.0.1:{listen}", "FFNLAB_PYTHON": sys.executable, "FFNLAB_NGINX": NGINX}
    pids: dict[str, int] = {}
    try:
        started = subprocess.run(["bash", str(RUN_SH), "start"], env=env, capture_output=True, text=True, timeout=240)
        pids = {p.name: int(p.read_text()) for p in run_dir.glob("*.pid")}
        assert started.returncode == 0, f"run.sh start failed:\n{started.stdout}\n{started.stderr}"
        assert len(pids) == 3, pids  # two replicas and nginx, each with its pid file
        yield f"http://127.0.0.1:{listen}", replicas
    finally:
        stopped = subprocess.run(["bash", str(RUN_SH), "stop"], env=env, capture_output=True, text=True, timeout=120)
        assert stopped.returncode == 0, stopped.stderr
        alive = [name for name, pid in pids.items() if Path(f"/proc/{pid}").exists()
                 and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()]
        assert not alive, f"still running after run.sh stop: {alive}"


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
    assert _settle(replicas, [0, 0]) == [0, 0]
    cookie = "ffnlab_replica=student-0"
    first, second = Session(url, cookie=cookie), None
    try:
        for _ in range(2):
            assert first.open(HOME, "lang=en").ok
        counts = _settle(replicas, [1, 0]) if _active(replicas[0]) else _settle(replicas, [0, 1])
        assert sorted(counts) == [0, 1], counts
        home = counts.index(1)
        # The same browser's second tab (or a reconnect): the same replica.
        second = Session(url, cookie=cookie)
        assert second.open(HOME, "lang=ko").ok
        want = [2, 0] if home == 0 else [0, 2]
        assert _settle(replicas, want) == want
    finally:
        first.close()
        if second is not None:
            second.close()
    assert _settle(replicas, [0, 0]) == [0, 0]
    # Other browsers: some cookie lands on the other replica (each try has an even chance).
    for i in range(1, 41):
        session = Session(url, cookie=f"ffnlab_replica=student-{i}")
        try:
            assert session.open(HOME, "lang=en").ok
            counts = _settle(replicas, [1, 0]) if _active(replicas[0]) else _settle(replicas, [0, 1])
        finally:
            session.close()
        _settle(replicas, [0, 0])
        if counts.index(1) != home:
            return
    pytest.fail("40 browsers all went to one replica: the balancer does not balance")
