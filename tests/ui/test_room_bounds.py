"""A room one visitor cannot take over (issue 40), at the store and in this process's guard, with the clock in
the test's hands: seats count while their students are there, the door, the per-address bounds of seats, wrong
codes and sessions, and what a real class behind one address still does."""
from __future__ import annotations

import pyarrow as pa
import pytest
import sqlalchemy as sa

from tests.ui.pg import postgres_server  # noqa: F401  (the session fixture)
from tests.ui.room_checks import counts, engine, older_database, pg_url  # noqa: F401  (the store on SQLite and PostgreSQL)
from ui.questions import Question
from ui.room import config, guard, results, store, store_inputs, store_tables
from ui.room.store import Seats, Status, Store

T0 = 2_000_000.0
SCRIPT, SCHOOL, HOME = "203.0.113.66", "198.51.100.7", "192.0.2.10"


def room(db: Store, now: float = T0) -> tuple[str, str]:
    made = db.create_room(now, client="192.0.2.1")
    assert isinstance(made, tuple)
    return made


def test_a_flood_from_one_address_leaves_the_room_to_others_and_the_door_locks_at_once(engine):
    db = Store(engine)
    code, key = room(db)
    assert db.join(code, "early", T0, client=HOME) is Status.JOINED
    assert db.submit(code, "early", "q", 1.0, T0 + 1) is Status.STORED
    flood = [db.join(code, f"flood-{i}", T0 + 2 + i * 0.03, client=SCRIPT) for i in range(500)]  # 500 in 16 s
    assert flood.count(Status.JOINED) == store.MAX_JOINS_PER_CLIENT
    assert set(flood[store.MAX_JOINS_PER_CLIENT:]) == {Status.LIMIT}
    assert db.join(code, "other", T0 + 20, client=HOME) is Status.JOINED  # at once, from another address
    assert db.seats(code, key, T0 + 20) == Seats(held=152, here=152, silent=0, locked=False)  # all here: none silent
    assert db.set_door(code, key, True, T0 + 21) is Status.OK
    assert db.join(code, "late", T0 + 22, client=HOME) is Status.LOCKED
    assert db.join(code, "flood-499", T0 + 22, client=SCRIPT) is Status.LOCKED
    assert db.join(code, "early", T0 + 23, client=HOME) is Status.JOINED  # a held seat is not a new one
    assert db.seats(code, key, T0 + 23).locked
    assert db.set_door(code, key, False, T0 + 24) is Status.OK and not db.seats(code, key, T0 + 24).locked
    assert db.set_door(code, "not the key", True, T0 + 25) is Status.FORBIDDEN
    assert db.seats(code, "not the key", T0 + 25) is Status.FORBIDDEN
    assert db.set_door(code, key, "yes", T0 + 25) is Status.INVALID


def test_a_room_filled_by_silent_seats_takes_students_again_within_two_minutes(engine):
    db = Store(engine)
    code, key = room(db)
    for i in range(db.max_students):  # 500 seats from 500 addresses, then silence
        assert db.join(code, f"s{i}", T0 + i * 0.01, client=f"10.0.{i // 250}.{i % 250}") is Status.JOINED
    assert db.join(code, "real", T0 + 10, client=SCHOOL) is Status.FULL
    assert db.join(code, "real", T0 + 5 + store.SEAT_IDLE + 1, client=SCHOOL) is Status.JOINED  # 2 minutes later
    seats = db.seats(code, key, T0 + 5 + store.SEAT_IDLE + 1)
    assert (seats.held, seats.here) == (501, 1)
    # A silent seat comes back by its student's heartbeat (or a claimed cookie) and counts again.
    assert db.present(code, "s7", T0 + 200) is Status.OK
    assert db.seats(code, key, T0 + 200).here == 2
    assert db.present(code, "nobody", T0 + 200) is Status.NOT_JOINED
    assert db.present("ZZZZZZ", "s7", T0 + 200) is Status.UNKNOWN
    nonce = db.seat_pass(code, "s8", T0 + 201)
    secret = db.redeem_nonce(nonce, T0 + 202).secret
    assert db.claim(secret, T0 + 210).secret == "s8"
    assert db.seats(code, key, T0 + 210).here == 3  # real, s7, s8
    assert db.seats(code, key, T0 + 321).here == 1  # s8 alone seen within the last two minutes


