"""What the class room's tests read back from the store beyond what the app asks of it: the counts, the
values and whether a key is a room's instructor key (the app reads these through `snapshot` and the
key actions), and the store's engine on both back ends: fixtures a test module imports beside
tests/ui/pg.py's postgres_server."""
from __future__ import annotations

import pytest
import sqlalchemy as sa

from ui.room import store, store_inputs, store_tables


@pytest.fixture(scope="module")
def pg_url(postgres_server, request):
    """A fresh PostgreSQL database of the module's own (named after it)."""
    return postgres_server.create_database(request.module.__name__.rsplit(".", 1)[-1])


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request, tmp_path):
    """A new SQLite file, or the module's PostgreSQL database with no schema, as a new database has."""
    if request.param == "sqlite":
        eng = sa.create_engine(f"sqlite:///{tmp_path / 'class.sqlite'}")
    else:
        # Ten connections: the threads tests hold several at once.
        eng = sa.create_engine(request.getfixturevalue("pg_url"), pool_size=10)
        store_tables.metadata.drop_all(eng)
    yield eng
    eng.dispose()


def counts(db: store.Store, code: object, question_id: object, now: float) -> tuple[int, int]:
    """(students joined, students who answered this question); (0, 0) for no live room."""
    snap = db.snapshot(code, question_id, now)
    return (snap.joined, snap.answered) if snap else (0, 0)


def guesses(db: store.Store, code: object, question_id: object, now: float) -> list[float | str]:
    """The class's guesses to this question: values only, in no particular order."""
    snap = db.snapshot(code, question_id, now)
    return list(snap.values) if snap else []


def revealed(db: store.Store, code: object, question_id: object, now: float) -> bool:
    """Whether the instructor has revealed this question's answer to the room."""
    snap = db.snapshot(code, question_id, now)
    return bool(snap and snap.revealed)


def is_instructor(db: store.Store, code: object, key: object, now: float) -> bool:
    """Whether `key` is the instructor key of the live room `code` (the check every key action makes)."""
    with db._read() as conn:
        return db._instructor(conn, code, key, now) is store.Status.OK


def older_database(engine: sa.Engine, version: int, made_later: str, columns_later: dict[str, tuple[str, ...]],
                   now: float) -> None:
    """A database as schema `version` left it: today's tables without the table and the columns a later version
    added, holding the room ABCDEF (live for 1000 s from `now`) and its student "old", joined at `now`."""
    older = sa.MetaData()
    for table in store_tables.metadata.sorted_tables:
        if table.name == made_later:
            continue
        cols = [sa.Column(c.name, c.type, primary_key=c.primary_key, nullable=c.nullable) for c in table.columns
                if c.name not in columns_later.get(table.name, ())]
        sa.Table(table.name, older, *cols)
    older.create_all(engine)
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO class_schema (version) VALUES (:v)"), {"v": version})
        conn.execute(sa.text("INSERT INTO class_rooms (code, salt, key_hash, created, expires, view_version) "
                             "VALUES ('ABCDEF', 's', 'h', :t, :e, 0)"), {"t": now, "e": now + 1000})
        conn.execute(sa.text("INSERT INTO class_students (room, token_hash, joined) VALUES ('ABCDEF', :h, :t)"),
                     {"h": store_inputs._sha("old"), "t": now})
