"""The class store's footing: one transaction per call (SQLite set up to share its file between threads and
processes), the schema made or migrated on first use, and what every part of the store asks of it (a live room,
the instructor key checked, a client keyed, rooms dropped)."""
from __future__ import annotations

import contextlib
import hashlib
import hmac
import math
import secrets
import threading
from collections.abc import Callable, Iterator

from sqlalchemy import Engine, Table, delete, event, func, insert, select, update
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from ui.room.store_inputs import _key_hash, address_key, normalize_code
from ui.room.store_records import (CLASS_PER_CLIENT, EXPIRE_EVERY, MAX_CLIENT, MAX_JOINS_PER_CLIENT, MAX_ROOMS,
                                   MAX_ROOMS_PER_CLIENT, MAX_STUDENTS, MAX_TOKEN, MIN_INTERVAL, ROOM_TTL, SchemaTooNew,
                                   Status, StoreUnavailable)
from ui.room.store_tables import (_MIGRATIONS, _ROOM_TABLES, SCHEMA_VERSION, links, metadata, passes, rooms, salt_table,
                                  schema_table, students)

_PG_LOCK = 0x46464E4C  # "FFNL": the advisory lock two replicas take while one creates the schema


def _sqlite_setup(engine: Engine, busy_timeout_ms: int) -> None:
    """WAL, a busy timeout, and transactions SQLite begins the way we say.

    pysqlite begins a transaction lazily, before the first INSERT/UPDATE/DELETE only: a SELECT
    before it would run outside the transaction, and a read that later writes can fail at once
    with "database is locked" instead of waiting. So its own handling is switched off and each
    transaction begins here: IMMEDIATE (the write lock up front, waiting up to the busy timeout)
    unless the connection is marked read-only, which WAL lets run beside a writer.
    """
    if getattr(engine, "_ffnlab_sqlite", None) is not None:
        return

    def on_connect(dbapi_conn, _record) -> None:
        dbapi_conn.isolation_level = None
        cursor = dbapi_conn.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        # Setting the mode takes a lock that does not wait for the busy timeout: a connection
        # opened while another process writes would fail. The mode stays in the file once set.
        if cursor.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            cursor.execute("PRAGMA journal_mode = WAL")
        # WAL's own advice: no fsync on every commit, only at checkpoints. A crash of the process loses
        # nothing and the file stays whole; a power cut may lose the last commits of a class's votes. With an
        # fsync per commit, writers queued behind a disk busy with other work waited past the busy timeout.
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    def on_begin(conn: Connection) -> None:
        read_only = conn.get_execution_options().get("ffnlab_read", False)
        conn.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")

    event.listen(engine, "connect", on_connect)
    event.listen(engine, "begin", on_begin)
    # One writer at a time within this process, in arrival order: threads waiting on SQLite's busy
    # handler poll with growing sleeps, and under load some of them waited past the timeout.
    engine._ffnlab_sqlite = threading.Lock()  # type: ignore[attr-defined]
    engine.dispose()  # connections opened before the listeners would miss them


def _guess(row) -> float | str:
    """A stored guess: its option, or its number."""
    return row.option if row.option is not None else row.number


