"""What the class room draws: the sidebar's class section, the projector's join card, the instructor's
live panel (a student's view of the revealed guesses is ui/questions/quiz.py's). Drawing only: every store
call is made by the session side (session.py, seating.py, follow.py, panel.py), and the buttons call the
actions they are handed."""
from __future__ import annotations

import hashlib
import html
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

import segno
import streamlit as st

from ui import questions, widgets
from ui.base import room_code
from ui.base import text as plain
from ui.questions import Asked
from ui.room import chart as charts
from ui.room import results


def address(base: str | None, params: Mapping[str, str]) -> str:
    """The absolute address of a view: the page's URL (no query of its own) and these parameters."""
    base = (base or "").split("?", 1)[0]
    query = urlencode(list(params.items()))
    return f"{base}?{query}" if query else base


def short(url: str) -> str:
    """The address as a class types it: no scheme."""
    parts = urlsplit(url)
    return url[len(parts.scheme) + 3:] if parts.scheme else url


def qr_svg(url: str) -> str:
    """The address as a QR code in SVG (scales on a projector without blurring)."""
    return segno.make(url, error="m").svg_inline(scale=5, border=2, dark="#000000", light="#ffffff")


def join_line(page, url: str, code: str) -> None:
    """The join card folded to one line once students have joined; opened, the card again (late arrivals)."""
    with st.container(key="room_join_line"):
        box = widgets.folded(page.t("vote.join_line", code=code), "room_join_line", icon=":material/qr_code_2:")
        if box.open:
            with box:
                join_card(page, url, code)


def join_card(page, url: str, code: str) -> None:
    """Top of the instructor's page: the QR code and the short address of the page and settings on screen."""
    t = page.t
    with st.container(border=True, key="room_join_card"):
        qr, text = st.columns([1, 3], vertical_alignment="center")
        # An image of its own (st.image takes SVG text): the page's styles cannot reach into it.
        # Its alt says what the picture holds, for a screen reader: the room's code and the address, as text.
        qr.image(qr_svg(url), width=180, alt=t("access.qr_alt", code=code, address=short(url)))
        with text:
            st.markdown(t("room.join_title", code=code))
            st.code(short(url), language=None, wrap_lines=True)
            st.caption(t("room.join_help"))


@dataclass(frozen=True)
class Live:
    """One look at a question in the room: the store's snapshot, where its vote stands, the first vote's guesses."""

    snap: Any  # store.Snapshot
    vote: Any  # store.Vote
    first: tuple[float | str, ...] | None = None


PICK = "_room_pick"  # the question the presenter's view shows, per group of questions
EXPERIMENT = "_room_experiment"  # the pages whose experiment the instructor opened (the questions' answers shown)


def _pick_key(asked: Sequence[Asked]) -> str:
    # The group's questions in the key: a group a lesson step's own question joined is a new choice, whose
    # first pick is the step's question, not the one picked before it joined.
    group = hashlib.sha256("|".join(a.question.key for a in asked).encode("utf-8")).hexdigest()[:8]
    return f"{PICK}:{asked[0].section}:{asked[0].question.key}:{group}"


def chosen(page, asked: Sequence[Asked]) -> Asked:
    """The question of this group the presenter's view shows (the first until the instructor picks another)."""
    picked = st.session_state.get(_pick_key(asked))
    if isinstance(picked, int) and 0 <= picked < len(asked):
        return asked[picked]
    wanted = st.session_state.get("_room_step_questions") or ()  # a lesson's step names its question
    return next((a for a in asked if a.question.key in wanted), asked[0])


def buttons(live: Live) -> tuple[str, ...]:
    """The vote controls a question's state offers, in the order drawn.

    An open vote can close now or on a timer (not twice); a closed first vote can open the second; the
    votes can be shown without the answer until the Reveal, after which the distribution stays up.
    """
    vote, revealed = live.vote, live.snap.revealed
    out: list[str] = []
    if not revealed:
        if vote.open:
            out.append("close")
            if vote.closes_in is None:
                out.append("timer")
        elif vote.round == 1:
            out.append("second")
        out.append("hide" if vote.shown else "show")
        out.append("reveal")
    out.append("reset")
    return tuple(out)


def status(live: Live) -> tuple[str, dict[str, Any]]:
    """The locale key and values of the line that says where the vote stands."""
    vote = live.vote
    if live.snap.revealed:
        return "vote.status_revealed", {}
    if vote.open and vote.closes_in is not None:
        return "vote.status_timer", {"n": vote.round, "seconds": max(0, math.ceil(vote.closes_in))}
    return ("vote.status_open" if vote.open else "vote.status_closed"), {"n": vote.round}


