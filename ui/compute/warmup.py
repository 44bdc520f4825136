"""A new server warms itself from process start: every page's default view (page 9 at each ablation
target, the GPT pages in both languages), then the next moves a class is likely to make.

The App's lifespan (ui/server.py) starts it with the process, before any student arrives. It is a client
of its own server: websocket sessions that each open one page by a link, as a first visitor does, so the
pages compute exactly what their cached calls compute, keyed as they key it, and no page's defaults are
repeated here. Then the views one control away (ui/compute/neighbours.py) from the defaults and from the
views students open, for at most FFNLAB_NEIGHBOURS_S seconds.

It never goes ahead of a student: its sessions carry a header only this process knows
(sessions.BACKGROUND_HEADER), so their experiments wait behind every student's (fair_queue.Scheduler),
and it opens its next view only while no student's experiment waits. FFNLAB_WARMUP=0 turns it off.
"""
from __future__ import annotations

import collections
import logging
import os
import resource
import threading
import time
from urllib.parse import urlencode

import streamlit as st
from streamlit import config
from streamlit.runtime import Runtime
# What the websocket itself may raise (the client is ui/compute/stream.py).
from websockets.exceptions import WebSocketException

from ui.base import i18n
from ui.compute import cache, neighbours, sessions, stream
from ui.registry import catalog, links, query

IDLE_POLL_S = 0.2
VIEW_TIMEOUT_S = 300.0
LISTEN_TIMEOUT_S = 120.0  # the server listens a moment after the lifespan starts it
NEIGHBOURS_S = float(os.environ.get("FFNLAB_NEIGHBOURS_S", "900"))
OPENED_KEPT = 64  # the latest views students opened, whose neighbours come next
_LOG = logging.getLogger("ffnlab.warmup")
_LOCK = threading.Lock()
_STOP = threading.Event()
_WAKE = threading.Event()
_started = False
# What the warm-up did: read by /ready (ui/server.py), tests and bench/warmup.py.
_STATUS: dict[str, object] = {"state": "idle", "views": 0, "done": 0, "seconds": 0.0, "cpu_s": 0.0, "failed": [],
                              "neighbours": 0}
_OPENED: collections.deque[tuple[str, tuple[tuple[str, str], ...]]] = collections.deque(maxlen=OPENED_KEPT)


# Streamlit's "missing ScriptRunContext", dropped from the warm-up's thread: it reads the pages' declared
# controls outside any page run on purpose (ui/compute/neighbours.py).
logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(
    lambda record: record.threadName != "ffnlab-warmup")


def enabled() -> bool:
    # AppTest puts a mock in the Runtime's place: there is no server to be a client of.
    return os.environ.get("FFNLAB_WARMUP", "1") != "0" and Runtime.exists() and type(Runtime.instance()) is Runtime


def status() -> dict[str, object]:
    """A copy of the warm-up's progress: state (idle, off, starting, running, done, failed), default views
    done of views, seconds and server CPU it took, views that failed, neighbour views opened since; `warm`."""
    with _LOCK:
        out = {**_STATUS, "failed": list(_STATUS["failed"])}  # type: ignore[call-overload]
    out["warm"] = out["state"] == "done"
    return out


def _set(**values: object) -> None:
    with _LOCK:
        _STATUS.update(values)


# Page 9's ablation targets: a few, each a full rerun of the blocks above the part taken out.
EVERY_OPTION = {"gptsurgery": ("target",)}
# Pages whose experiments follow the reader's language (the GPT's prompts): warmed in every language.
EVERY_LANGUAGE = ("gpt", "gptsurgery")


def views() -> list[tuple[str, str]]:
    """(page name as the router knows it, query string): every declared page by its plain link, then
    each option of the controls in EVERY_OPTION, read from the page's declared controls (ui/registry/catalog.py),
    then the pages in EVERY_LANGUAGE in each other language."""
    out = [(query.url_path(entry.path), "") for entry in catalog.PAGES]
    for entry in catalog.PAGES:
        for key in EVERY_OPTION.get(entry.section, ()):
            control = next(c for c in catalog.CONTROLS[entry.section] if c.key == key)
            out += [(query.url_path(entry.path), urlencode({key: str(option)}))
                    for option in control.options_for({})  # type: ignore[attr-defined]
                    if option != control.default_for({})]
    for entry in catalog.PAGES:
        if entry.section in EVERY_LANGUAGE:
            out += [(query.url_path(entry.path), urlencode({"lang": lang})) for lang in i18n.LANGS if lang != i18n.DEFAULT_LANG]
    return out


def start() -> None:
    """Start the warm-up once per process (the App's lifespan calls it at start-up)."""
    global _started
    with _LOCK:
        if _started:
            return
        _started = True
    if not enabled():
        _set(state="off")
        return
    _set(state="starting")
    _STOP.clear()
    cache.on_miss(_student_opened)
    threading.Thread(target=_main, name="ffnlab-warmup", daemon=True).start()


