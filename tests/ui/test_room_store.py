"""The class room's store, on an SQLite file and on a real PostgreSQL server: every function, the
bounds, forged and SQL-shaped input, threads, and a database that is gone or locked."""
from __future__ import annotations

import hashlib
import sqlite3
import threading

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from tests.ui import room_checks
from tests.ui.pg import postgres_server  # noqa: F401  (the session fixture)
from tests.ui.room_checks import engine, pg_url  # noqa: F401  (the store on SQLite and PostgreSQL)
from ui.room import config, store, store_inputs, store_rooms, store_tables
from ui.room.store import CODE_ALPHABET, Status, Store, StoreUnavailable

T0 = 1_000_000.0


@pytest.fixture
def db(engine):
    return Store(engine)


def room(db: Store, now: float = T0) -> tuple[str, str]:
    made = db.create_room(now)
    assert made is not None
    return made


def raw_count(engine, table: str) -> int:
    with engine.connect() as conn:
        return conn.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one()


# --- rooms and keys -------------------------------------------------------------------------


def test_room_code_and_key_are_drawn_well(db):
    codes = set()
    for i in range(30):
        code, key = room(db, T0 + i)
        assert len(code) == 6 and set(code) <= set(CODE_ALPHABET)
        assert not set(code) & set("ILO01")
        assert len(key) >= 32  # token_urlsafe(24): 192 bits
        codes.add(code)
    assert len(codes) == 30


def test_key_is_stored_only_hashed(db, engine):
    code, key = room(db)
    with engine.connect() as conn:
        row = conn.execute(sa.select(store_tables.rooms).where(store_tables.rooms.c.code == code)).one()
    assert key not in "".join(str(v) for v in row)
    assert row.key_hash == store_inputs._key_hash(row.salt, key)
    assert room_checks.is_instructor(db, code, key, T0) and not room_checks.is_instructor(db, code, key + "x", T0)


def test_schema_carries_a_version_and_a_newer_one_is_refused(engine):
    Store(engine).room_live("AAAAAA", T0)
    with engine.begin() as conn:
        assert conn.execute(sa.select(store_tables.schema_table.c.version)).scalars().all() == [store.SCHEMA_VERSION]
        conn.execute(sa.update(store_tables.schema_table).values(version=store.SCHEMA_VERSION + 1))
    with pytest.raises(store.SchemaTooNew, match="schema version"):
        Store(engine).create_room(T0)


def test_code_collision_among_live_rooms_draws_again(db, monkeypatch):
    first, _ = room(db)
    draws = iter(first + "ABCDEF")  # the first draw collides with the live room, the second does not
    monkeypatch.setattr(store_rooms.secrets, "choice", lambda alphabet: next(draws))
    code, _ = room(db)
    assert code == "ABCDEF" and db.room_live(first, T0)


def test_an_expired_rooms_code_can_be_drawn_again(engine, monkeypatch):
    db = Store(engine, ttl=10)
    code, key = room(db)
    assert db.join(code, "s1", T0) is Status.JOINED
    draws = iter(code)
    monkeypatch.setattr(store_rooms.secrets, "choice", lambda alphabet: next(draws))
    again, key2 = room(db, T0 + 11)  # the old room is past its time but not swept yet
    assert again == code and key2 != key
    assert db.snapshot(code, "q", T0 + 11).joined == 0  # none of the old room's students


def test_room_count_is_bounded(engine):
    db = Store(engine, max_rooms=3, ttl=100)
    for i in range(3):
        room(db, T0 + i)
    assert db.create_room(T0 + 5) is None
    assert db.create_room(T0 + 101) is not None  # the first has expired