def shift_line(page, asked: Asked, live: Live) -> str:
    """After the Reveal: the measured value and the share right ("right 23% → 61%" over two votes)."""
    t = page.t
    measured = t("room.panel_measured", value=questions.shown_value(page, asked, asked.answer))
    last = results.share_right(asked.question, asked.answer, live.snap.values)
    if live.first is not None:
        first = results.share_right(asked.question, asked.answer, live.first)
        right = t("vote.shift", first=_pct(first), last=_pct(last))
    else:
        right = t("vote.right", share=_pct(last))
    return f"{measured} · {right}"


def _pct(share: float | None) -> str:
    return "—" if share is None else f"{round(share * 100)}%"


_PRESENTER_CSS = """
<style>
[class*="st-key-room_presenter"] { gap: 0.45rem; }
[class*="st-key-room_presenter"] [data-testid="stMarkdownContainer"] .room-q { font-size: 1.2em; font-weight: 600; line-height: 1.25; }
[class*="st-key-room_presenter"] [data-testid="stMarkdownContainer"] .room-status { font-size: 1.05em; }
</style>
"""
# On the projector, while a question is up: the lesson's folded "read more" and the glossary's line above the
# question step aside (the title and the lesson's first sentence stay), so that the question, its counts and
# its distribution fit the first screen. "The experiment" brings the page back as it is.
_STAGE_CSS = """
<style>
[data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"] > :is(
  [data-testid="stLayoutWrapper"]:has(> [data-testid="stExpander"]),
  [data-testid="stElementContainer"]:has([data-testid="stCaptionContainer"])
):has(~ * [class*="st-key-room_presenter"]) { display: none; }
</style>
"""


def presenter(page, asked: Sequence[Asked], pick: Asked, live: Live, *,
              actions: Mapping[str, Callable[..., Any]], timer_seconds: float = 60.0) -> None:
    """The presenter's view of one question: large, its counts, the vote controls, the distribution when shown.

    The instructor never answers: no forms here. The experiment's own results stay one click away
    ("The experiment", which opens what the page folds while asking and shrinks this view to its line).
    """
    t = page.t
    shown = st.session_state.setdefault(EXPERIMENT, set())
    experiment = page.section in shown
    st.html(_PRESENTER_CSS + ("" if experiment or not page.presenter else _STAGE_CSS))
    snap, vote = live.snap, live.vote
    key, values = status(live)
    # Seats here now, and apart those held but away: after a flood the projector does not call its seats the class.
    counts = t("room.panel_counts", joined=snap.joined, answered=snap.answered)
    if snap.away:
        counts = f"{counts} · {t('room.panel_away', n=snap.away)}"
    line = f"{counts} · {t(key, **values)}"
    offered = buttons(live)
    labels = {"close": t("vote.close_now"), "timer": t("vote.close_timer", seconds=round(timer_seconds)),
              "second": t("vote.second"), "show": t("vote.show"), "hide": t("vote.hide"),
              "reveal": t("room.reveal"), "reset": t("room.reset")}
    calls = {"close": (actions["close"], ()), "timer": (actions["timer"], ()), "second": (actions["second"], ()),
             "show": (actions["show"], (True,)), "hide": (actions["show"], (False,)),
             "reveal": (actions["reveal"], ()), "reset": (actions["reset"], ())}

    def button(column: Any, name: str) -> None:
        func, extra = calls[name]
        column.button(labels[name], key=f"room_{name}_{pick.id}", on_click=func, args=(page, pick, *extra),
                      type="primary" if name == "reveal" else "secondary", width="stretch")

    with st.container(key=f"room_presenter_{asked[0].question.key.replace('.', '_')}", border=True):
        many = len(asked) > 1
        columns = st.columns([3, 5, 2, 3] if many else [5, 2, 3], vertical_alignment="center")
        pick_col, status_col, reset_col, exp_col = columns if many else (None, *columns)
        if many:
            with pick_col:
                st.segmented_control(t("vote.pick"), list(range(len(asked))), key=_pick_key(asked),
                                     default=asked.index(pick), label_visibility="collapsed",
                                     format_func=lambda i: t("vote.question_n", n=i + 1))
        status_col.markdown(f'<p class="room-status">{_escape(line)}</p>', unsafe_allow_html=True)
        if offered == ("reset",):
            button(reset_col, "reset")
        with exp_col:
            if st.button(t("vote.question" if experiment else "vote.experiment"), key=f"room_exp_{pick.id}",
                         icon=":material/bar_chart:", width="stretch"):
                (shown.discard if experiment else shown.add)(page.section)
                st.rerun(scope="app")
        if experiment:
            st.markdown(f"**{plain.literal(questions.title(t, pick.question, pick.values))}**")
            return
        # A paragraph, not a div: Streamlit's Markdown pulls the next element up by a paragraph's margin.
        st.markdown(f'<p class="room-q">{_escape(questions.title(t, pick.question, pick.values))}</p>', unsafe_allow_html=True)
        if offered != ("reset",):
            for column, name in zip(st.columns(len(offered)), offered):
                button(column, name)
        if snap.revealed:
            st.markdown(shift_line(page, pick, live))
        if snap.revealed or vote.shown:
            answer = pick.answer if snap.revealed else None
            widgets.chart(page, charts.votes(pick.question, live.first, list(snap.values), t, answer=answer,
                                             narrow=page.phone))
        else:
            st.caption(t("vote.hidden"))


