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

from tests.conftest import TIMEOUT, chart_specs, open_class, open_page
from tests.ui import room_checks
from ui import questions
from ui.base import i18n
from ui.questions import Asked, Question
from ui.questions import collapse as collapse_questions
from ui.room import config, panel, seating, session, store, views

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
    panel.panel_body(page, [ASK_NUMBER, ASK_CHOICE])


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
        "reveal": panel.reveal(page, ASK_NUMBER),
        "reset": panel.reset(page, ASK_NUMBER),
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
    open_class(at).sidebar.button(key="room_start").click().run()
    assert not at.exception
    seat, key = at.session_state[session.SEAT], at.session_state[session.KEY]
    # The card's address: this page's settings and the room, not the language (a student keeps theirs).
    card = [c.value for c in at.main.code if "room=" in c.value]
    assert card == [f"?d=32&act=relu&room={seat.code}"] or card == [f"?act=relu&d=32&room={seat.code}"], card
    assert seat.role == "instructor" and store.normalize_code(seat.code) == seat.code
    assert room_checks.is_instructor(db, seat.code, key, time.time())  # the key the session holds is the room's
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
    open_class(at).sidebar.button(key="room_start").click().run()
    code, key = at.session_state[session.SEAT].code, at.session_state[session.KEY]
    at.sidebar.button(key="room_take").click().run()
    # A link whose address is not drawn as text: the sidebar is on the projector.
    drawn = [e.value for kind in (at.sidebar.code, at.sidebar.markdown, at.sidebar.caption) for e in kind]
    assert drawn and not any("take=" in text for text in drawn)
    link = next(b.proto.url for b in at.sidebar.get("link_button") if "take=" in b.proto.url)
    assert key not in link and f"room={code}" in link
    token = link.split("take=")[1].split("&")[0]
    at.run()
    assert not any("take=" in b.proto.url for b in at.sidebar.get("link_button"))  # gone on the next run
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
    assert room_checks.counts(db, code, ASK_NUMBER.id, time.time()) == (1, 0)
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
    monkeypatch.setattr(seating, "_store", lambda url: full)
    code, _ = db.create_room(time.time())
    assert db.join(code, store.new_token(), time.time()) == store.Status.JOINED
    at = open_page("pages/3_linear_collapse.py", "en", folded=True, room=code)
    assert session.SEAT not in at.session_state
    assert i18n.Translator("en")("room.full") in [c.value for c in at.sidebar.caption]


def test_a_join_that_found_the_store_busy_is_asked_again_a_moment_later(db, monkeypatch):
    """Busy is not a refusal: the student is told, is not asked again on the very next run, and is seated on a
    run RETRY_S later (a refused code, by contrast, is asked once a session)."""
    joins = []

    class BusyOnce:
        def __getattr__(self, name):
            return getattr(db, name)

        def join(self, *args, **kwargs):
            joins.append(args[0])
            if len(joins) == 1:
                raise store.StoreUnavailable("class database: locked")
            return db.join(*args, **kwargs)

    monkeypatch.setattr(seating, "_store", lambda url: BusyOnce())
    code, _ = db.create_room(time.time())
    at = open_page("pages/3_linear_collapse.py", "en", folded=True, room=code)
    t = i18n.Translator("en")
    assert t("room.unavailable") in [c.value for c in at.sidebar.caption]
    assert session.SEAT not in at.session_state
    at.run()
    assert len(joins) == 1 and session.SEAT not in at.session_state
    at.session_state[seating.RETRY] = time.time() - 1  # RETRY_S on
    at.run()
    assert not at.exception
    assert len(joins) == 2 and at.session_state[session.SEAT].code == code
    assert t("room.unavailable") not in [c.value for c in at.sidebar.caption]


