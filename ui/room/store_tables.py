"""The class store's tables in SQL, the version of their schema, and the migrations from each older version."""
from __future__ import annotations

from sqlalchemy import Column, Double, Index, Integer, MetaData, String, Table, Text
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.engine import Connection

from ui.base.room_code import CODE_LENGTH
from ui.room.store_records import MAX_CLIENT, MAX_QUESTION_ID, MAX_SECTION

SCHEMA_VERSION = 4  # 2: seats seen/left and their client, rooms' client, class_passes; 3: votes, questions, lessons; 4: passes' owner, the salt (see _MIGRATIONS)

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

passes = Table(
    "class_passes", metadata,  # schema 2
    Column("pass_hash", String(64), primary_key=True),
    Column("room", String(CODE_LENGTH), nullable=False),
    Column("kind", String(16), nullable=False),  # "seat" / "host": a cookie's secret; "nonce:seat" / "nonce:host"
    Column("sealed", String(256), nullable=False),
    Column("expires", Double, nullable=False),
    # schema 4: whose pass it is (a seat's token hash, "host" for the room's instructor) and when it was minted,
    # so that minting another replaces the oldest (KEEP_PASSES). NULL on older rows, which expire with their room.
    Column("owner", String(64)),
    Column("made", Double),
    Index("class_passes_owner", "room", "owner"),
)
# schema 4: one row, the random salt of the clients' HMAC (`Store._client`). Kept in the database, so that every
# replica on it keys an address alike; random, so that no one holding the database can try every IPv4 address.
salt_table = Table("class_salt", metadata, Column("salt", String(64), nullable=False))
_ROOM_TABLES = (students, guesses_table, reveals, links, passes, *_VOTE_TABLES)


# --- migrations: schema version n-1 -> n, each in the schema's own transaction ----------------------

def _add_columns(conn: Connection, table: str, columns: tuple[tuple[str, str], ...]) -> None:
    """The columns (name, SQL type) a table made by an older version lacks, added."""
    have = {c["name"] for c in sa_inspect(conn).get_columns(table)}
    for column, kind in columns:
        if column not in have:
            conn.exec_driver_sql(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


def _to_v2(conn: Connection) -> None:
    """Seats that are seen and left, and clients: columns on the tables version 1 made (class_passes is new)."""
    _add_columns(conn, "class_students", (("seen", "DOUBLE PRECISION"), ("left_at", "DOUBLE PRECISION"),
                                          ("client", f"VARCHAR({MAX_CLIENT})")))
    _add_columns(conn, "class_rooms", (("client", f"VARCHAR({MAX_CLIENT})"),))


def _to_v3(conn: Connection) -> None:
    """Peer instruction, the results and a lesson: four new tables, nothing else changes."""
    metadata.create_all(conn, tables=list(_VOTE_TABLES), checkfirst=True)


def _to_v4(conn: Connection) -> None:
    """Passes with an owner (a seat keeps a few at most): two columns and their index on class_passes.

    (class_salt is new and made by create_all before the migrations run; the salt is drawn in _ensure_schema.
    Clients kept before it, under a fixed salt, match no client after it: in a room live at the upgrade, an
    address's seats and guesses are counted afresh, once.)"""
    _add_columns(conn, "class_passes", (("owner", "VARCHAR(64)"), ("made", "DOUBLE PRECISION")))
    next(i for i in passes.indexes if i.name == "class_passes_owner").create(conn, checkfirst=True)


_MIGRATIONS = {2: _to_v2, 3: _to_v3, 4: _to_v4}
