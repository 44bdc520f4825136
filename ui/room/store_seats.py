"""The class store's seats: a student joins, is there (its page's heartbeat) or away, and leaves; the instructor's
door.

A client (the student's address, kept only as an HMAC under this database's own random salt, an IPv6 address
by its /64 prefix: `address_key`) adds at most `max_joins_per_client` new seats to one room in the room's whole
life, and its seats hold at most `max_votes_per_client` guesses to one question: a script's seats and votes stay
within a class's worth however long it runs. A seat counts toward the room's `max_students` while its student is
there: not once it left (`leave`, or the instructor's `drop_silent`), nor after SEAT_IDLE seconds unseen; seen
again, it counts again. A student keeps one token per room (ui/room/seating.py), so leaving and joining again
takes the same seat.
"""
from __future__ import annotations

from sqlalchemy import and_, case, delete, func, insert, select, update
from sqlalchemy.engine import Connection

from ui.room.store_db import StoreBase
from ui.room.store_inputs import _sha, _token_ok, normalize_code
from ui.room.store_records import SEAT_IDLE, Seats, Status
from ui.room.store_tables import passes, students


class SeatCalls(StoreBase):
    """The store's calls on seats (ui/room/store.py composes them into `Store`)."""

    def join(self, code: object, token: object, now: float, client: object = None) -> Status:
        """Join a student to a room; a token that holds (or left) a seat there takes it again, guesses and all."""
        code = normalize_code(code)
        if code is None:
            return Status.UNKNOWN
        if not _token_ok(token):
            return Status.INVALID
        who = _sha(token)
        with self._write() as conn:
            client = self._client(client)
            self._maybe_expire(conn, now)
            # FOR UPDATE on PostgreSQL: two joins at max_students - 1 do not both get in.
            if self._live(conn, code, now, lock=True) is None:
                return Status.UNKNOWN
            there = conn.execute(select(students.c.left_at, students.c.last_write).where(
                students.c.room == code, students.c.token_hash == who)).first()
            if there is not None and there.left_at is None:
                self._seen(conn, code, who, now)
                return Status.JOINED
            locked = self._locked(conn, code, now)
            # Behind a locked door only a seat that holds a guess comes back (a seat given up unanswered does not).
            if locked and (there is None or there.last_write is None):
                return Status.LOCKED
            if self._here_count(conn, code, now) >= self.max_students:
                return Status.FULL
            if there is not None:  # back to the seat it left
                conn.execute(update(students).where(students.c.room == code, students.c.token_hash == who)
                             .values(left_at=None, seen=now))
                return Status.JOINED
            if client is not None:
                # Every seat this client ever added here, left or away: the bound is the room's whole life.
                made = conn.execute(select(func.count()).select_from(students).where(
                    students.c.room == code, students.c.client == client)).scalar_one()
                if made >= self.max_joins_per_client:
                    return Status.LIMIT
            conn.execute(self._upsert(students, dict(room=code, token_hash=who, joined=now, seen=now,
                                                     client=client), ["room", "token_hash"], None))
            return Status.JOINED

    @staticmethod
    def _here(now: float):
        """A seat seen within SEAT_IDLE: its student is there, and it counts toward the room's bound."""
        return func.coalesce(students.c.seen, students.c.joined) > now - SEAT_IDLE

    def _here_count(self, conn: Connection, code: str, now: float) -> int:
        """The room's seats held and here: what counts toward max_students."""
        return conn.execute(select(func.count()).select_from(students).where(
            students.c.room == code, students.c.left_at.is_(None), self._here(now))).scalar_one()

    @staticmethod
    def _away(now: float):
        """A seat not seen for SEAT_IDLE: a closed tab, a phone asleep, or a script's seat no one keeps."""
        return func.coalesce(students.c.seen, students.c.joined) <= now - SEAT_IDLE

    def present(self, code: object, token: object, now: float) -> Status:
        """The student's page is open (its heartbeat): the seat counts as here again. OK, NOT_JOINED or UNKNOWN."""
        code = normalize_code(code)
        if code is None:
            return Status.UNKNOWN
        if not _token_ok(token):
            return Status.INVALID
        with self._write() as conn:
            if self._live(conn, code, now) is None:
                return Status.UNKNOWN
            done = conn.execute(update(students).where(*self._held(code, _sha(token))).values(seen=now)).rowcount
        return Status.OK if done == 1 else Status.NOT_JOINED

    # --- the door: the instructor's view of the seats, no new seats, unanswered seats given up ---------------
    # The door is a row of class_passes (kind "door", never a pass: `_pass` looks up other kinds only), so it
    # needs no column of its own, goes with its room, and expires with it.

    @staticmethod
    def _door(code: str) -> str:
        return _sha("ffnlab-door:" + code)

    def _locked(self, conn: Connection, code: str, now: float) -> bool:
        return conn.execute(select(passes.c.expires).where(
            passes.c.pass_hash == self._door(code), passes.c.kind == "door", passes.c.expires > now)).first() is not None

    def seats(self, code: object, key: object, now: float) -> Seats | Status:
        """The room's seats (held, here, away and never answered) and its door, in one read; a Status without the key."""
        with self._read() as conn:
            status = self._instructor(conn, code, key, now)
            if status is not Status.OK:
                return status
            room = normalize_code(code)
            here = func.sum(case((self._here(now), 1), else_=0))
            silent = func.sum(case((and_(students.c.last_write.is_(None), self._away(now)), 1), else_=0))
            row = conn.execute(select(func.count().label("held"), here.label("here"), silent.label("silent"))
                               .where(students.c.room == room, students.c.left_at.is_(None))).first()
            return Seats(held=row.held, here=int(row.here or 0), silent=int(row.silent or 0),
                         locked=self._locked(conn, room, now))

    def set_door(self, code: object, key: object, locked: object, now: float) -> Status:
        """Lock the room's door (no new seats; every held seat stays) or open it again."""
        if not isinstance(locked, bool):
            return Status.INVALID
        def door(conn: Connection, room: str) -> None:
            conn.execute(delete(passes).where(passes.c.pass_hash == self._door(room)))
            if locked:
                conn.execute(insert(passes).values(pass_hash=self._door(room), room=room, kind="door", sealed="",
                                                   expires=self._live(conn, room, now).expires))
        return self._as_instructor(code, key, now, door)

    def drop_silent(self, code: object, key: object, now: float) -> int | Status:
        """Give up every held seat that is away (not seen within SEAT_IDLE) and never sent a guess (nothing stored is
        lost); how many, or a Status. A student whose page is open and who has not answered yet keeps the seat.

        A seat given up counts neither toward the room's bound nor as joined; its student may join again while
        the door is open (the same token takes the same seat), not behind a locked one."""
        with self._write() as conn:
            status = self._instructor(conn, code, key, now)
            if status is not Status.OK:
                return status
            return conn.execute(update(students).where(
                students.c.room == normalize_code(code), students.c.left_at.is_(None),
                students.c.last_write.is_(None), self._away(now)).values(left_at=now)).rowcount

    def leave(self, code: object, token: object, now: float) -> Status:
        """The student gives the seat up: it no longer counts toward the room's bound (the guesses stay)."""
        code = normalize_code(code)
        if code is None or not _token_ok(token):
            return Status.INVALID
        with self._write() as conn:
            done = conn.execute(update(students).where(*self._held(code, _sha(token))).values(left_at=now)).rowcount
        # Its cookie stays in the browser until the room expires, and `claim` no longer gives the seat back.
        return Status.OK if done == 1 else Status.NOT_JOINED

    @staticmethod
    def _seen(conn: Connection, code: str, who: str, now: float) -> None:
        conn.execute(update(students).where(students.c.room == code, students.c.token_hash == who)
                     .values(seen=now))
