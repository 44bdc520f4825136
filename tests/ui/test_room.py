"""The class room on the Streamlit side, against a real SQLite store in a temporary folder.

The sidebar and arriving by link run through the whole app (AppTest); the fragments' bodies and the
session functions run as small scenes (`_scene`), since AppTest does not tick a fragment's timer.
The store itself is read back directly to check what was, and was not, written.
"""
from __future__ import annotations

import json
import math
import time

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import TIMEOUT, chart_specs, open_page
from ui.base import i18n
from ui.questions import Asked, Question
from ui.questions import collapse as collapse_questions
from ui.room import session, store

NUMBER = Question(key="room_test.q_number", kind="number", lo=0.0, hi=1.0, tolerance=0.05)
CHOICE = Question(key="room_test.q_choice", kind="choice", options=("facts", "grammar", "same"))
ASK_NUMBER = Asked("collapse", NUMBER, 0.5, "abc123", "room_test.why")
ASK_CHOICE = Asked("collapse", CHOICE, "facts", "abc123", "room_test.why")
ASKED = {"number": ASK_NUMBER, "choice": ASK_CHOICE}


@pytest.fixture
def db(tmp_path, monkeypatch):
    """A fresh SQLite class database for this test; the app and the test both reach it."""
    url = f"sqlite:///{tmp_path / 'class.sqlite'}"
    monkeypatch.setenv("FFNLAB_CLASS_DB", url)
    from sqlalchemy import create_engine

    engine = create_engine(url)
    yield store.Store(engine)
    engine.dispose()


def _page(section: str, lang: str = "en"):
    from ui.base.page import Page
    from ui.kit import shell

    return Page(section=section, lang=lang, t=i18n.Translator(lang), presenter=False, show_details=True)


def _scene(name: str, lang: str = "en") -> None:
    """An AppTest script: one scene of this module, on a page of the collapse section."""
    import streamlit as st

    from tests.ui import test_room
    from ui.base import i18n
    from ui.base.page import Page
    from ui.kit import shell

    page = Page(section="collapse", lang=lang, t=i18n.Translator(lang), presenter=False, show_details=True)
    getattr(test_room, name)(page, st)


def run_scene(name: str, state: dict | None = None, lang: str = "en") -> AppTest:
    at = AppTest.from_function(_scene, args=(name, lang), default_timeout=TIMEOUT)
    for key, value in (state or {}).items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def param(at: AppTest, name: str) -> str | None:
    """One query parameter as the address bar holds it (AppTest keeps a single value bare or in a list)."""
    value = at.query_params.get(name)
    return value[-1] if isinstance(value, list) else value


def seated(code: str, role: str, token: str, key: str | None = None) -> dict:
    state = {session.SEAT: session.Seat(code, role, token)}
    if key is not None:
        state[session.KEY] = key
    return state


# --- scenes: what a page's code would call --------------------------------------------------


def panel_scene(page, st) -> None:
    session.panel_body(page, [ASK_NUMBER, ASK_CHOICE])


def submit_scene(page, st) -> None:
    asked = ASKED[st.session_state["which"]]
    ack = session.submit(page, asked, st.session_state["guess"])
    st.session_state["ack"] = (ack.stored, ack.message_key)
    st.session_state["revealed"] = session.revealed(page, asked)


def watch_scene(page, st) -> None:
    st.session_state["runs"] = st.session_state.get("runs", 0) + 1
    session.watch_step(page)


def actions_scene(page, st) -> None:
    done = {
        "reveal": session.reveal(page, ASK_NUMBER),
        "reset": session.reset(page, ASK_NUMBER),
    }
    session.close(page)
    st.session_state["done"] = done


# --- the sidebar: starting a class ------------------------------------------------------------