class StoreBase:
    """The store on one database, before its calls (ui/room/store.py composes them): its bounds, its transactions."""

    def __init__(self, engine: Engine, *, ttl: float = ROOM_TTL, max_students: int = MAX_STUDENTS,
                 max_rooms: int = MAX_ROOMS, min_interval: float = MIN_INTERVAL,
                 max_rooms_per_client: int = MAX_ROOMS_PER_CLIENT,
                 max_joins_per_client: int = MAX_JOINS_PER_CLIENT,
                 max_votes_per_client: int = CLASS_PER_CLIENT, busy_timeout_ms: int = 3000) -> None:
        self.engine = engine
        self.ttl = ttl
        self.max_students = max_students
        self.max_rooms = max_rooms
        self.min_interval = min_interval
        self.max_rooms_per_client = max_rooms_per_client
        self.max_joins_per_client = max_joins_per_client
        self.max_votes_per_client = max_votes_per_client
        self._dialect = engine.dialect.name
        self._writer: threading.Lock | None = None
        self._wait = busy_timeout_ms / 1000
        if self._dialect == "sqlite":
            _sqlite_setup(engine, busy_timeout_ms)
            self._writer = engine._ffnlab_sqlite  # type: ignore[attr-defined]
        self._ready = False
        self._salt = b""  # the database's own (class_salt), read with the schema
        self._next_expire = -math.inf

    # --- transactions ------------------------------------------------------------------------

    def _write(self) -> contextlib.AbstractContextManager[Connection]:
        self._ensure_schema()
        return self._tx(read=False)

    def _read(self) -> contextlib.AbstractContextManager[Connection]:
        self._ensure_schema()
        return self._tx(read=True)

    @contextlib.contextmanager
    def _tx(self, read: bool) -> Iterator[Connection]:
        """One transaction, committed on leaving; any database failure becomes StoreUnavailable. A write holds this
        process's writer lock (SQLite's, `_sqlite_setup`)."""
        writer = None if read else self._writer
        if writer is not None and not writer.acquire(timeout=self._wait):
            raise StoreUnavailable("class database: locked (another write of this process took too long)")
        try:
            with self.engine.connect() as conn:
                if read:
                    conn = conn.execution_options(ffnlab_read=True)
                with conn.begin():
                    yield conn
        except sa_exc.SQLAlchemyError as e:
            raise StoreUnavailable(f"class database: {e.__class__.__name__}") from e
        finally:
            if writer is not None:
                writer.release()

    def _ensure_schema(self) -> None:
        if self._ready:
            return
        with self._tx(read=False) as conn:
            if self._dialect == "postgresql":
                # Two replicas starting together would both try CREATE TABLE.
                conn.execute(select(func.pg_advisory_xact_lock(_PG_LOCK)))
            metadata.create_all(conn, checkfirst=True)
            found = conn.execute(select(func.max(schema_table.c.version))).scalar()
            if found is None:
                conn.execute(insert(schema_table).values(version=SCHEMA_VERSION))
            elif found > SCHEMA_VERSION:
                raise SchemaTooNew(
                    f"the class database has schema version {found}; this code knows up to "
                    f"{SCHEMA_VERSION}: update the app (or point it at another database)")
            elif found < SCHEMA_VERSION:
                for version in range(found + 1, SCHEMA_VERSION + 1):
                    _MIGRATIONS[version](conn)
                conn.execute(update(schema_table).values(version=SCHEMA_VERSION))
            # Drawn once per database, under the same lock as the schema: every replica reads the same one.
            salt = conn.execute(select(salt_table.c.salt)).scalar()
            if salt is None:
                salt = secrets.token_hex(32)
                conn.execute(insert(salt_table).values(salt=salt))
            self._salt = salt.encode("ascii")
        self._ready = True

    def _client(self, client: object) -> str | None:
        """A client's id as the store keeps it, or None for none given: an HMAC of its `address_key` under the
        database's salt, so the database holds no address, nor one found by hashing all 2^32 IPv4 addresses.
        (Call inside a transaction: the salt is read with the schema.)"""
        if not isinstance(client, str) or not client:
            return None
        return hmac.new(self._salt, address_key(client).encode("utf-8"), hashlib.sha256).hexdigest()[:MAX_CLIENT]

    def _upsert(self, table: Table, values: dict, keys: list[str], update_cols: list[str] | None):
        mod = postgresql if self._dialect == "postgresql" else sqlite
        stmt = mod.insert(table).values(**values)
        if update_cols:
            return stmt.on_conflict_do_update(index_elements=keys,
                                              set_={c: stmt.excluded[c] for c in update_cols})
        return stmt.on_conflict_do_nothing(index_elements=keys)

    @staticmethod
    def _live(conn: Connection, code: str, now: float, lock: bool = False):
        query = select(rooms).where(rooms.c.code == code, rooms.c.expires > now)
        if lock:
            query = query.with_for_update()
        return conn.execute(query).first()

    def _instructor(self, conn: Connection, code: object, key: object, now: float) -> Status:
        code = normalize_code(code)
        if code is None:
            return Status.UNKNOWN
        row = self._live(conn, code, now)
        if row is None:
            return Status.UNKNOWN
        if not isinstance(key, str) or len(key) > MAX_TOKEN:
            return Status.FORBIDDEN
        ok = hmac.compare_digest(_key_hash(row.salt, key), row.key_hash)
        return Status.OK if ok else Status.FORBIDDEN

    def _as_instructor(self, code: object, key: object, now: float,
                       act: Callable[[Connection, str], object]) -> Status:
        """`act(conn, room)` in one write once the instructor's key opens live room `code`; the key's Status."""
        with self._write() as conn:
            status = self._instructor(conn, code, key, now)
            if status is Status.OK:
                act(conn, normalize_code(code))
            return status

    @staticmethod
    def _held(code: str, who: str) -> tuple:
        """Where-clauses of the seat of token hash `who` in room `code`, while its student holds it (not left)."""
        return students.c.room == code, students.c.token_hash == who, students.c.left_at.is_(None)

    @staticmethod
    def _values(conn: Connection, table: Table, code: str, question_id: str) -> tuple[float | str, ...]:
        """The guesses to one question that `table` holds (class_guesses, or class_first_votes)."""
        rows = conn.execute(select(table.c.number, table.c.option).where(
            table.c.room == code, table.c.question == question_id)).all()
        return tuple(_guess(r) for r in rows)

    @staticmethod
    def _drop_rooms(conn: Connection, condition) -> None:
        doomed = select(rooms.c.code).where(condition)
        for table in _ROOM_TABLES:
            conn.execute(delete(table).where(table.c.room.in_(doomed)))
        conn.execute(delete(rooms).where(condition))

    def _maybe_expire(self, conn: Connection, now: float) -> None:
        if now >= self._next_expire:
            self._next_expire = now + EXPIRE_EVERY
            self._sweep(conn, now)

    def _sweep(self, conn: Connection, now: float) -> None:
        """Rooms, links and passes past their time deleted."""
        self._drop_rooms(conn, rooms.c.expires <= now)
        conn.execute(delete(links).where(links.c.expires <= now))
        conn.execute(delete(passes).where(passes.c.expires <= now))