def test_a_class_of_100_behind_one_address_joins_over_a_minute_and_all_vote(engine):
    db = Store(engine)
    code, key = room(db)
    assert all(db.join(code, f"pupil-{i}", T0 + i * 0.6, client=SCHOOL) is Status.JOINED for i in range(100))
    assert all(db.submit(code, f"pupil-{i}", "q", float(i % 7), T0 + 61 + i * 0.1) is Status.STORED
               for i in range(100))
    assert counts(db, code, "q", T0 + 75) == (100, 100)
    assert db.submit(code, "pupil-3", "q", 6.0, T0 + 76) is Status.STORED  # a student changes their mind
    # Ten who lost their cookie join again as new seats: still within the address's bound. Their guesses stand
    # from their first seats; a second one from the new seat would be the class's 101st and is refused.
    assert all(db.join(code, f"again-{i}", T0 + 80 + i, client=SCHOOL) is Status.JOINED for i in range(10))
    assert db.submit(code, "again-0", "q", 1.0, T0 + 95) is Status.LIMIT
    assert counts(db, code, "q", T0 + 96)[1] == 100


def test_one_script_adds_no_more_than_a_class_of_votes(engine):
    db = Store(engine)
    code, key = room(db)
    assert db.join(code, "pupil", T0, client=HOME) is Status.JOINED
    assert db.submit(code, "pupil", "q", 1.0, T0 + 0.5) is Status.STORED
    # As in the audit: a script from one address, fresh seats every few minutes for an hour, each voting once.
    statuses = []
    for i in range(900):
        now = T0 + 1 + i * 4.0
        if db.join(code, f"bot-{i}", now, client=SCRIPT) is Status.JOINED:
            statuses.append(db.submit(code, f"bot-{i}", "q", 3.0, now + 0.05))
    assert len(statuses) == store.MAX_JOINS_PER_CLIENT  # new seats: the room's whole life, not a window
    assert statuses.count(Status.STORED) == store.CLASS_PER_CLIENT  # votes: a class's worth on the question
    assert set(statuses[store.CLASS_PER_CLIENT:]) == {Status.LIMIT}
    assert counts(db, code, "q", T0 + 3700)[1] == store.CLASS_PER_CLIENT + 1
    # A seat holding a guess may change it (the latest wins): the count does not grow.
    assert db.submit(code, "bot-0", "q", 4.0, T0 + 3701) is Status.STORED
    assert db.submit(code, f"bot-{store.MAX_JOINS_PER_CLIENT - 1}", "q", 4.0, T0 + 3701) is Status.LIMIT
    assert counts(db, code, "q", T0 + 3702)[1] == store.CLASS_PER_CLIENT + 1
    # Another question, and the second vote of this one, are each bounded the same way.
    assert [db.submit(code, f"bot-{i}", "other", 1.0, T0 + 3710) for i in range(store.MAX_JOINS_PER_CLIENT)].count(
        Status.STORED) == store.CLASS_PER_CLIENT
    assert db.close_vote(code, key, "q", None, T0 + 3720) is Status.OK
    assert db.second_vote(code, key, "q", None, T0 + 3721) is Status.OK
    second = [db.submit(code, f"bot-{i}", "q", 2.0, T0 + 3730) for i in range(store.MAX_JOINS_PER_CLIENT)]
    assert second.count(Status.STORED) == store.CLASS_PER_CLIENT
    # Students from other addresses vote as before.
    assert db.submit(code, "pupil", "q", 1.0, T0 + 3731) is Status.STORED
    assert db.join(code, "late", T0 + 3732, client=SCHOOL) is Status.JOINED
    assert db.submit(code, "late", "q", 1.0, T0 + 3733) is Status.STORED


