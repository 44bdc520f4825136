"""The class room on the Streamlit side: what the pages, the questions widget and the shell call, and the sidebar's
class section.

This session's seat and every call that reaches the store are ui/room/seating.py; following the instructor and
waiting for a Reveal, ui/room/follow.py; the instructor's live panel and its buttons, ui/room/panel.py. What the
callers reach through this module is imported here from those.

A seat counts while its student is there: an open student page tells the store so every PRESENT_EVERY
seconds (`_heartbeat`, a timed part of the sidebar), a closed tab or a sleeping phone stops. One address
holds at most guard.MAX_SESSIONS sessions (`_admitted`); Streamlit's own server.maxWidgetStateSize and
server.maxMessageSize bound what one session may send.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from ui import widgets
from ui.questions import GUESSES, Asked
from ui.registry import links
from ui.room import config, guard, lesson, push, store, views
from ui.room.follow import (_follow_changed, _wait_here, _waiting, _watch_now, _watching, _write_view, after_part,
                            watch_step)
from ui.room.panel import instructor_panel
from ui.room.seating import (FOLDED, FOLLOW, KEY, LINK, NOTE, OWN, PRESENT, REVEALED, SEAT, SEEN, TRIED, WATCHING,
                             Seat, Unavailable, _call, _client, _key_action, _pass_image, _session_id, arrive, close,
                             current, is_instructor, leave, start, store_for_routes, take_link)

# This process's count of sessions per address.
SESSIONS = guard.Sessions(guard.sessions_for(config.class_behind_one_address()))


@dataclass(frozen=True)
class Ack:
    """What became of a guess: stored or not, and the locale key of the message that says why."""

    stored: bool
    message_key: str | None
    round: int = 1  # the vote it was stored in (2: the question's second vote)


_ACK = {
    store.Status.STORED: Ack(True, None),  # the questions widget says "stored" itself
    store.Status.TOO_FAST: Ack(False, "room.ack_too_fast"),
    store.Status.INVALID: Ack(False, "room.ack_invalid"),
    store.Status.CLOSED: Ack(False, "vote.ack_closed"),
    store.Status.LIMIT: Ack(False, "room.ack_vote_limit"),  # the address's seats hold a class's worth of guesses
}


def submit(page, asked: Asked, guess: float | str) -> Ack:
    """Send a student's guess to the room: checked by the question's own rules, stored, acknowledged only when stored."""
    seat = current(page)
    if seat is None:
        return Ack(False, "room.ack_no_room")
    if seat.role == "instructor":
        return Ack(False, "room.ack_instructor")
    value = asked.question.parse(guess)
    if value is None:
        return Ack(False, "room.ack_invalid")
    try:
        vote = _call("vote", seat.code, asked.id)
        status = _call("submit", seat.code, seat.token, asked.id, value)
    except Unavailable:
        return Ack(False, "room.ack_unavailable")
    if status == store.Status.STORED and vote is not None:
        return Ack(True, None, vote.round)
    if status in _ACK:
        return _ACK[status]
    leave(page)  # UNKNOWN, NOT_JOINED: the room has ended, or the seat was given up; the page stops asking
    return Ack(False, "room.ack_dropped" if status == store.Status.NOT_JOINED else "room.ack_gone")


def revealed(page, asked: Asked) -> list[float | str] | None:
    """The class's guesses to this question once the instructor has revealed it; None before, or outside a room."""
    seat = current(page)
    if seat is None:
        return None
    try:
        values = _call("revealed_guesses", seat.code, asked.id)  # one read before the reveal: every student's rerun
    except Unavailable:
        return None
    if values is None:
        _wait_here(seat, asked)
        return None
    st.session_state.setdefault(REVEALED, set()).add(asked.id)
    return list(values)


def own_guess(page, asked: Asked) -> float | str | None:
    """This student's guess the room stored, looked up once per question and session (after a reload the page shows it again)."""
    seat = current(page)
    if seat is None or seat.role != "student":
        return None
    own = st.session_state.setdefault(OWN, set())
    if asked.id in own:
        return None
    own.add(asked.id)
    try:
        guess = _call("student_guess", seat.code, seat.token, asked.id)
    except Unavailable:
        own.discard(asked.id)
        return None
    if guess is not None and not st.session_state.get(WATCHING):
        _watch_now(page)  # the sidebar ran before this guess was known: this student now waits for the Reveal
    return guess


def _room_read(page, action: str, *args: Any) -> Any:
    """One read about this session's room (its code first); None outside a room or unreachable."""
    seat = current(page)
    if seat is None:
        return None
    try:
        return _call(action, seat.code, *args)
    except Unavailable:
        return None


def vote(page, asked: Asked) -> store.Vote | None:
    """Where this question's vote stands in this session's room (one read)."""
    return _room_read(page, "vote", asked.id)


def joined(page) -> int | None:
    """How many students are in this session's room."""
    return _room_read(page, "joined")


