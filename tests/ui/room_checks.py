"""What the class room's tests read back from the store beyond what the app asks of it: the counts, the
values and whether a key is a room's instructor key (the app reads these through `snapshot` and the
key actions), and the store's engine on both back ends: fixtures a test module imports beside
tests/ui/pg.py's postgres_server."""
from __future__ import annotations

import pytest
import sqlalchemy as sa

from ui.room import store


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
        store.metadata.drop_all(eng)
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


def is_instructor(db: store.Store, code: object, key: object, now: float) -> bool:
    """Whether `key` is the instructor key of the live room `code` (the check every key action makes)."""
    with db._read() as conn:
        return db._instructor(conn, code, key, now) is store.Status.OK
