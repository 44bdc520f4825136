"""The class store's vocabulary: its bounds, the statuses and errors it answers with, and the records it returns."""
from __future__ import annotations

import enum
from dataclasses import dataclass

ROOM_TTL = 4 * 3600.0
LINK_TTL = 300.0
MAX_STUDENTS = 500
MAX_ROOMS = 1000
MIN_INTERVAL = 1.0
MAX_ROOMS_PER_CLIENT = 20  # a school's instructors behind one address; one client cannot fill MAX_ROOMS
# The class one school address (NAT) brings to a room: its seats hold at most this many guesses to one question.
CLASS_PER_CLIENT = 100
# New seats one address adds to one room in the room's whole life. Not a sliding window: a window lets a patient
# script add a class's worth again every period, and its seats, kept present, fill the room. A class of 100
# behind one school's NAT joins within a minute with half again to spare (phones without the cookie, a second
# device); the instructor can lock the door, and FFNLAB_CLASS_PER_ADDRESS raises it for a larger class.
MAX_JOINS_PER_CLIENT = 150  # joins_for(CLASS_PER_CLIENT)
# A seat counts toward the room's bound (and as "here" for the instructor) while its student is there: seen
# (joined, guessed, a claimed cookie, the page's heartbeat every PRESENT_EVERY) within SEAT_IDLE seconds.
SEAT_IDLE = 120.0
PRESENT_EVERY = 40.0  # how often an open student page says it is there (ui/room/session.py): three chances per SEAT_IDLE
NONCE_TTL = 120.0
# Cookies one seat (or a room's instructor) holds at once, and as many nonces: a laptop, a tablet, a phone. A session
# that leaves and joins in a loop mints one each time; past this the oldest is replaced, so the table stays bounded.
KEEP_PASSES = 3
MAX_CLIENT = 64
EXPIRE_EVERY = 60.0
MAX_QUESTION_ID = 120
MAX_TOKEN = 128
MAX_SECTION = 64
MAX_VIEW_PARAMS = 40
MAX_VIEW_TEXT = 200
MAX_ABOUT = 4000  # a teacher's question keeps its texts: up to 6 of 300 characters
MAX_TIMER = 600.0


class StoreUnavailable(Exception):
    """The database cannot be reached, is locked, or failed mid-way: the call's transaction was rolled back.

    (Only a connection lost during COMMIT itself leaves it unknown whether the database kept the
    write; the call still raises, so a guess is never reported stored without a finished commit.)
    """


class SchemaTooNew(StoreUnavailable):
    """The database holds a schema written by a newer version of the store (ui/room/store_tables.py)."""


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
    LIMIT = "limit"  # this client's bound of rooms, of new seats, or of guesses to a question is reached
    LOCKED = "locked"  # the instructor locked the room's door: no new seats


@dataclass(frozen=True)
class Snapshot:
    """What the instructor's live view draws for one question, read in one transaction."""

    # Seats held whose students are here now (seen within SEAT_IDLE): a flood's seats no one keeps, a closed tab
    # and a phone asleep are `away`, said apart, so that the projector does not count them as the class.
    joined: int
    answered: int
    values: tuple[float | str, ...]
    revealed: bool
    away: int = 0


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
class Seats:
    """The room's seats as the instructor sees them: held, here (seen within SEAT_IDLE), away and never answered; the door."""

    held: int  # seats not left (here or not)
    here: int  # held seats seen within SEAT_IDLE: what counts toward max_students
    silent: int  # held seats away (not seen within SEAT_IDLE) that never sent a guess: what `drop_silent` gives up
    locked: bool  # no new seats


@dataclass(frozen=True)
class View:
    """The page and settings the instructor shows; `version` grows with every set_view."""

    section: str
    params: dict[str, str]
    version: int


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


def joins_for(class_size: int) -> int:
    """New seats one address may add to a room for a class of this size behind it: half again (100 -> 150)."""
    return class_size + class_size // 2