def test_an_unreachable_store_says_so_once_and_the_page_works(tmp_path, monkeypatch):
    monkeypatch.setenv("FFNLAB_CLASS_DB", f"sqlite:///{tmp_path / 'no' / 'such' / 'folder' / 'class.sqlite'}")
    at = open_page("pages/3_linear_collapse.py", "en", folded=True)
    open_class(at).sidebar.button(key="room_start").click().run()
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
    monkeypatch.setattr(seating, "_store", lambda url: slow)

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
    monkeypatch.setattr(seating, "_store", lambda url: fast)
    assert send("choice", "grammar") == (True, None)
    assert send("number", 0.9) == (True, None)
    assert room_checks.guesses(db, code, ASK_NUMBER.id, time.time()) == [pytest.approx(0.9)]
    assert room_checks.guesses(db, code, ASK_CHOICE.id, time.time()) == ["grammar"]
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


def _status_lines(at) -> list[str]:
    return [m.value for m in at.markdown if 'class="room-status"' in m.value]


def test_the_presenters_counts_are_the_students_here_and_the_seats_away_said_apart(db):
    """After a flood (or tabs closed), the projector counts the students here, not every seat ever made."""
    now = time.time()
    code, key = db.create_room(now)
    for i in range(3):
        db.join(code, f"gone-{i}", now - store.SEAT_IDLE - 60)
    db.join(code, "here", now)
    db.submit(code, "here", ASK_NUMBER.id, 0.5, now)
    for lang in ("en", "ko"):
        t = i18n.Translator(lang)
        (line,) = _status_lines(run_scene("panel_scene", seated(code, "instructor", "t0", key), lang=lang))
        assert t("room.panel_counts", joined=1, answered=1) in line, line
        assert t("room.panel_away", n=3) in line, line
    db.join(code, "gone-0", now)  # back: here again, and no longer away
    (line,) = _status_lines(run_scene("panel_scene", seated(code, "instructor", "t0", key)))
    t = i18n.Translator("en")
    assert t("room.panel_counts", joined=2, answered=1) in line and t("room.panel_away", n=2) in line, line


def test_a_new_guess_past_its_addresss_class_is_refused_with_a_note(db, monkeypatch):
    """The app's store takes its bound of guesses per address and question from FFNLAB_CLASS_PER_ADDRESS."""
    monkeypatch.setenv(config.ENV_PER_ADDRESS, "10")
    now = time.time()
    code, _ = db.create_room(now)
    for i in range(10):
        assert db.join(code, f"s{i}", now, client="198.51.100.7") is store.Status.JOINED
        assert db.submit(code, f"s{i}", ASK_NUMBER.id, 0.5, now) is store.Status.STORED
    token = store.new_token()
    db.join(code, token, now, client="198.51.100.7")
    at = run_scene("submit_scene", {**seated(code, "student", token), "which": "number", "guess": 0.42})
    assert at.session_state["ack"] == (False, "room.ack_vote_limit")
    assert db.student_guess(code, token, ASK_NUMBER.id, time.time()) is None
    assert room_checks.counts(db, code, ASK_NUMBER.id, time.time())[1] == 10
    # The page says so in the student's language, never as a traceback.
    assert {i18n.Translator(lang)("room.ack_vote_limit") for lang in ("en", "ko")} <= {
        *i18n.strings("en").values(), *i18n.strings("ko").values()}


