"""What the class room draws: the sidebar's class section, the projector's join card, the instructor's
live panel (a student's view of the revealed guesses is ui/questions/quiz.py's). Drawing only: every store call is session.py's,
and the buttons call the actions they are handed."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlencode, urlsplit

import segno
import streamlit as st

from ui import questions, widgets
from ui.questions import Asked
from ui.room import chart as charts


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


def join_card(page, url: str, code: str) -> None:
    """Top of the instructor's page: the QR code and the short address of the page and settings on screen."""
    t = page.t
    with st.container(border=True, key="room_join_card"):
        qr, text = st.columns([1, 3], vertical_alignment="center")
        # An image of its own (st.image takes SVG text): the page's styles cannot reach into it.
        qr.image(qr_svg(url), width=180)
        with text:
            st.markdown(t("room.join_title", code=code))
            st.code(short(url), language=None, wrap_lines=True)
            st.caption(t("room.join_help"))


def panel(page, live: Sequence[tuple[Asked, Any]], *, on_reveal: Callable[..., Any],
          on_reset: Callable[..., Any]) -> None:
    """The instructor's live view: joined, answered and the distribution of each (question, store snapshot)."""
    t = page.t
    st.markdown(f"#### {t('room.panel_title')}")
    for asked, snap in live:
        question = asked.question
        with st.container(border=True):
            st.markdown(f"**{t(question.key, **asked.values)}**")
            st.caption(t("room.panel_counts", joined=snap.joined, answered=snap.answered))
            answer = asked.answer if snap.revealed else None
            widgets.chart(page, charts.distribution(question, list(snap.values), t, answer=answer))
            if snap.revealed:
                st.markdown(t("room.panel_measured", value=questions.shown_value(page, asked, asked.answer)))
            left, right = st.columns(2)
            left.button(t("room.reveal"), key=f"room_reveal_{asked.id}", disabled=snap.revealed,
                        on_click=on_reveal, args=(page, asked), type="primary")
            right.button(t("room.reset"), key=f"room_reset_{asked.id}", on_click=on_reset, args=(page, asked))


def class_section(page, seat, *, actions: Mapping[str, Callable[..., Any]], following: bool,
                  note: str | None, link: str | None) -> None:
    """The sidebar's class section: start a class; the instructor's code, Close and one-time link; a student's code, Leave and Follow."""
    t = page.t
    st.markdown(f"### {t('room.section')}")
    if note:
        st.caption(t(note))
    if seat is None:
        st.button(t("room.start"), key="room_start", on_click=actions["start"], args=(page,),
                  help=t("room.start_help"))
        return
    if seat.role == "instructor":
        st.markdown(t("room.instructor_of", code=seat.code))
        if link:
            st.caption(t("room.take_once"))
            st.code(link, language=None, wrap_lines=True)
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
