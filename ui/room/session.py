"""The class room on the Streamlit side: this session's seat in a room, and every call that reaches the store.

What a session knows of its room lives in `st.session_state` under the keys in `KEPT` (the shell
keeps them across pages). The instructor's key is one of them and goes nowhere else: not into the
address bar, not onto the screen. The store is reached through `st.connection` (type "sql") at the
URL the store's config decides; a store that cannot be reached turns the class features off with
one short note, and the pages go on as usual.

A seat outlives a reload: the session asks the app's cookie route (ui/room/passes.py) to give its
browser an HttpOnly cookie for the seat (the student's token, or the instructor's key, both behind
an opaque secret), and a new session whose browser presents one takes that seat again (`arrive`).
A session keeps one token per room, so leaving and joining the same room again takes the same seat.

Called by the questions widget: `current`, `submit`, `revealed`, `own_guess`, `instructor_panel`.
Called once per run by the shell's sidebar: `sidebar`.
"""
from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import sqlalchemy.exc
import streamlit as st
from streamlit.errors import StreamlitAPIException
from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState, get_script_run_ctx

from ui import widgets
from ui.questions import GUESSES, Asked
from ui.registry import catalog, links, query
from ui.registry.kinds import Several
from ui.room import config, lesson, passes, push, results, store, views

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
FOLDED = "_room_card_folded"  # the room whose join card is folded to its line
REGISTERED = "_room_registered"  # question ids whose question and answer this instructor wrote into the room
TOKENS = "_room_tokens"  # room code -> this session's token there: leaving and joining again takes the same seat
STARTS = "_room_starts"  # when this session started its recent rooms
PASS = "_room_pass"  # (code, role, nonce or None, minted at): the cookie this seat asked the browser to fetch
CLAIMED = "_room_claimed"  # the session has looked at its browser's cookies
OWN = "_room_own"  # question ids whose stored guess this session has looked up after a reload
# A page switch clears only the pages' declared controls (ui/kit/shell.py): these outlive it.
KEPT = frozenset({SEAT, KEY, NOTE, TRIED, VIEW, SEEN, FOLLOW, LINK, REVEALED, WATCHING, TOKENS, STARTS, PASS,
                  CLAIMED, OWN, REGISTERED, FOLDED, "_room_follow_widget"})
STARTS_PER_WINDOW = 3  # one session starts at most this many rooms per STARTS_WINDOW seconds
STARTS_WINDOW = 600.0

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
    round: int = 1  # the vote it was stored in (2: the question's second vote)


# --- the store ----------------------------------------------------------------------------


@st.cache_resource(show_spinner=False)
def _store(url: str | None) -> store.Store:
    # One Store per database: it remembers that the schema is ready, and sets SQLite up once.
    conn = st.connection("class", type="sql", url=url) if url else st.connection("class", type="sql")
    return store.Store(conn.engine)


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
    store.Status.CLOSED: Ack(False, "vote.ack_closed"),
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
    leave(page)  # UNKNOWN, NOT_JOINED: the room has ended; the page stops asking on its behalf
    return Ack(False, "room.ack_gone")


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


def _wait_here(seat: Seat, asked: Asked) -> None:
    """A student (not following) who guessed or looked at this question waits for its Reveal in this part of the page."""
    state = st.session_state
    session_id = _session_id()
    if seat.role != "student" or state.get(FOLLOW) or not push.running() or session_id is None:
        return
    if asked.id not in _waiting(asked.section, state.get(GUESSES), state.get(REVEALED)):
        return
    push.watch(seat.code, session_id, state.get(SEEN) or 0, ThreadState.get().fragment_id or "")


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


def _watch_now(page) -> None:
    session_id = _session_id()
    if not (push.running() and session_id):
        return
    version = watch_step(page, whole=True)
    seat = current(page)
    if version is not None and seat is not None:
        st.session_state[WATCHING] = True
        push.watch(seat.code, session_id, version)


def instructor_panel(page, asked: Sequence[Asked]) -> None:
    """The instructor's live view of this page's questions (nothing for anyone else), redrawn every 2 s."""
    if not is_instructor(page) or not asked:
        return
    _live_panel(page, tuple(asked))


@widgets.timed(2)
def _live_panel(page, asked: tuple[Asked, ...]) -> None:
    panel_body(page, asked)


