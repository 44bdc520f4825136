"""This session's seat in a room: the keys it keeps, how it is taken (a new room, a code, a link, a cookie) and
given up, and the one way to the store (`_call`).

What a session knows of its room lives in `st.session_state` under the keys below (a page switch clears
only the pages' declared controls, ui/kit/shell.py, so they outlive it). The instructor's key is one of them
and goes nowhere else: not into the address bar, not onto the screen. A store that cannot be reached turns
the class features off with one short note, and the pages go on as usual. A seat outlives a reload by the
browser's cookie (ui/room/passes.py, `_pass_image`), which a new session takes it back with (`arrive`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal

import sqlalchemy.exc
import streamlit as st
from streamlit.errors import StreamlitAPIException
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from ui.registry import query
from ui.room import config, guard, passes, push, store, views

SEAT = "_room_seat"
KEY = "_room_key"  # the instructor's key: session state only
NOTE = "_room_note"  # a note key shown once in the class section
TRIED = "_room_tried"  # a code that failed to join: not asked again on every rerun
RETRY = "_room_retry"  # when a join that found the store busy is asked again
RETRY_S = 5.0  # a busy store is a moment's: the join is asked again on a run this long after
VIEW = "_room_view"  # the instructor's view last written to the room
SEEN = "_room_seen"  # the room's view version a following student last moved to
FOLLOW = "_room_follow"
LINK = "_room_link"  # a one-time link, shown on one run only
REVEALED = "_room_revealed"  # question ids this student has seen revealed
WATCHING = "_room_watching"  # whether the last whole run started this student's watcher
FOLDED = "_room_card_folded"  # the room whose join card is folded to its line
REGISTERED = "_room_registered"  # question ids whose question and answer this instructor wrote into the room
TOKENS = "_room_tokens"  # room code -> this session's token there: leaving and joining again takes the same seat
STARTS = "_room_starts"  # when this session started its recent rooms
PASS = "_room_pass"  # (code, role, nonce or None, minted at): the cookie this seat asked the browser to fetch
CLAIMED = "_room_claimed"  # the session has looked at its browser's cookies
OWN = "_room_own"  # question ids whose stored guess this session has looked up after a reload
PRESENT = "_room_present"  # when this session last told the store its student is there
STARTS_PER_WINDOW = 3  # one session starts at most this many rooms per STARTS_WINDOW seconds
STARTS_WINDOW = 600.0

TAKE = "take"  # the query parameter of a one-time instructor link
# This process's count of wrong room codes (per session and per address): past either bound, no join is tried.
FAILURES = guard.Failures()


class Unavailable(Exception):
    """The store could not be reached (or refused to work): the class features are off for this call."""


@dataclass(frozen=True)
class Seat:
    """This session's place in a room: the room's code, its role there, its anonymous token."""

    code: str
    role: Literal["student", "instructor"]
    token: str


# --- the store ----------------------------------------------------------------------------


@st.cache_resource(show_spinner=False)
def _store(url: str) -> store.Store:
    # One Store per database: it remembers that the schema is ready, and sets SQLite up once.
    conn = st.connection("class", type="sql", url=url)
    size = config.class_behind_one_address()
    return store.Store(conn.engine, max_joins_per_client=store.joins_for(size), max_votes_per_client=size)


def store_for_routes() -> store.Store:
    """The pages' own Store, for the app's routes and watcher (outside any script run)."""
    return _store(config.url())


def _client() -> str | None:
    """This browser's address (behind deploy/'s proxy, the one it saw), for the store's per-client bounds."""
    try:
        return passes.client_id(st.context.ip_address, dict(st.context.headers))
    except Exception:  # no browser behind the run (AppTest)
        return None


def _call(action: str, *args: Any, **options: Any) -> Any:
    """One store call (the Store's method by name, with `now` last); whatever keeps the store from answering becomes Unavailable."""
    try:
        return getattr(_store(config.url()), action)(*args, time.time(), **options)
    except store.StoreUnavailable as e:
        raise Unavailable(str(e)) from e
    except (sqlalchemy.exc.SQLAlchemyError, OSError, StreamlitAPIException) as e:  # st.connection refused its settings
        raise Unavailable(type(e).__name__) from e


def _session_id() -> str | None:
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else None


def current(page) -> Seat | None:
    """This session's place in a room, or None outside one."""
    seat = st.session_state.get(SEAT)
    return seat if isinstance(seat, Seat) else None


def is_instructor(page) -> bool:
    seat = current(page)
    return seat is not None and seat.role == "instructor" and bool(st.session_state.get(KEY))


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


# --- taking a seat and giving it up -------------------------------------------------------


def start(page) -> None:
    """Open a new room with this session as its instructor (a few per session, and per address, at a time)."""
    now = time.time()
    recent = [t for t in st.session_state.get(STARTS, []) if t > now - STARTS_WINDOW]
    if len(recent) >= STARTS_PER_WINDOW:
        st.session_state[NOTE] = "room.start_limit"
        return
    try:
        made = _call("create_room", client=_client())
    except Unavailable:
        st.session_state[NOTE] = "room.unavailable"
        return
    if not isinstance(made, tuple):  # the server's bound of live rooms, or this address's
        st.session_state[NOTE] = "room.client_limit" if made == store.Status.LIMIT else "room.store_full"
        return
    st.session_state[STARTS] = [*recent, now]
    code, key = made
    _seat(Seat(code, "instructor", store.new_token()), key)


