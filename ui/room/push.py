"""Reveal and the instructor's moves reach a waiting student within about a second, at one read per second.

One task per process, on the server's event loop, looks at the view versions of every room some session of this
process waits on (one indexed read, `Store.versions`) and reruns only the sessions whose room moved, as the
browser would (its last client state, with no button pressed): a student costs nothing while nothing happens.
(A fragment on every waiting page polling the room cost a class of a hundred a hundred runs per interval.)

A page registers its session with `watch(code, session_id, version)` on each whole run while it
waits (follows, or has guessed or looked and not yet seen the Reveal), and is forgotten once rerun.
A student who waits only for a Reveal registers the page's part that holds the question
(`fragment`): only that part reruns (a part's run costs a fraction of the whole page's).
A follower's page reruns whole (it may move to another page).
The task runs when the app's `st.App` lifespan starts it (ui/server.py); without it (AppTest, a
bare script) `running()` is False and the page polls from its fragment.
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
_watched: dict[str, dict[str, tuple[int, str]]] = {}  # room code -> {session id: (version its page saw, part to rerun)}
_pushed: dict[str, tuple[str, int]] = {}  # session id -> (room, version) it was last rerun for
_running = threading.Event()


def running() -> bool:
    """Whether this process's watcher task is looking (else the page's own fragment must)."""
    return _running.is_set()


def watch(code: str, session_id: str, version: int, fragment: str = "") -> None:
    """Wait for room `code` to move past `version`; then rerun this session (only `fragment`, if given)."""
    with _lock:
        pushed = _pushed.get(session_id)
        if pushed is not None and pushed[0] == code:
            # A part rerun does not read the room's version: it saw at least the one it was rerun for.
            version = max(version, pushed[1])
        for other in [c for c, sessions in _watched.items() if sessions.pop(session_id, None) is not None and not sessions]:
            del _watched[other]
        _watched.setdefault(code, {})[session_id] = (version, fragment)


def forget(session_id: str) -> None:
    with _lock:
        _pushed.pop(session_id, None)
        for code in [c for c, sessions in _watched.items() if sessions.pop(session_id, None) is not None and not sessions]:
            del _watched[code]


def is_watching(session_id: str) -> bool:
    with _lock:
        return any(session_id in sessions for sessions in _watched.values())


def watched() -> dict[str, dict[str, tuple[int, str]]]:
    with _lock:
        return {code: dict(sessions) for code, sessions in _watched.items()}


def due(versions: dict[str, int], seen: dict[str, dict[str, tuple[int, str]]]) -> list[tuple[str, str, str]]:
    """(room, session, part) to rerun: the room moved past the version the session saw, or is gone."""
    return [(code, sid, fragment) for code, sessions in seen.items() for sid, (version, fragment) in sessions.items()
            if versions.get(code, -1) != version]


def look(read: Callable[[list[str]], dict[str, int]]) -> list[tuple[str, str]]:
    """One look: read the watched rooms' versions, take the (session, part) pairs that are due out of the register."""
    seen = watched()
    if not seen:
        return []
    versions = read(sorted(seen))
    found = due(versions, seen)
    with _lock:
        for code, sid, _ in found:
            if _watched.get(code, {}).get(sid) == seen[code][sid]:
                del _watched[code][sid]
            if code in versions:
                _pushed[sid] = (code, versions[code])
        for code in [c for c, sessions in _watched.items() if not sessions]:
            del _watched[code]
    return [(sid, fragment) for _, sid, fragment in found]


def rerun(session_id: str, fragment: str = "") -> bool:
    """Rerun one session's page (or only its part `fragment`, while the page still has it), as its browser last
    asked for it, no button pressed again; on the event loop."""
    try:
        info = Runtime.instance()._session_mgr.get_active_session_info(session_id)
    except Exception:  # no runtime, or one without this session
        return False
    if info is None:  # disconnected: its browser reruns the page when it comes back
        return False
    session = info.session
    state = ClientState()
    state.CopyFrom(session._client_state)
    state.fragment_id = fragment if fragment and session.has_fragment(fragment) else ""
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
            for sid, fragment in ids:
                rerun(sid, fragment)
    finally:
        _running.clear()