def _admitted(page) -> bool:
    """Whether this session may run the page: an address holds at most guard.MAX_SESSIONS sessions at once.

    One past the bound gets a short note and the page stops there: no experiment, no seat, nothing
    computed or cached for it (what a session may send is bounded by server.maxWidgetStateSize)."""
    if SESSIONS.admit(_session_id(), _client(), time.time()):
        return True
    st.warning(page.t("room.sessions_limit"), icon=":material/group_off:")
    return False


def _present(page, seat: Seat) -> None:
    """Tell the store this student is there (at most every PRESENT_EVERY/2 s): the seat counts as here.

    A seat the instructor gave up (NOT_JOINED) or a room that ended leaves this session's room, with a note."""
    now = time.time()
    if seat.role != "student" or now < st.session_state.get(PRESENT, 0.0) + store.PRESENT_EVERY / 2:
        return
    try:
        status = _call("present", seat.code, seat.token)
    except Unavailable:
        return
    st.session_state[PRESENT] = now
    if status in (store.Status.NOT_JOINED, store.Status.UNKNOWN):
        leave(page)
        st.session_state[NOTE] = "room.dropped" if status == store.Status.NOT_JOINED else "room.ended"
        st.session_state[TRIED] = seat.code  # not joined again by the address bar's code on the next run


@widgets.timed(store.PRESENT_EVERY)
def _heartbeat(page) -> None:
    # An open page says, by its own timer, that its student is there; a closed tab or a sleeping phone stops.
    seat = current(page)
    if seat is None:
        return
    SESSIONS.admit(_session_id(), _client(), time.time())
    _present(page, seat)
    if current(page) is None:
        st.rerun(scope="app")  # the seat is gone: the whole page says so


def set_door(page, locked: bool) -> None:
    _key_action(page, "set_door", bool(locked))


def drop_silent(page) -> None:
    _key_action(page, "drop_silent")


def _door(page, seat: Seat) -> None:
    # The instructor's seats, on whole runs (a timed part here reran the sidebar under an open drop-down and
    # closed it): how many students are here, the door, the silent seats. Only for the instructor (`is_instructor`).
    try:
        seats = _call("seats", seat.code, st.session_state[KEY])
    except Unavailable:
        seats = None
    if isinstance(seats, store.Status):
        return
    views.door(page, seats, actions={"door": set_door, "drop": drop_silent})


def sidebar(page) -> None:
    """The sidebar's class section, the projector's join card, and following; one call per run from the shell."""
    if not _admitted(page):
        st.stop()
    arrive(page)
    if current(page) is not None:
        _present(page, current(page))
    lesson.arrive(page)
    seat = current(page)
    if seat is not None and seat.role == "student":
        lesson.student(page, seat)  # a lesson makes following the default
    with st.sidebar:
        views.class_section(page, seat, actions={
            "start": start, "close": close, "leave": leave, "take": take_link, "follow": _follow_changed,
        }, following=bool(st.session_state.get(FOLLOW)), note=st.session_state.pop(NOTE, None),
            link=st.session_state.pop(LINK, None))
        if seat is not None and seat.role == "student":
            _heartbeat(page)
        lesson.sidebar(page, seat)
        if seat is not None and is_instructor(page):  # below the lesson's picker: that stays where it was
            _door(page, seat)
        # Only a student who follows, or waits for a Reveal, looks at the room every few seconds.
        state = st.session_state
        state[WATCHING] = seat is not None and seat.role == "student" and bool(
            state.get(FOLLOW) or _waiting(page.section, state.get(GUESSES), state.get(REVEALED)))
        session_id = _session_id()
        if state[WATCHING] and push.running() and session_id:
            _watch_now(page)
        elif state[WATCHING]:
            _watching(page)
        elif session_id:
            push.forget(session_id)
        if seat is not None:
            _pass_image(seat)
    if seat is not None and is_instructor(page):
        params = links.room_params(page.section)
        _write_view(page, params)
        lesson.bar(page)
        _card(page, views.address(st.context.url, {**params, "room": seat.code}), seat.code)


def _card(page, url: str, code: str) -> None:
    """The join card, whole until the first student joins, then folded to one line (open it for late arrivals)."""
    state = st.session_state
    if state.get(FOLDED) != code and joined(page):  # a student is in the room
        # Folded where it stands: a rerun from here would cut short this run, which may be the one that
        # draws a lesson step's settings (set by the Next button's callback) and writes them to the address.
        state[FOLDED] = code
    if state.get(FOLDED) == code:
        views.join_line(page, url, code)
    else:
        _card_waiting(page, url, code)


@widgets.timed(2)
def _card_waiting(page, url: str, code: str) -> None:
    # Looks at the room's head count on its timer (a whole run has just looked); the first join folds it, the page rerun whole.
    ctx = get_script_run_ctx()
    if ctx is not None and ctx.fragment_ids_this_run:
        if joined(page):
            st.session_state[FOLDED] = code
            st.rerun(scope="app")
    views.join_card(page, url, code)
