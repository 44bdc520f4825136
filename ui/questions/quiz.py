"""Predict, then measure: a page's questions, asked before the page shows what answers them.

A page computes its result, builds its questions from it (ui/questions/<page>.py), and draws them
near its top with `questions(page, asked, slot)`. What gives an answer away is drawn only
`if quiz.shown(page, asked):` — always outside a class room, unless "ask me first" is on (`ask=1`);
in a class room, only once the student has committed a guess or chosen to look.

Guesses live in the session under their question's id (`Asked.id`), so another setting asks
again and coming back to a setting remembers the guess. In a class room a committed guess also
goes to the room (ui/room/session.py); "stored" is said only when the room
acknowledged it.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from ui import widgets
from ui.base.page import Page
from ui.questions import Asked, explain, shown_value, tolerance_text
from ui.questions import chart as charts
from ui.room import session as room

STATE = "_ask"  # the session's guesses: id -> Answer, newest last (a page switch clears only declared controls)
ERRORS = "_ask_errors"  # id -> locale key of the message for a guess just refused
LIMIT = 300  # guesses kept per session; the oldest go first


@dataclass(frozen=True)
class Answer:
    """What the student did with one question: a guess, or None for "show me without guessing"."""

    guess: float | str | None
    stored: bool | None = None  # in a class room: did the room keep the guess; None outside one
    message: str | None = None  # the room's word about it (a locale key), if any


def asks_first(page: Page) -> bool:
    """Ask before showing: in a class room always; outside one when "ask me first" is on."""
    return room.current(page) is not None or bool(page.ask)


# --- the session's guesses ------------------------------------------------------------------------

def _answers() -> OrderedDict[str, Answer]:
    answers = st.session_state.get(STATE)
    if not isinstance(answers, OrderedDict):
        answers = OrderedDict()
        st.session_state[STATE] = answers
    return answers


def _keep(asked: Asked, answer: Answer) -> None:
    answers = _answers()
    answers.pop(asked.id, None)
    answers[asked.id] = answer
    while len(answers) > LIMIT:
        answers.popitem(last=False)


def answer_of(asked: Asked) -> Answer | None:
    """The student's answer to this question at these settings, if any."""
    return _answers().get(asked.id)


def shown(page: Page, asked: Asked | Iterable[Asked], note: bool = True) -> bool:
    """Whether to draw what answers these questions; when not, a one-line note (unless `note` is off) says why."""
    if not asks_first(page):
        return True
    items = (asked,) if isinstance(asked, Asked) else tuple(asked)
    answers = _answers()
    if all(a.id in answers or _revealed(page, a) is not None for a in items):
        return True
    if note:
        st.caption(page.t("questions.folded"), help=page.t("questions.folded_help"))
    return False


def _revealed(page: Page, asked: Asked) -> list[float | str] | None:
    """The class's guesses once the instructor has revealed this question (then nothing is folded); else None."""
    if room.current(page) is None:
        return None
    return room.revealed(page, asked)


def _input_key(asked: Asked) -> str:
    return f"_ask_in:{asked.id}"


def _commit(page: Page, asked: Asked) -> None:
    """The form's "commit" callback: parse the guess, refuse it with a message, or keep it (and send it to the room)."""
    raw = st.session_state.get(_input_key(asked))
    question = asked.question
    if isinstance(raw, str):
        raw = raw.strip().replace(",", "") if question.kind == "number" else raw
    guess = question.parse(raw)
    errors = st.session_state.setdefault(ERRORS, {})
    if len(errors) > LIMIT:  # refusals nobody came back to
        errors.clear()
    if guess is None:
        if question.kind == "choice":
            errors[asked.id] = "questions.pick_one"
        elif raw in (None, ""):
            errors[asked.id] = "questions.type_number"
        else:
            errors[asked.id] = "questions.bad_number"
        return
    errors.pop(asked.id, None)
    stored, message = None, None
    if room.current(page) is not None:
        ack = room.submit(page, asked, guess)  # the store unreachable: not stored, and the guess counts here
        stored, message = bool(ack.stored), ack.message_key
    _keep(asked, Answer(guess, stored, message))


def _look(asked: Asked) -> None:
    st.session_state.setdefault(ERRORS, {}).pop(asked.id, None)
    _keep(asked, Answer(None))