def test_the_projector_counts_the_seats_here_and_says_the_rest(engine):
    db = Store(engine)
    code, key = room(db)
    assert db.join(code, "real", T0, client=HOME) is Status.JOINED
    for i in range(store.MAX_JOINS_PER_CLIENT):
        db.join(code, f"flood-{i}", T0 + i * 0.01, client=SCRIPT)
    snap = db.snapshot(code, "q", T0 + 5)
    assert (snap.joined, snap.away) == (store.MAX_JOINS_PER_CLIENT + 1, 0)
    later = T0 + store.SEAT_IDLE + 30  # the flood's sessions closed; the real student's page says it is there
    assert db.present(code, "real", later - 10) is Status.OK
    snap = db.snapshot(code, "q", later)
    assert (snap.joined, snap.away, snap.answered) == (1, store.MAX_JOINS_PER_CLIENT, 0)
    assert db.joined(code, later) == 1
    assert db.leave(code, "real", later) is Status.OK
    assert db.joined(code, later) == 0 and db.snapshot(code, "q", later).away == store.MAX_JOINS_PER_CLIENT


def test_silent_seats_are_given_up_and_nothing_stored_is_lost(engine):
    db = Store(engine)
    code, key = room(db)
    for token in ("a", "b", "c", "d"):
        db.join(code, token, T0, client=HOME)
    db.submit(code, "a", "q", 1.0, T0 + 1)
    db.submit(code, "b", "q", 2.0, T0 + 1)
    # c and d are here and have not answered yet: thinking, not silent.
    assert db.seats(code, key, T0 + 2) == Seats(held=4, here=4, silent=0, locked=False)
    assert db.drop_silent(code, "wrong", T0 + 3) is Status.FORBIDDEN
    assert db.drop_silent(code, key, T0 + 3) == 0
    assert db.join(code, "e", T0 + 100, client=HOME) is Status.JOINED
    away = T0 + store.SEAT_IDLE + 10  # a-d unseen for two minutes; e joined 30 s ago
    assert db.seats(code, key, away) == Seats(held=5, here=1, silent=2, locked=False)
    assert db.drop_silent(code, key, away) == 2  # c and d: away and never answered; e stays
    assert db.seats(code, key, away) == Seats(held=3, here=1, silent=0, locked=False)
    assert sorted(db.snapshot(code, "q", away).values) == [1.0, 2.0]
    assert db.submit(code, "c", "q", 3.0, away + 1) is Status.NOT_JOINED  # given up: the page says so
    assert db.present(code, "c", away + 1) is Status.NOT_JOINED
    assert db.submit(code, "e", "q", 5.0, away + 1) is Status.STORED
    db.set_door(code, key, True, away + 2)
    assert db.join(code, "c", away + 3, client=HOME) is Status.LOCKED  # no guess: not back behind a locked door
    db.leave(code, "a", away + 3)
    assert db.join(code, "a", away + 4, client=HOME) is Status.JOINED  # a seat holding a guess comes back
    db.set_door(code, key, False, away + 5)
    assert db.join(code, "c", away + 6, client=HOME) is Status.JOINED  # the door open: back to its seat
    assert db.drop_silent(code, key, away + 7) == 0  # c is here again
    assert db.drop_silent(code, key, away + 7 + store.SEAT_IDLE) == 1  # and gone again
    assert db.close(code, key, away + 200) is Status.OK and db.seats(code, key, away + 200) is Status.UNKNOWN


def test_the_door_goes_with_its_room_and_is_no_pass(engine):
    db = Store(engine)
    code, key = room(db)
    db.set_door(code, key, True, T0)
    with engine.connect() as conn:
        door = conn.execute(store_tables.passes.select().where(store_tables.passes.c.kind == "door")).one()
    assert door.room == code and door.sealed == ""
    assert db.claim(door.pass_hash, T0 + 1) is None and db.redeem_nonce(door.pass_hash, T0 + 1) is None
    assert db.expire(T0 + store.ROOM_TTL + 1) == 1
    with engine.connect() as conn:
        assert conn.execute(store_tables.passes.select()).all() == []


