"""A lesson in a class room, on the Streamlit side: the instructor picks a plan (ui/room/plan.py) and moves
through it with Previous/Next, every student of the room following by default; the room's results, with their
CSV. The lesson built from the views on screen, shared as a link, is ui/room/lesson_builder.py's.

Called once per whole run from ui/room/session.py's `sidebar`: `arrive`, `sidebar` (in the sidebar), `bar` (top of
the instructor's page), `student` (a student's default to follow a lesson).
"""
from __future__ import annotations

import time
from typing import Any

import pandas as pd
import streamlit as st

from ui.base import text as plain
from ui.registry import catalog, links, query
from ui.room import follow, lesson_builder, plan, results, seating, store

LESSON = "_room_lesson"  # the instructor's (lesson id, step index)
STEP_QUESTIONS = "_room_step_questions"  # the question keys the step puts up first
ROOM_ASKS = "_room_teacher_questions"  # a student's last read of the room's teacher questions: (where, when, found)
ROOM_ASKS_FOR = 3.0  # seconds a read of them is kept; none found is read again on the next run
LINKED = "_room_linked"  # a lesson opened from a link's `plan=` (plan.Lesson)
LINK_REFUSED = "_room_link_refused"  # why a link's `plan=` was not loaded (plan.PlanError's line), said once
SWITCH = "_room_step_page"  # a step on another page, chosen in a callback: (section, settings), opened by the run
FOLLOWED = "_room_lesson_followed"  # a student: the lesson whose default (following) was applied
PLAN = "plan"  # the query parameter of a lesson shared as a link
LINK_ID = "link"  # the id of a lesson that came in a link


def lessons() -> dict[str, plan.Lesson]:
    """The lessons this instructor may start: the repo's files, then one opened from a link."""
    found, _bad = _shipped()
    linked = st.session_state.get(LINKED)
    return {**found, **({LINK_ID: linked} if isinstance(linked, plan.Lesson) else {})}


@st.cache_resource(show_spinner=False, ttl=60)
def _shipped() -> tuple[dict[str, plan.Lesson], list[str]]:
    # Read once a minute at most: an instructor who edits a file sees it without restarting.
    return plan.shipped()


def _title(page, lesson: plan.Lesson) -> str:
    if lesson.title:
        return lesson.title.get(page.lang) or next(iter(lesson.title.values()))
    return page.t("lesson.from_link", n=len(lesson.steps))


def arrive(page) -> None:
    """A step chosen on another page is opened; a link's `plan=`: the lesson kept in the session (out of the address), or a note."""
    _switch(page)
    raw = query.text(PLAN, most=100_000)  # a longer one is refused by plan.decode, with a note
    if raw is None:
        return
    query.set_value(PLAN, None)
    try:
        st.session_state[LINKED] = plan.decode(raw)
        st.session_state[seating.NOTE] = "lesson.linked"
    except plan.PlanError as e:  # plan.decode checks every field: a crafted link is this, never a traceback
        st.session_state[LINK_REFUSED] = str(e)


def current(page) -> tuple[str, plan.Lesson, int] | None:
    """The instructor's lesson (its key among `lessons()`, the lesson) and step index, or None."""
    held = st.session_state.get(LESSON)
    if not (isinstance(held, tuple) and len(held) == 2):
        return None
    found = lessons().get(held[0])
    if found is None or not 0 <= held[1] < len(found.steps):
        return None
    return held[0], found, held[1]


def go(page, key: str, index: int) -> None:
    """Move the instructor to step `index` of lesson `key`: the page and its settings; the room's followers come along.

    A button's callback (Start, Previous, Next), so it runs before the run draws anything. A step on the
    page on screen sets the controls' values there, and the run that follows draws them and writes the
    address: no second run in between, whose request a live part's tick (every 2 s, carrying the
    browser's values of every control, the old ones) could join and undo the step. A step on another
    page is left to the run (`arrive`): a page is switched in a run, not in a callback.
    """
    found = lessons().get(key)
    if found is None or not 0 <= index < len(found.steps):
        return
    step = found.steps[index]
    if seating._key_action(page, "set_lesson", found.id, index) != store.Status.OK:
        return
    state = st.session_state
    state[LESSON] = (key, index)
    state[STEP_QUESTIONS] = tuple(step.questions) + tuple(a.key for a in step.asks)
    for name in [k for k in state.keys() if isinstance(k, str) and k.startswith("_room_pick:")]:
        del state[name]  # the step's own question goes up first
    if step.section == page.section:
        follow._apply_here(step.section, dict(step.settings))
    else:
        state[SWITCH] = (step.section, dict(step.settings))


