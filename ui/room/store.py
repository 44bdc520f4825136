"""The class room's store: rooms, students, guesses, reveals and the instructor's view, in SQL.

SQLAlchemy Core and bound parameters only; nothing here imports streamlit. An `Engine` comes in
(the pages take it from `st.connection("class", type="sql").engine`; `ui.room.config.url()` says
which database) and the same code runs on an SQLite file (WAL, busy timeout) and on PostgreSQL
(psycopg 3). The schema is created on first use and carries a version; a database written by a
newer version of this module is refused (`SchemaTooNew`).

Every time comes in as `now` (seconds, e.g. `time.time()`), so tests control the clock. Every
call runs in one transaction: it is written whole or not at all. A database that cannot be
reached, is locked past the busy timeout, or fails mid-way raises `StoreUnavailable` (the pages then
say the class features are unavailable, and a guess whose `submit` raised was not stored). The
instructor's actions take the room's key: a wrong key gets Status.FORBIDDEN, an unknown room UNKNOWN.

    store = Store(engine)                      # cheap; keep one per engine (st.cache_resource)
    code, key = store.create_room(now)         # or None: the server's bound of live rooms is reached
    store.join(code, token, now, client=addr)  # Status.JOINED / UNKNOWN / FULL / LOCKED / LIMIT / INVALID
    store.submit(code, token, qid, 0.3, now)   # Status.STORED / UNKNOWN / NOT_JOINED / TOO_FAST / LIMIT / INVALID
    store.reveal(code, key, qid, now)          # Status.OK

`Store` is composed of its calls, written by concern in store_*.py (ui/room/__init__.py names them; each call's
docstring says what it does); what callers use is importable from here.
"""
from __future__ import annotations

from ui.base.room_code import CODE_ALPHABET
from ui.room.store_guesses import GuessCalls
from ui.room.store_inputs import address_key, new_token, normalize_code
from ui.room.store_records import (CLASS_PER_CLIENT, KEEP_PASSES, LINK_TTL, MAX_ABOUT, MAX_JOINS_PER_CLIENT,
                                   MAX_ROOMS, MAX_STUDENTS, MAX_TIMER, NONCE_TTL, PRESENT_EVERY, ROOM_TTL, SEAT_IDLE,
                                   Claim, Pass, SchemaTooNew, Seats, Snapshot, Status, StoreUnavailable, Tally, View,
                                   Vote, joins_for)
from ui.room.store_results import ResultCalls
from ui.room.store_rooms import RoomCalls
from ui.room.store_tables import SCHEMA_VERSION

__all__ = [
    "CLASS_PER_CLIENT", "CODE_ALPHABET", "KEEP_PASSES", "LINK_TTL", "MAX_ABOUT", "MAX_JOINS_PER_CLIENT", "MAX_ROOMS",
    "MAX_STUDENTS", "MAX_TIMER", "NONCE_TTL", "PRESENT_EVERY", "ROOM_TTL", "SCHEMA_VERSION", "SEAT_IDLE", "Claim",
    "Pass", "SchemaTooNew", "Seats", "Snapshot", "Status", "Store", "StoreUnavailable", "Tally", "View", "Vote",
    "address_key", "joins_for", "new_token", "normalize_code",
]


class Store(RoomCalls, GuessCalls, ResultCalls):
    """The class room on one database; see the module's docstring for the API."""