def panel_body(page, asked: Sequence[Asked]) -> None:
    """One look at the room for the presenter's view: the chosen question's counts, vote and distribution."""
    seat = current(page)
    if seat is None or not is_instructor(page):
        return
    chosen = views.chosen(page, asked)
    try:
        _register(page, seat, asked)
        snap = _call("snapshot", seat.code, chosen.id)
        vote = _call("vote", seat.code, chosen.id)
        first = _call("first_vote", seat.code, chosen.id) if vote is not None and vote.round > 1 else None
    except Unavailable:
        st.caption(page.t("room.unavailable"))
        return
    if snap is None or vote is None:  # closed or expired under us
        st.caption(page.t("room.ended"))
        return
    views.presenter(page, asked, chosen, views.Live(snap, vote, first), actions={
        "reveal": reveal, "reset": reset, "close": close_vote, "timer": close_vote_in, "show": show_votes,
        "second": second_vote}, timer_seconds=TIMER_SECONDS)


def _register(page, seat: Seat, asked: Sequence[Asked]) -> None:
    """What each question asks and its measured answer into the room, once per session: the results score from it."""
    done = st.session_state.setdefault(REGISTERED, set())
    key = st.session_state.get(KEY)
    for a in asked:
        if a.id not in done and key:
            _call("register", seat.code, key, a.id, results.about(a))
            done.add(a.id)


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
    """Reveal one question (its open vote closes); the room's view version moves too, so that waiting students look again (`watch_step`)."""
    _key_action(page, "close_vote", asked.id, None)  # CLOSED: it was closed already
    if _key_action(page, "reveal", asked.id) != store.Status.OK:
        return False
    _nudge(page)
    return True


def _nudge(page) -> None:
    """The room's view written again: its version moves, and every watching student's page looks again."""
    section, params = st.session_state.get(VIEW) or (page.section, ())
    _key_action(page, "set_view", section, dict(params))


def reset(page, asked: Asked) -> bool:
    if _key_action(page, "reset", asked.id) != store.Status.OK:
        return False
    _nudge(page)  # a student holding a guess of a second vote sees the form of the first again
    return True


def vote(page, asked: Asked) -> store.Vote | None:
    """Where this question's vote stands in this session's room (one read); None outside a room or unreachable."""
    seat = current(page)
    if seat is None:
        return None
    try:
        return _call("vote", seat.code, asked.id)
    except Unavailable:
        return None


def close_vote(page, asked: Asked) -> bool:
    """Close the question's vote now; the students' forms close with their next look."""
    done = _key_action(page, "close_vote", asked.id, None) == store.Status.OK
    if done:
        _nudge(page)
    return done


def _timer_seconds() -> float:
    """The vote timer's length: 60 s, or FFNLAB_VOTE_TIMER seconds (5-600; a class's own pace, or a test's)."""
    try:
        seconds = float(os.environ.get("FFNLAB_VOTE_TIMER", "60"))
    except ValueError:
        return 60.0
    return seconds if 5 <= seconds <= store.MAX_TIMER else 60.0


TIMER_SECONDS = _timer_seconds()


def close_vote_in(page, asked: Asked) -> bool:
    """Close the question's vote in TIMER_SECONDS: the projector counts down, the store's clock closes it."""
    return _key_action(page, "close_vote", asked.id, TIMER_SECONDS) == store.Status.OK


def show_votes(page, asked: Asked, shown: bool) -> bool:
    return _key_action(page, "show_votes", asked.id, shown) == store.Status.OK


def second_vote(page, asked: Asked) -> bool:
    """Open the question's second vote; each student who voted sees the question's form again."""
    done = _key_action(page, "second_vote", asked.id, None) == store.Status.OK
    if done:
        _nudge(page)
    return done


def room_results(page) -> list[store.Tally] | None:
    """The room's results (instructor only): every question shown or answered, with each vote's guesses."""
    return _key_action(page, "results")


def joined(page) -> int | None:
    """How many students joined this session's room; None outside one or unreachable."""
    seat = current(page)
    if seat is None:
        return None
    try:
        return _call("joined", seat.code)
    except Unavailable:
        return None


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
    state[TRIED] = code
    tokens = state.setdefault(TOKENS, {})
    token = tokens.get(code) or store.new_token()  # this session's seat there, if it ever held one
    try:
        status = _call("join", code, token, client=_client())
    except Unavailable:
        status = None
    if status == store.Status.JOINED:
        tokens[code] = token
        _seat(Seat(code, "student", token), None)
        return
    # The code stays where the link put it (the menu's links carry it); this session asks once.
    state[NOTE] = {store.Status.FULL: "room.full", store.Status.LIMIT: "room.join_limit",
                   None: "room.unavailable"}.get(status, "room.unknown")


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


def _write_view(page, seat: Seat, params: dict[str, str]) -> None:
    """The instructor's page and settings into the room, only when they changed since the last write."""
    view = (page.section, tuple(sorted(params.items())))
    if st.session_state.get(VIEW) == view:
        return
    if _key_action(page, "set_view", page.section, dict(params)) == store.Status.OK:
        st.session_state[VIEW] = view