def test_close_deletes_everything_and_needs_the_key(db, engine):
    code, key = room(db)
    db.join(code, "s1", T0)
    db.submit(code, "s1", "q", 1.0, T0)
    db.reveal(code, key, "q", T0)
    assert db.close(code, "not-the-key", T0) is Status.FORBIDDEN
    assert db.room_live(code, T0)
    assert db.close(code, key, T0) is Status.OK
    assert not db.room_live(code, T0)
    for table in ("class_rooms", "class_students", "class_guesses", "class_reveals"):
        assert raw_count(engine, table) == 0, table
    assert db.close(code, key, T0) is Status.UNKNOWN


def test_expire_deletes_old_rooms_with_their_guesses(engine):
    db = Store(engine, ttl=3600)
    old, old_key = room(db, T0)
    new, _ = room(db, T0 + 1800)
    for code in (old, new):
        db.join(code, "s1", T0 + 1800)
        assert db.submit(code, "s1", "q", 2.0, T0 + 1800) is Status.STORED
    db.one_time_link(old, old_key, T0 + 3500)
    assert not db.room_live(old, T0 + 3600)  # past its time: gone for readers before the sweep
    assert db.submit(old, "s1", "q", 3.0, T0 + 3601) is Status.UNKNOWN
    assert db.expire(T0 + 3600) == 1
    assert db.room_live(new, T0 + 3600)
    assert raw_count(engine, "class_students") == 1
    assert raw_count(engine, "class_guesses") == 1
    assert raw_count(engine, "class_links") == 0
    assert db.expire(T0 + 3600) == 0


def test_join_sweeps_expired_rooms_at_most_once_a_minute(engine):
    db = Store(engine, ttl=10)
    old, _ = room(db, T0)
    new, _ = room(db, T0 + 5)
    db.join(new, "s", T0 + 30)  # created at T0: the first sweep ran then, the next is due at T0 + 60
    assert raw_count(engine, "class_rooms") == 2
    db.join(new, "s2", T0 + 61)
    assert raw_count(engine, "class_rooms") == 0  # both past their time by then
    assert not db.room_live(old, T0 + 61)


# --- students and guesses -------------------------------------------------------------------


def test_join_is_idempotent_and_bounded(engine):
    db = Store(engine, max_students=3)
    code, _ = room(db)
    assert [db.join(code, f"s{i}", T0) for i in range(3)] == [Status.JOINED] * 3
    assert db.join(code, "s0", T0) is Status.JOINED  # again: still in, not counted twice
    assert db.join(code, "s3", T0) is Status.FULL
    assert room_checks.counts(db, code, "q", T0) == (3, 0)


def test_join_unknown_forged_and_expired_codes(engine):
    db = Store(engine, ttl=60)
    code, _ = room(db)
    other = next(c for c in ("AAAAAA", "BBBBBB") if c != code)
    assert db.join(other, "s", T0) is Status.UNKNOWN
    assert db.join("I0L1O0", "s", T0) is Status.UNKNOWN  # not from the alphabet
    assert db.join(code + "A", "s", T0) is Status.UNKNOWN
    assert db.join(None, "s", T0) is Status.UNKNOWN
    assert db.join(code.lower(), "s", T0) is Status.JOINED  # what a student typed
    assert db.join(code, "", T0) is Status.INVALID
    assert db.join(code, "x" * 129, T0) is Status.INVALID
    assert db.join(code, "s2", T0 + 60) is Status.UNKNOWN


def test_latest_guess_wins_and_rate_is_bounded(db):
    code, _ = room(db)
    db.join(code, "s", T0)
    assert db.submit(code, "s", "q", 0.25, T0) is Status.STORED
    assert db.submit(code, "s", "q", 0.75, T0 + 0.5) is Status.TOO_FAST
    assert db.student_guess(code, "s", "q", T0 + 0.5) == 0.25  # the refused one was not stored
    assert db.submit(code, "s", "q", 0.75, T0 + 1.0) is Status.STORED
    assert db.submit(code, "s", "other", "b", T0 + 1.5) is Status.TOO_FAST  # per student, any question
    assert db.submit(code, "s", "other", "b", T0 + 2.0) is Status.STORED
    assert room_checks.guesses(db, code, "q", T0 + 3) == [0.75]
    assert db.student_guess(code, "s", "other", T0 + 3) == "b"
    assert room_checks.counts(db, code, "q", T0 + 3) == (1, 1)


