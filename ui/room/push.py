"""Reveal and the instructor's moves reach a waiting student within about a second, at one read per second.

Before, each waiting student's page polled the room from a fragment every 5 s: a hundred students
cost a hundred fragment runs per interval, and a Reveal took up to 5 s plus a whole rerun to arrive
(3.6-16.6 s in the class walk at load). Here one task per process, on the server's event loop, looks
at the view versions of every room some session of this process waits on (one indexed read,
`Store.versions`) and reruns only the sessions whose room moved, as the browser would (its last
client state, with no button pressed). A student costs nothing while nothing happens.

A page registers its session with `watch(code, session_id, version)` on each whole run while it
waits (follows, or has guessed or looked and not yet seen the Reveal), and is forgotten once rerun.
The task runs when the app's `st.App` lifespan starts it (ui/server.py); without it (AppTest, a
bare script) `running()` is False and the page polls from its fragment as before.
"""
from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.runtime import Runtime

from ui.room import store

INTERVAL = 1.0
_log = logging.getLogger(__name__)
_lock = threading.Lock()
_watched: dict[str, dict[str, int]] = {}  # room code -> {session id: the view version its page last saw}
_running = threading.Event()


def running() -> bool:
    """Whether this process's watcher task is looking (else the page's own fragment must)."""
    return _running.is_set()


def watch(code: str, session_id: str, version: int) -> None:
    with _lock:
        for other in [c for c, sessions in _watched.items() if sessions.pop(session_id, None) is not None and not sessions]:
            del _watched[other]
        _watched.setdefault(code, {})[session_id] = version


def forget(session_id: str) -> None:
    with _lock:
        for code in [c for c, sessions in _watched.items() if sessions.pop(session_id, None) is not None and not sessions]:
            del _watched[code]


def watched() -> dict[str, dict[str, int]]:
    with _lock:
        return {code: dict(sessions) for code, sessions in _watched.items()}


def due(versions: dict[str, int], seen: dict[str, dict[str, int]]) -> list[str]:
    """The sessions to rerun: their room moved past the version they saw, or is gone (closed, expired)."""
    return [sid for code, sessions in seen.items() for sid, version in sessions.items()
            if versions.get(code, -1) != version]


def look(read: Callable[[list[str]], dict[str, int]]) -> list[str]:
    """One look: read the watched rooms' versions, take the sessions that are due out of the register."""
    seen = watched()
    if not seen:
        return []
    versions = read(sorted(seen))
    ids = due(versions, seen)
    with _lock:
        for code, sessions in _watched.items():
            for sid in ids:
                if sessions.get(sid) == seen.get(code, {}).get(sid):
                    sessions.pop(sid, None)
        for code in [c for c, sessions in _watched.items() if not sessions]:
            del _watched[code]
    return ids


def rerun(session_id: str) -> bool:
    """Rerun one session's whole page, as its browser last asked for it (no button pressed again); on the event loop."""
    try:
        info = Runtime.instance()._session_mgr.get_active_session_info(session_id)
    except Exception:  # no runtime, or one without this session
        return False
    if info is None:  # disconnected: its browser reruns the page when it comes back
        return False
    session = info.session
    state = ClientState()
    state.CopyFrom(session._client_state)
    state.fragment_id = ""
    kept = [w for w in state.widget_states.widgets
            if w.WhichOneof("value") not in ("trigger_value", "string_trigger_value", "json_trigger_value",
                                             "chat_input_value")]
    del state.widget_states.widgets[:]
    state.widget_states.widgets.extend(kept)
    state.is_auto_rerun = False
    session.request_rerun(state)
    return True


async def run(read: Callable[[list[str]], dict[str, int]], interval: float = INTERVAL) -> None:
    """The watcher: every `interval` s, one read for every waiting session of this process; until cancelled."""
    _running.set()
    try:
        while True:
            await asyncio.sleep(interval)
            try:
                ids = await asyncio.to_thread(look, read)
            except store.StoreUnavailable:
                continue
            except Exception:
                _log.exception("class room watcher")
                continue
            for sid in ids:
                rerun(sid)
    finally:
        _running.clear()