def stop() -> None:
    """Stop after the view in progress (the server is shutting down)."""
    _STOP.set()
    _WAKE.set()


def _student_opened() -> None:
    """A student's page asked for something not yet computed: its neighbours are likely next (in the script's thread)."""
    section = st.session_state.get("_section")
    if not isinstance(section, str):
        return
    params = tuple(sorted(links.view_params(section).items()))
    _OPENED.append((section, params))
    _WAKE.set()


def _url() -> str:
    address = config.get_option("server.address") or "127.0.0.1"
    if address in ("0.0.0.0", "::"):
        address = "127.0.0.1"
    base = (config.get_option("server.baseUrlPath") or "").strip("/")
    return stream.url_of(f"http://{address}:{config.get_option('server.port')}/{base}")


def _wait_idle() -> None:
    while cache.TURNS.students_waiting() and not _STOP.is_set():
        time.sleep(IDLE_POLL_S)


def _main() -> None:
    try:
        _wait_listening()
        _warm(views())
    except Exception:  # a warm-up that fails leaves a server that computes on demand, as before
        _LOG.exception("warm-up stopped")
        _set(state="failed")
        return
    try:
        _neighbours()
    except Exception:
        _LOG.exception("neighbours stopped")


def _wait_listening() -> None:
    deadline = time.monotonic() + LISTEN_TIMEOUT_S
    while True:
        try:
            stream.Stream(_url(), timeout_s=5).close()
            return
        except OSError:
            if time.monotonic() > deadline or _STOP.is_set():
                raise
            time.sleep(0.2)


def _open(page: str, query: str) -> bool:
    """Open one view as a fresh page load does and wait for its run to end; whether it ended cleanly (False
    also when the server went away)."""
    # A fresh session for each view, as a first visitor's tab is: a session keeps its choices
    # from one run to the next, and would read them before the link's.
    try:
        session = stream.Stream(_url(), timeout_s=30, headers={sessions.BACKGROUND_HEADER: sessions.BACKGROUND_TOKEN})
        try:
            ok = True
            for msg in session.messages(until=session.rerun(page, query) + VIEW_TIMEOUT_S):
                if stream.is_exception(msg) or msg.WhichOneof("type") == "page_not_found":
                    ok = False
                status = stream.run_status(msg)
                if status is not None:
                    return ok and status == "FINISHED_SUCCESSFULLY"
        except TimeoutError:  # the view's run took too long: not a server gone away
            pass
        finally:
            session.close()
    except (OSError, WebSocketException, TimeoutError):
        if not _STOP.is_set():
            _LOG.warning("warm-up: %s?%s not opened", page or "home", query, exc_info=True)
    return False


def _warm(todo: list[tuple[str, str]]) -> None:
    _set(state="running", views=len(todo), done=0, failed=[])
    wall, cpu = time.perf_counter(), time.process_time()
    for page, query in todo:
        if _STOP.is_set():
            return
        _wait_idle()
        if not _open(page, query):
            with _LOCK:
                _STATUS["failed"].append(f"{page or 'home'}?{query}")  # type: ignore[union-attr]
        with _LOCK:
            _STATUS["done"] = int(_STATUS["done"]) + 1  # type: ignore[call-overload]
    # A page may go on computing after its answer (page 7 trains its seeds later, cache.later): a first
    # visitor must find that done as well, so the warm-up is done when it is.
    deadline = time.monotonic() + VIEW_TIMEOUT_S
    while cache.later_count() and not _STOP.is_set() and time.monotonic() < deadline:
        time.sleep(IDLE_POLL_S)
    _set(state="done", seconds=time.perf_counter() - wall, cpu_s=time.process_time() - cpu,
         max_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    done = status()
    _LOG.warning("FFN Lab warm-up: %d views in %.1f s, server CPU %.1f s%s", len(todo), done["seconds"],
                 done["cpu_s"], f", failed: {done['failed']}" if done["failed"] else "")


def _neighbours() -> None:
    """The views one move away: from each page's defaults first, then from the views students open."""
    seen: set[tuple[str, str]] = set(views())
    todo = collections.deque(neighbours.from_defaults())
    deadline = time.monotonic() + NEIGHBOURS_S
    opened = 0
    while not _STOP.is_set() and time.monotonic() < deadline:
        while _OPENED:  # students' views first: the newest is where the class is now
            section, params = _OPENED.pop()
            todo.extendleft(reversed(neighbours.around(section, dict(params))))
        if not todo:
            _WAKE.wait(5.0)
            _WAKE.clear()
            continue
        section, query = todo.popleft()
        page = query.url_path(catalog.page_path(section) or "")
        if (page, query) in seen:
            continue
        if len(seen) < neighbours.MAX_SEEN:
            seen.add((page, query))
        _wait_idle()
        if _STOP.is_set():
            break
        if _open(page, query):
            opened += 1
            _set(neighbours=opened)
    if not _STOP.is_set():
        _LOG.warning("FFN Lab neighbours: %d views opened", opened)
