"""The class store's guesses: a student's guess stored (or refused), the instructor's reveal and reset, and peer
instruction (a question's two votes, a timer that the store's clock closes).

A guess is a finite float or an option id (`OPTION_RE`); the page checks it against its question
(`ui.questions.Question.parse`) before it comes here. One guess per (room, question, student), the latest
wins, and at most one write per `min_interval` seconds per student.
"""
from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator

from sqlalchemy import and_, delete, func, insert, select, update
from sqlalchemy.engine import Connection

from ui.room.store_db import StoreBase, _guess
from ui.room.store_inputs import _question_ok, _sha, _token_ok, _value, normalize_code
from ui.room.store_records import MAX_TIMER, Status, Vote
from ui.room.store_tables import first_votes, guesses_table, reveals, rooms, students, votes


class GuessCalls(StoreBase):
    """The store's calls on guesses and votes (ui/room/store.py composes them into `Store`)."""

    def submit(self, code: object, token: object, question_id: object, value: object,
               now: float) -> Status:
        """Store a student's guess (the latest wins); STORED only once it is committed.

        LIMIT: a new guess from a seat whose client's seats hold max_votes_per_client guesses to this question
        already (a seat holding a guess may always change it)."""
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
            if self._past_votes(conn, code, who, question_id, now):
                return Status.LIMIT
            # The rate check and the write in one statement: two requests at once cannot both pass.
            passed = conn.execute(update(students).where(
                *self._held(code, who),
                (students.c.last_write.is_(None)) | (students.c.last_write <= now - self.min_interval),
            ).values(last_write=now, seen=now)).rowcount
            if passed != 1:
                joined = conn.execute(select(students.c.joined).where(*self._held(code, who))).first()
                return Status.TOO_FAST if joined is not None else Status.NOT_JOINED
            conn.execute(self._upsert(
                guesses_table,
                dict(room=code, question=question_id, token_hash=who, number=number, option=option, at=now),
                ["room", "question", "token_hash"], ["number", "option", "at"]))
        return Status.STORED

    def _past_votes(self, conn: Connection, code: str, who: str, question_id: str, now: float) -> bool:
        """Whether this seat's guess would be a new one past its client's bound of guesses to this question."""
        seat = conn.execute(select(students.c.client).where(*self._held(code, who))).first()
        if seat is None or seat.client is None:
            return False  # not joined (the caller says so), or a seat with no address (a local connection)
        mine = (guesses_table.c.room == code, guesses_table.c.question == question_id)
        if conn.execute(select(guesses_table.c.at).where(*mine, guesses_table.c.token_hash == who)).first():
            return False  # a change of this seat's own guess
        # The room's row locked first (as join locks it): two first guesses from one client at once, on PostgreSQL,
        # do not both count one under the bound and both get in.
        self._live(conn, code, now, lock=True)
        held = conn.execute(select(func.count()).select_from(guesses_table).join(
            students, and_(students.c.room == guesses_table.c.room, students.c.token_hash == guesses_table.c.token_hash))
            .where(*mine, students.c.client == seat.client)).scalar_one()
        return held >= self.max_votes_per_client

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
        return None if row is None else _guess(row)

    # --- the instructor ------------------------------------------------------------------------

    def reveal(self, code: object, key: object, question_id: object, now: float) -> Status:
        """Show the class's distribution and the measurement to every student of the room."""
        if not _question_ok(question_id):
            return Status.INVALID
        return self._as_instructor(code, key, now, lambda conn, room: conn.execute(
            self._upsert(reveals, dict(room=room, question=question_id, at=now), ["room", "question"], None)))

    def reset(self, code: object, key: object, question_id: object | None, now: float) -> Status:
        """Delete one question's guesses and reveal (None: every question's)."""
        if question_id is not None and not _question_ok(question_id):
            return Status.INVALID
        def clear(conn: Connection, room: str) -> None:
            for table in (guesses_table, reveals, votes, first_votes):
                where = table.c.room == room
                if question_id is not None:
                    where = and_(where, table.c.question == question_id)
                conn.execute(delete(table).where(where))
        return self._as_instructor(code, key, now, clear)

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
            return None if self._live(conn, code, now) is None else self._vote_row(conn, code, question_id, now)

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
        # The vote's round and timer stay as they are.
        return self._as_instructor(code, key, now, lambda conn, room: conn.execute(self._upsert(
            votes, dict(room=room, question=question_id, round=1, closes=None, closed=None, shown=int(shown)),
            ["room", "question"], ["shown"])))

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
            if self._live(conn, code, now) is None or self._vote_row(conn, code, question_id, now).round < 2:
                return None
            return self._values(conn, first_votes, code, question_id)
