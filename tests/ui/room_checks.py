"""What the class room's tests read back from the store beyond what the app asks of it: the counts, the
values and whether a key is a room's instructor key (the app reads these through `snapshot` and the
key actions)."""
from __future__ import annotations

from ui.room import store


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
