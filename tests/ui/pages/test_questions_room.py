"""The questions inside a class room, against a stand-in for ui.room.session (the calls ui.questions.quiz makes): asking is on
without ask=1, a guess goes to the room, "stored" only when the room kept it, the reveal unfolds the page and
draws the class's guesses beside the student's own."""
from __future__ import annotations

from dataclasses import dataclass
import time
from types import SimpleNamespace

import pytest
from sqlalchemy import create_engine

from tests.conftest import chart_specs, metric_values, open_page
from ui import questions
from ui.base import i18n
from ui.questions import quiz
from ui.room import session, store

PAGE = "pages/3_linear_collapse.py"


@dataclass(frozen=True)
class Ack:
    stored: bool
    message_key: str | None
    round: int = 1


class Room:
    """A room that keeps what it is sent and reveals on demand."""

    def __init__(self, stored: bool = True, instructor: bool = False) -> None:
        self.stored, self.instructor = stored, instructor
        self.sent: list[tuple[str, object]] = []
        self.shown: set[str] = set()
        self.panels: list[list[str]] = []

    def module(self) -> SimpleNamespace:
        return SimpleNamespace(
            current=lambda page: SimpleNamespace(code="ABCDEF"),  # a seat in room ABCDEF
            is_instructor=lambda page: self.instructor,
            vote=lambda page, asked: None,  # no vote rounds: the first vote throughout
            submit=self.submit,
            revealed=lambda page, asked: [64, 60, 64, 32] if asked.id in self.shown else None,
            own_guess=lambda page, asked: None,  # nothing stored before this session (no reload)
            instructor_panel=lambda page, asked: self.panels.append([a.id for a in asked]),
            _call=lambda action, *args: [],  # the room's reads the questions make (no teacher's question put up)
            Unavailable=RuntimeError,
        )

    def submit(self, page, asked, guess):
        self.sent.append((asked.id, guess))
        return Ack(self.stored, None)


@pytest.fixture
def room(monkeypatch):
    def make(stored: bool = True, instructor: bool = False) -> Room:
        r = Room(stored, instructor)
        monkeypatch.setattr(quiz, "room", r.module())
        return r
    return make


def _rank_id(at) -> str:
    return next(b.key.split(":", 1)[1] for b in at.button if b.key and b.key.startswith("_ask_commit:")
                and "collapse_rank" in b.key)


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_in_a_room_a_guess_is_sent_stored_and_revealed(room, lang):
    r = room(stored=True)
    t = i18n.Translator(lang)
    at = open_page(PAGE, lang, folded=True)  # no ask=1: the room asks
    assert not at.exception, [e.value for e in at.exception]
    assert t("collapse.metric_rank") not in metric_values(at)
    assert r.panels == []  # a student's page draws the forms, never the presenter's view
    qid = _rank_id(at)
    at.text_input(key=f"_ask_in:{qid}").input("60")
    at.button(key=f"_ask_commit:{qid}").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert r.sent == [(qid, 60.0)]
    assert t("questions.stored") in [c.value for c in at.caption]
    assert not any(b.key == f"_ask_again:{qid}" for b in at.button)  # a kept guess stays as sent
    # The instructor reveals: the class's guesses are drawn with the student's own, and the page unfolds.
    r.shown.add(qid)
    at.run()
    specs = chart_specs(at)
    rows = [row for spec in specs for rows in spec["datasets"].values() for row in rows if "kind" in row]
    assert sorted(row["value"] for row in rows if row["kind"] == "class") == [32, 60, 64, 64]
    assert [row["value"] for row in rows if row["kind"] == "own"] == [60]
    assert [row["value"] for row in rows if row["kind"] == "measured"] == [64]


def test_the_instructor_sees_the_presenters_view_of_each_group_and_no_forms(room):
    r = room(instructor=True)
    at = open_page(PAGE, "en", folded=True)
    assert not at.exception, [e.value for e in at.exception]
    assert [len(p) for p in r.panels] == [2, 1]  # each group of questions the page shows, whole
    assert not [b for b in at.button if b.key and b.key.startswith("_ask_commit:")]


def test_a_guess_the_room_did_not_keep_is_never_called_stored(room):
    r = room(stored=False)
    t = i18n.Translator("en")
    at = open_page(PAGE, "en", folded=True)
    qid = _rank_id(at)
    at.text_input(key=f"_ask_in:{qid}").input("64")
    at.button(key=f"_ask_commit:{qid}").click().run()
    assert r.sent == [(qid, 64.0)]
    assert t("questions.stored") not in [c.value for c in at.caption]
    assert any(s.value.endswith("✓") for s in at.success)  # the student still sees the measurement
    assert any(b.key == f"_ask_again:{qid}" for b in at.button)  # and may send it again


def test_a_store_that_fails_mid_class_leaves_the_page_working(tmp_path, monkeypatch):
    # ui.room.session turns every failure to reach the store into Unavailable: the guess counts on the
    # page, is not called stored, and the room's note says why.
    url = f"sqlite:///{tmp_path / 'class.sqlite'}"
    monkeypatch.setenv("FFNLAB_CLASS_DB", url)
    engine = create_engine(url)
    code, _ = store.Store(engine).create_room(time.time())
    engine.dispose()
    at = open_page(PAGE, "en", folded=True, room=code)
    assert at.session_state[session.SEAT].code == code
    monkeypatch.setenv("FFNLAB_CLASS_DB", f"sqlite:///{tmp_path / 'no' / 'such' / 'folder' / 'class.sqlite'}")
    qid = _rank_id(at)
    at.text_input(key=f"_ask_in:{qid}").input("64")
    at.button(key=f"_ask_commit:{qid}").click().run()
    assert not at.exception, [e.value for e in at.exception]
    t = i18n.Translator("en")
    captions = [c.value for c in at.caption]
    assert t("questions.stored") not in captions and t("room.ack_unavailable") in captions
    assert at.session_state[questions.GUESSES][qid].guess == 64
