"""A client of a Streamlit server's websocket (/_stcore/stream): what a browser tab sends and hears.

One websocket is one session. `rerun` sends what a browser sends on a page load or a widget change (a
BackMsg: the query string, the page, the widgets' states, the fragment to rerun); `messages` yields
the ForwardMsgs the server sends back; `run_status` tells the message that ends a run. The server warms
itself with it (ui/compute/warmup.py); the benchmarks (bench/stclient.py) and the socket-level tests
drive their students with it.
"""
from __future__ import annotations

import time
from collections.abc import Iterable, Iterator

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

# websockets is Streamlit's own dependency (its server speaks it): nothing to add to requirements.
from websockets.sync.client import connect


def url_of(base_url: str) -> str:
    """The stream's address for a server's http(s) address (`http://h:p/base` → `ws://h:p/base/_stcore/stream`)."""
    return base_url.replace("https://", "wss://", 1).replace("http://", "ws://", 1).rstrip("/") + "/_stcore/stream"


def run_status(msg: ForwardMsg) -> str | None:
    """The status of the run this message ends (`FINISHED_SUCCESSFULLY`, …); None when it ends none.

    A run cut short by a newer rerun request (`FINISHED_EARLY_FOR_RERUN`) goes on as that one.
    """
    if msg.WhichOneof("type") != "script_finished":
        return None
    status = ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished)
    return None if status == "FINISHED_EARLY_FOR_RERUN" else status


def is_exception(msg: ForwardMsg) -> bool:
    """Whether the message draws an exception (a page's traceback box)."""
    return (msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element"
            and msg.delta.new_element.WhichOneof("type") == "exception")


class Stream:
    """One session's websocket."""

    def __init__(self, url: str, timeout_s: float = 120.0, headers: dict[str, str] | None = None) -> None:
        # Headers as a browser sends them with its websocket (a balancer's affinity cookie, a seat's pass).
        # As a browser's: no size limit (a page's charts arrive in messages of several MB), no pings of
        # its own (the server pings; a busy server must not lose a student for a late pong), no proxy
        # (the servers it talks to are this host's, or a balancer in front of them).
        # No bound on the messages held unread (max_queue=None): a browser reads every message as it comes, and a
        # client that stops reading its socket once 16 are held never hears the server's answer to its close, so
        # its close() waits out the close timeout (10 s) while the server still counts it as there.
        # legacy=True: the connection itself, closed by close(), not a context manager.
        self.ws = connect(url, subprotocols=["streamlit"], additional_headers=headers, max_size=None,
                          ping_interval=None, proxy=None, open_timeout=timeout_s, legacy=True, max_queue=None)

    def rerun(self, page_name: str, query_string: str = "", widgets: Iterable[WidgetState] = (),
              fragment_id: str = "") -> float:
        """Ask for a run of page `page_name` (its router name, "" for the entry script); the time it was sent."""
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = query_string
        state.page_script_hash = ""
        state.page_name = page_name
        state.widget_states.widgets.extend(widgets)
        if fragment_id:
            state.fragment_id = fragment_id
        sent = time.perf_counter()
        self.ws.send(msg.SerializeToString())
        return sent

    def clear_cache(self) -> None:
        """What the app menu's "Clear cache" sends: Streamlit honours it from any client."""
        msg = BackMsg()
        msg.clear_cache = True
        self.ws.send(msg.SerializeToString())

    def messages(self, until: float | None = None) -> Iterator[ForwardMsg]:
        """The server's messages as they come; TimeoutError once `until` (a time.perf_counter() value) has passed."""
        while True:
            wait = None if until is None else max(0.0, until - time.perf_counter())
            data = self.ws.recv(timeout=wait)
            if isinstance(data, str):
                continue
            msg = ForwardMsg()
            msg.ParseFromString(data)
            yield msg

    def close(self) -> None:
        self.ws.close()