def _rendered_text(at: AppTest) -> str:
    """Every element's protobuf, as text: whatever the browser could draw, including widget help and values."""
    texts = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            texts.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(texts)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_starting_a_class_keeps_the_key_off_the_screen_and_out_of_the_address(db, lang):
    t = i18n.Translator(lang)
    at = open_page("pages/3_linear_collapse.py", lang, folded=True, d="32", act="relu")
    at.sidebar.button(key="room_start").click().run()
    assert not at.exception
    seat, key = at.session_state[session.SEAT], at.session_state[session.KEY]
    # The card's address: this page's settings and the room, not the language (a student keeps theirs).
    card = [c.value for c in at.main.code if "room=" in c.value]
    assert card == [f"?d=32&act=relu&room={seat.code}"] or card == [f"?act=relu&d=32&room={seat.code}"], card
    assert seat.role == "instructor" and store.normalize_code(seat.code) == seat.code
    assert db.is_instructor(seat.code, key, time.time())  # the key the session holds is the room's
    assert param(at, "room") == seat.code
    sidebar = [m.value for m in at.sidebar.markdown]
    assert t("room.instructor_of", code=seat.code) in sidebar
    assert any(t("room.join_title", code=seat.code) == m.value for m in at.main.markdown)  # the join card
    assert len(at.get("image")) == 1  # its QR code
    # Through a page switch and a rerun, the key is nowhere a projector or the address bar shows.
    at.switch_page("pages/1_parameter_split.py")
    at.run()
    assert at.session_state[session.SEAT] == seat
    for _ in range(2):
        assert key not in _rendered_text(at)
        assert all(key not in str(v) for v in at.query_params.values())
        at.run()
    if lang == "ko":
        assert t("room.start") != i18n.Translator("en")("room.start")


def test_the_one_time_link_is_shown_once_and_works_once(db):
    at = open_page("pages/3_linear_collapse.py", "en", folded=True)
    at.sidebar.button(key="room_start").click().run()
    code, key = at.session_state[session.SEAT].code, at.session_state[session.KEY]
    at.sidebar.button(key="room_take").click().run()
    link = next(c.value for c in at.sidebar.code if "take=" in c.value)
    assert key not in link and f"room={code}" in link
    token = link.split("take=")[1].split("&")[0]
    at.run()
    assert not any("take=" in c.value for c in at.sidebar.code)  # hidden again on the next run
    # Another device opens it: that session leads the room; the link's second use does nothing.
    other = open_page("pages/3_linear_collapse.py", "en", folded=True, room=code, take=token)
    assert other.session_state[session.SEAT].role == "instructor"
    assert other.session_state[session.KEY] == key
    assert "take" not in other.query_params
    third = open_page("pages/3_linear_collapse.py", "en", folded=True, room=code, take=token)
    assert session.KEY not in third.session_state
    assert i18n.Translator("en")("room.link_used") in [c.value for c in third.sidebar.caption]


# --- arriving by link -------------------------------------------------------------------------


def test_a_student_joins_by_the_rooms_code_and_a_bad_code_gets_a_note(db):
    t = i18n.Translator("en")
    code, _ = db.create_room(time.time())
    at = open_page("pages/3_linear_collapse.py", "en", folded=True, room=code.lower())  # typed in lower case
    seat = at.session_state[session.SEAT]
    assert (seat.code, seat.role) == (code, "student")
    assert session.KEY not in at.session_state
    assert db.counts(code, ASK_NUMBER.id, time.time()) == (1, 0)
    assert t("room.student_of", code=code) in [m.value for m in at.sidebar.markdown]
    assert not at.get("image")  # no join card: that is the instructor's

    expired_code, _ = db.create_room(time.time() - store.ROOM_TTL - 60)
    for bad in ("ZZZZZZ", expired_code, "'; DROP TABLE class_rooms;--"):
        at = open_page("pages/3_linear_collapse.py", "en", folded=True, room=bad)
        assert not at.exception
        assert session.SEAT not in at.session_state
        if store.normalize_code(bad):
            assert t("room.unknown") in [c.value for c in at.sidebar.caption]
        else:  # not a code at all: the shell drops it, silently
            assert "room" not in at.query_params
        assert at.title and at.get("vega_lite_chart"), "the page still works"
        at.run()  # asked once a session: the note does not come back on every run
        assert t("room.unknown") not in [c.value for c in at.sidebar.caption]
    assert db.room_live(code, time.time())  # the SQL-shaped code executed nothing


def test_a_full_room_refuses_a_newcomer_with_a_note(db, monkeypatch):
    full = store.Store(db.engine, max_students=1)
    monkeypatch.setattr(session, "_store", lambda url: full)
    code, _ = db.create_room(time.time())
    assert db.join(code, store.new_token(), time.time()) == store.Status.JOINED
    at = open_page("pages/3_linear_collapse.py", "en", folded=True, room=code)
    assert session.SEAT not in at.session_state
    assert i18n.Translator("en")("room.full") in [c.value for c in at.sidebar.caption]