def _escape(text: str) -> str:
    return html.escape(text).replace("**", "")


JOIN_CODE = "room_join_code"  # the code a student types to join
# Room for a code typed in two halves as a projector shows it ("K7M Q3D", "K7M-Q3D") and a stray space either
# side: the box must not cut "ABC DEF" to "ABC DE" before the spaces and dashes are taken out.
JOIN_CHARS = 2 * room_code.CODE_LENGTH


def _join_form(page) -> None:
    """Join by the room's code, typed: for a student who cannot scan the QR code (no camera, a screen reader,
    the keyboard alone). Enter sends it."""
    t = page.t
    with st.form(key="room_join_form", border=False, enter_to_submit=True):
        st.text_input(t("access.join_code"), key=JOIN_CODE, max_chars=JOIN_CHARS,
                      placeholder=t("access.join_code_placeholder"), help=t("access.join_code_help"))
        st.form_submit_button(t("access.join"), key="room_join", on_click=_join_by_code)
    if st.session_state.get(_JOIN_BAD):
        st.caption(t("access.join_code_bad", n=room_code.CODE_LENGTH))


_JOIN_BAD = "_room_join_bad"


def _join_by_code() -> None:
    """The typed code becomes the address's `room`, as a join link's: the run it starts joins the room (session.arrive)."""
    state = st.session_state
    code = re.sub(r"[\s-]", "", str(state.get(JOIN_CODE) or "")).upper()
    state[_JOIN_BAD] = re.fullmatch(room_code.CODE_PATTERN, code) is None
    if state[_JOIN_BAD]:
        return
    state.pop("_room_tried", None)  # session.TRIED: a code typed again is asked again
    state["room"] = code
    st.query_params["room"] = code


def class_section(page, seat, *, actions: Mapping[str, Callable[..., Any]], following: bool,
                  note: str | None, link: str | None) -> None:
    """The sidebar's class section: start a class; the instructor's code, Close and one-time link; a student's code, Leave and Follow."""
    t = page.t
    if seat is None:
        if note:
            st.caption(t(note))
        # Folded outside a class: every page's run draws the sidebar, and its Start button and join form were
        # five elements of it, which a closed box replaces with its label. Opening it reruns the page.
        box = widgets.folded(t("room.section_closed"), "room_class", icon=":material/groups:")
        if box.open:
            with box:
                st.button(t("room.start"), key="room_start", on_click=actions["start"], args=(page,),
                          help=t("room.start_help"))
                _join_form(page)
        return
    st.markdown(f"### {t('room.section')}")
    if note:
        st.caption(t(note))
    if seat.role == "instructor":
        st.markdown(t("room.instructor_of", code=seat.code))
        if link:
            # A link, never its text: the sidebar is on the projector, and the link leads the room once.
            st.caption(t("room.take_once"))
            st.link_button(t("room.take_link"), link, icon=":material/link:", width="stretch")
        else:
            st.button(t("room.take"), key="room_take", on_click=actions["take"], args=(page,),
                      help=t("room.take_help"))
        st.button(t("room.close"), key="room_close", on_click=actions["close"], args=(page,),
                  help=t("room.close_help"))
        return
    st.markdown(t("room.student_of", code=seat.code))
    st.toggle(t("room.follow"), value=following, key="_room_follow_widget", on_change=actions["follow"],
              help=t("room.follow_help"))
    st.button(t("room.leave"), key="room_leave", on_click=actions["leave"], args=(page,))


def door(page, seats, *, actions: Mapping[str, Callable[..., Any]]) -> None:
    """The instructor's seats: how many are here of those joined, the door (lock / open), the unanswered seats given up.

    `seats` is a store.Seats, or None when the store could not say (then only a short note)."""
    t = page.t
    if seats is None:
        st.caption(t("room.unavailable"))
        return
    st.caption(t("room.seats_here", here=seats.here, held=seats.held)
               + (f" · {t('room.door_locked')}" if seats.locked else ""))
    left, right = st.columns(2)
    left.button(t("room.door_open" if seats.locked else "room.door_lock"), key="room_door",
                on_click=actions["door"], args=(page, not seats.locked),
                help=t("room.door_open_help" if seats.locked else "room.door_lock_help"), width="stretch")
    right.button(t("room.drop", n=seats.silent), key="room_drop", on_click=actions["drop"], args=(page,),
                 disabled=seats.silent == 0, help=t("room.drop_help"), width="stretch")
