"""The sidebar's "Build a lesson" box: a lesson of one's own made from the views on screen, with questions on the
page's measures, shared as a link or a lesson file.

Anyone may build one, in a room or not: ui/room/lesson.py's `sidebar` draws the box (`draw`). Each press adds to
the session's list (BUILT); the link (`plan=`) and the file are made from it, checked as a lesson file is.
"""
from __future__ import annotations

import dataclasses
from typing import Any

import streamlit as st

from ui import widgets
from ui.base import i18n
from ui.base import text as plain
from ui.registry import catalog, links, measures
from ui.questions import teacher
from ui.questions.teacher import RULES
from ui.room import plan, views

BUILT = "_room_built"  # the views this session added to a lesson of its own: [(section, params, questions, asks)]
ASK_NOTE = "_room_ask_note"  # the builder's word on the last question it was asked to add: (locale key, values)
MAX_BUILT = plan.MAX_STEPS


def draw(page) -> None:
    """A lesson of one's own: add the view on screen as a step; the link carries them all."""
    t = page.t
    built = st.session_state.setdefault(BUILT, [])
    # A label that never changes: a box whose label changes is a new box, drawn closed.
    box = widgets.folded(t("lesson.build"), "lesson_build", icon=":material/playlist_add:")
    if not box.open:
        return
    with box:
        view = (page.section, links.view_params(page.section))
        st.caption(t("lesson.build_steps", n=len(built)))
        add, clear = st.columns(2)
        # Callbacks: the count above is drawn after them, with the press counted.
        add.button(t("lesson.add"), key="room_lesson_add", disabled=len(built) >= MAX_BUILT or page.section not in
                   catalog.CONTROLS or page.section in ("home", "glossary"),
                   on_click=_add, args=((view[0], dict(view[1]), (), []),))
        clear.button(t("lesson.clear"), key="room_lesson_clear", disabled=not built, on_click=_clear)
        _ask_form(page, built)
        if built:
            try:
                mine = plan.built("mine", [tuple(v) for v in built])
            except plan.PlanError as e:
                st.caption(plain.literal(str(e)))  # its line may quote what was typed
                return
            st.caption(t("lesson.link_help"))
            st.code(views.address(st.context.url, {"plan": plan.encode(mine)}), language=None, wrap_lines=True)
            st.download_button(t("lesson.download"), plan.to_toml(_as_file(mine)).encode("utf-8"),
                               file_name="my_lesson.toml", mime="application/toml", key="room_lesson_toml",
                               on_click="ignore", icon=":material/download:")


def _as_file(mine: plan.Lesson) -> plan.Lesson:
    """A built lesson as a file holds it: a title and a note per step in both languages, for the teacher to edit."""
    t = {lang: i18n.Translator(lang) for lang in i18n.LANGS}
    steps = tuple(dataclasses.replace(s, note={lang: t[lang]("lesson.built_note", n=n, asks=len(s.asks))
                                               for lang in i18n.LANGS})
                  for n, s in enumerate(mine.steps, 1))
    return dataclasses.replace(mine, title={lang: t[lang]("lesson.built_title") for lang in i18n.LANGS}, steps=steps)


def _ask_form(page, built: list) -> None:
    """"Add a question": one of this page's measures, the text students read, and what counts as right."""
    declared = measures.of(page.section)
    if not declared:
        return
    t = page.t
    st.markdown(f"**{t('lesson.ask_heading')}**")
    here = links.values(page.section)
    ids = [m.id for m in declared]
    picked = st.selectbox(t("lesson.ask_measure"), ids, key="lesson_ask_measure",
                          format_func=lambda i: t(f"measures.{page.section}_{i}"))
    m = measures.get(page.section, picked) or declared[0]
    if m.index and m.indices:
        st.selectbox(t("lesson.ask_where", index=t(f"measures.index_{m.index}")), list(m.indices(here)), key="lesson_ask_where")
    st.text_input(t("lesson.ask_text"), max_chars=teacher.MAX_TEXT, key="lesson_ask_text",
                  placeholder=t("lesson.ask_text_placeholder"))
    if m.kind == "number":
        st.radio(t("lesson.ask_rule"), RULES, key="lesson_ask_rule", format_func=lambda r: t(f"lesson.ask_rule_{r}"))
        st.number_input(t("lesson.ask_value"), min_value=0.0, max_value=1e12, value=10.0, key="lesson_ask_value")
    else:
        st.multiselect(t("lesson.ask_options"), list(m.words(here) if m.words else ()), key="lesson_ask_options",
                       max_selections=teacher.MAX_OPTIONS)
    st.button(t("lesson.ask_add"), key="lesson_ask_add", on_click=_add_ask, args=(page,), icon=":material/add:")
    said = st.session_state.get(ASK_NOTE)
    if isinstance(said, tuple) and len(said) == 2:
        # A reason may quote what was typed (an option, a measure's name): shown as typed.
        st.caption(t(said[0], **{k: plain.literal(v) if isinstance(v, str) else v for k, v in said[1].items()}))


def _add_ask(page) -> None:
    """The button's callback: the question checked as a lesson file's would be, then added to this view's step."""
    state, section = st.session_state, page.section
    m = measures.get(section, state.get("lesson_ask_measure"))
    if m is None:
        return
    raw: dict[str, Any] = {"measure": m.id, "text": {page.lang: str(state.get("lesson_ask_text") or "")}}
    if m.index:
        raw["where"] = {m.index: state.get("lesson_ask_where")}
    if m.kind == "number":
        rule = state.get("lesson_ask_rule") if state.get("lesson_ask_rule") in RULES else RULES[0]
        value = state.get("lesson_ask_value")
        if rule == "relative" and isinstance(value, (int, float)) and value > 100:
            # The box is in percent here; a file's `relative` is a fraction, and the check's words would say so.
            state[ASK_NOTE] = ("lesson.ask_percent", {})
            return
        raw[rule] = float(value) / 100 if rule == "relative" and isinstance(value, (int, float)) else value
    else:
        raw["options"] = list(state.get("lesson_ask_options") or [])
    here = links.values(section)
    try:
        checked = teacher.ask(raw, section, here)
    except teacher.AskError as e:
        state[ASK_NOTE] = ("lesson.ask_bad", {"reason": str(e)})
        return
    built = state.setdefault(BUILT, [])
    params = dict(links.view_params(section))
    if sum(len(v[3]) for v in built if len(v) > 3) >= teacher.MAX_ASKS:
        state[ASK_NOTE] = ("lesson.ask_full", {"most": teacher.MAX_ASKS})
        return
    if built and built[-1][0] == section and dict(built[-1][1]) == params and len(built[-1]) > 3:
        # The same question twice in a step is refused by plan.step (the page would draw it twice): say so here.
        if any(teacher.ask(a, section, here).key == checked.key for a in built[-1][3]):
            state[ASK_NOTE] = ("lesson.ask_twice", {})
            return
        built[-1][3].append(raw)
    elif len(built) < MAX_BUILT:
        built.append((section, params, (), [raw]))
    else:
        state[ASK_NOTE] = ("lesson.ask_full", {"most": MAX_BUILT})
        return
    state[ASK_NOTE] = ("lesson.ask_added", {"n": len(built), "asks": len(built[-1][3])})
    state["lesson_ask_text"] = ""


def _add(view: tuple) -> None:
    built = st.session_state.setdefault(BUILT, [])
    if len(built) < MAX_BUILT:
        built.append(view)


def _clear() -> None:
    st.session_state[BUILT] = []