def test_guesses_are_values_only_and_per_question(db):
    code, _ = room(db)
    for i in range(5):
        db.join(code, f"s{i}", T0)
        db.submit(code, f"s{i}", "q:num", float(i) / 2, T0)
        if i < 3:
            db.submit(code, f"s{i}", "q:opt", "yes" if i % 2 else "no", T0 + 1)
    assert sorted(room_checks.guesses(db, code, "q:num", T0)) == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert sorted(room_checks.guesses(db, code, "q:opt", T0)) == ["no", "no", "yes"]
    snap = db.snapshot(code, "q:opt", T0)
    assert (snap.joined, snap.answered, snap.revealed) == (5, 3, False)
    assert room_checks.guesses(db, code, "q:none", T0) == [] and db.student_guess(code, "s0", "q:none", T0) is None


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), True, None, [1], {"a": 1},
                                   "", "x" * 33, "two words", "'; DROP TABLE class_guesses; --", 10**400])
def test_values_that_are_not_guesses_are_refused(db, value):
    code, _ = room(db)
    db.join(code, "s", T0)
    assert db.submit(code, "s", "q", value, T0) is Status.INVALID
    assert room_checks.counts(db, code, "q", T0) == (1, 0)
    assert db.submit(code, "s", "q", 1e300, T0) is Status.STORED  # the refusal cost no rate


def test_question_ids_are_bounded(db):
    code, _ = room(db)
    db.join(code, "s", T0)
    assert db.submit(code, "s", "q" * 121, 1.0, T0) is Status.INVALID
    assert db.submit(code, "s", "", 1.0, T0) is Status.INVALID
    assert db.submit(code, "s", "a\nb", 1.0, T0) is Status.INVALID
    assert db.submit(code, "s", 7, 1.0, T0) is Status.INVALID
    assert db.submit(code, "s", "q" * 120, 1.0, T0) is Status.STORED


def test_only_joined_students_of_live_rooms_submit(engine):
    db = Store(engine, ttl=60)
    code, _ = room(db)
    assert db.submit(code, "stranger", "q", 1.0, T0) is Status.NOT_JOINED
    db.join(code, "s", T0)
    assert db.submit("ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY", "s", "q", 1.0, T0) is Status.UNKNOWN
    assert db.submit(code, "s", "q", 1.0, T0 + 60) is Status.UNKNOWN
    assert room_checks.counts(db, code, "q", T0) == (1, 0)


def test_sql_shaped_input_is_stored_or_refused_harmlessly(db, engine):
    code, key = room(db)
    evil = "x'; DROP TABLE class_guesses; --"
    assert db.join("'; DROP TABLE class_rooms; --", "s", T0) is Status.UNKNOWN
    assert db.join(code, evil, T0) is Status.JOINED  # a token is any short string: kept hashed
    assert db.submit(code, evil, evil, 1.5, T0) is Status.STORED  # a question id is kept as text
    assert db.student_guess(code, evil, evil, T0) == 1.5
    assert db.submit(code, evil, "q", "'; DELETE FROM class_rooms; --", T0 + 1) is Status.INVALID
    assert db.reveal(code, evil, "q", T0) is Status.FORBIDDEN
    assert db.reset(code, key, evil, T0) is Status.OK
    assert db.set_view(code, key, evil, {evil: evil}, T0) is Status.OK
    assert db.view(code, T0).params == {evil: evil}
    assert db.redeem(code, evil, T0) is None
    for table in ("class_rooms", "class_students", "class_guesses", "class_reveals", "class_links",
                  "class_schema"):
        raw_count(engine, table)  # every table is still there
    assert db.room_live(code, T0) and room_checks.counts(db, code, evil, T0) == (1, 0)


# --- the instructor -------------------------------------------------------------------------