def test_a_session_leaving_and_joining_in_a_loop_holds_a_few_cookies_not_one_a_turn(engine):
    db = Store(engine)
    code, key = room(db)
    secrets = []
    for i in range(300):  # Leave, type the code, Join: back to the same seat, and a new cookie asked for each time
        now = T0 + i * 2.0
        assert db.join(code, "looper", now, client=SCRIPT) is Status.JOINED
        secrets.append(db.redeem_nonce(db.seat_pass(code, "looper", now), now).secret)
        db.seat_pass(code, "looper", now + 0.5)  # a nonce the browser never fetched
        assert db.leave(code, "looper", now + 1) is Status.OK
    for _ in range(10):
        db.redeem_nonce(db.host_pass(code, key, T0 + 700), T0 + 700)
    with engine.connect() as conn:
        kinds = [r.kind for r in conn.execute(store_tables.passes.select().where(store_tables.passes.c.room == code))]
    # A few cookies (each a secret handed out), a few nonces no browser fetched, a few instructor cookies.
    assert sorted(kinds) == sorted(["seat", "nonce:seat", "host"] * store.KEEP_PASSES), kinds
    # The newest cookies give the seat back; the ones they replaced give nothing.
    assert db.join(code, "looper", T0 + 800, client=SCRIPT) is Status.JOINED
    assert db.claim(secrets[-1], T0 + 801) == store.Claim("seat", code, "looper")
    assert db.claim(secrets[-store.KEEP_PASSES], T0 + 801) == store.Claim("seat", code, "looper")
    assert db.claim(secrets[0], T0 + 801) is None and db.claim(secrets[-store.KEEP_PASSES - 1], T0 + 801) is None
    # Another seat's cookies are its own: the looper's did not replace them.
    db.join(code, "other", T0, client=HOME)
    other = db.redeem_nonce(db.seat_pass(code, "other", T0), T0).secret
    for i in range(5):
        db.redeem_nonce(db.seat_pass(code, "looper", T0 + 900 + i), T0 + 900 + i)
    assert db.claim(other, T0 + 910) == store.Claim("seat", code, "other")


def test_a_version_3_database_gains_owned_passes_and_a_salt_and_keeps_its_cookies(engine):
    older_database(engine, 3, "class_salt", {"class_passes": ("owner", "made")}, T0)
    secret = "an-old-cookie-secret-of-32-chars"
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO class_passes (pass_hash, room, kind, sealed, expires) "
                             "VALUES (:p, 'ABCDEF', 'seat', :s, :e)"),
                     {"p": store_inputs._sha(secret), "s": store_inputs._seal("old", secret), "e": T0 + 1000})
    db = Store(engine)
    assert db.claim(secret, T0 + 1) == store.Claim("seat", "ABCDEF", "old")
    for i in range(store.KEEP_PASSES + 2):
        assert db.redeem_nonce(db.seat_pass("ABCDEF", "old", T0 + 2 + i), T0 + 2 + i) is not None
    inspector = sa.inspect(engine)
    assert {"owner", "made"} <= {c["name"] for c in inspector.get_columns("class_passes")}
    assert "class_passes_owner" in {i["name"] for i in inspector.get_indexes("class_passes")}
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version FROM class_schema")).scalar_one() == store.SCHEMA_VERSION == 4
        assert len(conn.execute(sa.text("SELECT salt FROM class_salt")).scalar_one()) == 64
        owned = conn.execute(sa.text("SELECT count(*) FROM class_passes WHERE kind = 'seat' AND owner IS NOT NULL"))
        assert owned.scalar_one() == store.KEEP_PASSES
    assert db.claim(secret, T0 + 20) == store.Claim("seat", "ABCDEF", "old")  # the old cookie still works