def test_an_unreachable_store_says_so_once_and_the_page_works(tmp_path, monkeypatch):
    monkeypatch.setenv("FFNLAB_CLASS_DB", f"sqlite:///{tmp_path / 'no' / 'such' / 'folder' / 'class.sqlite'}")
    at = open_page("pages/3_linear_collapse.py", "en", folded=True)
    at.sidebar.button(key="room_start").click().run()
    assert not at.exception
    assert session.SEAT not in at.session_state
    assert [c.value for c in at.sidebar.caption].count(i18n.Translator("en")("room.unavailable")) == 1
    assert at.get("vega_lite_chart")
    ack = run_scene("submit_scene", {**seated("ABCDEF", "student", "tok"), "which": "number", "guess": 0.4})
    assert ack.session_state["ack"] == (False, "room.ack_unavailable")


# --- guesses ----------------------------------------------------------------------------------


def test_a_guess_is_stored_only_when_it_is_one_and_acknowledged_only_when_stored(db, monkeypatch):
    now = time.time()
    code, key = db.create_room(now)
    token = store.new_token()
    db.join(code, token, now)
    student = seated(code, "student", token)
    # The store's one-write-a-second bound, stretched so that this test's pace cannot slip under it.
    slow = store.Store(db.engine, min_interval=60.0)
    monkeypatch.setattr(session, "_store", lambda url: slow)

    def send(which: str, guess) -> tuple[bool, str | None]:
        return run_scene("submit_scene", {**student, "which": which, "guess": guess}).session_state["ack"]

    assert send("number", 0.42) == (True, None)
    assert db.student_guess(code, token, ASK_NUMBER.id, time.time()) == pytest.approx(0.42)
    # A second guess within the bound is refused and says so; the first stays.
    assert send("number", 0.9) == (False, "room.ack_too_fast")
    assert db.student_guess(code, token, ASK_NUMBER.id, time.time()) == pytest.approx(0.42)
    for bad in (math.nan, math.inf, 1.5, -0.1, "0.3; DELETE FROM class_guesses", "grammar"):
        assert send("number", bad) == (False, "room.ack_invalid"), bad
    assert send("choice", "nonsense") == (False, "room.ack_invalid")
    assert send("choice", "' OR 1=1 --") == (False, "room.ack_invalid")
    # Past the bound, the latest guess wins: one per student per question.
    fast = store.Store(db.engine, min_interval=0.0)
    monkeypatch.setattr(session, "_store", lambda url: fast)
    assert send("choice", "grammar") == (True, None)
    assert send("number", 0.9) == (True, None)
    assert db.guesses(code, ASK_NUMBER.id, time.time()) == [pytest.approx(0.9)]
    assert db.guesses(code, ASK_CHOICE.id, time.time()) == ["grammar"]
    # Outside a room, as the instructor, or in a closed room: never shown as stored.
    assert run_scene("submit_scene", {"which": "number", "guess": 0.3}).session_state["ack"] == (False, "room.ack_no_room")
    assert run_scene("submit_scene", {**seated(code, "instructor", "t2", key), "which": "number",
                                      "guess": 0.3}).session_state["ack"] == (False, "room.ack_instructor")
    assert db.close(code, key, time.time()) == store.Status.OK
    gone = run_scene("submit_scene", {**student, "which": "number", "guess": 0.3})
    assert gone.session_state["ack"] == (False, "room.ack_gone")
    assert session.SEAT not in gone.session_state  # out of the ended room: the page no longer asks for it


# --- the instructor's panel and Reveal --------------------------------------------------------


def _bar_counts(spec: dict) -> list[int]:
    rows = next(rows for rows in spec["datasets"].values() if rows and "count" in rows[0])
    return [row["count"] for row in rows]


def _has_measured_rule(spec: dict, value: float) -> bool:
    return any(rows and rows[0].get("x") == pytest.approx(value) for rows in spec["datasets"].values())


