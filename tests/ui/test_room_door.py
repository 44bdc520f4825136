"""The room's bounds through the whole app (AppTest, a real SQLite store): the instructor's seats and door in the
sidebar, a silent seat given up, wrong codes refused past the session's bound, a session past its address's
bound; every bound a short note in both languages, never an exception."""
from __future__ import annotations

import time

import pytest
import sqlalchemy as sa

from tests.conftest import open_class, open_page
from ui.base import i18n
from ui.room import guard, seating, session, store, store_inputs, store_tables, views

PAGE = "pages/3_linear_collapse.py"


@pytest.fixture
def db(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'class.sqlite'}"
    monkeypatch.setenv("FFNLAB_CLASS_DB", url)
    monkeypatch.setattr(seating, "FAILURES", guard.Failures())
    monkeypatch.setattr(session, "SESSIONS", guard.Sessions())
    from sqlalchemy import create_engine

    engine = create_engine(url)
    yield store.Store(engine)
    engine.dispose()


def captions(at) -> list[str]:
    return [c.value for c in at.sidebar.caption]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_instructor_sees_who_is_here_locks_the_door_and_gives_up_silent_seats(db, lang):
    t = i18n.Translator(lang)
    teacher = open_page(PAGE, lang, folded=True)
    open_class(teacher).sidebar.button(key="room_start").click().run()
    code, key = teacher.session_state[session.SEAT].code, teacher.session_state[session.KEY]
    assert t("room.seats_here", here=0, held=0) in captions(teacher)
    pupil = open_page(PAGE, lang, folded=True, room=code)
    assert pupil.session_state[session.SEAT].role == "student"
    db.join(code, "answered", time.time())
    db.submit(code, "answered", "q", 1.0, time.time())
    teacher.run()
    assert t("room.seats_here", here=2, held=2) in captions(teacher)
    # The pupil's page is open and has not answered yet: thinking, not silent; nothing to give up.
    drop = teacher.sidebar.button(key="room_drop")
    assert drop.label == t("room.drop", n=0) and drop.disabled
    # Its tab closed two minutes ago: away, and never answered.
    gone = time.time() - store.SEAT_IDLE - 1
    with db.engine.begin() as conn:
        conn.execute(sa.update(store_tables.students).where(
            store_tables.students.c.token_hash == store_inputs._sha(pupil.session_state[session.SEAT].token)).values(seen=gone))
    teacher.run()
    assert t("room.seats_here", here=1, held=2) in captions(teacher)
    assert teacher.sidebar.button(key="room_drop").label == t("room.drop", n=1)

    teacher.sidebar.button(key="room_door").click().run()
    assert db.seats(code, key, time.time()).locked
    assert any(t("room.door_locked") in c for c in captions(teacher))
    late = open_page(PAGE, lang, folded=True, room=code)
    assert session.SEAT not in late.session_state and not late.exception
    assert t("room.locked") in captions(late)

    teacher.sidebar.button(key="room_drop").click().run()
    assert db.seats(code, key, time.time()) == store.Seats(held=1, here=1, silent=0, locked=True)
    pupil.session_state[session.PRESENT] = 0.0  # its heartbeat is due
    pupil.run()
    assert not pupil.exception and session.SEAT not in pupil.session_state
    assert t("room.dropped") in captions(pupil)
    assert pupil.title, "the page still works"


def test_wrong_codes_are_refused_past_the_sessions_bound(db):
    t = i18n.Translator("en")
    at = open_page(PAGE, "en", folded=True, room="AAAAAA")
    assert t("room.unknown") in captions(at)
    for i in range(guard.FAILS_PER_SESSION):
        at.query_params["room"] = "ABCDE" + store.CODE_ALPHABET[i]
        at.run()
    assert not at.exception
    assert t("room.tries_limit") in captions(at)
    code, _ = db.create_room(time.time())
    at.query_params["room"] = code
    at.run()
    assert session.SEAT not in at.session_state  # past the bound even a real code is not tried by this session
    assert t("room.tries_limit") in captions(at)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_session_past_its_addresss_bound_gets_a_note_and_holds_nothing(db, monkeypatch, lang):
    monkeypatch.setattr(session, "SESSIONS", guard.Sessions(most=1))
    monkeypatch.setattr(session, "_client", lambda: "198.51.100.7")
    # AppTest gives every app the same session id: here each has its own, as a browser's sessions do.
    monkeypatch.setattr(session, "_session_id", lambda: session.st.session_state.setdefault("_test_id", str(time.time_ns())))
    first = open_page(PAGE, lang, folded=True)
    assert first.title and not first.warning
    second = open_page(PAGE, lang, folded=True)
    assert not second.exception
    assert [w.value for w in second.warning] == [i18n.Translator(lang)("room.sessions_limit")]
    assert not second.title and not second.get("vega_lite_chart")
    first.run()
    assert first.title  # the first session still runs


@pytest.mark.parametrize("typed", ["{a} {b}", "{a}-{b}", " {a} {b} ", "{a}{b}"])
def test_a_code_typed_as_the_projector_shows_it_joins(db, typed):
    code, _ = db.create_room(time.time())
    at = open_page(PAGE, "en", folded=True)
    box = open_class(at).sidebar.text_input(key=views.JOIN_CODE)
    assert box.max_chars == 2 * len(code)  # room for the halves and their spaces, and no more
    box.input(typed.format(a=code[:3].lower(), b=code[3:]))
    at.sidebar.button(key="room_join").click().run()
    assert not at.exception
    assert at.session_state[session.SEAT] == session.Seat(code, "student", at.session_state[session.SEAT].token)


def test_leaving_and_joining_again_in_a_loop_holds_a_few_passes(db):
    """Leave, type the code, Join: the same seat each time, and each time a cookie asked for; the store keeps a few."""
    code, _ = db.create_room(time.time())
    at = open_page(PAGE, "en", folded=True, room=code)
    token = at.session_state[session.SEAT].token
    for _ in range(3 * store.KEEP_PASSES):
        at.sidebar.button(key="room_leave").click().run()
        assert session.SEAT not in at.session_state
        open_class(at).sidebar.text_input(key=views.JOIN_CODE).input(code)
        at.sidebar.button(key="room_join").click().run()
        assert not at.exception and at.session_state[session.SEAT].token == token  # back to its own seat
    with db.engine.connect() as conn:
        kinds = conn.execute(sa.select(store_tables.passes.c.kind).where(store_tables.passes.c.room == code)).scalars().all()
    assert kinds and len(kinds) <= store.KEEP_PASSES, kinds