def watch_step(page, whole: bool = False) -> int | None:
    """One look at the room's view version (one primary-key read); on a new one, look again.

    `whole`: this is a whole run already (the push watcher reran it, ui/room/push.py), so a Reveal
    needs no further rerun. Returns the version seen, for the watcher; None when there is nothing to watch.

    A following student moves to the instructor's page and settings: on the same page a whole run
    draws them itself (a timed run reruns the page), another page opens. A student waiting for a
    Reveal reruns the page, whose questions then ask `revealed` (the instructor's Reveal moves the
    version). The settings for another page travel in the session (`links.apply`, applied at the top of
    the next run), not in `switch_page`'s query: Streamlit refuses to set a query parameter that a widget
    of the page being left is bound to (`d`, `seed` ...).
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


def _waiting_for_reveal(page, answers: Any, seen: Any) -> bool:
    return bool(_waiting(page.section, answers, seen))


def _revealed_meanwhile(page, seat: Seat) -> bool:
    """On the first look only: was a waiting guess revealed before this student started looking?"""
    try:
        return any(getattr(_call("snapshot", seat.code, qid), "revealed", False)
                   for qid in _waiting(page.section, st.session_state.get(GUESSES), st.session_state.get(REVEALED)))
    except Unavailable:
        return False


# Only where the app's watcher does not run (ui/room/push.py: AppTest, a bare script). A class of a
# hundred that waits for a Reveal reruns this fragment a hundred times per interval, each rerun a few
# ms of Streamlit's own work: at 3 s that was 16-30 % of a core (bench/class.py), at 5 s near 10 %.
WATCH_SECONDS = 5


@widgets.timed(WATCH_SECONDS)
def _watching(page) -> None:
    watch_step(page)


def _session_id() -> str | None:
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else None


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
    elif seat.role == "student" and not state.get(WATCHING) and _waiting(section, state.get(GUESSES), state.get(REVEALED)):
        st.rerun(scope="app")
    elif seat.role == "student" and push.running() and _waiting(section, state.get(GUESSES), state.get(REVEALED)):
        # A part rerun by the watcher took this session out of its register; questions of other parts still wait.
        session_id = _session_id()
        if session_id and not push.is_watching(session_id):
            push.watch(seat.code, session_id, state.get(SEEN) or 0)


def sidebar(page) -> None:
    """The sidebar's class section, the projector's join card, and following; one call per run from the shell."""
    arrive(page)
    lesson.arrive(page, _self())
    seat = current(page)
    if seat is not None and seat.role == "student":
        lesson.student(page, seat, _self())  # a lesson makes following the default
    with st.sidebar:
        views.class_section(page, seat, actions={
            "start": start, "close": close, "leave": leave, "take": take_link, "follow": _follow_changed,
        }, following=bool(st.session_state.get(FOLLOW)), note=st.session_state.pop(NOTE, None),
            link=st.session_state.pop(LINK, None))
        lesson.sidebar(page, seat, _self())
        # Only a student who follows, or waits for a Reveal, looks at the room every few seconds.
        state = st.session_state
        state[WATCHING] = seat is not None and seat.role == "student" and bool(
            state.get(FOLLOW) or _waiting_for_reveal(page, state.get(GUESSES), state.get(REVEALED)))
        session_id = _session_id()
        if state[WATCHING] and push.running() and session_id:
            version = watch_step(page, whole=True)
            if version is not None and current(page) is not None:
                push.watch(current(page).code, session_id, version)
        elif state[WATCHING]:
            _watching(page)
        elif session_id:
            push.forget(session_id)
        if seat is not None:
            _pass_image(seat)
    if seat is not None and is_instructor(page):
        params = links.room_params(page.section)
        _write_view(page, seat, params)
        lesson.bar(page, seat, _self())
        _card(page, views.address(st.context.url, {**params, "room": seat.code}), seat.code)


def _self() -> Any:
    """This module, for ui/room/lesson.py (below it in the imports): its store calls and seat go through here."""
    return sys.modules[__name__]


def experiment_shown(page) -> bool:
    """Whether the instructor opened this page's experiment (the presenter's view folded to its line)."""
    return page.section in st.session_state.get(views.EXPERIMENT, ())


def _card(page, url: str, code: str) -> None:
    """The join card, whole until the first student joins, then folded to one line (open it for late arrivals)."""
    state = st.session_state
    if state.get(FOLDED) != code and card_folds(joined(page)):
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
        if card_folds(joined(page)):
            st.session_state[FOLDED] = code
            st.rerun(scope="app")
    views.join_card(page, url, code)


def card_folds(joined_now: int | None) -> bool:
    """Whether the join card folds: once a student is in the room."""
    return bool(joined_now)
