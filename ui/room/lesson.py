"""A lesson in a class room, on the Streamlit side: the instructor picks a plan (ui/room/plan.py) and moves
through it with Previous/Next, every student of the room following by default; the lesson built from the
views on screen, shared as a link; the room's results, with their CSV.

Called once per whole run from ui.room.room.sidebar, which hands itself in as `room` (this module is below
it): `arrive(page, room)`, `sidebar(page, seat, room)` (in the sidebar), `bar(page, seat, room)` (top of the
instructor's page), `student(page, seat, room)` (a student's default to follow a lesson).
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from ui import widgets
from ui.registry import catalog, links, query
from ui.room import plan, results, store, views

LESSON = "_room_lesson"  # the instructor's (lesson id, step index)
STEP_QUESTIONS = "_room_step_questions"  # the question keys the step puts up first
BUILT = "_room_built"  # the views this session added to a lesson of its own: [(section, params, questions)]
LINKED = "_room_linked"  # a lesson opened from a link's `plan=` (plan.Lesson)
SWITCH = "_room_step_page"  # a step on another page, chosen in a callback: (section, settings), opened by the run
FOLLOWED = "_room_lesson_followed"  # a student: the lesson whose default (following) was applied
PLAN = "plan"  # the query parameter of a lesson shared as a link
LINK_ID = "link"  # the id of a lesson that came in a link
MAX_BUILT = plan.MAX_STEPS


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


def arrive(page, room: Any) -> None:
    """A step chosen on another page is opened; a link's `plan=`: the lesson kept in the session (out of the address), or a note."""
    _switch(page, room)
    raw = query.text(PLAN, most=100_000)  # a longer one is refused by plan.decode, with a note
    if raw is None:
        return
    query.set_value(PLAN, None)
    try:
        st.session_state[LINKED] = plan.decode(raw)
        st.session_state[room.NOTE] = "lesson.linked"
    except plan.PlanError:
        st.session_state[room.NOTE] = "lesson.bad_link"


def current(page) -> tuple[str, plan.Lesson, int] | None:
    """The instructor's lesson (its key among `lessons()`, the lesson) and step index, or None."""
    held = st.session_state.get(LESSON)
    if not (isinstance(held, tuple) and len(held) == 2):
        return None
    found = lessons().get(held[0])
    if found is None or not 0 <= held[1] < len(found.steps):
        return None
    return held[0], found, held[1]


def go(page, seat: Any, key: str, index: int, room: Any) -> None:
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
    if room._key_action(page, "set_lesson", found.id, index) != store.Status.OK:
        return
    state = st.session_state
    state[LESSON] = (key, index)
    state[STEP_QUESTIONS] = tuple(step.questions)
    for name in [k for k in state.keys() if isinstance(k, str) and k.startswith("_room_pick:")]:
        del state[name]  # the step's own question goes up first
    if step.section == page.section:
        room._apply_here(step.section, dict(step.settings))
    else:
        state[SWITCH] = (step.section, dict(step.settings))


def _switch(page, room: Any) -> None:
    """A step on another page (set by `go`): its settings wait for it, and the page is opened."""
    pending = st.session_state.pop(SWITCH, None)
    seat = None if pending is None else room.current(page)
    if seat is None:
        return
    section, params = pending
    links.apply(section, params)
    st.switch_page(catalog.page_path(section), query_params={**links.app_link_params(page), "room": seat.code})


def _start(page, seat: Any, room: Any) -> None:
    go(page, seat, st.session_state.get("room_lesson_pick"), 0, room)


def end(page, room: Any) -> None:
    if room._key_action(page, "set_lesson", None, None) == store.Status.OK:
        st.session_state.pop(LESSON, None)
        st.session_state.pop(STEP_QUESTIONS, None)


def bar(page, seat: Any, room: Any) -> None:
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
                    icon=":material/arrow_back:", on_click=go, args=(page, seat, key, index - 1, room))
        where.markdown(t("lesson.where", title=_title(page, lesson), n=index + 1, total=len(lesson.steps)))
        if step.note:
            with note.popover(t("lesson.note"), width="stretch"):
                st.markdown(step.note.get(page.lang) or next(iter(step.note.values())))
        forth.button(t("lesson.next"), key="room_lesson_next", disabled=index + 1 >= len(lesson.steps),
                     width="stretch", icon=":material/arrow_forward:", type="primary",
                     on_click=go, args=(page, seat, key, index + 1, room))