def close(page) -> None:
    if _key_action(page, "close") == store.Status.OK:
        leave(page)


def leave(page) -> None:
    """Out of the room: the seat given up (it no longer counts toward the room's bound), the code out of the address bar."""
    seat = current(page)
    if seat is not None and seat.role == "student":
        try:
            _call("leave", seat.code, seat.token)
        except Unavailable:
            pass  # the seat stops counting once it has not been seen for a while
    for name in (SEAT, KEY, VIEW, SEEN, FOLLOW, LINK, REVEALED, PASS, OWN, REGISTERED, "_room_follow_widget"):
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


def _seat(seat: Seat, key: str | None, *, from_cookie: bool = False) -> None:
    st.session_state[SEAT] = seat
    # A seat taken from the browser's cookie needs no new one; any other asks for one (`_pass_image`).
    st.session_state[PASS] = (seat.code, seat.role, None, 0.0) if from_cookie else None
    if key:
        st.session_state[KEY] = key
    else:
        st.session_state.pop(KEY, None)
    for name in (VIEW, SEEN, TRIED, RETRY):
        st.session_state.pop(name, None)
    _address_room(seat.code)


def arrive(page) -> None:
    """Take a seat from the address: a one-time instructor link, else a student's ?room=CODE."""
    state = st.session_state
    take = query.text(TAKE)
    if take is not None:
        query.set_value(TAKE, None)  # one use: out of the address bar at once
        code = store.normalize_code(page.room)
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
    code, seat = store.normalize_code(page.room), current(page)
    if seat is None and not state.get(CLAIMED):
        try:
            seat = _from_cookies(code)
        except Unavailable:  # asked again on the next run: a busy store must not hand this browser a second seat
            state[NOTE] = "room.unavailable"
            return
        state[CLAIMED] = True
    if seat is not None and (code is None or code == seat.code or seat.role == "instructor"):
        if code != seat.code:
            _address_room(seat.code)  # the seat, not a stray link, says which room this is
        return
    if code is None or state.get(TRIED) == code:  # no code, or one this session could not join
        return
    if time.time() < state.get(RETRY, 0.0):
        return
    state[TRIED] = code
    tokens = state.setdefault(TOKENS, {})
    token = tokens.get(code) or store.new_token()  # this session's seat there, if it ever held one
    client, session_id = _client(), _session_id()
    if FAILURES.refused(session_id, client, time.time()):  # wrong codes past the bound: not even tried
        state[NOTE] = "room.tries_limit"
        return
    try:
        status = _call("join", code, token, client=client)
    except Unavailable:
        status = None
    if status == store.Status.JOINED:
        tokens[code] = token
        _seat(Seat(code, "student", token), None)
        state[PRESENT] = time.time()
        return
    if status is None:  # the store was busy, not a refusal: a later run asks again
        state.pop(TRIED, None)
        state[RETRY] = time.time() + RETRY_S
    if status == store.Status.UNKNOWN:
        FAILURES.failed(session_id, client, time.time())
    # The code stays where the link put it (the menu's links carry it); this session asks once.
    state[NOTE] = {store.Status.FULL: "room.full", store.Status.LIMIT: "room.join_limit",
                   store.Status.LOCKED: "room.locked", None: "room.unavailable"}.get(status, "room.unknown")


def _from_cookies(code: str | None) -> Seat | None:
    """The seat this browser's cookie holds (the instructor's first), in the room of the address if it names one."""
    try:
        cookies = st.context.cookies
    except Exception:
        return None
    for kind in ("host", "seat"):
        secret = cookies.get(passes.COOKIES[kind])
        if not secret:
            continue
        claim = _call("claim", secret)  # Unavailable: the caller asks again on its next run
        if claim is None or claim.kind != kind or (code is not None and claim.code != code):
            continue
        if kind == "host":
            seat = Seat(claim.code, "instructor", store.new_token())
            _seat(seat, claim.secret, from_cookie=True)
        else:
            seat = Seat(claim.code, "student", claim.secret)
            st.session_state.setdefault(TOKENS, {})[claim.code] = claim.secret
            _seat(seat, None, from_cookie=True)
        return seat
    return None


def _pass_image(seat: Seat) -> None:
    """Ask the browser to fetch this seat's cookie from the app's route: a one-time nonce in an invisible image.

    Minted once per seat; drawn on whole runs while the nonce can still be redeemed (the browser fetches it
    when the image first appears). Without the app's route (AppTest, a bare script) nothing is drawn.
    """
    state, now = st.session_state, time.time()
    held = state.get(PASS)
    if held is None or held[:2] != (seat.code, seat.role):
        try:
            if seat.role == "instructor":
                nonce = _call("host_pass", seat.code, st.session_state.get(KEY))
            else:
                nonce = _call("seat_pass", seat.code, seat.token)
        except Unavailable:
            return
        held = state[PASS] = (seat.code, seat.role, nonce, now)
    nonce, minted = held[2], held[3]
    if nonce and now < minted + store.NONCE_TTL and push.running():
        st.html(f'<img src="{passes.pass_address(nonce)}" alt="" width="1" height="1" hidden>')
