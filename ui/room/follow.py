"""Following the instructor, and waiting for a Reveal: the instructor's page and settings written into the room,
a student's page that looks at the room's view and moves with it (or reruns once its question is revealed)."""
from __future__ import annotations

from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState, get_script_run_ctx

from ui import widgets
from ui.questions import GUESSES, Asked
from ui.registry import catalog, links, query
from ui.registry.kinds import Several
from ui.room import push, store
from ui.room.seating import (FOLLOW, KEY, NOTE, REVEALED, SEAT, SEEN, VIEW, WATCHING, Seat, Unavailable, _call,
                             _key_action, _session_id, current, leave)


def _write_view(page, params: dict[str, str]) -> None:
    """The instructor's page and settings into the room, only when they changed since the last write."""
    view = (page.section, tuple(sorted(params.items())))
    if st.session_state.get(VIEW) == view:
        return
    if _key_action(page, "set_view", page.section, dict(params)) == store.Status.OK:
        st.session_state[VIEW] = view


def watch_step(page, whole: bool = False) -> int | None:
    """One look at the room's view version (one primary-key read): a following student moves to the instructor's
    page and settings, a student waiting for a Reveal reruns the page (the Reveal moves the version).

    `whole`: this is a whole run already (the push watcher reran it, ui/room/push.py), so a Reveal
    needs no further rerun. Returns the version seen, for the watcher; None when there is nothing to watch.
    The settings for another page travel in the session (`links.apply`), not in `switch_page`'s query:
    Streamlit refuses to set a query parameter that a widget of the page being left is bound to (`d`, `seed` ...).
    """
    seat = current(page)
    if seat is None or seat.role != "student":
        return None
    try:
        view = _call("view", seat.code)
        if view is None and whole and not _call("room_live", seat.code):
            st.session_state[NOTE] = "room.ended"
            leave(page)
            return None
    except Unavailable:
        return None
    seen = st.session_state.get(SEEN)
    if view is None or seen == view.version:
        return view.version if view is not None else 0
    st.session_state[SEEN] = view.version
    if not st.session_state.get(FOLLOW):
        if not whole and (seen is not None or _revealed_meanwhile(page, seat)):
            st.rerun(scope="app")
        return view.version
    path = catalog.page_path(view.section)
    if path is None:  # a section this app does not have
        return view.version
    params = {str(k): str(v) for k, v in dict(view.params).items()}
    if view.section == page.section:
        _apply_here(page.section, params)
        if not whole:  # a timed run (the watch): the page's controls are drawn by a whole run
            st.rerun(scope="app")
        # A whole run is in the sidebar, above the page's controls: they are drawn next with these values.
        # No second run, which a timed part's request (the browser's old values) could join and undo.
        return view.version
    links.apply(view.section, params)
    st.switch_page(path, query_params={**links.app_link_params(page), "room": seat.code})


def _apply_here(section: str, params: dict[str, str]) -> None:
    """The instructor's settings on the page already open: each control's value set in the session.

    Not `links.apply` and a rerun: its next run writes every control's value into the address,
    and Streamlit refuses to set a parameter that a widget drawn on this page is bound to. A bound
    widget writes its own new value to the address; the others are written here, as drawn by hand.
    """
    declared = links.declared(section)
    typed = links.clean(declared, params)
    known: dict[str, object] = {}
    for control in declared:
        value = typed[control.key]
        st.session_state[control.key] = list(value) if isinstance(control, Several) else value
        if not control.bound:
            default = control.default_for(known)
            query.set_value(control.key, None if value == default else control.format(value))
        known[control.key] = value


def _waiting(section: str, answers: Any, seen: Any) -> list[str]:
    """The ids of this student's questions on this page, guessed (stored) or looked at, not yet seen revealed."""
    answers, seen = answers or {}, seen or set()
    prefix = f"{section}:"
    # A guess the room stored, or a look without guessing: either way the student waits for the class's answer.
    return [qid for qid, answer in answers.items() if isinstance(qid, str) and qid.startswith(prefix)
            and qid not in seen and (getattr(answer, "stored", None) or getattr(answer, "guess", 0) is None)]


def _revealed_meanwhile(page, seat: Seat) -> bool:
    """On the first look only: was a waiting guess revealed before this student started looking?"""
    try:
        return any(getattr(_call("snapshot", seat.code, qid), "revealed", False)
                   for qid in _waiting(page.section, st.session_state.get(GUESSES), st.session_state.get(REVEALED)))
    except Unavailable:
        return False


def _wait_here(seat: Seat, asked: Asked) -> None:
    """A student (not following) who guessed or looked at this question waits for its Reveal in this part of the page."""
    state = st.session_state
    session_id = _session_id()
    if seat.role != "student" or state.get(FOLLOW) or not push.running() or session_id is None:
        return
    if asked.id not in _waiting(asked.section, state.get(GUESSES), state.get(REVEALED)):
        return
    push.watch(seat.code, session_id, state.get(SEEN) or 0, ThreadState.get().fragment_id or "")


def _watch_now(page) -> None:
    session_id = _session_id()
    if not (push.running() and session_id):
        return
    version = watch_step(page, whole=True)
    seat = current(page)
    if version is not None and seat is not None:
        st.session_state[WATCHING] = True
        push.watch(seat.code, session_id, version)


# Only where the app's watcher does not run (ui/room/push.py: AppTest, a bare script). A class of a
# hundred that waits for a Reveal reruns this fragment a hundred times per interval, each rerun a few
# ms of Streamlit's own work: at 3 s that was 16-30 % of a core (bench/class.py), at 5 s near 10 %.
WATCH_SECONDS = 5


@widgets.timed(WATCH_SECONDS)
def _watching(page) -> None:
    watch_step(page)


def _follow_changed() -> None:
    st.session_state[FOLLOW] = st.session_state["_room_follow_widget"]
    st.session_state.pop(SEEN, None)  # turned on: go to where the instructor is now


def after_part() -> None:
    """After a part of the page reran alone (ui.kit.shell.part), what only a whole run does for the room.

    The sidebar's class section runs on whole runs only: an instructor whose settings on screen differ
    from the view last written, and a student whose guess (committed in the part) now waits for a Reveal
    that no watcher is looking for, rerun the page whole, whose sidebar then writes the view and draws
    the join card, or starts the watcher.
    """
    state = st.session_state
    seat = state.get(SEAT)
    if not isinstance(seat, Seat):
        return
    ctx = get_script_run_ctx()
    if ctx is None or not ctx.fragment_ids_this_run:
        return  # a whole run: the sidebar has done both already
    section = state.get("_section")  # the page on screen (ui/kit/shell.py)
    if section is None:
        return
    if seat.role == "instructor" and state.get(KEY):
        params = links.room_params(section)
        if state.get(VIEW) != (section, tuple(sorted(params.items()))):
            st.rerun(scope="app")
    elif seat.role == "student" and _waiting(section, state.get(GUESSES), state.get(REVEALED)):
        session_id = _session_id()
        if not state.get(WATCHING):
            st.rerun(scope="app")
        elif push.running() and session_id and not push.is_watching(session_id):
            # A part rerun by the watcher took this session out of its register; questions of other parts still wait.
            push.watch(seat.code, session_id, state.get(SEEN) or 0)