def sidebar(page, seat: Any | None, room: Any) -> None:
    """The sidebar's lesson part: build a lesson from views (anyone); start or end one, and the results (the instructor)."""
    t = page.t
    instructor = seat is not None and room.is_instructor(page)
    if instructor:
        held = current(page)
        found = lessons()
        if held is None and found:
            ids = list(found)
            st.selectbox(t("lesson.pick"), ids, format_func=lambda i: _title(page, found[i]), key="room_lesson_pick")
            st.button(t("lesson.start"), key="room_lesson_start", help=t("lesson.start_help"), on_click=_start,
                      args=(page, seat, room))
        elif held is not None:
            st.button(t("lesson.end"), key="room_lesson_end", on_click=end, args=(page, room))
        if st.button(t("results.open"), key="room_results", icon=":material/table_chart:"):
            results_dialog(page, seat, room)
    _builder(page)


def _builder(page) -> None:
    """A lesson of one's own: add the view on screen as a step; the link carries them all."""
    t = page.t
    built = st.session_state.setdefault(BUILT, [])
    # A label that never changes: a box whose label changes is a new box, drawn closed.
    box = widgets.folded(t("lesson.build"), "lesson_build", icon=":material/playlist_add:")
    if not box.open:
        return
    with box:
        view = (page.section, links.view_params(page.section), tuple(st.session_state.get(STEP_QUESTIONS, ())))
        st.caption(t("lesson.build_steps", n=len(built)))
        add, clear = st.columns(2)
        # Callbacks: the count above is drawn after them, with the press counted.
        add.button(t("lesson.add"), key="room_lesson_add", disabled=len(built) >= MAX_BUILT or page.section not in
                   plan._sections() or page.section in ("home", "glossary"),
                   on_click=_add, args=((view[0], dict(view[1]), ()),))
        clear.button(t("lesson.clear"), key="room_lesson_clear", disabled=not built, on_click=_clear)
        if built:
            try:
                link = plan.encode(plan.built("mine", [(s, p, q) for s, p, q in built]))
            except plan.PlanError as e:
                st.caption(str(e))
                return
            st.caption(t("lesson.link_help"))
            st.code(views.address(st.context.url, {"plan": link}), language=None, wrap_lines=True)


def _add(view: tuple) -> None:
    built = st.session_state.setdefault(BUILT, [])
    if len(built) < MAX_BUILT:
        built.append(view)


def _clear() -> None:
    st.session_state[BUILT] = []


def student(page, seat: Any, room: Any) -> None:
    """In a lesson a student follows the instructor by default (once per lesson: turning it off is stepping aside)."""
    try:
        held = room._call("lesson", seat.code)
    except room.Unavailable:
        return
    state = st.session_state
    if held is None or state.get(FOLLOWED) == held[0]:
        return
    state[FOLLOWED] = held[0]
    state[room.FOLLOW] = True
    state.pop("_room_follow_widget", None)  # the toggle is drawn from FOLLOW
    state.pop(room.SEEN, None)  # to where the instructor is now


def text(page, row: results.Row) -> str:
    """A results row's question as the instructor's language writes it (its key when the text cannot be made)."""
    try:
        return page.t(row.key, **dict(row.values)) if row.key else row.question_id
    except (KeyError, IndexError, ValueError):
        return row.key


@st.dialog(" ", width="large")
def results_dialog(page, seat: Any, room: Any) -> None:
    """The room's results: per question and vote the votes and the share right, the most missed, the CSV."""
    t = page.t
    st.markdown(f"### {t('results.title', code=seat.code)}")
    tallies = room.room_results(page)
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
            st.markdown(f"- {text(page, row)} — {t('vote.right', share=f'{round(row.share * 100)}%')}")
    st.dataframe(frame, hide_index=True, width="stretch")
    st.download_button(t("common.download_csv"), frame.to_csv(index=False).encode("utf-8"),
                       file_name=f"class_{seat.code}_results.csv", mime="text/csv", key="room_results_csv",
                       on_click="ignore")