def test_reveal_and_reset_need_the_key(db):
    code, key = room(db)
    other_code, other_key = room(db)
    for i in range(3):
        db.join(code, f"s{i}", T0)
        db.submit(code, f"s{i}", "q1", 1.0 + i, T0)
        db.submit(code, f"s{i}", "q2", "a", T0 + 1)
    for bad in ("", "wrong", other_key, key[:-1], None, 12, "k" * 1000):
        assert db.reveal(code, bad, "q1", T0) is Status.FORBIDDEN
        assert db.reset(code, bad, None, T0) is Status.FORBIDDEN
        assert db.set_view(code, bad, "home", {}, T0) is Status.FORBIDDEN
        assert db.one_time_link(code, bad, T0) is None
    assert not room_checks.revealed(db, code, "q1", T0) and db.revealed_guesses(code, "q1", T0) is None
    assert db.reveal(other_code, key, "q1", T0) is Status.FORBIDDEN
    assert db.reveal(code, key, "q1", T0) is Status.OK
    assert db.reveal(code, key, "q1", T0 + 1) is Status.OK  # again: still revealed
    assert db.reveal(code, key, "q2", T0) is Status.OK
    assert room_checks.revealed(db, code, "q1", T0) and db.snapshot(code, "q1", T0).revealed
    assert sorted(db.revealed_guesses(code, "q1", T0)) == [1.0, 2.0, 3.0]
    assert db.revealed_guesses(other_code, "q1", T0) is None
    assert not room_checks.revealed(db, other_code, "q1", T0)
    assert db.reset(code, key, "q1", T0) is Status.OK
    assert not room_checks.revealed(db, code, "q1", T0) and room_checks.guesses(db, code, "q1", T0) == []
    assert db.revealed_guesses(code, "q1", T0) is None
    assert room_checks.revealed(db, code, "q2", T0) and room_checks.counts(db, code, "q2", T0) == (3, 3)
    assert db.reset(code, key, None, T0) is Status.OK
    assert not room_checks.revealed(db, code, "q2", T0) and room_checks.counts(db, code, "q2", T0) == (3, 0)
    assert db.reset(code, key, "q" * 121, T0) is Status.INVALID


def test_follow_the_instructor_view(db):
    code, key = room(db)
    assert db.view(code, T0) is None
    assert db.set_view(code, key, "collapse", {"depth": "3", "act": "relu"}, T0) is Status.OK
    first = db.view(code, T0)
    assert (first.section, first.params) == ("collapse", {"depth": "3", "act": "relu"})
    assert db.set_view(code, key, "sweep", {}, T0 + 1) is Status.OK
    second = db.view(code, T0 + 1)
    assert (second.section, second.params) == ("sweep", {}) and second.version > first.version
    assert db.set_view(code, key, "s", {"a": 1}, T0) is Status.INVALID
    assert db.set_view(code, key, "s", {str(i): "v" for i in range(41)}, T0) is Status.INVALID
    assert db.set_view(code, key, "s" * 65, {}, T0) is Status.INVALID
    assert db.set_view(code, key, "s", {"a": "v" * 201}, T0) is Status.INVALID
    assert db.set_view(code, key, "s", "a=1", T0) is Status.INVALID
    assert db.view(code, T0 + 1) == second
    assert db.view("'; --", T0) is None


def test_polled_reads_are_one_statement(db, engine):
    code, key = room(db)
    db.set_view(code, key, "home", {}, T0)
    db.view(code, T0)  # the schema check is done once
    seen = []
    event.listen(engine, "before_cursor_execute", lambda *a: seen.append(a[2]))
    db.view(code, T0)
    reads = [s for s in seen if s.lstrip().upper().startswith("SELECT")]
    assert len(reads) == 1 and "class_rooms.code =" in reads[0]
    seen.clear()
    assert db.revealed_guesses(code, "q", T0) is None  # what a student's page asks on every rerun
    assert len([s for s in seen if s.lstrip().upper().startswith("SELECT")]) == 1


