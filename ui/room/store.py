"""The class room's store: rooms, students, guesses, reveals and the instructor's view, in SQL.

SQLAlchemy Core and bound parameters only; nothing here imports streamlit. An `Engine` comes in
(the pages take it from `st.connection("class", type="sql").engine`; `ui.room.config.url()` says
which database) and the same code runs on an SQLite file (WAL, busy timeout) and on PostgreSQL
(psycopg 3). The schema is created on first use and carries a version; a database written by a
newer version of this module is refused (`SchemaTooNew`).

Every time comes in as `now` (seconds, e.g. `time.time()`), so tests control the clock. Every
function runs in one transaction: it is written whole or not at all. A database that cannot be
reached, is locked past the busy timeout, or fails mid-way raises `StoreUnavailable` (the pages then
say the class features are unavailable, and a guess whose `submit` raised was not stored).

    store = Store(engine)                      # cheap; keep one per engine (st.cache_resource)
    code, key = store.create_room(now)         # or None: the server's bound of live rooms is reached
    store.join(code, token, now)               # Status.JOINED / UNKNOWN / FULL / INVALID
    store.submit(code, token, qid, 0.3, now)   # Status.STORED / UNKNOWN / NOT_JOINED / TOO_FAST / INVALID
    store.snapshot(code, qid, now)             # Snapshot(joined, answered, values, revealed) or None (2 reads)
    store.revealed_guesses(code, qid, now)     # the values once revealed, else None (1 read): a student's page
    store.student_guess(code, token, qid, now) # this student's latest guess, or None
    store.revealed(code, qid, now)             # bool
    store.view(code, now)                      # View(section, params, version) or None
    store.room_live(code, now)                 # bool: a code from a link still names a live room
    # The instructor's actions take the key; a wrong key gets Status.FORBIDDEN, an unknown room UNKNOWN.
    store.reveal(code, key, qid, now)          # Status.OK
    store.reset(code, key, qid_or_None, now)   # deletes that question's (or every) guesses and reveal
    store.close(code, key, now)                # deletes the room and everything in it
    store.set_view(code, key, section, {"width": "4"}, now)  # the page and settings students follow
    store.one_time_link(code, key, now)        # a token for `redeem`, or None (forbidden / unknown)
    store.redeem(code, token, now)             # the instructor key, once, within LINK_TTL; else None
    store.expire(now)                          # delete expired rooms (create_room/join run it at most once a minute)
    # Seats and the instructor's seat that outlive a reload (ui/room/passes.py sets the cookies):
    store.leave(code, token, now)              # the seat no longer counts toward the room's bound
    store.seat_pass(code, token, now)          # a one-time nonce for the seat's cookie, or None
    store.host_pass(code, key, now)            # a one-time nonce for the instructor's cookie, or None
    store.redeem_nonce(nonce, now)             # Pass(kind, secret, expires) once, or None
    store.claim(secret, now)                   # Claim(kind, code, token or key) for a cookie's secret, or None
    store.versions([code, ...], now)           # {code: view_version} of the live rooms among them (one read)
    # Peer instruction (schema 3): a question's vote closes by hand or by a timer the store's clock
    # decides; a closed vote's submit gets Status.CLOSED. The second vote keeps the first's guesses apart.
    store.vote(code, qid, now)                 # Vote(round, open, closes_in, shown), or None for no live room
    store.close_vote(code, key, qid, None, now)        # now, or a timer: None -> 30 for 30 s (<= MAX_TIMER)
    store.show_votes(code, key, qid, True, now)        # the distribution on the projector, without the answer
    store.second_vote(code, key, qid, None, now)       # the first vote's guesses moved apart, a new vote open
    store.first_vote(code, qid, now)           # the first vote's guesses once a second opened, else None
    store.register(code, key, qid, {...}, now) # what a question asked and its measured answer (for the results)
    store.results(code, key, now)              # [Tally(question, about, first, last, revealed)], or None
    store.joined(code, now)                    # students in the room, or None for no live room
    store.set_lesson(code, key, "ffn", 3, now) # the lesson the room follows and its step (None: no lesson)
    store.lesson(code, now)                    # ("ffn", 3) or None

A room code is 6 characters of CODE_ALPHABET (`normalize_code` takes what a student typed). A
student is an anonymous token the page draws per session (`new_token()`), kept hashed. The instructor
key (`secrets`, 192 bits) is kept only as SHA-256 with a per-room salt; a one-time link's token is kept
only hashed, and its row holds the key XORed with a pad derived from that token, so neither the
database nor its backups hold a usable key.

A guess is a finite float or an option id (`OPTION_RE`); the page checks it against its question
(`ui.questions.Question.parse`) before it comes here. Question ids (`ui.questions.Asked.id`) are at
most 120 characters. One guess per (room, question, student), the latest wins, and at most one write
per `min_interval` seconds per student: a faster one gets Status.TOO_FAST and is not stored.

Bounds per client (`client`: an opaque string the page derives from the student's address, or None):
a client holds at most `max_rooms_per_client` live rooms (create_room answers Status.LIMIT past it),
and adds at most `max_joins_per_client` new seats to one room per JOIN_WINDOW (join: Status.LIMIT),
as many as a whole class behind one school address needs. A seat counts toward the room's
`max_students` while it is held: not once its student left it (`leave`), nor after SEAT_IDLE seconds
in which it was not seen (join, a guess, a claimed cookie). Per session and per cookie a student
keeps one token per room (ui/room/session.py), so leaving and joining again takes the same seat.

A cookie carries only a random secret (`claim`), kept here as its SHA-256; its row holds the seat's
token or the instructor key XORed with a pad derived from the secret (as a one-time link does). The
page never sees the secret: it gets a one-time nonce (`seat_pass`, `host_pass`), the browser fetches
the app's route with it, and the route (`redeem_nonce`) answers with the cookie.
"""
from __future__ import annotations