def _again(asked: Asked) -> None:
    _answers().pop(asked.id, None)


# --- drawing --------------------------------------------------------------------------------------

def _whole(x: float) -> float | int:
    """A bound as a sentence writes it: 100, not 100.0."""
    return int(x) if float(x).is_integer() else x


def _form(page: Page, asked: Asked) -> None:
    t, question = page.t, asked.question
    with st.form(key=f"_ask_form:{asked.id}", border=False, enter_to_submit=True):
        if question.kind == "choice":
            st.radio(t("questions.your_guess"), question.options, index=None, key=_input_key(asked), horizontal=True,
                     format_func=lambda o: t(f"{question.key}_opt_{o}"), label_visibility="collapsed")
            commit, look, _ = st.columns(3)
        else:
            # The number and its two buttons on one line: a question stays a few lines tall on a projector.
            box, commit, look = st.columns([2, 2, 2], vertical_alignment="bottom")
            unit = t(question.unit) if question.unit else ""
            box.text_input(t("questions.your_number"), key=_input_key(asked), max_chars=24,
                           placeholder=t("questions.range", lo=_whole(question.lo), hi=_whole(question.hi), unit=unit))
        commit.form_submit_button(t("questions.commit"), type="primary", key=f"_ask_commit:{asked.id}",
                                  on_click=_commit, args=(page, asked), width="stretch")
        look.form_submit_button(t("questions.look"), key=f"_ask_look:{asked.id}", on_click=_look, args=(asked,),
                                width="stretch")
    if question.kind == "number":  # on screen, not in a tooltip: a projector never shows one
        st.caption(tolerance_text(t, question))
    error = st.session_state.get(ERRORS, {}).get(asked.id)
    if error:
        unit = t(question.unit) if question.unit else ""
        st.warning(t(error, lo=_whole(question.lo), hi=_whole(question.hi), unit=unit), icon=":material/error:")


def _outcome(page: Page, asked: Asked, answer: Answer) -> None:
    t, question = page.t, asked.question
    measured = shown_value(page, asked, asked.answer)
    if answer.guess is None:
        st.info(t("questions.measured_only", measured=measured), icon=":material/visibility:")
    else:
        said = t("questions.guess_measured", guess=shown_value(page, asked, answer.guess), measured=measured)
        if question.is_right(answer.guess, asked.answer):
            st.success(f"{said} ✓")
        else:
            st.error(f"{said} ✗")
    st.markdown(explain(t, asked))
    if answer.stored:
        st.caption(t("questions.stored"))
    elif answer.message:  # why the room did not keep it
        st.caption(t(answer.message))
    _class_guesses(page, asked, answer)
    if not answer.stored:  # a guess the class room kept stays as sent; any other may be tried again
        st.button(t("questions.again"), key=f"_ask_again:{asked.id}", on_click=_again, args=(asked,),
                  type="tertiary")


def _class_guesses(page: Page, asked: Asked, answer: Answer) -> None:
    """After the instructor reveals: the class's guesses, the student's own and the measurement on one chart."""
    guesses = _revealed(page, asked)
    if not guesses:
        return
    frame = charts.guesses_frame(asked, list(guesses), answer.guess)
    widgets.chart(page, charts.guesses, frame, page.t, asked.question.key, asked.question.kind,
                  tuple(asked.question.options))


def questions(page: Page, asked: Iterable[Asked], slot: Any = None) -> None:
    """Draw the page's questions (into `slot`, a container made near the page's top, when given)."""
    items = tuple(asked)
    if not items:
        return
    t = page.t
    with slot if slot is not None else st.container():
        # Folded, its forms are not drawn at all (a page's questions were a third of every rerun's work):
        # opening the box reruns the page's part that holds it, which then draws them.
        box = widgets.folded(t("questions.heading"), f"ask:{items[0].question.key}", expanded=asks_first(page),
                             icon=":material/quiz:")
        if box.open:
            with box:
                for a in items:
                    st.markdown(f"**{t(a.question.key, **a.values)}**")
                    answer = answer_of(a)
                    if answer is None:
                        _form(page, a)
                    else:
                        _outcome(page, a, answer)
        if room.current(page) is not None:
            room.instructor_panel(page, list(items))