def step_here(page) -> plan.Step | None:
    """The instructor's lesson step, when it is on this page at this page's settings and asks questions of its own.

    A step's settings are its view: moved off them, its asks are not the page's measurement any more, so they
    step aside until the view is back.
    """
    held = current(page)
    if held is None:
        return None
    found = held[1].steps[held[2]]
    if found.section != page.section or not found.asks:
        return None
    return found if plan.values(page.section, found.settings) == links.values(page.section) else None


def room_questions(page, room: Any) -> list[tuple[str, Any]]:
    """A student's view of the teacher's questions the instructor put up on this page: (id, Question).

    The room keeps what each shown question asks (ui/room/results.about), so a student asks the same question
    whether the lesson came from a file or a link only the instructor opened. Read again every few seconds.
    """
    seat = room.current(page)
    if seat is None or room.is_instructor(page):
        return []
    now = time.monotonic()
    held = st.session_state.get(ROOM_ASKS)
    if isinstance(held, tuple) and held[0] == (seat.code, page.section) and now - held[1] < ROOM_ASKS_FOR and held[2]:
        return held[2]
    try:
        rows = room._call("teacher_questions", seat.code, page.section)
    except room.Unavailable:
        rows = []
    found = [(qid, q) for qid, about in rows if (q := results.question_of(about)) is not None and q.text]
    st.session_state[ROOM_ASKS] = ((seat.code, page.section), now, found)
    return found


def _switch(page) -> None:
    """A step on another page (set by `go`): its settings wait for it, and the page is opened."""
    pending = st.session_state.pop(SWITCH, None)
    seat = None if pending is None else seating.current(page)
    if seat is None:
        return
    section, params = pending
    links.apply(section, params)
    st.switch_page(catalog.page_path(section), query_params={**links.app_link_params(page), "room": seat.code})


def _start(page) -> None:
    go(page, st.session_state.get("room_lesson_pick"), 0)


def end(page) -> None:
    if seating._key_action(page, "set_lesson", None, None) == store.Status.OK:
        st.session_state.pop(LESSON, None)
        st.session_state.pop(STEP_QUESTIONS, None)


def bar(page) -> None:
    """Top of the instructor's page in a lesson: Previous, where the lesson is, the note (folded), Next."""
    held = current(page)
    if held is None:
        return
    key, lesson, index = held
    t = page.t
    step = lesson.steps[index]
    with st.container(key="room_lesson_bar"):
        back, where, note, forth = st.columns([2, 6, 2, 2], vertical_alignment="center")
        back.button(t("lesson.previous"), key="room_lesson_prev", disabled=index == 0, width="stretch",
                    icon=":material/arrow_back:", on_click=go, args=(page, key, index - 1))
        # A title and a note are the teacher's text (a file's or a link's): shown as typed, never as markup.
        where.markdown(t("lesson.where", title=plain.literal(_title(page, lesson)), n=index + 1,
                         total=len(lesson.steps)))
        if step.note:
            with note.popover(t("lesson.note"), width="stretch"):
                st.markdown(plain.literal(step.note.get(page.lang) or next(iter(step.note.values()))))
        forth.button(t("lesson.next"), key="room_lesson_next", disabled=index + 1 >= len(lesson.steps),
                     width="stretch", icon=":material/arrow_forward:", type="primary",
                     on_click=go, args=(page, key, index + 1))