def test_the_presenters_view_shows_one_question_its_counts_and_the_votes_when_shown(db):
    """The presenter's view: one question at a time, its counts; the votes hidden until shown; Reveal draws the measurement."""
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
    assert [t("room.panel_counts", joined=4, answered=4) in line for line in _status_lines(at)] == [True]
    assert not at.get("vega_lite_chart")  # hidden until shown
    assert not at.get("text_input") and not at.get("radio")  # no answer forms for the instructor
    at.button(key=f"room_show_{ASK_NUMBER.id}").click().run()
    assert db.vote(code, ASK_NUMBER.id, time.time()).shown
    (number_spec,) = chart_specs(at)
    # The histogram's 20 bins over [0, 1]: 0.12 in bin 2, 0.48 in 9, 0.52 in 10, 0.97 in 19.
    expected = [0] * 20
    for i in (2, 9, 10, 19):
        expected[i] = 1
    assert _bar_counts(number_spec) == expected
    assert not _has_measured_rule(number_spec, 0.5)

    at.session_state[views._pick_key([ASK_NUMBER, ASK_CHOICE])] = 1  # the second question
    at.run()
    assert [t("room.panel_counts", joined=4, answered=3) in line for line in _status_lines(at)] == [True]
    at.button(key=f"room_show_{ASK_CHOICE.id}").click().run()
    (choice_spec,) = chart_specs(at)
    assert _bar_counts(choice_spec) == [1, 2, 0]  # facts, grammar, same: every option, even at zero
    at.session_state[views._pick_key([ASK_NUMBER, ASK_CHOICE])] = 0
    at.run()

    assert db.view(code, time.time()) is None
    at.button(key=f"room_reveal_{ASK_NUMBER.id}").click().run()
    assert room_checks.revealed(db, code, ASK_NUMBER.id, time.time())
    assert not room_checks.revealed(db, code, ASK_CHOICE.id, time.time())
    assert not db.vote(code, ASK_NUMBER.id, time.time()).open  # Reveal closes the vote
    assert db.view(code, time.time()).version == 1  # students waiting for the reveal look again
    (number_spec,) = chart_specs(at)
    assert _has_measured_rule(number_spec, 0.5)
    # 0.48 and 0.52 lie within 0.05 of 0.5: half the class was right.
    measured = t("room.panel_measured", value="0.500") + " · " + t("vote.right", share="50%")
    assert measured in [m.value for m in at.markdown]  # as the page writes numbers

    at.button(key=f"room_reset_{ASK_NUMBER.id}").click().run()
    assert room_checks.counts(db, code, ASK_NUMBER.id, time.time()) == (4, 0)
    assert not room_checks.revealed(db, code, ASK_NUMBER.id, time.time())
    assert room_checks.counts(db, code, ASK_CHOICE.id, time.time()) == (4, 3)  # the other question untouched


