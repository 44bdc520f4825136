"""Predict, then measure: a page's questions, asked before the page shows what answers them.

A page computes its result, builds its questions from it (ui/questions/<page>.py), and draws them
near its top with `questions(page, asked, slot)`. What gives an answer away is drawn only
`if ask.shown(page, asked):` — always outside a class room, unless "ask me first" is on (`ask=1`);
in a class room, only once the student has committed a guess or chosen to look.

Guesses live in the session under their question's id (`Asked.id`), so another setting asks
again and coming back to a setting remembers the guess. In a class room a committed guess also
goes to the room (ui.room.session, when that module exists); "stored" is said only when the room
acknowledged it.
"""
from __future__ import annotations

import functools
import importlib
import logging
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import streamlit as st

from ui import text, widgets
from ui.charts import questions as charts
from ui.questions import Asked
from ui.shell import Page

STATE = "_ask"  # the session's guesses: id -> Answer, newest last (a page switch clears only declared controls)
ERRORS = "_ask_errors"  # id -> locale key of the message for a guess just refused
LIMIT = 300  # guesses kept per session; the oldest go first

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Answer:
    """What the student did with one question: a guess, or None for "show me without guessing"."""

    guess: float | str | None
    stored: bool | None = None  # in a class room: did the room keep the guess; None outside one
    message: str | None = None  # the room's word about it (a locale key), if any
    round: int = 1  # in a class room: the vote the guess was stored in (2: the question's second vote)


# --- the class room, when its module exists -------------------------------------------------------

@functools.cache
def _room_module() -> ModuleType | None:
    try:
        return importlib.import_module("ui.room.session")
    except ImportError:  # the class room is not part of this build: pages work as they always did
        return None


def _room(page: Page) -> Any:
    module = _room_module()
    if module is None:
        return None
    try:
        return module.current(page)
    except Exception:  # a class feature failing must leave the page working
        _log.exception("class room: current() failed")
        return None


def asking(page: Page) -> bool:
    """Ask before showing: in a class room always; outside one when "ask me first" is on."""
    return _room(page) is not None or bool(page.ask)


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
    if not asking(page):
        return True
    items = (asked,) if isinstance(asked, Asked) else tuple(asked)
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
    return answer.guess is not None and bool(answer.stored) and _room(page) is not None


def _vote(page: Page, asked: Asked) -> Any:
    """Where the question's vote stands in this student's room (ui.room.store.Vote), or None."""
    module = _room_module()
    if module is None or _room(page) is None:
        return None
    try:
        return module.vote(page, asked)
    except Exception:
        _log.exception("class room: vote() failed")
        return None


def _instructor(page: Page) -> bool:
    module = _room_module()
    if module is None or _room(page) is None:
        return False
    try:
        return bool(module.is_instructor(page))
    except Exception:
        _log.exception("class room: is_instructor() failed")
        return False


def _revealed(page: Page, asked: Asked) -> list[float | str] | None:
    """The class's guesses once the instructor has revealed this question (then nothing is folded); else None."""
    module = _room_module()
    if module is None or _room(page) is None:
        return None
    try:
        return module.revealed(page, asked)
    except Exception:
        _log.exception("class room: revealed() failed")
        return None


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
    stored, message, vote = None, None, 1
    module = _room_module()
    if module is not None and _room(page) is not None:
        try:
            ack = module.submit(page, asked, guess)
            stored, message, vote = bool(ack.stored), ack.message_key, getattr(ack, "round", 1)
        except Exception:  # the store unreachable: the guess counts here, and is not called stored
            _log.exception("class room: submit() failed")
            stored, message = False, None
    _keep(asked, Answer(guess, stored, message, vote))


def _look(asked: Asked) -> None:
    st.session_state.setdefault(ERRORS, {}).pop(asked.id, None)
    _keep(asked, Answer(None))


def _again(asked: Asked) -> None:
    _answers().pop(asked.id, None)


# --- drawing --------------------------------------------------------------------------------------

def shown_value(page: Page, asked: Asked, value: float | str) -> str:
    """A guess or an answer as the page writes it: an option's label, or a number with its unit."""
    question = asked.question
    if question.kind == "choice":
        return page.t(f"{question.key}_opt_{value}")
    number = float(value)
    written = text.number(int(number)) if number.is_integer() and abs(number) < 1e15 else text.sig(number)
    unit = page.t(question.unit) if question.unit else ""
    return f"{written}{unit}" if unit in ("%", "") else f"{written} {unit}"


def _whole(x: float) -> float | int:
    """A bound or a tolerance as a sentence writes it: 100, not 100.0."""
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
                           placeholder=t("questions.range", lo=_whole(question.lo), hi=_whole(question.hi), unit=unit),
                           help=t("questions.tolerance", tolerance=_whole(question.tolerance), unit=unit))
        commit.form_submit_button(t("questions.commit"), type="primary", key=f"_ask_commit:{asked.id}",
                                  on_click=_commit, args=(page, asked), width="stretch")
        look.form_submit_button(t("questions.look"), key=f"_ask_look:{asked.id}", on_click=_look, args=(asked,),
                                width="stretch")
    error = st.session_state.get(ERRORS, {}).get(asked.id)
    if error:
        unit = t(question.unit) if question.unit else ""
        st.warning(t(error, lo=_whole(question.lo), hi=_whole(question.hi), unit=unit), icon=":material/error:")


def _outcome(page: Page, asked: Asked, answer: Answer) -> None:
    t, question = page.t, asked.question
    guesses = _revealed(page, asked) if _room(page) is not None else None
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
    why = t(asked.why, **asked.why_values)
    st.markdown(why[:1].upper() + why[1:])  # a verdict's claim may start in lower case
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


def questions(page: Page, asked: Iterable[Asked], slot: Any = None) -> None:
    """Draw the page's questions (into `slot`, a container made near the page's top, when given)."""
    items = tuple(asked)
    if not items:
        return
    t = page.t
    module = _room_module()
    if _instructor(page):  # the presenter's view: the instructor never answers, so no forms
        with slot if slot is not None else st.container():
            try:
                module.instructor_panel(page, list(items))
            except Exception:
                _log.exception("class room: instructor_panel() failed")
        return
    with slot if slot is not None else st.container():
        # Folded, its forms are not drawn at all (a page's questions were a third of every rerun's work):
        # opening the box reruns the page's part that holds it, which then draws them.
        box = widgets.folded(t("questions.heading"), f"ask:{items[0].question.key}", expanded=asking(page),
                             icon=":material/quiz:")
        if box.open:
            with box:
                for a in items:
                    st.markdown(f"**{t(a.question.key, **a.values)}**")
                    _ask_one(page, a)


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
