"""The class room on the Streamlit side: this session's seat in a room, and every call that reaches the store.

What a session knows of its room lives in `st.session_state` under the keys in `KEPT` (the shell
keeps them across pages). The instructor's key is one of them and goes nowhere else: not into the
address bar, not onto the screen. The store is reached through `st.connection` (type "sql") at the
URL the store's config decides; a store that cannot be reached turns the class features off with
one short note, and the pages go on as usual.

Called by the questions widget: `current`, `submit`, `revealed`, `instructor_panel`.
Called once per run by the shell's sidebar: `sidebar`.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import sqlalchemy.exc
import streamlit as st
from streamlit.errors import StreamlitAPIException
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from ui.questions import Asked
from ui.registry import catalog, links, query
from ui.registry.kinds import Several
from ui.room import config, store, views

SEAT = "_room_seat"
KEY = "_room_key"  # the instructor's key: session state only
NOTE = "_room_note"  # a note key shown once in the class section
TRIED = "_room_tried"  # a code that failed to join: not asked again on every rerun
VIEW = "_room_view"  # the instructor's view last written to the room
SEEN = "_room_seen"  # the room's view version a following student last moved to
FOLLOW = "_room_follow"
LINK = "_room_link"  # a one-time link, shown on one run only
REVEALED = "_room_revealed"  # question ids this student has seen revealed
WATCHING = "_room_watching"  # whether the last whole run started this student's watcher
ASKED = "_ask"  # ui/questions/quiz.py's guesses: id -> Answer (guess, stored, message)
# A page switch clears only the pages' declared controls (ui/kit/shell.py): these outlive it.
KEPT = frozenset({SEAT, KEY, NOTE, TRIED, VIEW, SEEN, FOLLOW, LINK, REVEALED, WATCHING, "_room_follow_widget"})

TAKE = "take"  # the query parameter of a one-time instructor link


class Unavailable(Exception):
    """The store could not be reached (or refused to work): the class features are off for this call."""


@dataclass(frozen=True)
class Seat:
    """This session's place in a room: the room's code, its role there, its anonymous token."""

    code: str
    role: Literal["student", "instructor"]
    token: str


@dataclass(frozen=True)
class Ack:
    """What became of a guess: stored or not, and the locale key of the message that says why."""

    stored: bool
    message_key: str | None


# --- the store ----------------------------------------------------------------------------


@st.cache_resource(show_spinner=False)
def _store(url: str | None) -> store.Store:
    # One Store per database: it remembers that the schema is ready, and sets SQLite up once.
    conn = st.connection("class", type="sql", url=url) if url else st.connection("class", type="sql")
    return store.Store(conn.engine)


def _call(action: str, *args: Any) -> Any:
    """One store call (the Store's method by name, with `now` last); whatever keeps the store from answering becomes Unavailable."""
    try:
        return getattr(_store(config.url()), action)(*args, time.time())
    except store.StoreUnavailable as e:
        raise Unavailable(str(e)) from e
    except (sqlalchemy.exc.SQLAlchemyError, OSError, StreamlitAPIException) as e:  # st.connection refused its settings
        raise Unavailable(type(e).__name__) from e


# --- what the questions widget calls ------------------------------------------------------


def current(page) -> Seat | None:
    """This session's place in a room, or None outside one."""
    seat = st.session_state.get(SEAT)
    return seat if isinstance(seat, Seat) else None


def is_instructor(page) -> bool:
    seat = current(page)
    return seat is not None and seat.role == "instructor" and bool(st.session_state.get(KEY))


_ACK = {
    store.Status.STORED: Ack(True, None),  # the questions widget says "stored" itself
    store.Status.TOO_FAST: Ack(False, "room.ack_too_fast"),
    store.Status.INVALID: Ack(False, "room.ack_invalid"),
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
        status = _call("submit", seat.code, seat.token, asked.id, value)
    except Unavailable:
        return Ack(False, "room.ack_unavailable")
    if status in _ACK:
        return _ACK[status]
    leave(page)  # UNKNOWN, NOT_JOINED: the room has ended; the page stops asking on its behalf
    return Ack(False, "room.ack_gone")


def revealed(page, asked: Asked) -> list[float | str] | None:
    """The class's guesses to this question once the instructor has revealed it; None before, or outside a room."""
    seat = current(page)
    if seat is None:
        return None
    try:
        snapshot = _call("snapshot", seat.code, asked.id)
    except Unavailable:
        return None
    if snapshot is None or not snapshot.revealed:
        return None
    st.session_state.setdefault(REVEALED, set()).add(asked.id)
    return list(snapshot.values)


def instructor_panel(page, asked: Sequence[Asked]) -> None:
    """The instructor's live view of this page's questions (nothing for anyone else), redrawn every 2 s."""
    if not is_instructor(page) or not asked:
        return
    _live_panel(page, tuple(asked))


@st.fragment(run_every=2)
def _live_panel(page, asked: tuple[Asked, ...]) -> None:
    panel_body(page, asked)


def panel_body(page, asked: Sequence[Asked]) -> None:
    """One look at the room: joined, answered and the distribution per question, with Reveal and Reset."""
    seat = current(page)
    if seat is None or not is_instructor(page):
        return
    try:
        snapshots = [_call("snapshot", seat.code, a.id) for a in asked]
    except Unavailable:
        st.caption(page.t("room.unavailable"))
        return
    if any(s is None for s in snapshots):  # closed or expired under us
        st.caption(page.t("room.ended"))
        return
    views.panel(page, list(zip(asked, snapshots)), on_reveal=reveal, on_reset=reset)


# --- what only the instructor's key may do ------------------------------------------------


def _key_action(page, action: str, *args: Any) -> Any:
    """An instructor action with this session's key; refused (None, with a note) without one or when the store says no."""
    seat, key = current(page), st.session_state.get(KEY)
    if seat is None or seat.role != "instructor" or not key:
        st.session_state[NOTE] = "room.refused"
        return None
    try:
        done = _call(action, seat.code, key, *args)
    except Unavailable:
        st.session_state[NOTE] = "room.unavailable"
        return None
    if done is None or done == store.Status.FORBIDDEN:
        st.session_state[NOTE] = "room.refused"
        return None
    if done == store.Status.UNKNOWN:
        st.session_state[NOTE] = "room.ended"
        return None
    return done


def reveal(page, asked: Asked) -> bool:
    """Reveal one question; the room's view version moves too, so that waiting students look again (`watch_step`)."""
    if _key_action(page, "reveal", asked.id) != store.Status.OK:
        return False
    section, params = st.session_state.get(VIEW) or (page.section, ())
    _key_action(page, "set_view", section, dict(params))
    return True


def reset(page, asked: Asked) -> bool:
    return _key_action(page, "reset", asked.id) == store.Status.OK


def start(page) -> None:
    """Open a new room with this session as its instructor."""
    try:
        made = _call("create_room")
    except Unavailable:
        made = None
    if made is None:  # unreachable, or the server's bound of live rooms
        st.session_state[NOTE] = "room.unavailable"
        return
    code, key = made
    _seat(Seat(code, "instructor", store.new_token()), key)


def close(page) -> None:
    if _key_action(page, "close") == store.Status.OK:
        leave(page)


def leave(page) -> None:
    """Out of the room: the seat forgotten, the code out of the address bar."""
    for name in (SEAT, KEY, VIEW, SEEN, FOLLOW, LINK, REVEALED, "_room_follow_widget"):
        st.session_state.pop(name, None)
    _address_room(None)


def take_link(page) -> None:
    """A one-time link that makes another device this room's instructor; shown on the next run only."""
    seat = current(page)
    token = _key_action(page, "one_time_link")
    if seat is not None and token:
        st.session_state[LINK] = views.address(st.context.url, {"room": seat.code, TAKE: token})


def _address_room(code: str | None) -> None:
    """The room in the address bar and in the shell's app-wide choice ("room", "" for none), which the menu's links carry."""
    query.set_value("room", code)
    st.session_state["room"] = code or ""


def _seat(seat: Seat, key: str | None) -> None:
    st.session_state[SEAT] = seat
    if key:
        st.session_state[KEY] = key
    else:
        st.session_state.pop(KEY, None)
    for name in (VIEW, SEEN, TRIED):
        st.session_state.pop(name, None)
    _address_room(seat.code)


# --- arriving, following, the sidebar -----------------------------------------------------


def _room_param(page) -> str | None:
    return store.normalize_code(page.room)


def arrive(page) -> None:
    """Take a seat from the address: a one-time instructor link, else a student's ?room=CODE."""
    state = st.session_state
    take = query.text(TAKE)
    if take is not None:
        query.set_value(TAKE, None)  # one use: out of the address bar at once
        code = _room_param(page)
        try:
            key = _call("redeem", code, take) if code else None
        except Unavailable:
            key = None
        if key:
            _seat(Seat(code, "instructor", store.new_token()), key)
        else:
            state[NOTE] = "room.link_used"
            _address_room(None)
        return
    code, seat = _room_param(page), current(page)
    if seat is not None and (code is None or code == seat.code or seat.role == "instructor"):
        if code != seat.code:
            _address_room(seat.code)  # the seat, not a stray link, says which room this is
        return
    if code is None or state.get(TRIED) == code:  # no code, or one this session could not join
        return
    state[TRIED] = code
    token = store.new_token()
    try:
        status = _call("join", code, token)
    except Unavailable:
        status = None
    if status == store.Status.JOINED:
        _seat(Seat(code, "student", token), None)
        return
    # The code stays where the link put it (the menu's links carry it); this session asks once.
    state[NOTE] = {store.Status.FULL: "room.full", None: "room.unavailable"}.get(status, "room.unknown")


def _write_view(page, seat: Seat, params: dict[str, str]) -> None:
    """The instructor's page and settings into the room, only when they changed since the last write."""
    view = (page.section, tuple(sorted(params.items())))
    if st.session_state.get(VIEW) == view:
        return
    if _key_action(page, "set_view", page.section, dict(params)) == store.Status.OK:
        st.session_state[VIEW] = view


def watch_step(page) -> None:
    """One look at the room's view version (one primary-key read); on a new one, look again.

    A following student moves to the instructor's page and settings: the same page reruns, another
    page opens. A student waiting for a Reveal reruns the page, whose questions then ask `revealed`
    (the instructor's Reveal moves the version). The settings travel in the session
    (`links.apply`, applied at the top of the next run), not in `switch_page`'s query: Streamlit
    refuses to set a query parameter that a widget of the page being left is bound to (`d`, `seed` ...).
    """
    seat = current(page)
    if seat is None or seat.role != "student":
        return
    try:
        view = _call("view", seat.code)
    except Unavailable:
        return
    seen = st.session_state.get(SEEN)
    if view is None or seen == view.version:
        return
    st.session_state[SEEN] = view.version
    if not st.session_state.get(FOLLOW):
        if seen is not None or _revealed_meanwhile(page, seat):
            st.rerun(scope="app")
        return
    path = catalog.page_path(view.section)
    if path is None:  # a section this app does not have
        return
    params = {str(k): str(v) for k, v in dict(view.params).items()}
    if view.section == page.section:
        _apply_here(page.section, params)
        st.rerun(scope="app")
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
    """The ids of this student's guesses on this page that the room stored and has not shown revealed yet."""
    answers, seen = answers or {}, seen or set()
    prefix = f"{section}:"
    return [qid for qid, answer in answers.items() if isinstance(qid, str) and qid.startswith(prefix)
            and qid not in seen and getattr(answer, "stored", None)]


def _waiting_for_reveal(page, answers: Any, seen: Any) -> bool:
    return bool(_waiting(page.section, answers, seen))


def _revealed_meanwhile(page, seat: Seat) -> bool:
    """On the first look only: was a waiting guess revealed before this student started looking?"""
    try:
        return any(getattr(_call("snapshot", seat.code, qid), "revealed", False)
                   for qid in _waiting(page.section, st.session_state.get(ASKED), st.session_state.get(REVEALED)))
    except Unavailable:
        return False


# A class of a hundred that waits for a Reveal reruns this fragment a hundred times per interval,
# each rerun a few ms of Streamlit's own work (the room's read is 0.3 ms): at 3 s that was 16-30 % of
# a core (bench/class.py), at 5 s it stays near the 10 % the class features may cost.
WATCH_SECONDS = 5


@st.fragment(run_every=WATCH_SECONDS)
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
        params = links.view_params(section)
        if state.get(VIEW) != (section, tuple(sorted(params.items()))):
            st.rerun(scope="app")
    elif seat.role == "student" and not state.get(WATCHING) and _waiting(section, state.get(ASKED), state.get(REVEALED)):
        st.rerun(scope="app")


def sidebar(page) -> None:
    """The sidebar's class section, the projector's join card, and following; one call per run from the shell."""
    arrive(page)
    seat = current(page)
    with st.sidebar:
        views.class_section(page, seat, actions={
            "start": start, "close": close, "leave": leave, "take": take_link, "follow": _follow_changed,
        }, following=bool(st.session_state.get(FOLLOW)), note=st.session_state.pop(NOTE, None),
            link=st.session_state.pop(LINK, None))
        # Only a student who follows, or waits for a Reveal, looks at the room every few seconds.
        state = st.session_state
        state[WATCHING] = seat is not None and seat.role == "student" and bool(
            state.get(FOLLOW) or _waiting_for_reveal(page, state.get(ASKED), state.get(REVEALED)))
        if state[WATCHING]:
            _watching(page)
    if seat is not None and is_instructor(page):
        params = links.view_params(page.section)
        _write_view(page, seat, params)
        views.join_card(page, views.address(st.context.url, {**params, "room": seat.code}), seat.code)
