"""Predict, then measure: a page's questions, asked before the page shows what answers them.

A page draws its questions near its top with `questions(page, asked, slot)`, and what gives an answer
away only `if quiz.shown(page, asked):` — always outside a class room, unless "ask me first" is on;
in a class room, once the student has committed a guess or chosen to look.

Guesses live in the session under their question's id (`Asked.id`): another setting asks again, and
coming back to a setting remembers the guess. In a class room a committed guess also goes to the room,
and "stored" is said only when the room acknowledged it.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

from ui import widgets
from ui.base import text
from ui.base.page import Page
from ui.questions import (GUESSES, Asked, explain, option_text, shown_value, teacher, title, tolerance_text,
                          unit_text, whole)
from ui.questions import chart as charts
from ui.registry import links
from ui.room import lesson
from ui.room import session as room

ERRORS = "_ask_errors"  # id -> locale key of the message for a guess just refused
LIMIT = 300  # guesses kept per session; the oldest go first


@dataclass(frozen=True)
class Answer:
    """What the student did with one question: a guess, or None for "show me without guessing"."""

    guess: float | str | None
    stored: bool | None = None  # in a class room: did the room keep the guess; None outside one
    message: str | None = None  # the room's word about it (a locale key), if any
    round: int = 1  # in a class room: the vote the guess was stored in (2: the question's second vote)


def asks_first(page: Page) -> bool:
    """Ask before showing: in a class room always; outside one when "ask me first" is on."""
    return room.current(page) is not None or bool(page.ask)


# --- the session's guesses ------------------------------------------------------------------------

def _answers() -> OrderedDict[str, Answer]:
    answers = st.session_state.get(GUESSES)
    if not isinstance(answers, OrderedDict):
        answers = OrderedDict()
        st.session_state[GUESSES] = answers
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


def _restore(page: Page, items: Iterable[Asked]) -> None:
    """In a class room, a guess this student's seat holds but this session does not (a reload): kept again, as stored."""
    if room.current(page) is None:
        return
    answers = _answers()
    for asked in items:
        if asked.id not in answers and (guess := room.own_guess(page, asked)) is not None:
            vote = room.vote(page, asked)  # the guess the seat holds is the current vote's
            _keep(asked, Answer(guess, True, None, vote.round if vote is not None else 1))


def shown(page: Page, asked: Asked | Iterable[Asked], note: bool = True) -> bool:
    """Whether to draw what answers these questions; when not, a one-line note (unless `note` is off) says why."""
    if not asks_first(page):
        return True
    items = (asked,) if isinstance(asked, Asked) else tuple(asked)
    _restore(page, items)
    answers = _answers()
    if all((a.id in answers and not _held(page, answers[a.id])) or _revealed(page, a) is not None for a in items):
        return True
    if note:
        st.caption(page.t("questions.folded"), help=page.t("questions.folded_help"))
    return False


def _held(page: Page, answer: Answer) -> bool:
    """A guess the class room kept waits for the Reveal: until then the page shows the student nothing that answers it.

    Peer instruction asks again after a discussion; a class that saw the measurement after the first
    vote would have nothing left to discuss. A look without guessing, or a guess the room did not
    keep, is answered at once.
    """
    return answer.guess is not None and bool(answer.stored) and room.current(page) is not None


def _vote(page: Page, asked: Asked) -> Any:
    """Where the question's vote stands in this student's room (ui.room.store.Vote), or None."""
    return room.vote(page, asked) if room.current(page) is not None else None


def _revealed(page: Page, asked: Asked) -> list[float | str] | None:
    """The class's guesses once the instructor has revealed this question (then nothing is folded); else None."""
    return room.revealed(page, asked) if room.current(page) is not None else None


def _input_key(asked: Asked) -> str:
    return f"_ask_in:{asked.id}"


def _commit(page: Page, asked: Asked) -> None:
    """The form's "commit" callback: parse the guess, refuse it with a message, or keep it (and send it to the room)."""
    raw = st.session_state.get(_input_key(asked))
    question = asked.question
    if isinstance(raw, str) and question.kind == "number":
        raw = raw.strip()  # commas: Question.parse reads them
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
    stored, message, vote = None, None, 1
    if room.current(page) is not None:
        ack = room.submit(page, asked, guess)  # the store unreachable: not stored, and the guess counts here
        stored, message, vote = bool(ack.stored), ack.message_key, ack.round
    _keep(asked, Answer(guess, stored, message, vote))


def _look(asked: Asked) -> None:
    st.session_state.setdefault(ERRORS, {}).pop(asked.id, None)
    _keep(asked, Answer(None))


def _again(asked: Asked) -> None:
    _answers().pop(asked.id, None)


# --- drawing --------------------------------------------------------------------------------------