def test_the_instructors_panel_shows_the_class_live_and_reveal_draws_the_measurement(db):
    t = i18n.Translator("en")
    now = time.time()
    code, key = db.create_room(now)
    numbers, choices = [0.12, 0.48, 0.52, 0.97], ["grammar", "grammar", "facts"]
    tokens = [store.new_token() for _ in numbers]
    for i, token in enumerate(tokens):
        db.join(code, token, now)
        db.submit(code, token, ASK_NUMBER.id, numbers[i], now)
        if i < len(choices):
            db.submit(code, token, ASK_CHOICE.id, choices[i], now + 2)
    instructor = seated(code, "instructor", "t0", key)
    at = run_scene("panel_scene", instructor)
    captions = [c.value for c in at.caption]
    assert t("room.panel_counts", joined=4, answered=4) in captions
    assert t("room.panel_counts", joined=4, answered=3) in captions
    number_spec, choice_spec = chart_specs(at)
    # The histogram's 20 bins over [0, 1]: 0.12 in bin 2, 0.48 in 9, 0.52 in 10, 0.97 in 19.
    expected = [0] * 20
    for i in (2, 9, 10, 19):
        expected[i] = 1
    assert _bar_counts(number_spec) == expected
    assert _bar_counts(choice_spec) == [1, 2, 0]  # facts, grammar, same: every option, even at zero
    assert not _has_measured_rule(number_spec, 0.5)
    assert not db.revealed(code, ASK_NUMBER.id, time.time())

    assert db.view(code, time.time()) is None
    at.button(key=f"room_reveal_{ASK_NUMBER.id}").click().run()
    assert db.revealed(code, ASK_NUMBER.id, time.time()) and not db.revealed(code, ASK_CHOICE.id, time.time())
    assert db.view(code, time.time()).version == 1  # students waiting for the reveal look again
    number_spec, _ = chart_specs(at)
    assert _has_measured_rule(number_spec, 0.5)
    assert t("room.panel_measured", value="0.500") in [m.value for m in at.markdown]  # as the page writes numbers

    at.button(key=f"room_reset_{ASK_NUMBER.id}").click().run()
    assert db.counts(code, ASK_NUMBER.id, time.time()) == (4, 0)
    assert not db.revealed(code, ASK_NUMBER.id, time.time())
    assert db.counts(code, ASK_CHOICE.id, time.time()) == (4, 3)  # the other question untouched


def test_instructor_actions_without_the_key_are_refused(db):
    now = time.time()
    code, key = db.create_room(now)
    token = store.new_token()
    db.join(code, token, now)
    db.submit(code, token, ASK_NUMBER.id, 0.3, now)
    for state in (seated(code, "student", token), seated(code, "instructor", "t", "forged-key"),
                  seated(code, "instructor", "t")):
        at = run_scene("actions_scene", state)
        assert at.session_state["done"] == {"reveal": False, "reset": False}
        assert at.session_state[session.SEAT].code == code  # close refused too: still seated
        assert not db.revealed(code, ASK_NUMBER.id, time.time())
        assert db.counts(code, ASK_NUMBER.id, time.time()) == (1, 1)
        assert db.room_live(code, time.time())
    # A student's panel is empty: the live view is the instructor's alone.
    at = run_scene("panel_scene", seated(code, "student", token))
    assert not at.get("vega_lite_chart") and not at.button
    # With the key, the same scene does all three.
    at = run_scene("actions_scene", seated(code, "instructor", "t", key))
    assert at.session_state["done"] == {"reveal": True, "reset": True}
    assert not db.room_live(code, time.time())
    assert session.SEAT not in at.session_state


# --- following the instructor ------------------------------------------------------------------


