"""The widget's session bookkeeping: guesses kept under their question's id, and never more than LIMIT of them."""
import streamlit as st

from ui import questions
from ui.questions import Question, at, quiz

RANK = Question("questions.collapse_rank", "number", lo=0, hi=1024, tolerance=0)


def test_a_session_keeps_the_latest_guesses_only():
    st.session_state.pop(questions.GUESSES, None)
    asked = [at("collapse", {"seed": i}, RANK, 64) for i in range(quiz.LIMIT + 50)]
    for i, a in enumerate(asked):
        quiz._keep(a, quiz.Answer(float(i)))
    kept = st.session_state[questions.GUESSES]
    assert len(kept) == quiz.LIMIT
    assert quiz.answer_of(asked[0]) is None and quiz.answer_of(asked[49]) is None
    assert quiz.answer_of(asked[50]).guess == 50.0 and quiz.answer_of(asked[-1]).guess == quiz.LIMIT + 49
    # Guessing again moves a question to the newest end: it is the last to go.
    quiz._keep(asked[50], quiz.Answer(1.0))
    quiz._keep(asked[0], quiz.Answer(2.0))
    assert quiz.answer_of(asked[50]).guess == 1.0 and quiz.answer_of(asked[51]) is None
    st.session_state.pop(questions.GUESSES, None)


def test_other_settings_are_another_question():
    a = at("collapse", {"d": 64, "seed": 0}, RANK, 64)
    b = at("collapse", {"d": 64, "seed": 1}, RANK, 64)
    c = at("collapse", {"seed": 0, "d": 64}, RANK, 64)
    assert a.id != b.id and a.id == c.id