def _form(page: Page, asked: Asked) -> None:
    t, question = page.t, asked.question
    with st.form(key=f"_ask_form:{asked.id}", border=False, enter_to_submit=True):
        if question.kind == "choice":
            st.radio(t("questions.your_guess"), question.options, index=None, key=_input_key(asked), horizontal=True,
                     format_func=lambda o: option_text(t, question.key, o), label_visibility="collapsed")
            commit, look, _ = st.columns(3)
        else:
            # The number and its two buttons on one line: a question stays a few lines tall on a projector.
            box, commit, look = st.columns([2, 2, 2], vertical_alignment="bottom")
            box.text_input(t("questions.your_number"), key=_input_key(asked), max_chars=24,
                           placeholder=t("questions.range", lo=whole(question.lo), hi=whole(question.hi),
                                         unit=unit_text(t, question)))
        commit.form_submit_button(t("questions.commit"), type="primary", key=f"_ask_commit:{asked.id}",
                                  on_click=_commit, args=(page, asked), width="stretch")
        look.form_submit_button(t("questions.look"), key=f"_ask_look:{asked.id}", on_click=_look, args=(asked,),
                                width="stretch")
    if question.kind == "number":  # on screen, not in a tooltip: a projector never shows one
        st.caption(tolerance_text(t, question))
    error = st.session_state.get(ERRORS, {}).get(asked.id)
    if error:
        st.warning(t(error, lo=whole(question.lo), hi=whole(question.hi), unit=unit_text(t, question)),
                   icon=":material/error:")


def _outcome(page: Page, asked: Asked, answer: Answer) -> None:
    t, question = page.t, asked.question
    guesses = _revealed(page, asked)
    if _held(page, answer) and guesses is None:
        st.info(t("vote.held", guess=shown_value(page, asked, answer.guess)), icon=":material/hourglass_top:")
        st.caption(t("questions.stored"))
        return
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
    if question.text and answer.guess is not None:  # a teacher's sentence for this outcome, as written
        said = teacher.outcome_text(question, question.is_right(answer.guess, asked.answer), page.lang)
        if said:
            st.markdown(text.literal(said))
    if answer.stored:
        st.caption(t("questions.stored"))
    elif answer.message:  # why the room did not keep it
        st.caption(t(answer.message))
    _class_guesses(page, asked, answer, guesses)
    if not answer.stored:  # a guess the class room kept stays as sent; any other may be tried again
        st.button(t("questions.again"), key=f"_ask_again:{asked.id}", on_click=_again, args=(asked,),
                  type="tertiary")


def _class_guesses(page: Page, asked: Asked, answer: Answer, guesses: list[float | str] | None) -> None:
    """After the instructor reveals: the class's guesses, the student's own and the measurement on one chart."""
    if not guesses:
        return
    frame = charts.guesses_frame(asked, list(guesses), answer.guess)
    widgets.chart(page, charts.guesses, frame, page.t, asked.question.key, asked.question.kind,
                  tuple(asked.question.options), page.phone)


def heading(page: Page, asked: Asked) -> str:
    """A question's text for st.markdown, in bold; a teacher's as written (never markup), marked as theirs."""
    said = title(page.t, asked.question, asked.values)
    if not asked.question.text:
        return f"**{said}**"
    return f"**{text.literal(said)}** · {page.t('questions.teacher_mark')}"


def teacher_asks(page: Page, measured: tuple[str, Mapping[str, Any]] | None) -> tuple[Asked, ...]:
    """The teacher's own questions whose measure this part's results hold: the instructor's lesson step's, or,
    for a student, those the instructor put up in the room at this view (none elsewhere)."""
    if measured is None:
        return ()
    part, results = measured
    step = lesson.step_here(page)
    if step is not None:
        return teacher.asked(page.section, part, results, step.asks, links.values(page.section))
    put_up = lesson.room_questions(page, room)
    if not put_up:  # most runs: no lesson step, no room question here (the settings are not read for nothing)
        return ()
    here = links.values(page.section)
    found = []
    for qid, q in put_up:
        a = teacher.asked_of(page.section, part, results, q, here)
        if a is not None and a.id == qid:  # the same view as the instructor's: the same id
            found.append(a)
    return tuple(found)


def questions(page: Page, asked: Iterable[Asked], slot: Any = None,
              measured: tuple[str, Mapping[str, Any]] | None = None) -> tuple[Asked, ...]:
    """Draw the page's questions (into `slot`, a container made near the page's top, when given).

    measured: (the part's name, its results) — a lesson step's teacher questions on this part's measures
    are asked with the built-in ones. Returns every question drawn, so the page can fold what answers them.
    """
    items = tuple(asked) + teacher_asks(page, measured)
    if not items:
        return items
    t = page.t
    with slot if slot is not None else st.container():
        if room.current(page) is not None and room.is_instructor(page):  # the presenter's view: no forms
            room.instructor_panel(page, list(items))
            return items
        # Folded, its forms are not drawn at all (a page's questions were a third of every rerun's work):
        # opening the box reruns the page's part that holds it, which then draws them.
        box = widgets.folded(t("questions.heading"), f"ask:{items[0].question.key}", expanded=asks_first(page),
                             icon=":material/quiz:")
        if box.open:
            _restore(page, items)
            with box:
                for a in items:
                    st.markdown(heading(page, a))
                    _ask_one(page, a)
    return items


def _ask_one(page: Page, asked: Asked) -> None:
    """One question's form or outcome; in a class room, as its vote stands (closed, or asked a second time)."""
    answer = answer_of(asked)
    vote = _vote(page, asked) if answer is None or _held(page, answer) else None
    if answer is not None and vote is not None and _held(page, answer) and answer.round < vote.round:
        answer = None  # the second vote: the first guess stays in the room's first vote, this one is asked anew
        if vote.open:
            st.caption(page.t("vote.again"), help=page.t("vote.again_help"))
    if answer is not None:
        _outcome(page, asked, answer)
    elif vote is not None and not vote.open:
        if _revealed(page, asked) is not None:
            _outcome(page, asked, Answer(None))
        else:
            st.caption(page.t("vote.closed_note"))
    else:
        _form(page, asked)
