"""A new server warms itself: every page's default view, and page 8 at each ablation target, computed
in the background once per process, so the first visitor of a page waits no longer than the second.

The warm-up is a client of its own server: websocket sessions that each open one page by the link a
first visitor follows (no query string: the declared defaults), then page 8 with each ablation
target in its link. The pages run their own code, so what is computed is exactly what their cached
calls compute, with the same functions and the same keys, and no page's defaults are repeated here.

It never goes ahead of a waiting student: it asks for its next view only when no experiment is
computing or queued (ui/compute/fair_queue), one view at a time; a student who arrives while a view computes
waits for that one computation at most, and shares it if it is the one they asked for.
FFNLAB_WARMUP=0 turns it off (the benchmarks that measure a cold server do).
"""
from __future__ import annotations

import logging
import os
import re
import resource
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

from streamlit import config
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime import Runtime
# websockets is Streamlit's own dependency (its server speaks it): nothing to add to requirements.
from websockets.sync.client import connect

from ui.compute import cache
from ui.registry import catalog

IDLE_POLL_S = 0.2
VIEW_TIMEOUT_S = 300.0
_LOG = logging.getLogger("ffnlab.warmup")
_LOCK = threading.Lock()
_started = False
# What the last warm-up did: read by tests and the README's measurement (bench/warmup.py).
STATUS: dict[str, object] = {"state": "idle", "views": 0, "done": 0, "seconds": 0.0, "cpu_s": 0.0, "failed": []}


def enabled() -> bool:
    # AppTest puts a mock in the Runtime's place: there is no server to be a client of.
    return os.environ.get("FFNLAB_WARMUP", "1") != "0" and Runtime.exists() and type(Runtime.instance()) is Runtime


def _router_name(path: str) -> str:
    # Streamlit's pages/ router names a page by its file, minus the "N_" that orders the menu.
    return "" if path == "dashboard.py" else re.sub(r"^\d+_", "", Path(path).stem)


# Page 8's ablation targets: a few, each a full rerun of the blocks above the part taken out.
EVERY_OPTION = {"gptsurgery": ("target",)}


def views() -> list[tuple[str, str]]:
    """(page name as the router knows it, query string): every declared page by its plain link, then
    each option of the controls in EVERY_OPTION, read from the page's declared controls (ui/registry/catalog.py)."""
    out = [(_router_name(entry.path), "") for entry in catalog.PAGES]
    for entry in catalog.PAGES:
        for key in EVERY_OPTION.get(entry.section, ()):
            control = next(c for c in catalog.CONTROLS[entry.section] if c.key == key)
            values: dict[str, object] = {}
            out += [(_router_name(entry.path), urlencode({key: str(option)}))
                    for option in control.options_for(values)]  # type: ignore[attr-defined]
    return out


def start() -> None:
    """Start the warm-up once per process (called by every page's setup; only the first call acts)."""
    global _started
    if _started or not enabled():
        return
    with _LOCK:
        if _started:
            return
        _started = True
    threading.Thread(target=_main, name="ffnlab-warmup", daemon=True).start()


def _url() -> str:
    address = config.get_option("server.address") or "127.0.0.1"
    if address in ("0.0.0.0", "::"):
        address = "127.0.0.1"
    base = (config.get_option("server.baseUrlPath") or "").strip("/")
    return f"ws://{address}:{config.get_option('server.port')}/{base + '/' if base else ''}_stcore/stream"


def _wait_idle() -> None:
    while cache.TURNS.queued():
        time.sleep(IDLE_POLL_S)


def _main() -> None:
    try:
        _warm(views())
    except Exception:  # a warm-up that fails leaves a server that computes on demand, as before
        _LOG.exception("warm-up stopped")
        STATUS["state"] = "failed"


def _warm(todo: list[tuple[str, str]]) -> None:
    STATUS.update(state="running", views=len(todo), done=0, failed=[])
    wall, cpu = time.perf_counter(), time.process_time()
    for page, query in todo:
        _wait_idle()
        # A fresh session for each view, as a first visitor's tab is: a session keeps its choices
        # from one run to the next, and would read them before the link's.
        with connect(_url(), subprotocols=["streamlit"], max_size=None, open_timeout=30) as conn:
            if not _view(conn, page, query):
                STATUS["failed"].append(f"{page or 'home'}?{query}")  # type: ignore[union-attr]
        STATUS["done"] = int(STATUS["done"]) + 1  # type: ignore[call-overload]
    STATUS.update(state="done", seconds=time.perf_counter() - wall, cpu_s=time.process_time() - cpu,
                  max_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    _LOG.warning("FFN Lab warm-up: %d views in %.1f s, server CPU %.1f s%s", len(todo), STATUS["seconds"],
                 STATUS["cpu_s"], f", failed: {STATUS['failed']}" if STATUS["failed"] else "")


def _view(conn, page: str, query: str) -> bool:  # noqa: ANN001
    """Open one view as a fresh page load does and wait for its run to end; whether it ended cleanly."""
    msg = BackMsg()
    msg.rerun_script.query_string = query
    msg.rerun_script.page_script_hash = ""
    msg.rerun_script.page_name = page
    conn.send(msg.SerializeToString())
    deadline = time.monotonic() + VIEW_TIMEOUT_S
    ok = True
    while time.monotonic() < deadline:
        data = conn.recv(timeout=max(0.1, deadline - time.monotonic()))
        if isinstance(data, str):
            continue
        fwd = ForwardMsg()
        fwd.ParseFromString(data)
        kind = fwd.WhichOneof("type")
        if kind == "delta" and fwd.delta.WhichOneof("type") == "new_element" \
                and fwd.delta.new_element.WhichOneof("type") == "exception":
            ok = False
        elif kind == "page_not_found":
            ok = False
        elif kind == "script_finished":
            status = ForwardMsg.ScriptFinishedStatus.Name(fwd.script_finished)
            if status != "FINISHED_EARLY_FOR_RERUN":
                return ok and status == "FINISHED_SUCCESSFULLY"
    return False