def test_an_address_is_keyed_under_the_databases_own_salt_and_ipv6_by_its_prefix(engine, tmp_path):
    db = Store(engine, max_joins_per_client=2)
    code, _ = room(db)
    with db._write():
        mine = db._client(SCHOOL)
    # Another database keys the same address otherwise: its salt is its own, drawn at random.
    other_engine = sa.create_engine(f"sqlite:///{tmp_path / 'other.sqlite'}")
    try:
        other = Store(other_engine)
        with other._write():
            assert other._client(SCHOOL) != mine
    finally:
        other_engine.dispose()
    # Another Store on the same database (another replica) keys it alike: the bound holds across them.
    replica = Store(engine, max_joins_per_client=2)
    assert db.join(code, "s1", T0, client=SCHOOL) is Status.JOINED
    assert replica.join(code, "s2", T0, client=SCHOOL) is Status.JOINED
    assert replica.join(code, "s3", T0, client=SCHOOL) is Status.LIMIT
    with engine.connect() as conn:
        kept = {r[0] for r in conn.execute(sa.text("SELECT client FROM class_students"))}
    assert kept == {mine}
    # One /64 is one client: a script cannot take a new IPv6 address for every seat.
    prefix = ["2001:db8:7:1::1", "2001:db8:7:1:ffff:ffff:ffff:fffe"]
    assert [db.join(code, f"v6-{i}", T0, client=a) for i, a in enumerate(prefix)] == [Status.JOINED] * 2
    assert db.join(code, "v6-3", T0, client="2001:db8:7:1:abcd::9") is Status.LIMIT
    assert db.join(code, "v6-4", T0, client="2001:db8:7:2::1") is Status.JOINED  # the next /64 is another client
    assert db.join(code, "v4-in-6", T0, client="::ffff:198.51.100.7") is Status.LIMIT  # SCHOOL, written as IPv6
    assert store.address_key("2001:db8:7:1:abcd::9") == "2001:db8:7:1::/64"
    assert store.address_key("::ffff:198.51.100.7") == SCHOOL and store.address_key("school") == "school"


# --- this process's guard: wrong codes, sessions per address ---------------------------------------


def test_wrong_codes_are_refused_past_a_bound_per_session_and_per_address():
    fails = guard.Failures()
    for _ in range(guard.FAILS_PER_SESSION):
        assert not fails.refused("s1", SCHOOL, T0)
        fails.failed("s1", SCHOOL, T0)
    assert fails.refused("s1", SCHOOL, T0 + 1)
    assert not fails.refused("s2", SCHOOL, T0 + 1)  # another session of the address still may
    for i in range(guard.FAILS_PER_CLIENT - guard.FAILS_PER_SESSION):
        fails.failed(f"other-{i}", SCHOOL, T0 + 2)
    assert fails.refused("fresh", SCHOOL, T0 + 3)  # the address is past its bound: every new session too
    assert not fails.refused("fresh", HOME, T0 + 3)
    assert not fails.refused("fresh", SCHOOL, T0 + 2 + guard.FAIL_WINDOW + 1)  # the window slid past
    assert not fails.refused("s1", SCHOOL, T0 + guard.FAIL_WINDOW + 1)


def test_guessing_codes_from_three_sessions_meets_the_address_bound():
    fails = guard.Failures()
    tried = 0
    for i in range(3000):  # 37 a second from three sessions, as in the issue, for 80 s
        session = f"s{i % 3}-{i // (3 * guard.FAILS_PER_SESSION)}"  # a script opens new sessions as each is refused
        if fails.refused(session, SCRIPT, T0 + i / 37):
            continue
        tried += 1
        fails.failed(session, SCRIPT, T0 + i / 37)
    assert tried == guard.FAILS_PER_CLIENT


def test_the_sessions_table_forgets_every_quiet_address_and_stays_bounded():
    sessions = guard.Sessions(most=300, ttl=360, max_keys=1000)
    for i in range(5000):  # 5000 addresses, one page each, that never come back
        assert sessions.admit(f"s{i}", f"10.{i // 65536}.{i // 256 % 256}.{i % 256}", T0 + i * 0.1)
    assert len(sessions) <= 1000  # at most max_keys remembered, however many addresses came
    assert sessions.open("10.0.0.0", T0 + 500) == 0  # long quiet: forgotten without its address coming back
    # Another address's visit forgets them too: the table holds only what ran within the last ttl.
    assert sessions.admit("late", HOME, T0 + 500 + 361)
    assert len(sessions) == 1
    # A live address keeps its count while others come and go.
    for i in range(3):
        sessions.admit(f"class-{i}", SCHOOL, T0 + 900)
    for i in range(2000):
        sessions.admit(f"x{i}", f"172.16.{i // 256}.{i % 256}", T0 + 901)
    assert len(sessions) <= 1000


