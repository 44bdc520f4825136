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
    store.join(code, token, now, client=addr)  # Status.JOINED / UNKNOWN / FULL / LOCKED / LIMIT / INVALID
    store.present(code, token, now)            # the student's open page says it is there (its heartbeat)
    store.submit(code, token, qid, 0.3, now)   # Status.STORED / UNKNOWN / NOT_JOINED / TOO_FAST / LIMIT / INVALID
    store.snapshot(code, qid, now)             # Snapshot(joined, answered, values, revealed, away) or None (2 reads)
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
    store.seats(code, key, now)                # Seats(held, here, silent, locked), or a Status
    store.set_door(code, key, True, now)       # lock the door: no new seats (False opens it)
    store.drop_silent(code, key, now)          # give up the seats away and never answered: how many
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
    store.joined(code, now)                    # students here now (seats held and seen), or None for no live room
    store.set_lesson(code, key, "ffn", 3, now) # the lesson the room follows and its step (None: no lesson)
    store.lesson(code, now)                    # ("ffn", 3) or None

`Store` is composed of its calls, written by concern in store_*.py (ui/room/__init__.py names them); what
callers use is importable from here.
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