def test_a_following_student_moves_to_the_instructors_page_and_settings(db):
    now = time.time()
    code, key = db.create_room(now)
    at = open_page("pages/1_parameter_split.py", "en", folded=True, room=code)
    assert at.session_state[session.SEAT].role == "student"
    assert db.view(code, time.time()) is None
    at.sidebar.toggle(key="_room_follow_widget").set_value(True).run()  # nothing to follow yet: stays
    assert not at.exception
    db.set_view(code, key, "collapse", {"d": "32", "act": "relu"}, time.time())
    at.run()  # the fragment's body runs on every full run; its timer is what AppTest does not tick
    assert not at.exception, [e.value for e in at.exception]
    # In a class room the page asks, so its title is the one that answers nothing.
    assert at.title[0].value == i18n.Translator("en")("collapse.title_asking")
    assert param(at, "room") == code and at.slider(key="d").value == 32 and at.selectbox(key="act").value == "relu"
    # AppTest reruns the page it was told to open; a browser now shows the page switched to.
    at.switch_page("pages/3_linear_collapse.py")
    at.run()
    assert at.slider(key="d").value == 32
    # The same version again: no move; the student's own change stays.
    at.slider(key="d").set_value(48).run()
    at.run()
    assert at.slider(key="d").value == 48 and at.title[0].value == i18n.Translator("en")("collapse.title_asking")
    # A new version on the same page: the settings move, the page stays.
    db.set_view(code, key, "collapse", {"d": "16"}, time.time())
    at.run()
    at.run()  # the follow step asks for a rerun; AppTest runs it on the next call
    assert not at.exception, [e.value for e in at.exception]
    assert at.slider(key="d").value == 16 and at.selectbox(key="act").value == "none"  # absent: the default


# --- through a page's own questions (ui/questions/quiz.py) ------------------------------------------------


def test_a_students_guess_on_a_page_reaches_the_room_and_returns_with_the_class_after_reveal(db):
    t = i18n.Translator("en")
    code, key = db.create_room(time.time())
    others = [store.new_token() for _ in range(2)]
    at = open_page("pages/3_linear_collapse.py", "en", folded=True, room=code)
    radio = at.main.get("radio")[0]
    qid = radio.key.removeprefix("_ask_in:")
    assert qid.startswith("collapse:")
    options = collapse_questions.WIDE.options  # the question's option ids ("yes", "no"); the radio shows labels
    for token, option in zip(others, options):
        db.join(code, token, time.time())
        db.submit(code, token, qid, option, time.time())
    mine = options[-1]
    radio.set_value(mine)
    at.button(key=f"_ask_commit:{qid}").click().run()
    assert not at.exception
    token = at.session_state[session.SEAT].token
    assert db.student_guess(code, token, qid, time.time()) == mine  # the page's widget sent it through submit
    assert t("questions.stored") in [c.value for c in at.caption]
    assert session._waiting_for_reveal(_page("collapse"), at.session_state[session.ASKED], set())
    charts_before = len(at.get("vega_lite_chart"))
    db.reveal(code, key, qid, time.time())
    at.run()
    assert len(at.get("vega_lite_chart")) == charts_before + 1  # the class's guesses beside the student's own
    assert qid in at.session_state[session.REVEALED]
    assert not session._waiting_for_reveal(_page("collapse"), at.session_state[session.ASKED],
                                           at.session_state[session.REVEALED])


def test_a_waiting_student_reruns_when_the_rooms_view_moves_and_not_before(db):
    code, key = db.create_room(time.time())
    token = store.new_token()
    db.join(code, token, time.time())
    db.set_view(code, key, "collapse", {}, time.time())
    at = run_scene("watch_scene", seated(code, "student", token))
    assert at.session_state["runs"] == 1 and at.session_state[session.SEEN] == 1  # the first look only notes
    at.run()
    assert at.session_state["runs"] == 2  # nothing new: no rerun
    db.reveal(code, key, ASK_NUMBER.id, time.time())
    db.set_view(code, key, "collapse", {}, time.time())  # what session.reveal does after a Reveal
    at.run()
    assert at.session_state["runs"] == 4 and at.session_state[session.SEEN] == 2  # one look, one rerun


def test_a_reveal_that_came_before_the_first_look_is_not_missed(db):
    from collections import OrderedDict

    from ui.questions import quiz

    code, key = db.create_room(time.time())
    token = store.new_token()
    db.join(code, token, time.time())
    db.submit(code, token, ASK_NUMBER.id, 0.3, time.time())
    db.reveal(code, key, ASK_NUMBER.id, time.time())
    db.set_view(code, key, "collapse", {}, time.time())
    waiting = OrderedDict({ASK_NUMBER.id: quiz.Answer(0.3, True)})
    at = run_scene("watch_scene", {**seated(code, "student", token), session.ASKED: waiting})
    assert at.session_state["runs"] == 2  # looked, found it revealed, reran
    # Without a waiting guess, the first look only notes the version.
    at = run_scene("watch_scene", seated(code, "student", token))
    assert at.session_state["runs"] == 1