def sidebar(page, seat: seating.Seat | None) -> None:
    """The sidebar's lesson part: build a lesson from views (anyone); start or end one, and the results (the instructor)."""
    t = page.t
    refused = st.session_state.pop(LINK_REFUSED, None)
    if refused:
        st.caption(t("lesson.link_refused", reason=plain.literal(refused)))
    if seat is not None and seating.is_instructor(page):
        held = current(page)
        found = lessons()
        for line in _shipped()[1]:  # a file in lessons/ that does not check out is left out, and named
            st.caption(t("lesson.file_left_out", reason=plain.literal(line)))
        if held is None and found:
            ids = list(found)
            st.selectbox(t("lesson.pick"), ids, format_func=lambda i: _title(page, found[i]), key="room_lesson_pick")
            st.button(t("lesson.start"), key="room_lesson_start", help=t("lesson.start_help"), on_click=_start,
                      args=(page,))
        elif held is not None:
            st.button(t("lesson.end"), key="room_lesson_end", on_click=end, args=(page,))
        if st.button(t("results.open"), key="room_results", icon=":material/table_chart:"):
            results_dialog(page, seat)
    lesson_builder.draw(page)


def student(page, seat: seating.Seat) -> None:
    """In a lesson a student follows the instructor by default (once per lesson: turning it off is stepping aside)."""
    try:
        held = seating._call("lesson", seat.code)
    except seating.Unavailable:
        return
    state = st.session_state
    if held is None or state.get(FOLLOWED) == held[0]:
        return
    state[FOLLOWED] = held[0]
    state[seating.FOLLOW] = True
    state.pop("_room_follow_widget", None)  # the toggle is drawn from FOLLOW
    state.pop(seating.SEEN, None)  # to where the instructor is now


def text(page, row: results.Row) -> str:
    """A results row's question as the instructor's language writes it (its key when the text cannot be made)."""
    if row.text:  # a teacher's question, as written
        return row.text.get(page.lang) or next(iter(row.text.values()))
    try:
        return page.t(row.key, **dict(row.values)) if row.key else row.question_id
    except (KeyError, IndexError, ValueError):
        return row.key


def _markdown(page, row: results.Row) -> str:
    """A results row's question for st.markdown: a teacher's text (or a bare id) as typed, a locale sentence as is."""
    said = text(page, row)
    return plain.literal(said) if row.text or not row.key else said


# A cell a spreadsheet would read as a formula (OWASP's "CSV injection"): a teacher's question text, a measure's
# name or an option id is written by someone, and "=HYPERLINK(...)" in a cell runs when the CSV is opened.
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _inert(cell: Any) -> Any:
    """A text cell a spreadsheet takes as written: an apostrophe before a leading = + - @ tab or CR, unless the
    text is a plain number ("-0.5" stays a number)."""
    if not isinstance(cell, str) or not cell.startswith(_FORMULA):
        return cell
    try:
        float(cell)
    except ValueError:
        return "'" + cell
    return cell


def csv_bytes(frame: Any) -> bytes:
    """The results' CSV (UTF-8): every text cell made inert; the table on screen keeps the text as written."""
    out = frame.copy()
    for column in out.columns:
        if pd.api.types.is_object_dtype(out[column]) or pd.api.types.is_string_dtype(out[column]):
            out[column] = out[column].map(_inert)
    return out.to_csv(index=False).encode("utf-8")


@st.dialog(" ", width="large")
def results_dialog(page, seat: seating.Seat) -> None:
    """The room's results: per question and vote the votes and the share right, the most missed, the CSV."""
    t = page.t
    st.markdown(f"### {t('results.title', code=seat.code)}")
    tallies = seating._key_action(page, "results")  # every question shown or answered, with each vote's guesses
    if tallies is None:
        st.caption(t("room.unavailable"))
        return
    table = results.rows(tallies)
    if not table:
        st.caption(t("results.none"))
        return
    frame = results.frame(table, lambda r: text(page, r))
    missed = results.most_wrong(table)
    if missed:
        st.markdown(t("results.most_wrong"))
        for row in missed:
            st.markdown(f"- {_markdown(page, row)} — {t('vote.right', share=f'{round(row.share * 100)}%')}")
    st.dataframe(frame, hide_index=True, width="stretch")
    st.download_button(t("common.download_csv"), csv_bytes(frame),
                       file_name=f"class_{seat.code}_results.csv", mime="text/csv", key="room_results_csv",
                       on_click="ignore")
