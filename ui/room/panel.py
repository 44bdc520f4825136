"""The instructor's live panel of a page's questions, and what its buttons do: reveal, reset, and the vote closed
now or by a timer, shown, or opened a second time."""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import streamlit as st

from ui import widgets
from ui.questions import Asked
from ui.room import results, store, views
from ui.room.seating import KEY, REGISTERED, VIEW, Seat, Unavailable, _call, _key_action, current, is_instructor


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


def _nudged(page, action: str, *args: Any) -> bool:
    """An instructor action; once done, the room's view is written again: its version moves, and every watching
    student's page looks again (`watch_step`)."""
    if _key_action(page, action, *args) != store.Status.OK:
        return False
    section, params = st.session_state.get(VIEW) or (page.section, ())
    _key_action(page, "set_view", section, dict(params))
    return True


def reveal(page, asked: Asked) -> bool:
    """Reveal one question (its open vote closes)."""
    _key_action(page, "close_vote", asked.id, None)  # CLOSED: it was closed already
    return _nudged(page, "reveal", asked.id)


def reset(page, asked: Asked) -> bool:
    return _nudged(page, "reset", asked.id)  # a student holding a guess of a second vote sees the first's form again


def close_vote(page, asked: Asked) -> bool:
    """Close the question's vote now; the students' forms close with their next look."""
    return _nudged(page, "close_vote", asked.id, None)


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
    return _nudged(page, "second_vote", asked.id, None)