import contextlib
import enum
import hashlib
import hmac
import json
import math
import re
import secrets
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from sqlalchemy import (
    Column,
    Double,
    Engine,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    and_,
    delete,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy import exc as sa_exc
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from ui.base.room_code import CODE_ALPHABET, CODE_LENGTH, CODE_PATTERN

SCHEMA_VERSION = 3  # 2: seats seen/left and their client, rooms' client, class_passes; 3: votes, questions, lessons (see _MIGRATIONS)
ROOM_TTL = 4 * 3600.0
LINK_TTL = 300.0
MAX_STUDENTS = 500
MAX_ROOMS = 1000
MIN_INTERVAL = 1.0
MAX_ROOMS_PER_CLIENT = 20  # a school's instructors behind one address; one client cannot fill MAX_ROOMS
MAX_JOINS_PER_CLIENT = MAX_STUDENTS  # new seats per room per JOIN_WINDOW: a class of 500 behind one address
JOIN_WINDOW = 60.0
SEAT_IDLE = 1800.0  # a seat not seen for this long no longer counts toward the room's bound
NONCE_TTL = 120.0
MAX_CLIENT = 64
EXPIRE_EVERY = 60.0
MAX_QUESTION_ID = 120
MAX_TOKEN = 128
MAX_SECTION = 64
MAX_VIEW_PARAMS = 40
MAX_VIEW_TEXT = 200
OPTION_RE = re.compile(r"[A-Za-z0-9_.-]{1,32}")
_CODE_RE = re.compile(CODE_PATTERN)
_PG_LOCK = 0x46464E4C  # "FFNL": the advisory lock two replicas take while one creates the schema


class StoreUnavailable(Exception):
    """The database cannot be reached, is locked, or failed mid-way: the call's transaction was rolled back.

    (Only a connection lost during COMMIT itself leaves it unknown whether the database kept the
    write; the call still raises, so a guess is never reported stored without a finished commit.)
    """


class SchemaTooNew(StoreUnavailable):
    """The database holds a schema written by a newer version of this module."""


class Status(str, enum.Enum):
    OK = "ok"  # an instructor action was done
    JOINED = "joined"
    STORED = "stored"  # the guess is committed
    UNKNOWN = "unknown"  # no live room has this code (never existed, expired, closed, or not a code)
    FULL = "full"  # the room holds max_students already
    NOT_JOINED = "not_joined"
    TOO_FAST = "too_fast"  # this student wrote less than min_interval ago; not stored
    INVALID = "invalid"  # a value, question id, token or view that is not one
    CLOSED = "closed"  # the question's vote is closed (by the instructor, or its timer ran out); not stored
    FORBIDDEN = "forbidden"  # the instructor key is wrong
    LIMIT = "limit"  # this client's bound of rooms or new seats is reached


@dataclass(frozen=True)
class Snapshot:
    """What the instructor's live view draws for one question, read in one transaction."""

    joined: int
    answered: int
    values: tuple[float | str, ...]
    revealed: bool


@dataclass(frozen=True)
class Vote:
    """Where a question's vote stands: which round, whether guesses are taken now, a running timer."""

    round: int = 1  # 2 once the instructor opened the second vote
    open: bool = True
    closes_in: float | None = None  # seconds left on the timer of an open vote, else None
    shown: bool = False  # the distribution is on the projector (without the answer)


@dataclass(frozen=True)
class Tally:
    """One question of a room as the results read it: what was asked, and the guesses of each vote."""

    question: str
    about: dict  # what class_questions holds ({} for a question the instructor's view never showed)
    first: tuple[float | str, ...] | None  # the first vote's guesses once a second vote opened, else None
    last: tuple[float | str, ...]  # the only vote's guesses, or the second's
    revealed: bool


@dataclass(frozen=True)
class View:
    """The page and settings the instructor shows; `version` grows with every set_view."""

    section: str
    params: dict[str, str]
    version: int


metadata = MetaData()
schema_table = Table("class_schema", metadata, Column("version", Integer, nullable=False))
rooms = Table(
    "class_rooms", metadata,
    Column("code", String(CODE_LENGTH), primary_key=True),
    Column("salt", String(32), nullable=False),
    Column("key_hash", String(64), nullable=False),
    Column("created", Double, nullable=False),
    Column("expires", Double, nullable=False),
    Column("view_section", String(MAX_SECTION)),
    Column("view_params", Text),
    Column("view_version", Integer, nullable=False, default=0),
    Column("client", String(MAX_CLIENT)),  # schema 2
    Index("class_rooms_expires", "expires"),
)
students = Table(
    "class_students", metadata,
    Column("room", String(CODE_LENGTH), primary_key=True),
    Column("token_hash", String(64), primary_key=True),
    Column("joined", Double, nullable=False),
    Column("last_write", Double),
    Column("seen", Double),  # schema 2: the last join, guess or claimed cookie (NULL: joined)
    Column("left_at", Double),  # schema 2: when the student left the seat (NULL: held)
    Column("client", String(MAX_CLIENT)),  # schema 2
)


def _question_key() -> tuple[Column, Column]:
    """A question's row in a room is keyed by both; a Column belongs to one table, so each table gets its own."""
    return (
        Column("room", String(CODE_LENGTH), primary_key=True),
        Column("question", String(MAX_QUESTION_ID), primary_key=True),
    )


def _guess_columns() -> tuple[Column, ...]:
    """A student's guess at a question: class_guesses holds the current vote's, class_first_votes the first's."""
    return (
        *_question_key(),
        Column("token_hash", String(64), primary_key=True),
        Column("number", Double),
        Column("option", String(32)),
        Column("at", Double, nullable=False),
    )


guesses_table = Table("class_guesses", metadata, *_guess_columns())
reveals = Table(
    "class_reveals", metadata,
    *_question_key(),
    Column("at", Double, nullable=False),
)
links = Table(
    "class_links", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("room", String(CODE_LENGTH), nullable=False),
    Column("sealed_key", String(128), nullable=False),
    Column("expires", Double, nullable=False),
)
# --- schema 3: peer instruction (two votes, a timer), a lesson, the results ---------------------
# A question's vote: round 1 or 2, closed by hand (`closed`) or by its timer (`closes`, the store's
# clock decides), its distribution shown on the projector without the answer (`shown`).
votes = Table(
    "class_votes", metadata,
    *_question_key(),
    Column("round", Integer, nullable=False),
    Column("closes", Double),
    Column("closed", Double),
    Column("shown", Integer, nullable=False),
)
# The first vote's guesses, moved here when the second vote opens (class_guesses then holds the second).
first_votes = Table("class_first_votes", metadata, *_guess_columns())
# What a question asked (its page, text key, the values its text cites) and the answer measured at the
# instructor's settings, written when the instructor's view first shows it: the results are scored from it.
questions_table = Table(
    "class_questions", metadata,
    *_question_key(),
    Column("about", Text, nullable=False),  # JSON: section, key, kind, tolerance, answer, values
    Column("first_seen", Double, nullable=False),
)
# The lesson a room follows and its step (one row per room in a lesson).
lessons_table = Table(
    "class_lessons", metadata,
    Column("room", String(CODE_LENGTH), primary_key=True),
    Column("lesson", String(MAX_SECTION), nullable=False),
    Column("step", Integer, nullable=False),
)


_VOTE_TABLES = (votes, first_votes, questions_table, lessons_table)
MAX_ABOUT = 2000
MAX_TIMER = 600.0


passes = Table(
    "class_passes", metadata,  # schema 2
    Column("pass_hash", String(64), primary_key=True),
    Column("room", String(CODE_LENGTH), nullable=False),
    Column("kind", String(16), nullable=False),  # "seat" / "host": a cookie's secret; "nonce:seat" / "nonce:host"
    Column("sealed", String(256), nullable=False),
    Column("expires", Double, nullable=False),
)
_ROOM_TABLES = (students, guesses_table, reveals, links, passes, *_VOTE_TABLES)


@dataclass(frozen=True)
class Pass:
    """What a redeemed nonce gives the route: which cookie, its secret, and when it expires."""

    kind: str  # "seat" or "host"
    secret: str
    expires: float


@dataclass(frozen=True)
class Claim:
    """What a cookie's secret gives back: the room, the role, and the seat's token or the instructor key."""

    kind: str  # "seat" or "host"
    code: str
    secret: str  # the student's token, or the instructor key


# --- migrations: schema version n-1 -> n, each in the schema's own transaction ----------------------

def _to_v2(conn: Connection) -> None:
    """Seats that are seen and left, and clients: columns on the tables version 1 made (class_passes is new)."""
    for table, column, kind in (("class_students", "seen", "DOUBLE PRECISION"),
                                ("class_students", "left_at", "DOUBLE PRECISION"),
                                ("class_students", "client", f"VARCHAR({MAX_CLIENT})"),
                                ("class_rooms", "client", f"VARCHAR({MAX_CLIENT})")):
        have = {c["name"] for c in sa_inspect(conn).get_columns(table)}
        if column not in have:
            conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


def _to_v3(conn: Connection) -> None:
    """Peer instruction, the results and a lesson: four new tables, nothing else changes."""
    metadata.create_all(conn, tables=list(_VOTE_TABLES), checkfirst=True)


_MIGRATIONS = {2: _to_v2, 3: _to_v3}


def new_token() -> str:
    """A student's anonymous session token (what a page keeps in st.session_state)."""
    return secrets.token_urlsafe(24)


def normalize_code(text: object) -> str | None:
    """A room code as a student may type it (any case, spaces) in canonical form, or None."""
    if not isinstance(text, str) or len(text) > 32:
        return None
    code = "".join(text.split()).upper()
    return code if _CODE_RE.fullmatch(code) else None


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _key_hash(salt: str, key: str) -> str:
    return _sha(salt + key)


def _pad(token: str, n: int) -> bytes:
    # A pad derived from the link's token, apart from the token's own hash kept for look-up.
    return hashlib.sha512(b"ffnlab-link-key:" + token.encode("utf-8")).digest()[:n]


def _seal(key: str, token: str) -> str:
    raw = key.encode("ascii")
    return bytes(a ^ b for a, b in zip(raw, _pad(token, len(raw)))).hex()


def _unseal(sealed: str, token: str) -> str:
    raw = bytes.fromhex(sealed)
    return bytes(a ^ b for a, b in zip(raw, _pad(token, len(raw)))).decode("ascii")


def _client(client: object) -> str | None:
    """A client's id as the store keeps it (hashed: no address in the database), or None for none given."""
    if not isinstance(client, str) or not client:
        return None
    return _sha("ffnlab-client:" + client)[:MAX_CLIENT]


def _sealable(token: object) -> bool:
    # What `_seal` can hide whole: ASCII within the pad's 64 bytes (new_token() and keys are 32 characters).
    return _token_ok(token) and len(token) <= 64 and token.isascii()  # type: ignore[union-attr]


def _token_ok(token: object) -> bool:
    return isinstance(token, str) and 0 < len(token) <= MAX_TOKEN


def _question_ok(question_id: object) -> bool:
    return (isinstance(question_id, str) and 0 < len(question_id) <= MAX_QUESTION_ID
            and question_id.isprintable())


def _value(value: object) -> tuple[float | None, str | None] | None:
    """(number, option) for a guess the store takes, or None."""
    if isinstance(value, str):
        return (None, value) if OPTION_RE.fullmatch(value) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return (number, None) if math.isfinite(number) else None


def _view_params(params: object) -> str | None:
    """The params as JSON text, or None when they are not a small dict of short strings."""
    if not isinstance(params, Mapping) or len(params) > MAX_VIEW_PARAMS:
        return None
    for k, v in params.items():
        if not (isinstance(k, str) and isinstance(v, str) and 0 < len(k) <= MAX_VIEW_TEXT
                and len(v) <= MAX_VIEW_TEXT):
            return None
    return json.dumps(dict(params), ensure_ascii=False, sort_keys=True)


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


class Store:
    """The class room on one database; see the module's docstring for the API."""

    def __init__(self, engine: Engine, *, ttl: float = ROOM_TTL, max_students: int = MAX_STUDENTS,
                 max_rooms: int = MAX_ROOMS, min_interval: float = MIN_INTERVAL,
                 max_rooms_per_client: int = MAX_ROOMS_PER_CLIENT,
                 max_joins_per_client: int = MAX_JOINS_PER_CLIENT, busy_timeout_ms: int = 3000) -> None:
        self.engine = engine
        self.ttl = ttl
        self.max_students = max_students
        self.max_rooms = max_rooms
        self.min_interval = min_interval
        self.max_rooms_per_client = max_rooms_per_client
        self.max_joins_per_client = max_joins_per_client
        self._dialect = engine.dialect.name
        self._writer: threading.Lock | None = None
        self._wait = busy_timeout_ms / 1000
        if self._dialect == "sqlite":
            _sqlite_setup(engine, busy_timeout_ms)
            self._writer = engine._ffnlab_sqlite  # type: ignore[attr-defined]
        self._ready = False
        self._next_expire = -math.inf

    # --- transactions ------------------------------------------------------------------------

    def _write(self):
        return _Tx(self, read=False)

    def _read(self):
        return _Tx(self, read=True)

    def _ensure_schema(self) -> None:
        if self._ready:
            return
        self._lock_writer()
        try:
            with self.engine.begin() as conn:
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
        except sa_exc.SQLAlchemyError as e:
            raise StoreUnavailable(f"class database: {e.__class__.__name__}") from e
        finally:
            self._unlock_writer()
        self._ready = True

    def _lock_writer(self) -> None:
        if self._writer is not None and not self._writer.acquire(timeout=self._wait):
            raise StoreUnavailable("class database: locked (another write of this process took too long)")

    def _unlock_writer(self) -> None:
        if self._writer is not None:
            self._writer.release()

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

    @staticmethod
    def _drop_rooms(conn: Connection, condition) -> None:
        doomed = select(rooms.c.code).where(condition)
        for table in _ROOM_TABLES:
            conn.execute(delete(table).where(table.c.room.in_(doomed)))
        conn.execute(delete(rooms).where(condition))

    def _maybe_expire(self, conn: Connection, now: float) -> None:
        if now >= self._next_expire:
            self._next_expire = now + EXPIRE_EVERY
            self._drop_rooms(conn, rooms.c.expires <= now)
            conn.execute(delete(links).where(links.c.expires <= now))
            conn.execute(delete(passes).where(passes.c.expires <= now))

    # --- rooms -------------------------------------------------------------------------------

    def create_room(self, now: float, client: object = None) -> tuple[str, str] | Status | None:
        """A new room's (code, instructor key); None when the server holds max_rooms live rooms;
        Status.LIMIT when this client holds max_rooms_per_client of them."""
        client = _client(client)
        key = secrets.token_urlsafe(24)
        salt = secrets.token_hex(16)
        for _ in range(8):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            try:
                with self._write() as conn:
                    self._maybe_expire(conn, now)
                    if client is not None:
                        mine = conn.execute(select(func.count()).select_from(rooms).where(
                            rooms.c.client == client, rooms.c.expires > now)).scalar_one()
                        if mine >= self.max_rooms_per_client:
                            return Status.LIMIT
                    live = conn.execute(select(func.count()).select_from(rooms)
                                        .where(rooms.c.expires > now)).scalar_one()
                    if live >= self.max_rooms:
                        return None
                    # An expired room not yet swept may still hold this code.
                    self._drop_rooms(conn, and_(rooms.c.code == code, rooms.c.expires <= now))
                    conn.execute(insert(rooms).values(
                        code=code, salt=salt, key_hash=_key_hash(salt, key), created=now,
                        expires=now + self.ttl, view_version=0, client=client))
                return code, key
            except StoreUnavailable as e:
                if isinstance(e.__cause__, sa_exc.IntegrityError):
                    continue  # another replica drew the same code at the same moment
                raise
        raise StoreUnavailable("no free room code after 8 draws")

    def room_live(self, code: object, now: float) -> bool:
        """Whether `code` names a live room."""
        code = normalize_code(code)
        if code is None:
            return False
        with self._read() as conn:
            return self._live(conn, code, now) is not None

    def close(self, code: object, key: object, now: float) -> Status:
        """Delete the room and everything in it."""
        with self._write() as conn:
            status = self._instructor(conn, code, key, now)
            if status is Status.OK:
                self._drop_rooms(conn, rooms.c.code == normalize_code(code))
            return status

    def expire(self, now: float) -> int:
        """Delete every room past its time, with its students, guesses and reveals; how many rooms."""
        with self._write() as conn:
            count = conn.execute(select(func.count()).select_from(rooms)
                                 .where(rooms.c.expires <= now)).scalar_one()
            self._drop_rooms(conn, rooms.c.expires <= now)
            conn.execute(delete(links).where(links.c.expires <= now))
            conn.execute(delete(passes).where(passes.c.expires <= now))
            self._next_expire = now + EXPIRE_EVERY
            return count

    # --- students ----------------------------------------------------------------------------

    def join(self, code: object, token: object, now: float, client: object = None) -> Status:
        """Join a student to a room; a token that holds (or left) a seat there takes it again, guesses and all."""
        code = normalize_code(code)
        if code is None:
            return Status.UNKNOWN
        if not _token_ok(token):
            return Status.INVALID
        client = _client(client)
        who = _sha(token)
        with self._write() as conn:
            self._maybe_expire(conn, now)
            # FOR UPDATE on PostgreSQL: two joins at max_students - 1 do not both get in.
            if self._live(conn, code, now, lock=True) is None:
                return Status.UNKNOWN
            there = conn.execute(select(students.c.left_at).where(
                students.c.room == code, students.c.token_hash == who)).first()
            if there is not None and there.left_at is None:
                self._seen(conn, code, who, now)
                return Status.JOINED
            held = conn.execute(select(func.count()).select_from(students).where(
                students.c.room == code, students.c.left_at.is_(None),
                func.coalesce(students.c.seen, students.c.joined) > now - SEAT_IDLE)).scalar_one()
            if held >= self.max_students:
                return Status.FULL
            if there is not None:  # back to the seat it left
                conn.execute(update(students).where(students.c.room == code, students.c.token_hash == who)
                             .values(left_at=None, seen=now))
                return Status.JOINED
            if client is not None:
                recent = conn.execute(select(func.count()).select_from(students).where(
                    students.c.room == code, students.c.client == client,
                    students.c.joined > now - JOIN_WINDOW)).scalar_one()
                if recent >= self.max_joins_per_client:
                    return Status.LIMIT
            conn.execute(self._upsert(students, dict(room=code, token_hash=who, joined=now, seen=now,
                                                     client=client), ["room", "token_hash"], None))
            return Status.JOINED

    def leave(self, code: object, token: object, now: float) -> Status:
        """The student gives the seat up: it no longer counts toward the room's bound (the guesses stay)."""
        code = normalize_code(code)
        if code is None or not _token_ok(token):
            return Status.INVALID
        with self._write() as conn:
            done = conn.execute(update(students).where(
                students.c.room == code, students.c.token_hash == _sha(token), students.c.left_at.is_(None))
                .values(left_at=now)).rowcount
        # Its cookie stays in the browser until the room expires, and `claim` no longer gives the seat back.
        return Status.OK if done == 1 else Status.NOT_JOINED

    @staticmethod
    def _seen(conn: Connection, code: str, who: str, now: float) -> None:
        conn.execute(update(students).where(students.c.room == code, students.c.token_hash == who)
                     .values(seen=now))

    def submit(self, code: object, token: object, question_id: object, value: object,
               now: float) -> Status:
        """Store a student's guess (the latest wins); STORED only once it is committed."""
        code = normalize_code(code)
        if code is None:
            return Status.UNKNOWN
        parsed = _value(value)
        if parsed is None or not _token_ok(token) or not _question_ok(question_id):
            return Status.INVALID
        number, option = parsed
        who = _sha(token)
        with self._write() as conn:
            if self._live(conn, code, now) is None:
                return Status.UNKNOWN
            if not self._vote_row(conn, code, question_id, now).open:
                return Status.CLOSED
            # The rate check and the write in one statement: two requests at once cannot both pass.
            passed = conn.execute(update(students).where(
                students.c.room == code, students.c.token_hash == who,
                students.c.left_at.is_(None),
                (students.c.last_write.is_(None)) | (students.c.last_write <= now - self.min_interval),
            ).values(last_write=now, seen=now)).rowcount
            if passed != 1:
                joined = conn.execute(select(students.c.joined).where(
                    students.c.room == code, students.c.token_hash == who, students.c.left_at.is_(None))).first()
                return Status.TOO_FAST if joined is not None else Status.NOT_JOINED
            conn.execute(self._upsert(
                guesses_table,
                dict(room=code, question=question_id, token_hash=who, number=number, option=option, at=now),
                ["room", "question", "token_hash"], ["number", "option", "at"]))
        return Status.STORED

    def student_guess(self, code: object, token: object, question_id: object,
                      now: float) -> float | str | None:
        """This student's stored guess, or None."""
        code = normalize_code(code)
        if code is None or not _token_ok(token) or not _question_ok(question_id):
            return None
        with self._read() as conn:
            row = conn.execute(
                select(guesses_table.c.number, guesses_table.c.option)
                .join(rooms, rooms.c.code == guesses_table.c.room)
                .where(guesses_table.c.room == code, guesses_table.c.question == question_id,
                       guesses_table.c.token_hash == _sha(token), rooms.c.expires > now)).first()
        if row is None:
            return None
        return row.option if row.option is not None else row.number

    # --- what the class answered ---------------------------------------------------------------

    def _head(self, conn: Connection, code: str, question_id: str, now: float):
        """(joined, revealed) of a live room in one statement, or None."""
        joined = (select(func.count()).select_from(students)
                  .where(students.c.room == rooms.c.code, students.c.left_at.is_(None)).scalar_subquery())
        shown = (select(func.count()).select_from(reveals)
                 .where(reveals.c.room == rooms.c.code, reveals.c.question == question_id).scalar_subquery())
        return conn.execute(select(joined.label("joined"), shown.label("shown"))
                            .where(rooms.c.code == code, rooms.c.expires > now)).first()

    @staticmethod
    def _values(conn: Connection, code: str, question_id: str) -> tuple[float | str, ...]:
        rows = conn.execute(select(guesses_table.c.number, guesses_table.c.option).where(
            guesses_table.c.room == code, guesses_table.c.question == question_id)).all()
        return tuple(r.option if r.option is not None else r.number for r in rows)

    def snapshot(self, code: object, question_id: object, now: float) -> Snapshot | None:
        """Joined, answered, the values and whether revealed, in one read; None for no live room."""
        code = normalize_code(code)
        if code is None or not _question_ok(question_id):
            return None
        with self._read() as conn:
            head = self._head(conn, code, question_id, now)
            if head is None:
                return None
            values = self._values(conn, code, question_id)
        return Snapshot(joined=head.joined, answered=len(values), values=values, revealed=head.shown > 0)

    def revealed_guesses(self, code: object, question_id: object, now: float) -> tuple[float | str, ...] | None:
        """The class's guesses once this question is revealed; None before (one cheap read then) or for no live room."""
        code = normalize_code(code)
        if code is None or not _question_ok(question_id):
            return None
        with self._read() as conn:
            head = self._head(conn, code, question_id, now)
            if head is None or not head.shown:
                return None
            return self._values(conn, code, question_id)

    def revealed(self, code: object, question_id: object, now: float) -> bool:
        """Whether the instructor has revealed this question's answer to the room."""
        code = normalize_code(code)
        if code is None or not _question_ok(question_id):
            return False
        with self._read() as conn:
            head = self._head(conn, code, question_id, now)
        return bool(head and head.shown)

    # --- the instructor ------------------------------------------------------------------------

    def reveal(self, code: object, key: object, question_id: object, now: float) -> Status:
        """Show the class's distribution and the measurement to every student of the room."""
        if not _question_ok(question_id):
            return Status.INVALID
        with self._write() as conn:
            status = self._instructor(conn, code, key, now)
            if status is Status.OK:
                conn.execute(self._upsert(reveals, dict(room=normalize_code(code), question=question_id,
                                                        at=now), ["room", "question"], None))
            return status

    def reset(self, code: object, key: object, question_id: object | None, now: float) -> Status:
        """Delete one question's guesses and reveal (None: every question's)."""
        if question_id is not None and not _question_ok(question_id):
            return Status.INVALID
        with self._write() as conn:
            status = self._instructor(conn, code, key, now)
            if status is Status.OK:
                room = normalize_code(code)
                for table in (guesses_table, reveals, votes, first_votes):
                    where = table.c.room == room
                    if question_id is not None:
                        where = and_(where, table.c.question == question_id)
                    conn.execute(delete(table).where(where))
            return status

    def set_view(self, code: object, key: object, section: object, params: object,
                 now: float) -> Status:
        """Set the page (`section`) and settings (`params`, short strings) following students load."""
        text = _view_params(params)
        if text is None or not isinstance(section, str) or not 0 < len(section) <= MAX_SECTION:
            return Status.INVALID
        with self._write() as conn:
            status = self._instructor(conn, code, key, now)
            if status is Status.OK:
                conn.execute(update(rooms).where(rooms.c.code == normalize_code(code)).values(
                    view_section=section, view_params=text, view_version=rooms.c.view_version + 1))
            return status

    def view(self, code: object, now: float) -> View | None:
        """What the instructor shows (one primary-key read); None before set_view or for no live room."""
        code = normalize_code(code)
        if code is None:
            return None
        with self._read() as conn:
            row = conn.execute(select(rooms.c.view_section, rooms.c.view_params, rooms.c.view_version)
                               .where(rooms.c.code == code, rooms.c.expires > now)).first()
        if row is None or row.view_section is None:
            return None
        return View(section=row.view_section, params=json.loads(row.view_params), version=row.view_version)

    def versions(self, codes: object, now: float) -> dict[str, int]:
        """{code: view_version} of the live rooms among `codes` (one read): what the push watcher compares."""
        wanted = sorted({c for c in (normalize_code(x) for x in (codes or ())) if c is not None})[:MAX_ROOMS]
        if not wanted:
            return {}
        with self._read() as conn:
            rows = conn.execute(select(rooms.c.code, rooms.c.view_version).where(
                rooms.c.code.in_(wanted), rooms.c.expires > now)).all()
        return {r.code: r.view_version for r in rows}

    # --- cookies: seats and the instructor's seat that outlive a reload ----------------------------

    def seat_pass(self, code: object, token: object, now: float) -> str | None:
        """A one-time nonce that the route turns into this seat's cookie; None for no seat held."""
        code = normalize_code(code)
        if code is None or not _sealable(token):
            return None
        with self._write() as conn:
            room = self._live(conn, code, now)
            held = room is not None and conn.execute(select(students.c.joined).where(
                students.c.room == code, students.c.token_hash == _sha(token),
                students.c.left_at.is_(None))).first() is not None
            return self._mint(conn, code, "seat", token, room.expires, now) if held else None

    def host_pass(self, code: object, key: object, now: float) -> str | None:
        """A one-time nonce that the route turns into the instructor's cookie; None without the key."""
        with self._write() as conn:
            if self._instructor(conn, code, key, now) is not Status.OK:
                return None
            code = normalize_code(code)
            return self._mint(conn, code, "host", key, self._live(conn, code, now).expires, now)

    @staticmethod
    def _mint(conn: Connection, code: str, kind: str, held: str, expires: float, now: float) -> str:
        secret, nonce = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        conn.execute(insert(passes).values(pass_hash=_sha(secret), room=code, kind=kind,
                                           sealed=_seal(held, secret), expires=expires))
        conn.execute(insert(passes).values(pass_hash=_sha(nonce), room=code, kind=f"nonce:{kind}",
                                           sealed=_seal(secret, nonce), expires=min(expires, now + NONCE_TTL)))
        return nonce

    @staticmethod
    def _pass(conn: Connection, token: str, kinds: tuple[str, str], now: float):
        """The unexpired pass row (kind, sealed, room) `token` opens, of one of these kinds; None otherwise."""
        return conn.execute(select(passes.c.kind, passes.c.sealed, passes.c.room).where(
            passes.c.pass_hash == _sha(token), passes.c.kind.in_(kinds), passes.c.expires > now)).first()

    def redeem_nonce(self, nonce: object, now: float) -> Pass | None:
        """The cookie a nonce was minted for, the first time only, within NONCE_TTL; else None."""
        if not _token_ok(nonce):
            return None
        with self._write() as conn:
            row = self._pass(conn, nonce, ("nonce:seat", "nonce:host"), now)
            if row is None:
                return None
            # Only the request whose delete took the row gets the cookie (two at once: one wins).
            if conn.execute(delete(passes).where(passes.c.pass_hash == _sha(nonce))).rowcount != 1:
                return None
            secret = _unseal(row.sealed, nonce)
            kept = conn.execute(select(passes.c.expires).where(passes.c.pass_hash == _sha(secret))).first()
            if kept is None or self._live(conn, row.room, now) is None:
                return None
            return Pass(kind=row.kind.split(":", 1)[1], secret=secret, expires=kept.expires)

    def claim(self, secret: object, now: float) -> Claim | None:
        """The seat (token) or the instructor's seat (key) a cookie's secret holds in a live room; else None.

        A seat its student left is not given back; a claimed seat counts as seen."""
        if not _token_ok(secret):
            return None
        with self._write() as conn:
            row = self._pass(conn, secret, ("seat", "host"), now)
            if row is None or self._live(conn, row.room, now) is None:
                return None
            held = _unseal(row.sealed, secret)
            if row.kind == "seat":
                seat = conn.execute(select(students.c.left_at).where(
                    students.c.room == row.room, students.c.token_hash == _sha(held))).first()
                if seat is None or seat.left_at is not None:
                    return None
                self._seen(conn, row.room, _sha(held), now)
            elif self._instructor(conn, row.room, held, now) is not Status.OK:
                return None
            return Claim(kind=row.kind, code=row.room, secret=held)

    def one_time_link(self, code: object, key: object, now: float) -> str | None:
        """A token that `redeem` turns into the key once, within LINK_TTL; None without the key."""
        token = secrets.token_urlsafe(24)
        with self._write() as conn:
            if self._instructor(conn, code, key, now) is not Status.OK:
                return None
            conn.execute(insert(links).values(token_hash=_sha(token), room=normalize_code(code),
                                              sealed_key=_seal(key, token), expires=now + LINK_TTL))
        return token

    def redeem(self, code: object, token: object, now: float) -> str | None:
        """The instructor key a one-time link carries, the first time only; None otherwise."""
        code = normalize_code(code)
        if code is None or not _token_ok(token):
            return None
        with self._write() as conn:
            row = conn.execute(select(links.c.sealed_key).where(
                links.c.token_hash == _sha(token), links.c.room == code,
                links.c.expires > now)).first()
            if row is None or self._live(conn, code, now) is None:
                return None
            # Only the redeemer whose delete took the row gets the key (two at once: one wins).
            taken = conn.execute(delete(links).where(links.c.token_hash == _sha(token))).rowcount
            if taken != 1:
                return None
            return _unseal(row.sealed_key, token)

    # --- peer instruction: two votes, a timer (schema step 2) ------------------------------------

    @staticmethod
    def _vote_row(conn: Connection, code: str, question_id: str, now: float) -> Vote:
        row = conn.execute(select(votes.c.round, votes.c.closes, votes.c.closed, votes.c.shown).where(
            votes.c.room == code, votes.c.question == question_id)).first()
        if row is None:
            return Vote()
        is_open = row.closed is None and (row.closes is None or now < row.closes)
        left = row.closes - now if is_open and row.closes is not None else None
        return Vote(round=row.round, open=is_open, closes_in=left, shown=bool(row.shown))

    def vote(self, code: object, question_id: object, now: float) -> Vote | None:
        """Where this question's vote stands (one read); None for no live room."""
        code = normalize_code(code)
        if code is None or not _question_ok(question_id):
            return None
        with self._read() as conn:
            if self._live(conn, code, now) is None:
                return None
            return self._vote_row(conn, code, question_id, now)

    def _put_vote(self, conn: Connection, code: str, question_id: str, vote: Vote, closes: float | None,
                  closed: float | None) -> None:
        conn.execute(self._upsert(votes, dict(room=code, question=question_id, round=vote.round, closes=closes,
                                              closed=closed, shown=int(vote.shown)),
                                  ["room", "question"], ["round", "closes", "closed", "shown"]))

    @staticmethod
    def _timer(after: object) -> float | None | bool:
        """A timer's length in seconds (None: no timer), or False for one that is not a length."""
        if after is None:
            return None
        if isinstance(after, bool) or not isinstance(after, (int, float)) or not math.isfinite(after):
            return False
        return float(after) if 0 < after <= MAX_TIMER else False

    @contextlib.contextmanager
    def _vote_change(self, code: object, key: object, question_id: object, after: float | None,
                     now: float) -> Iterator[tuple[Connection, str, Vote, float | None] | Status]:
        """The instructor's change to a question's vote, in one write: (the connection, the room, the vote as
        it stands, the timer's seconds or None), or the Status refusing it (a bad timer or question: INVALID,
        before any transaction; then the key's)."""
        seconds = self._timer(after)
        if seconds is False or not _question_ok(question_id):
            yield Status.INVALID
            return
        with self._write() as conn:
            status = self._instructor(conn, code, key, now)
            if status is not Status.OK:
                yield status
                return
            room = normalize_code(code)
            yield conn, room, self._vote_row(conn, room, question_id, now), seconds

    def close_vote(self, code: object, key: object, question_id: object, after: float | None,
                   now: float) -> Status:
        """Close the question's open vote now, or in `after` seconds (a timer, at most MAX_TIMER)."""
        with self._vote_change(code, key, question_id, after, now) as change:
            if isinstance(change, Status):
                return change
            conn, room, vote, seconds = change
            if not vote.open:
                return Status.CLOSED
            if seconds is None:
                self._put_vote(conn, room, question_id, vote, None, now)
            else:
                self._put_vote(conn, room, question_id, vote, now + seconds, None)
            return Status.OK

    def show_votes(self, code: object, key: object, question_id: object, shown: bool, now: float) -> Status:
        """Put the question's distribution on the projector without its answer (or take it down)."""
        if not _question_ok(question_id) or not isinstance(shown, bool):
            return Status.INVALID
        with self._write() as conn:
            status = self._instructor(conn, code, key, now)
            if status is Status.OK:
                room = normalize_code(code)
                row = conn.execute(select(votes.c.closes, votes.c.closed).where(
                    votes.c.room == room, votes.c.question == question_id)).first()
                vote = self._vote_row(conn, room, question_id, now)
                self._put_vote(conn, room, question_id, Vote(vote.round, vote.open, None, shown),
                               row.closes if row else None, row.closed if row else None)
            return status

    def second_vote(self, code: object, key: object, question_id: object, after: float | None,
                    now: float) -> Status:
        """Open the second vote: the first vote's guesses are kept apart, every student may guess again.

        Only once per question, and only once the first vote is closed (CLOSED otherwise: still open;
        INVALID: the second vote is already open, or the answer was revealed).
        """
        with self._vote_change(code, key, question_id, after, now) as change:
            if isinstance(change, Status):
                return change
            conn, room, vote, seconds = change
            shown = conn.execute(select(func.count()).select_from(reveals).where(
                reveals.c.room == room, reveals.c.question == question_id)).scalar_one()
            if vote.round != 1 or shown:
                return Status.INVALID
            if vote.open:
                return Status.CLOSED
            where = (guesses_table.c.room == room, guesses_table.c.question == question_id)
            conn.execute(delete(first_votes).where(first_votes.c.room == room,
                                                   first_votes.c.question == question_id))
            conn.execute(insert(first_votes).from_select(
                ["room", "question", "token_hash", "number", "option", "at"],
                select(guesses_table.c.room, guesses_table.c.question, guesses_table.c.token_hash,
                       guesses_table.c.number, guesses_table.c.option, guesses_table.c.at).where(*where)))
            conn.execute(delete(guesses_table).where(*where))
            self._put_vote(conn, room, question_id, Vote(2, True, None, False),
                           None if seconds is None else now + seconds, None)
            return Status.OK

    def first_vote(self, code: object, question_id: object, now: float) -> tuple[float | str, ...] | None:
        """The first vote's guesses once the second vote opened; None before (or for no live room)."""
        code = normalize_code(code)
        if code is None or not _question_ok(question_id):
            return None
        with self._read() as conn:
            if self._live(conn, code, now) is None:
                return None
            if self._vote_row(conn, code, question_id, now).round < 2:
                return None
            return self._first_values(conn, code, question_id)

    @staticmethod
    def _first_values(conn: Connection, code: str, question_id: str) -> tuple[float | str, ...]:
        rows = conn.execute(select(first_votes.c.number, first_votes.c.option).where(
            first_votes.c.room == code, first_votes.c.question == question_id)).all()
        return tuple(r.option if r.option is not None else r.number for r in rows)

    # --- results --------------------------------------------------------------------------------

    def register(self, code: object, key: object, question_id: object, about: object, now: float) -> Status:
        """Keep what a question asked and its measured answer (the first write wins: the id fixes the settings)."""
        if not _question_ok(question_id) or not isinstance(about, Mapping):
            return Status.INVALID
        try:
            text = json.dumps(dict(about), ensure_ascii=False, sort_keys=True, allow_nan=False)
        except (TypeError, ValueError):
            return Status.INVALID
        if len(text) > MAX_ABOUT:
            return Status.INVALID
        with self._write() as conn:
            status = self._instructor(conn, code, key, now)
            if status is Status.OK:
                conn.execute(self._upsert(questions_table, dict(room=normalize_code(code), question=question_id,
                                                                about=text, first_seen=now),
                                          ["room", "question"], None))
            return status

    def results(self, code: object, key: object, now: float) -> list[Tally] | None:
        """Every question of the room that was shown or answered, with each vote's guesses; None without the key."""
        with self._read() as conn:
            if self._instructor(conn, code, key, now) is not Status.OK:
                return None
            room = normalize_code(code)
            asked = {r.question: (json.loads(r.about), r.first_seen) for r in conn.execute(
                select(questions_table.c.question, questions_table.c.about, questions_table.c.first_seen)
                .where(questions_table.c.room == room))}
            last: dict[str, list] = {}
            for r in conn.execute(select(guesses_table.c.question, guesses_table.c.number, guesses_table.c.option)
                                  .where(guesses_table.c.room == room)):
                last.setdefault(r.question, []).append(r.option if r.option is not None else r.number)
            first: dict[str, list] = {}
            for r in conn.execute(select(first_votes.c.question, first_votes.c.number, first_votes.c.option)
                                  .where(first_votes.c.room == room)):
                first.setdefault(r.question, []).append(r.option if r.option is not None else r.number)
            rounds = {r.question: r.round for r in conn.execute(
                select(votes.c.question, votes.c.round).where(votes.c.room == room))}
            shown = {r.question for r in conn.execute(select(reveals.c.question).where(reveals.c.room == room))}
        ids = sorted(set(asked) | set(last) | set(first), key=lambda q: (asked.get(q, ({}, math.inf))[1], q))
        return [Tally(question=q, about=asked.get(q, ({}, 0))[0],
                      first=tuple(first.get(q, ())) if rounds.get(q, 1) >= 2 else None,
                      last=tuple(last.get(q, ())), revealed=q in shown) for q in ids]

    def joined(self, code: object, now: float) -> int | None:
        """How many students joined the live room `code` (one read); None for no live room."""
        code = normalize_code(code)
        if code is None:
            return None
        with self._read() as conn:
            if self._live(conn, code, now) is None:
                return None
            return conn.execute(select(func.count()).select_from(students)
                                .where(students.c.room == code)).scalar_one()

    # --- a lesson -------------------------------------------------------------------------------

    def set_lesson(self, code: object, key: object, lesson: object, step: object, now: float) -> Status:
        """The lesson the room follows and its step (lesson None: the room leaves its lesson)."""
        if lesson is not None and not (isinstance(lesson, str) and 0 < len(lesson) <= MAX_SECTION
                                       and isinstance(step, int) and not isinstance(step, bool) and 0 <= step < 1000):
            return Status.INVALID
        with self._write() as conn:
            status = self._instructor(conn, code, key, now)
            if status is Status.OK:
                room = normalize_code(code)
                if lesson is None:
                    conn.execute(delete(lessons_table).where(lessons_table.c.room == room))
                else:
                    conn.execute(self._upsert(lessons_table, dict(room=room, lesson=lesson, step=step),
                                              ["room"], ["lesson", "step"]))
            return status

    def lesson(self, code: object, now: float) -> tuple[str, int] | None:
        """(lesson, step) the room follows, or None (no lesson, or no live room)."""
        code = normalize_code(code)
        if code is None:
            return None
        with self._read() as conn:
            row = conn.execute(select(lessons_table.c.lesson, lessons_table.c.step)
                               .join(rooms, rooms.c.code == lessons_table.c.room)
                               .where(lessons_table.c.room == code, rooms.c.expires > now)).first()
        return (row.lesson, row.step) if row else None


class _Tx:
    """One transaction, committed on leaving; any database failure becomes StoreUnavailable."""

    def __init__(self, store: Store, read: bool) -> None:
        self.store = store
        self.read = read
        self._conn: Connection | None = None
        self._tx = None
        self._locked = False

    def __enter__(self) -> Connection:
        self.store._ensure_schema()
        if not self.read:
            self.store._lock_writer()
            self._locked = True
        try:
            self._conn = self.store.engine.connect()
            if self.read:
                self._conn = self._conn.execution_options(ffnlab_read=True)
            self._tx = self._conn.begin()
            return self._conn
        except sa_exc.SQLAlchemyError as e:
            self._close()
            raise StoreUnavailable(f"class database: {e.__class__.__name__}") from e

    def __exit__(self, kind, error, tb) -> bool:
        try:
            if error is None:
                self._tx.commit()
            else:
                self._tx.rollback()
        except sa_exc.SQLAlchemyError as e:
            raise StoreUnavailable(f"class database: {e.__class__.__name__}") from (error or e)
        finally:
            self._close()
        if isinstance(error, sa_exc.SQLAlchemyError):
            raise StoreUnavailable(f"class database: {error.__class__.__name__}") from error
        return False

    def _close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except sa_exc.SQLAlchemyError:
                pass
            self._conn = None
        if self._locked:
            self._locked = False
            self.store._unlock_writer()
