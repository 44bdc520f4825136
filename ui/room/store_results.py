"""The class store's reads of what a room's class answered: the live panel's counts and guesses, the questions
a room asked, and its results per question and vote."""
from __future__ import annotations

import json
import math
from collections.abc import Mapping

from sqlalchemy import Table, func, select
from sqlalchemy.engine import Connection

from ui.room.store_db import _guess
from ui.room.store_inputs import _question_ok, normalize_code
from ui.room.store_records import MAX_ABOUT, MAX_SECTION, Snapshot, Status, Tally
from ui.room.store_seats import SeatCalls
from ui.room.store_tables import first_votes, guesses_table, questions_table, reveals, rooms, students, votes


class ResultCalls(SeatCalls):
    """The store's reads of the class's answers (ui/room/store.py composes them into `Store`)."""

    # --- what the class answered ---------------------------------------------------------------

    def _head(self, conn: Connection, code: str, question_id: str, now: float):
        """(joined: seats here, away: seats held but not here, shown) of a live room in one statement, or None."""
        def held(there):
            return (select(func.count()).select_from(students)
                    .where(students.c.room == rooms.c.code, students.c.left_at.is_(None), there).scalar_subquery())

        shown = (select(func.count()).select_from(reveals)
                 .where(reveals.c.room == rooms.c.code, reveals.c.question == question_id).scalar_subquery())
        return conn.execute(select(held(self._here(now)).label("joined"), held(self._away(now)).label("away"),
                                   shown.label("shown"))
                            .where(rooms.c.code == code, rooms.c.expires > now)).first()

    def snapshot(self, code: object, question_id: object, now: float) -> Snapshot | None:
        """Joined, answered, the values and whether revealed, in one read; None for no live room."""
        code = normalize_code(code)
        if code is None or not _question_ok(question_id):
            return None
        with self._read() as conn:
            head = self._head(conn, code, question_id, now)
            if head is None:
                return None
            values = self._values(conn, guesses_table, code, question_id)
        return Snapshot(joined=head.joined, answered=len(values), values=values, revealed=head.shown > 0,
                        away=head.away)

    def revealed_guesses(self, code: object, question_id: object, now: float) -> tuple[float | str, ...] | None:
        """The class's guesses once this question is revealed; None before (one cheap read then) or for no live room."""
        code = normalize_code(code)
        if code is None or not _question_ok(question_id):
            return None
        with self._read() as conn:
            head = self._head(conn, code, question_id, now)
            if head is None or not head.shown:
                return None
            return self._values(conn, guesses_table, code, question_id)

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
        return self._as_instructor(code, key, now, lambda conn, room: conn.execute(self._upsert(
            questions_table, dict(room=room, question=question_id, about=text, first_seen=now),
            ["room", "question"], None)))

    def teacher_questions(self, code: object, section: object, now: float) -> list[tuple[str, dict]]:
        """The teacher's questions the instructor showed on page `section` in the live room `code`: (id, about).

        Anyone in the room may read them (a student's page asks them); they hold no answer a student could not
        see on the page, only what was asked. Read in Python by the id's prefix: no query is built from it.
        """
        code = normalize_code(code)
        if code is None or not isinstance(section, str) or not 0 < len(section) <= MAX_SECTION:
            return []
        prefix = f"{section}:teacher."
        with self._read() as conn:
            if self._live(conn, code, now) is None:
                return []
            rows = conn.execute(select(questions_table.c.question, questions_table.c.about)
                                .where(questions_table.c.room == code)).all()
        out = []
        for r in rows:
            if r.question.startswith(prefix):
                try:
                    about = json.loads(r.about)
                except ValueError:
                    continue
                if isinstance(about, dict):
                    about.pop("answer", None)  # a student's page measures it itself
                    out.append((r.question, about))
        return out

    def results(self, code: object, key: object, now: float) -> list[Tally] | None:
        """Every question of the room that was shown or answered, with each vote's guesses; None without the key."""
        with self._read() as conn:
            if self._instructor(conn, code, key, now) is not Status.OK:
                return None
            room = normalize_code(code)
            asked = {r.question: (json.loads(r.about), r.first_seen) for r in conn.execute(
                select(questions_table.c.question, questions_table.c.about, questions_table.c.first_seen)
                .where(questions_table.c.room == room))}
            last = self._by_question(conn, guesses_table, room)
            first = self._by_question(conn, first_votes, room)
            rounds = {r.question: r.round for r in conn.execute(
                select(votes.c.question, votes.c.round).where(votes.c.room == room))}
            shown = {r.question for r in conn.execute(select(reveals.c.question).where(reveals.c.room == room))}
        ids = sorted(set(asked) | set(last) | set(first), key=lambda q: (asked.get(q, ({}, math.inf))[1], q))
        return [Tally(question=q, about=asked.get(q, ({}, 0))[0],
                      first=tuple(first.get(q, ())) if rounds.get(q, 1) >= 2 else None,
                      last=tuple(last.get(q, ())), revealed=q in shown) for q in ids]

    @staticmethod
    def _by_question(conn: Connection, table: Table, room: str) -> dict[str, list[float | str]]:
        """Every guess a room's `table` holds, by question."""
        found: dict[str, list[float | str]] = {}
        for r in conn.execute(select(table.c.question, table.c.number, table.c.option).where(table.c.room == room)):
            found.setdefault(r.question, []).append(_guess(r))
        return found

    def joined(self, code: object, now: float) -> int | None:
        """How many students are in the live room `code` now: seats held and seen within SEAT_IDLE (one read);
        None for no live room. Not every seat ever made: a seat left, given up or long unseen is no student here."""
        code = normalize_code(code)
        if code is None:
            return None
        with self._read() as conn:
            if self._live(conn, code, now) is None:
                return None
            return self._here_count(conn, code, now)