def test_an_address_holds_a_bounded_number_of_sessions():
    sessions = guard.Sessions(most=3, ttl=360)
    assert [sessions.admit(f"s{i}", SCHOOL, T0) for i in range(4)] == [True, True, True, False]
    assert sessions.admit("s0", SCHOOL, T0 + 1)  # one that ran before always comes in
    assert sessions.admit("x", HOME, T0 + 1) and sessions.open(SCHOOL, T0 + 1) == 3
    assert sessions.admit("s3", SCHOOL, T0 + 361)  # s1 and s2 went quiet long ago: their places are free
    assert sessions.admit(None, SCHOOL, T0) and sessions.admit("y", None, T0)  # no browser behind it: no bound
    assert guard.MAX_SESSIONS >= 3 * 100  # a class of 100 behind one address, each page reloaded twice


# --- smaller: a decimal comma, the results' table ----------------------------------------------------


@pytest.mark.parametrize("typed,hi,taken", [
    ("1,5", 10, 1.5), ("0,25", 1, 0.25), ("1,500", 2000, 1500.0), ("1,500", 10, 1.5), ("1,234.5", 2000, 1234.5),
    (" 2 ", 10, 2.0), ("1,2,3", 10, None), ("1,5.2", 10, None), ("1" * 33, 1e40, None), ("15", 10, None),
])
def test_a_comma_in_a_typed_guess_is_never_dropped(typed, hi, taken):
    assert Question(key="k", kind="number", lo=0.0, hi=hi).parse(typed) == taken


def test_the_results_table_converts_to_arrow_with_options_and_numbers():
    tallies = [store.Tally("p:a:1", {"key": "a", "kind": "number", "lo": 0, "hi": 10, "tolerance": 1, "answer": 2.5,
                                     "section": "p"}, None, (2.0, 3.0), True),
               store.Tally("p:b:1", {"key": "b", "kind": "choice", "options": ["x", "y"], "answer": "x",
                                     "section": "p"}, None, ("x",), False)]
    frame = results.frame(results.rows(tallies), lambda r: r.key)
    assert list(frame["measured"]) == ["2.5", "x"]
    assert pa.Table.from_pandas(frame).column("measured").to_pylist() == ["2.5", "x"]


# --- a larger class behind one address: the bounds follow FFNLAB_CLASS_PER_ADDRESS ----------------------


@pytest.mark.parametrize("value,size", [(None, 100), ("500", 500), ("10", 10), ("9", 100), ("1001", 100),
                                        ("many", 100), ("", 100)])
def test_the_class_behind_one_address_is_configured_within_bounds(monkeypatch, value, size):
    if value is None:
        monkeypatch.delenv(config.ENV_PER_ADDRESS, raising=False)
    else:
        monkeypatch.setenv(config.ENV_PER_ADDRESS, value)
    assert config.class_behind_one_address() == size
    assert store.joins_for(size) == size * 3 // 2 and guard.sessions_for(size) == 3 * size


def test_a_lecture_of_500_behind_one_address_joins_when_configured(engine):
    db = Store(engine, max_joins_per_client=store.joins_for(500))
    code, _ = room(db)
    assert all(db.join(code, f"s{i}", T0 + i * 0.1, client=SCHOOL) is Status.JOINED for i in range(500))
    assert db.join(code, "one more", T0 + 51, client=HOME) is Status.FULL  # the room's own bound
    votes = Store(engine, max_joins_per_client=store.joins_for(500), max_votes_per_client=500)
    assert all(votes.submit(code, f"s{i}", "q", 1.0, T0 + 60) is Status.STORED for i in range(500))