def test_one_time_link_carries_the_key_once(engine):
    db = Store(engine)
    code, key = room(db)
    token = db.one_time_link(code, key, T0)
    assert token and len(token) >= 32
    with engine.connect() as conn:
        stored = conn.execute(sa.select(store_tables.links)).one()
    assert token not in str(tuple(stored)) and key not in str(tuple(stored))
    other_code, _ = room(db)
    assert db.redeem(other_code, token, T0) is None  # another room's code
    assert db.redeem(code, token + "x", T0) is None
    assert db.redeem(code, token, T0 + 1) == key
    assert db.redeem(code, token, T0 + 2) is None  # once
    late = db.one_time_link(code, key, T0)
    assert db.redeem(code, late, T0 + store.LINK_TTL) is None  # minutes, not hours
    closed = db.one_time_link(code, key, T0)
    db.close(code, key, T0)
    assert db.redeem(code, closed, T0) is None


# --- threads and failures -------------------------------------------------------------------


def test_concurrent_submits_from_threads_none_lost(db, engine):
    code, key = room(db)
    n = 40
    for i in range(n):
        assert db.join(code, f"s{i}", T0) is Status.JOINED
    results: list[Status | Exception] = []
    start = threading.Barrier(n)

    def student(i: int) -> None:
        start.wait()
        try:
            results.append(db.submit(code, f"s{i}", "q", float(i), T0 + 1))
        except Exception as e:  # noqa: BLE001  -- reported below
            results.append(e)

    threads = [threading.Thread(target=student, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results == [Status.STORED] * n
    assert sorted(room_checks.guesses(db, code, "q", T0 + 2)) == [float(i) for i in range(n)]
    assert raw_count(engine, "class_guesses") == n


def test_one_student_in_a_loop_from_threads_stores_once(db):
    code, _ = room(db)
    db.join(code, "s", T0)
    results = []
    start = threading.Barrier(10)

    def burst(i: int) -> None:
        start.wait()
        results.append(db.submit(code, "s", "q", float(i), T0 + 1))

    threads = [threading.Thread(target=burst, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(results, key=str) == [Status.STORED] + [Status.TOO_FAST] * 9
    assert len(room_checks.guesses(db, code, "q", T0 + 1)) == 1


def test_concurrent_joins_at_the_bound_let_exactly_the_bound_in(engine):
    db = Store(engine, max_students=10)
    code, _ = room(db)
    results = []
    start = threading.Barrier(20)

    def join(i: int) -> None:
        start.wait()
        results.append(db.join(code, f"s{i}", T0))

    threads = [threading.Thread(target=join, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results.count(Status.JOINED) == 10 and results.count(Status.FULL) == 10
    assert room_checks.counts(db, code, "q", T0) == (10, 0)


def test_a_failure_mid_write_leaves_nothing_half_written(db, engine):
    code, _ = room(db)
    db.join(code, "s", T0)

    def fail_on_guess(conn, cursor, statement, *rest):
        if "class_guesses" in statement and statement.lstrip().upper().startswith("INSERT"):
            raise engine.dialect.loaded_dbapi.OperationalError("the disk failed (simulated)")

    event.listen(engine, "before_cursor_execute", fail_on_guess)
    with pytest.raises(StoreUnavailable):
        db.submit(code, "s", "q", 1.0, T0)
    event.remove(engine, "before_cursor_execute", fail_on_guess)
    assert db.student_guess(code, "s", "q", T0) is None
    # The rate stamp was rolled back with the guess: the student may send it again at once.
    assert db.submit(code, "s", "q", 1.0, T0 + 0.1) is Status.STORED


def test_a_database_that_is_gone_raises_store_unavailable():
    port = config_free_port()
    db = Store(sa.create_engine(f"postgresql+psycopg://postgres@127.0.0.1:{port}/x?connect_timeout=2"))
    for call in (lambda: db.create_room(T0), lambda: db.join("ABCDEF", "s", T0),
                 lambda: db.submit("ABCDEF", "s", "q", 1.0, T0), lambda: db.view("ABCDEF", T0),
                 lambda: db.snapshot("ABCDEF", "q", T0), lambda: db.expire(T0)):
        with pytest.raises(StoreUnavailable):
            call()


def test_a_locked_sqlite_file_raises_store_unavailable_and_writes_nothing(tmp_path):
    path = tmp_path / "class.sqlite"
    db = Store(sa.create_engine(f"sqlite:///{path}"), busy_timeout_ms=200)
    code, key = room(db)
    db.join(code, "s", T0)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreUnavailable):
            db.submit(code, "s", "q", 1.0, T0)
        with pytest.raises(StoreUnavailable):
            db.join(code, "s2", T0)
        with pytest.raises(StoreUnavailable):
            db.reveal(code, key, "q", T0)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert room_checks.counts(db, code, "q", T0) == (1, 0) and not room_checks.revealed(db, code, "q", T0)
    assert db.submit(code, "s", "q", 1.0, T0 + 0.1) is Status.STORED


def test_sqlite_runs_in_wal_and_syncs_at_checkpoints(tmp_path):
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'c.sqlite'}")
    db = Store(engine)
    room(db)
    with sqlite3.connect(tmp_path / "c.sqlite") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with engine.connect() as conn:  # the store's own connections: 1 = NORMAL (the file's default is 2, FULL)
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1


def config_free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when this returns: nothing listens there


# --- where the database is ------------------------------------------------------------------


def test_config_url_order(tmp_path, monkeypatch):
    secrets_file = tmp_path / "secrets.toml"
    monkeypatch.setenv(config.ENV_DIR, str(tmp_path / "data"))
    monkeypatch.delenv(config.ENV_URL, raising=False)
    assert config.url(secrets_file) == f"sqlite:///{tmp_path / 'data' / 'class.sqlite'}"
    assert (tmp_path / "data").is_dir()
    secrets_file.write_text('[connections.class]\nurl = "postgresql+psycopg://u@h/db"\n')
    assert config.url(secrets_file) == "postgresql+psycopg://u@h/db"
    monkeypatch.setenv(config.ENV_URL, "postgresql+psycopg://env@h/db")
    assert config.url(secrets_file) == "postgresql+psycopg://env@h/db"
    monkeypatch.delenv(config.ENV_URL)
    secrets_file.write_text("not [ toml")
    assert config.url(secrets_file).startswith("sqlite:///")
    assert config.describe("postgresql+psycopg://u:secret@h:5432/db") == "postgresql+psycopg://u:***@h:5432/db"


def test_normalize_code():
    assert store.normalize_code(" abc def ") == "ABCDEF"
    for bad in ("ABCDE", "ABCDEFG", "ABCDE1", "ABCDEI", 123456, None, "A" * 1000):
        assert store.normalize_code(bad) is None


def test_replicas_creating_the_schema_at_once_agree(engine):
    stores = [Store(engine) for _ in range(4)]
    results = []
    start = threading.Barrier(4)

    def first_use(db: Store) -> None:
        start.wait()
        try:
            results.append(db.create_room(T0))
        except Exception as e:  # noqa: BLE001  -- reported below
            results.append(e)

    threads = [threading.Thread(target=first_use, args=(db,)) for db in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert all(isinstance(r, tuple) for r in results), results
    assert raw_count(engine, "class_rooms") == 4 and raw_count(engine, "class_schema") == 1


def test_the_store_imports_no_streamlit():
    import subprocess
    import sys

    code = "import sys, ui.room.store, ui.room.config; print(any(m.startswith('streamlit') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=config.ROOT)
    assert out.stdout.strip() == "False"


# --- schema 2: seats that outlive a reload, per-client bounds, abandoned seats ----------------------


def test_a_version_1_database_is_migrated_and_keeps_its_rooms(engine):
    v1_later = ("seen", "left_at", "client")
    room_checks.older_database(engine, 1, "class_passes", {"class_students": v1_later, "class_rooms": v1_later}, T0)
    db = Store(engine)
    assert db.join("ABCDEF", "old", T0 + 1) is Status.JOINED  # the v1 seat is found, not a second one
    assert room_checks.counts(db, "ABCDEF", "q", T0 + 1) == (1, 0)
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version FROM class_schema")).scalar_one() == store.SCHEMA_VERSION
    assert db.seat_pass("ABCDEF", "old", T0 + 2) is not None  # class_passes exists


def test_a_seat_cookie_gives_back_the_same_seat_and_guess(db):
    code, _ = room(db)
    assert db.join(code, "tok", T0) is Status.JOINED
    assert db.submit(code, "tok", "q", 0.4, T0) is Status.STORED
    nonce = db.seat_pass(code, "tok", T0 + 1)
    got = db.redeem_nonce(nonce, T0 + 2)
    assert got is not None and got.kind == "seat" and got.expires == T0 + store.ROOM_TTL
    assert got.secret not in (nonce, "tok") and len(got.secret) >= 32
    assert db.redeem_nonce(nonce, T0 + 3) is None  # one time only
    claim = db.claim(got.secret, T0 + 10)
    assert claim == store.Claim("seat", code, "tok")
    assert db.join(code, claim.secret, T0 + 10) is Status.JOINED
    assert room_checks.counts(db, code, "q", T0 + 10) == (1, 1)
    assert db.student_guess(code, claim.secret, "q", T0 + 10) == 0.4


def test_passes_refuse_what_is_not_theirs(db, engine):
    code, key = room(db)
    db.join(code, "tok", T0)
    assert db.seat_pass(code, "nobody", T0) is None
    assert db.host_pass(code, "wrong key", T0) is None
    assert db.seat_pass(code, "x" * 65, T0) is None
    nonce = db.seat_pass(code, "tok", T0)
    assert db.redeem_nonce(nonce, T0 + store.NONCE_TTL + 1) is None  # too late
    altered = nonce[:-1] + ("y" if nonce.endswith("x") else "x")  # one character off (a nonce may end in x)
    for forged in ("", "a" * 200, None, 5, "' OR 1=1 --", altered):
        assert db.redeem_nonce(forged, T0) is None
        assert db.claim(forged, T0) is None
    # A seat's secret is not a nonce, and a nonce is not a cookie.
    fresh = db.seat_pass(code, "tok", T0)
    assert db.claim(fresh, T0) is None
    secret = db.redeem_nonce(fresh, T0).secret
    assert db.redeem_nonce(secret, T0) is None
    # Nothing usable is stored: neither the secret, the nonce, the token nor the key.
    with engine.connect() as conn:
        dump = " ".join(str(v) for row in conn.execute(sa.text("SELECT * FROM class_passes")) for v in row)
    for plain in (secret, fresh, "tok", key):
        assert plain not in dump


def test_the_instructor_cookie_gives_the_key_and_dies_with_the_room(db):
    code, key = room(db)
    got = db.redeem_nonce(db.host_pass(code, key, T0), T0 + 1)
    assert got.kind == "host"
    assert db.claim(got.secret, T0 + 5) == store.Claim("host", code, key)
    assert db.close(code, key, T0 + 6) is Status.OK
    assert db.claim(got.secret, T0 + 7) is None


def test_a_left_seat_does_not_count_and_its_cookie_gives_nothing(db):
    code, _ = room(db)
    db.join(code, "a", T0)
    secret = db.redeem_nonce(db.seat_pass(code, "a", T0), T0).secret
    db.submit(code, "a", "q", 1.0, T0)
    assert db.leave(code, "a", T0 + 1) is Status.OK
    assert room_checks.counts(db, code, "q", T0 + 1) == (0, 1)  # the guess stays counted
    assert db.claim(secret, T0 + 2) is None
    assert db.submit(code, "a", "q", 2.0, T0 + 5) is Status.NOT_JOINED
    assert db.join(code, "a", T0 + 6) is Status.JOINED  # the same token takes its seat again
    assert room_checks.counts(db, code, "q", T0 + 6) == (1, 1)


def test_abandoned_and_left_seats_leave_room_for_others(engine):
    db = Store(engine, max_students=3)
    code, _ = room(db)
    for i in range(3):
        assert db.join(code, f"s{i}", T0) is Status.JOINED
    assert db.join(code, "late", T0 + 1) is Status.FULL
    db.leave(code, "s0", T0 + 2)
    assert db.join(code, "late", T0 + 3) is Status.JOINED
    assert db.join(code, "later", T0 + 4) is Status.FULL
    db.submit(code, "s1", "q", 1.0, T0 + store.SEAT_IDLE - 10)  # s1 is still here; s2 went quiet
    assert db.join(code, "later", T0 + store.SEAT_IDLE + 5) is Status.JOINED
    assert db.join(code, "s0", T0 + store.SEAT_IDLE + 6) is Status.JOINED  # "late" went quiet too: s1, later, s0
    assert db.join(code, "last", T0 + store.SEAT_IDLE + 7) is Status.FULL


def test_one_client_cannot_fill_the_store_or_a_room(engine):
    db = Store(engine, max_rooms=10, max_rooms_per_client=3, max_joins_per_client=4)
    made = [db.create_room(T0 + i, client="10.0.0.9") for i in range(4)]
    assert all(isinstance(m, tuple) for m in made[:3]) and made[3] is Status.LIMIT
    assert isinstance(db.create_room(T0 + 5, client="10.0.0.7"), tuple)  # another client still can
    code = made[0][0]
    assert [db.join(code, f"t{i}", T0 + 10, client="10.0.0.9") for i in range(5)] == [Status.JOINED] * 4 + [Status.LIMIT]
    assert db.join(code, "t0", T0 + 11, client="10.0.0.9") is Status.JOINED  # a seat it holds is not a new one
    assert db.join(code, "other", T0 + 11, client="10.0.0.8") is Status.JOINED
    # Not a window: hours on, the seats it added still count against it (the room's whole life).
    assert db.join(code, "t9", T0 + 3 * 3600, client="10.0.0.9") is Status.LIMIT
    assert db.join(code, "t1", T0 + 3 * 3600, client="10.0.0.9") is Status.JOINED  # its own seats still come back
    # The address itself is not stored, nor its hash under a salt anyone could know.
    with engine.connect() as conn:
        clients = {r[0] for r in conn.execute(sa.text("SELECT client FROM class_students"))}
    assert clients and not any("10.0.0" in c for c in clients)
    for fixed in ("ffnlab-client:10.0.0.9", "10.0.0.9"):
        assert hashlib.sha256(fixed.encode()).hexdigest() not in clients


def test_a_class_behind_one_address_joins_and_a_script_stops_at_a_class(engine):
    db = Store(engine)
    code, _ = room(db)
    statuses = [db.join(code, f"s{i}", T0 + i * 0.4, client="school") for i in range(500)]  # 500 in 200 s
    assert statuses[:store.MAX_JOINS_PER_CLIENT] == [Status.JOINED] * store.MAX_JOINS_PER_CLIENT  # a class of 100, and more
    assert set(statuses[store.MAX_JOINS_PER_CLIENT:]) == {Status.LIMIT}
    assert db.join(code, "elsewhere", T0 + 200, client="elsewhere") is Status.JOINED


def test_versions_reads_live_rooms_only(db):
    a, ka = room(db)
    b, _ = room(db, T0 + 1)
    db.set_view(a, ka, "collapse", {}, T0 + 2)
    assert db.versions([a, b, "ZZZZZZ", "bad", None], T0 + 3) == {a: 1, b: 0}
    assert db.versions([a], T0 + store.ROOM_TTL + 10) == {}
    assert db.versions([], T0) == {}