def test_two_votes_on_the_presenters_view_end_with_the_shift(db):
    """Close the first vote, open the second, reveal: both distributions and "right 25% → 75%"."""
    t = i18n.Translator("en")
    now = time.time() - 30
    code, key = db.create_room(now)
    tokens = [store.new_token() for _ in range(4)]
    for token, value in zip(tokens, (0.1, 0.9, 0.5, 0.2)):
        db.join(code, token, now)
        db.submit(code, token, ASK_NUMBER.id, value, now)
    at = run_scene("panel_scene", seated(code, "instructor", "t0", key))
    assert "second" not in [b.key.split("_")[1] for b in at.button if b.key and b.key.startswith("room_")]
    at.button(key=f"room_close_{ASK_NUMBER.id}").click().run()
    assert not db.vote(code, ASK_NUMBER.id, time.time()).open
    assert any(t("vote.status_closed", n=1) in line for line in _status_lines(at))
    at.button(key=f"room_second_{ASK_NUMBER.id}").click().run()
    assert db.vote(code, ASK_NUMBER.id, time.time()).round == 2
    assert any(t("vote.status_open", n=2) in line for line in _status_lines(at))
    for token, value in zip(tokens[:4], (0.48, 0.52, 0.5, 0.9)):
        db.submit(code, token, ASK_NUMBER.id, value, time.time())
    at.button(key=f"room_timer_{ASK_NUMBER.id}").click().run()
    left = db.vote(code, ASK_NUMBER.id, time.time()).closes_in
    assert 55 < left <= 60
    assert any(t("vote.status_timer", n=2, seconds=60) in line or t("vote.status_timer", n=2, seconds=59) in line
               for line in _status_lines(at))
    at.button(key=f"room_reveal_{ASK_NUMBER.id}").click().run()
    (spec,) = chart_specs(at)
    assert len(spec["hconcat"]) == 2  # the first vote and the second, side by side
    shift = t("room.panel_measured", value="0.500") + " · " + t("vote.shift", first="25%", last="75%")
    assert shift in [m.value for m in at.markdown]


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
        assert not room_checks.revealed(db, code, ASK_NUMBER.id, time.time())
        assert room_checks.counts(db, code, ASK_NUMBER.id, time.time()) == (1, 1)
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
    assert session._waiting("collapse", at.session_state[questions.GUESSES], set())
    charts_before = len(at.get("vega_lite_chart"))
    db.reveal(code, key, qid, time.time())
    at.run()
    assert len(at.get("vega_lite_chart")) == charts_before + 1  # the class's guesses beside the student's own
    assert qid in at.session_state[session.REVEALED]
    assert not session._waiting("collapse", at.session_state[questions.GUESSES],
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
    db.set_view(code, key, "collapse", {}, time.time())  # what panel.reveal does after a Reveal
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
    at = run_scene("watch_scene", {**seated(code, "student", token), questions.GUESSES: waiting})
    assert at.session_state["runs"] == 2  # looked, found it revealed, reran
    # Without a waiting guess, the first look only notes the version.
    at = run_scene("watch_scene", seated(code, "student", token))
    assert at.session_state["runs"] == 1


# --- one seat per person, one question per room, bounds per client ----------------------------


def test_leaving_and_joining_again_takes_the_same_seat(db):
    code, _ = db.create_room(time.time())
    at = open_page("pages/3_linear_collapse.py", "en", folded=True, room=code)
    token = at.session_state[session.SEAT].token
    db.submit(code, token, ASK_NUMBER.id, 0.3, time.time())
    at.sidebar.button(key="room_leave").click().run()
    assert session.SEAT not in at.session_state
    assert room_checks.counts(db, code, ASK_NUMBER.id, time.time()) == (0, 1)  # the seat no longer counts; its guess does
    for _ in range(3):  # a session that leaves and comes back never holds a second seat
        at.query_params["room"] = code
        at.run()
        assert at.session_state[session.SEAT].token == token
        assert room_checks.counts(db, code, ASK_NUMBER.id, time.time()) == (1, 1)
        at.sidebar.button(key="room_leave").click().run()


def test_a_reloaded_students_guess_is_shown_again_and_not_asked_twice(db):
    t = i18n.Translator("en")
    code, _ = db.create_room(time.time())
    first = open_page("pages/3_linear_collapse.py", "en", folded=True, room=code)
    radio = first.main.get("radio")[0]
    qid = radio.key.removeprefix("_ask_in:")
    radio.set_value(collapse_questions.WIDE.options[0])
    first.button(key=f"_ask_commit:{qid}").click().run()
    token = first.session_state[session.SEAT].token
    # A new session (the reload) that the seat's cookie gave the same token: no form, the guess, "stored".
    again = AppTest.from_file(str(session.__file__).replace("ui/room/session.py", "dashboard.py"),
                              default_timeout=TIMEOUT)
    again.query_params["lang"] = "en"
    again.session_state[session.SEAT] = session.Seat(code, "student", token)
    again.session_state[seating.CLAIMED] = True
    again.run()
    again.switch_page("pages/3_linear_collapse.py")
    again.query_params["room"] = code
    again.run()
    assert not again.exception
    assert f"_ask_commit:{qid}" not in [b.key for b in again.button]
    assert t("questions.stored") in [c.value for c in again.caption]
    assert again.session_state[session.GUESSES][qid].guess == collapse_questions.WIDE.options[0]
    assert room_checks.counts(db, code, qid, time.time()) == (1, 1)


def test_one_session_starts_few_rooms_and_a_full_store_says_so(db, monkeypatch):
    t = i18n.Translator("en")
    at = open_page("pages/3_linear_collapse.py", "en", folded=True)
    codes = []
    for _ in range(seating.STARTS_PER_WINDOW):
        open_class(at).sidebar.button(key="room_start").click().run()
        codes.append(at.session_state[session.SEAT].code)
        at.sidebar.button(key="room_close").click().run()
    open_class(at).sidebar.button(key="room_start").click().run()
    assert session.SEAT not in at.session_state and len(set(codes)) == seating.STARTS_PER_WINDOW
    assert t("room.start_limit") in [c.value for c in at.sidebar.caption]

    full = store.Store(db.engine, max_rooms=1)
    monkeypatch.setattr(seating, "_store", lambda url: full)
    db.create_room(time.time())
    other = open_page("pages/3_linear_collapse.py", "en", folded=True)
    open_class(other).sidebar.button(key="room_start").click().run()
    assert session.SEAT not in other.session_state
    notes = [c.value for c in other.sidebar.caption]
    assert t("room.store_full") in notes and t("room.unavailable") not in notes


def _question_ids(at: AppTest, prefix: str) -> set[str]:
    keys = [b.key for b in at.button if b.key] + [getattr(r, "key", "") or "" for r in at.get("radio")]
    return {k.removeprefix(prefix) for k in keys if k.startswith(prefix) and "gptsurgery_other_lang" in k}


def test_page_8s_edit_question_is_one_for_a_korean_and_an_english_student(db):
    """The instructor reads English; the join address carries the edit's prompt language, so a Korean
    student is asked the same question (same id), in Korean."""
    teacher = open_page("pages/9_gpt_surgery.py", "en")
    open_class(teacher).sidebar.button(key="room_start").click().run()
    teacher = unfold_all(teacher)
    card = next(c.value for c in teacher.main.code if "room=" in c.value)
    params = dict(p.split("=", 1) for p in card.split("?", 1)[1].split("&"))
    assert params["edit_lang"] == "en"
    panel_ids = _question_ids(teacher, "room_reveal_")
    assert len(panel_ids) == 1
    ko = open_page("pages/9_gpt_surgery.py", "ko", **params)
    en = open_page("pages/9_gpt_surgery.py", "en", **params)
    assert _question_ids(ko, "_ask_commit:") == _question_ids(en, "_ask_commit:") == panel_ids


def unfold_all(at: AppTest) -> AppTest:
    from tests.conftest import unfold

    return unfold(at)


# --- the app's cookie route and watcher, without a server ---------------------------------------


def test_the_cookie_route_answers_a_pixel_and_sets_a_scoped_httponly_cookie():
    from ui.room import passes

    plain = passes.answer(None, now=100.0, secure=False)
    assert plain.headers["content-type"] == "image/gif" and "set-cookie" not in plain.headers
    given = passes.answer(store.Pass("seat", "s3cret", 100.0 + 3600), now=100.0, secure=True)
    cookie = given.headers["set-cookie"]
    for part in ("ffnlab_seat=s3cret", "HttpOnly", "Max-Age=3600", "Path=/", "SameSite=lax", "Secure"):
        assert part in cookie, cookie
    host = passes.answer(store.Pass("host", "k", 200.0), now=100.0, secure=False).headers["set-cookie"]
    assert host.startswith("ffnlab_host=k;") and "Secure" not in host
    assert passes.answer(store.Pass("other", "x", 200.0), now=100.0, secure=False).headers.get("set-cookie") is None


def test_a_client_is_its_address_or_the_one_the_local_proxy_saw():
    from ui.room import passes

    assert passes.client_id("203.0.113.5", {"X-Forwarded-For": "10.9.9.9"}) == "203.0.113.5"  # not our proxy: ignored
    assert passes.client_id("127.0.0.1", {"X-Forwarded-For": "6.6.6.6, 198.51.100.7"}) == "198.51.100.7"
    assert passes.client_id("127.0.0.1", {"X-Forwarded-For": "nonsense"}) == "127.0.0.1"
    assert passes.client_id("127.0.0.1", {}) == "127.0.0.1"
    assert passes.client_id(None, {}) is None and passes.client_id("not an ip", {}) is None
    # An IPv6 client is its /64 (one host or household holds the whole prefix), here and behind the proxy.
    assert passes.client_id("2001:db8:5:6:1:2:3:4", {}) == "2001:db8:5:6::/64"
    assert passes.client_id("::1", {"X-Forwarded-For": "2001:db8:5:6::99"}) == "2001:db8:5:6::/64"
    assert passes.client_id("::ffff:198.51.100.7", {}) == "198.51.100.7"


def test_the_watcher_reruns_only_the_sessions_whose_room_moved_or_ended():
    from ui.room import push

    push.watch("AAAAAA", "s1", 3, "part-1")
    push.watch("AAAAAA", "s2", 4)
    push.watch("BBBBBB", "s3", 1)
    push.watch("CCCCCC", "s4", 0)
    push.watch("AAAAAA", "s4", 4)  # a session watches one room: the last it registered
    reads = []

    def read(codes):
        reads.append(codes)
        return {"AAAAAA": 4, "BBBBBB": 1}  # CCCCCC is gone

    assert push.look(read) == [("s1", "part-1")]
    assert reads == [["AAAAAA", "BBBBBB"]]
    assert push.watched() == {"AAAAAA": {"s2": (4, ""), "s4": (4, "")}, "BBBBBB": {"s3": (1, "")}}
    # s1's part reran for version 4 and waits again with the version it last read itself (3): no second rerun.
    push.watch("AAAAAA", "s1", 3, "part-1")
    assert push.look(read) == []
    push.watch("CCCCCC", "s5", 0)
    assert push.look(read) == [("s5", "")]
    for sid in ("s1", "s2", "s3", "s4", "s5"):
        push.forget(sid)
    assert push.watched() == {} and push.look(read) == [] and len(reads) == 3  # nothing watched: no read
    assert not push.running()  # no app here: pages poll from their fragment


def _where(at: AppTest) -> str:
    """The lesson bar's line: where the lesson is."""
    return " ".join(m.value for m in at.markdown if "step " in m.value and " of " in m.value)


def test_an_instructors_lesson_moves_with_start_next_and_previous_on_one_page_and_across_pages(db):
    """Start, Next and Previous set the step's settings before the run draws them (a button's callback), in the
    session and the address; a step on another page opens it with its settings; the room follows the step."""
    t = i18n.Translator("en")
    at = open_page("pages/1_parameter_split.py", "en", folded=True, d="1024")
    open_class(at).sidebar.button(key="room_start").click().run()
    code = at.session_state[session.SEAT].code
    assert at.sidebar.selectbox(key="room_lesson_pick").value == "ffn-story"
    at.sidebar.button(key="room_lesson_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    # Step 1 (this page): its settings, the absent ones at their defaults; the bar says where the lesson is.
    assert at.slider(key="d").value == 512 and param(at, "d") is None
    assert db.lesson(code, time.time()) == ("ffn-story", 0)
    assert "step 1 of 10" in _where(at)
    at.button(key="room_lesson_next").click().run()  # step 2, the same page: one run draws it
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="model").value == "llama2-70b" and param(at, "model") == "llama2-70b"
    assert db.lesson(code, time.time()) == ("ffn-story", 1) and "step 2 of 10" in _where(at)
    view = db.view(code, time.time())
    assert view.section == "split" and dict(view.params).get("model") == "llama2-70b"  # what followers are moved to
    at.button(key="room_lesson_next").click().run()  # step 3, another page: switched to by the next run
    assert not at.exception, [e.value for e in at.exception]
    assert db.lesson(code, time.time()) == ("ffn-story", 2)
    at.switch_page("pages/2_position_wise.py").run()  # AppTest reruns the page it opened; a browser shows this one
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["_section"] == "position" and "step 3 of 10" in _where(at)
    at.button(key="room_lesson_prev").click().run()  # back to step 2 on the first page
    assert not at.exception, [e.value for e in at.exception]
    assert db.lesson(code, time.time()) == ("ffn-story", 1)
    at.switch_page("pages/1_parameter_split.py").run()
    assert at.selectbox(key="model").value == "llama2-70b"
