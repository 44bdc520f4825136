"""Peer instruction in the class room's store, on SQLite and on a real PostgreSQL: two votes of one
question, a vote closed by hand or by a timer the store's clock decides, the distribution shown without
the answer, the questions registered for the results, a lesson's step, and a version 1 database migrated."""
from __future__ import annotations

import sqlalchemy as sa
import pytest

from tests.ui.pg import postgres_server  # noqa: F401  (the session fixture)
from tests.ui.room_checks import engine, pg_url  # noqa: F401  (the store on SQLite and PostgreSQL)
from ui.room import store, store_tables
from ui.room.store import Status, Store, Vote

T0 = 2_000_000.0
Q = "collapse:questions.collapse_rank:abcdef012345"


@pytest.fixture
def db(engine):
    return Store(engine, min_interval=0.0)


def _class(db: Store, n: int, now: float = T0) -> tuple[str, str, list[str]]:
    code, key = db.create_room(now)
    tokens = [f"student-{i}" for i in range(n)]
    for token in tokens:
        assert db.join(code, token, now) is Status.JOINED
    return code, key, tokens


def test_a_question_votes_once_until_the_instructor_closes_it(db):
    code, key, (a, b) = _class(db, 2)
    assert db.vote(code, Q, T0) == Vote(round=1, open=True, closes_in=None, shown=False)
    assert db.submit(code, a, Q, 64.0, T0 + 1) is Status.STORED
    assert db.close_vote(code, "not the key", Q, None, T0 + 2) is Status.FORBIDDEN
    assert db.close_vote(code, key, Q, None, T0 + 2) is Status.OK
    assert db.vote(code, Q, T0 + 2).open is False
    assert db.submit(code, b, Q, 32.0, T0 + 3) is Status.CLOSED
    assert db.submit(code, a, Q, 16.0, T0 + 3) is Status.CLOSED  # a closed vote keeps the guess as it was
    assert list(db.snapshot(code, Q, T0 + 3).values) == [64.0]
    assert db.close_vote(code, key, Q, None, T0 + 4) is Status.CLOSED  # already closed


def test_a_timer_closes_the_vote_by_the_stores_clock(db):
    code, key, (a, b) = _class(db, 2)
    assert db.close_vote(code, key, Q, 30, T0) is Status.OK
    vote = db.vote(code, Q, T0 + 10)
    assert vote.open and vote.closes_in == pytest.approx(20.0)
    assert db.submit(code, a, Q, 64.0, T0 + 29.9) is Status.STORED
    assert db.vote(code, Q, T0 + 30).open is False and db.vote(code, Q, T0 + 30).closes_in is None
    assert db.submit(code, b, Q, 64.0, T0 + 30.0) is Status.CLOSED
    for bad in (0, -5, float("inf"), float("nan"), store.MAX_TIMER + 1, True, "30"):
        assert db.close_vote(code, key, "other:q:1", bad, T0) is Status.INVALID


def test_the_second_vote_keeps_the_first_apart(db):
    code, key, tokens = _class(db, 4)
    for token, value in zip(tokens, (1.0, 2.0, 64.0, 3.0)):
        assert db.submit(code, token, Q, value, T0 + 1) is Status.STORED
    assert db.second_vote(code, key, Q, None, T0 + 2) is Status.CLOSED  # the first vote is still open
    assert db.close_vote(code, key, Q, None, T0 + 2) is Status.OK
    assert db.show_votes(code, key, Q, True, T0 + 3) is Status.OK
    assert db.vote(code, Q, T0 + 3) == Vote(round=1, open=False, closes_in=None, shown=True)
    assert db.first_vote(code, Q, T0 + 3) is None  # no second vote yet
    assert db.second_vote(code, key, Q, 60, T0 + 4) is Status.OK
    vote = db.vote(code, Q, T0 + 4)
    assert (vote.round, vote.open, vote.shown, vote.closes_in) == (2, True, False, pytest.approx(60.0))
    assert sorted(db.first_vote(code, Q, T0 + 5)) == [1.0, 2.0, 3.0, 64.0]
    assert list(db.snapshot(code, Q, T0 + 5).values) == []  # everyone may answer again
    for token, value in zip(tokens[:3], (64.0, 64.0, 2.0)):
        assert db.submit(code, token, Q, value, T0 + 10) is Status.STORED
    assert sorted(list(db.snapshot(code, Q, T0 + 10).values)) == [2.0, 64.0, 64.0]
    assert db.submit(code, tokens[3], Q, 64.0, T0 + 64) is Status.CLOSED  # its timer ran out
    assert db.second_vote(code, key, Q, None, T0 + 70) is Status.INVALID  # two votes, not three
    tally = db.results(code, key, T0 + 70)
    assert [(t.question, sorted(t.first), sorted(t.last)) for t in tally] == [
        (Q, [1.0, 2.0, 3.0, 64.0], [2.0, 64.0, 64.0])]
    # Reset starts the question over: one open vote, nothing kept.
    assert db.reset(code, key, Q, T0 + 71) is Status.OK
    assert db.vote(code, Q, T0 + 71) == Vote()
    assert db.results(code, key, T0 + 71) == []


