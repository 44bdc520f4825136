"""Who asks for an experiment: a student's session (gone, moved on, waiting its turn), the server's own warm-up,
or a thread of `cache.later`; and the note a waiting student sees."""
from __future__ import annotations

import os
import threading
from collections.abc import Callable

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException, StopException
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx, in_cached_function

from ui.base import i18n
from ui.compute import fair_queue

# Set on a thread of cache.later: its experiments go behind every student's, their results kept.
LATER = threading.local()


# The server's own warm-up opens pages with this header (ui/compute/warmup.py): its value is made per process, so
# no client can pass for the warm-up, and a student who sent it anyway would only wait longer.
BACKGROUND_HEADER = "X-FFNLab-Background"
BACKGROUND_TOKEN = os.urandom(16).hex()


def background() -> bool:
    """Whether the running script is the server's own warm-up (ui/compute/warmup.py), not a student."""
    try:
        return st.context.headers.get(BACKGROUND_HEADER) == BACKGROUND_TOKEN
    except Exception:  # no session behind the call
        return False


def caller() -> fair_queue.Caller:
    """The running script's session, and how to tell it has gone or asked for something newer."""
    if getattr(LATER, "on", False):  # `later`'s own thread: behind every student, its result kept
        return fair_queue.Caller(None, lambda: None, StopException, background=True, awaited=True)
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:  # a bare thread (tests, benchmarks): waits its turn, nothing to give up for
        return fair_queue.Caller(None, lambda: None, StopException)

    def check() -> None:
        # A newer rerun of this session, or its end (the tab closed: Streamlit asks the script to
        # stop), raises here exactly as it would at the script's next st call; a session the
        # server no longer knows is stopped too. Inside an st.cache_data function this drops that
        # function's run as well, which costs nothing: the experiment is what is slow, and it
        # was not started.
        ctx.yield_check()
        if Runtime.exists() and not Runtime.instance().is_active_session(ctx.session_id):
            raise StopException()

    return fair_queue.Caller(ctx.session_id, check, StopException, (ScriptControlException,), background())


class _Note:
    """'n experiments ahead of yours', in a placeholder drawn only while the student waits."""

    def __init__(self) -> None:
        self.slot = None
        self.t = i18n.Translator(st.session_state.get("lang", i18n.DEFAULT_LANG))

    def __call__(self, ahead: int) -> None:
        if ahead <= 0:
            if self.slot is not None:
                self.slot.empty()
            return
        if self.slot is None:
            self.slot = st.empty()
        self.slot.caption(self.t("compute.ahead", n=ahead))


def waiting_note(caller: fair_queue.Caller) -> Callable[[int], None] | None:
    # Not from inside an st.cache_data function: what it draws would be replayed on every hit.
    return _Note() if caller.session is not None and not in_cached_function.get() else None