def test_no_second_vote_after_the_answer_is_revealed(db):
    code, key, (a,) = _class(db, 1)
    db.submit(code, a, Q, 64.0, T0)
    db.close_vote(code, key, Q, None, T0 + 1)
    assert db.reveal(code, key, Q, T0 + 2) is Status.OK
    assert db.second_vote(code, key, Q, None, T0 + 3) is Status.INVALID


def test_the_results_read_what_was_registered_and_need_the_key(db):
    code, key, (a, b) = _class(db, 2)
    about = {"section": "collapse", "key": "questions.collapse_rank", "kind": "number", "tolerance": 0,
             "answer": 64.0, "values": {"d": 64}}
    assert db.register(code, key, Q, about, T0) is Status.OK
    assert db.register(code, key, Q, {**about, "answer": 1.0}, T0 + 1) is Status.OK  # the first write stays
    assert db.register(code, "wrong", Q, about, T0) is Status.FORBIDDEN
    assert db.register(code, key, Q, {"x": float("nan")}, T0) is Status.INVALID
    assert db.register(code, key, Q, {"x": "y" * (store.MAX_ABOUT + 1)}, T0) is Status.INVALID
    other = "split:questions.split_share:000000000000"
    db.submit(code, a, other, "yes", T0 + 2)  # answered, never shown by the instructor's view
    db.submit(code, b, Q, 64.0, T0 + 2)
    tally = db.results(code, key, T0 + 3)
    assert [(t.question, t.about.get("answer"), t.first, t.last, t.revealed) for t in tally] == [
        (Q, 64.0, None, (64.0,), False), (other, None, None, ("yes",), False)]
    assert db.results(code, "wrong", T0) is None
    assert db.results("ABCDEF", key, T0) is None


def test_a_rooms_lesson_and_step(db):
    code, key, _ = _class(db, 0)
    assert db.lesson(code, T0) is None
    assert db.set_lesson(code, key, "ffn-story", 0, T0) is Status.OK
    assert db.set_lesson(code, key, "ffn-story", 3, T0) is Status.OK
    assert db.lesson(code, T0) == ("ffn-story", 3)
    assert db.set_lesson(code, "wrong", "ffn-story", 4, T0) is Status.FORBIDDEN
    for lesson, step in (("x" * 65, 0), ("ffn", -1), ("ffn", "2"), ("ffn", True), (3, 0)):
        assert db.set_lesson(code, key, lesson, step, T0) is Status.INVALID
    assert db.set_lesson(code, key, None, None, T0) is Status.OK
    assert db.lesson(code, T0) is None


def test_closing_a_room_deletes_its_votes_questions_and_lesson(db, engine):
    code, key, (a,) = _class(db, 1)
    db.submit(code, a, Q, 1.0, T0)
    db.close_vote(code, key, Q, None, T0)
    db.second_vote(code, key, Q, None, T0)
    db.register(code, key, Q, {"section": "collapse"}, T0)
    db.set_lesson(code, key, "ffn-story", 1, T0)
    assert db.close(code, key, T0) is Status.OK
    with engine.connect() as conn:
        for table in ("class_votes", "class_first_votes", "class_questions", "class_lessons"):
            assert conn.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one() == 0, table


def test_forged_input_to_the_vote_calls(db):
    code, key, _ = _class(db, 1)
    assert db.vote("not a code", Q, T0) is None
    assert db.vote(code, "x" * 500, T0) is None
    assert db.show_votes(code, key, Q, "yes", T0) is Status.INVALID
    assert db.close_vote(code, key, "'; DROP TABLE class_rooms; --", None, T0) is Status.OK
    assert db.room_live(code, T0)


def test_a_version_2_database_is_migrated_in_place(engine):
    """A database made by schema 2 (before the votes) keeps its rooms and gains the vote tables."""
    older = [t for t in store_tables.metadata.sorted_tables if t not in store_tables._VOTE_TABLES]
    with engine.begin() as conn:
        store_tables.metadata.create_all(conn, tables=older)
        conn.execute(sa.insert(store_tables.schema_table).values(version=2))
        conn.execute(sa.insert(store_tables.rooms).values(code="K7MQ3D", salt="s", key_hash="h", created=T0,
                                                   expires=T0 + 100, view_version=0))
    assert not sa.inspect(engine).has_table("class_votes")
    db = Store(engine)
    assert db.room_live("K7MQ3D", T0)
    assert db.vote("K7MQ3D", Q, T0) == Vote()
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT max(version) FROM class_schema")).scalar_one() == store.SCHEMA_VERSION == 4
        assert conn.execute(sa.text("SELECT count(*) FROM class_votes")).scalar_one() == 0


def test_joined_counts_the_rooms_students(db):
    code, key, _ = _class(db, 3)
    assert db.joined(code, T0) == 3
    assert db.joined("ABCDEF", T0) is None
    db.close(code, key, T0)
    assert db.joined(code, T0) is None
