"""One visitor cannot take a room over (issue 40), over the real websocket as bench/flood.py drives sessions.

Each visitor is a Streamlit session that says which address it comes from as deploy/'s nginx does
(X-Forwarded-For, trusted from 127.0.0.1 only) and opens a page with the room's join link. The evidence is
what the store holds afterwards and the note each session was shown; "two minutes later" is the store asked
with `now` moved on (every store call takes its time), never a sleep. Two more: a frame past
server.maxMessageSize is refused before Streamlit reads it, and deploy/'s balancer sends one address's
cookie-less sessions to one replica.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from e2e_support import APP_ROOT, NGINX, active_sessions, balancer, discover_pages  # (bench/ on the path)
from e2e_support import settle as settle_replicas
from stclient import Server, Session, free_port, settle

import flood  # bench/flood.py

from ui.room import guard, store

pytestmark = pytest.mark.e2e
HOME = discover_pages()[0]


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """A server of this module's own, on a class database of its own (the test reads it back)."""
    run_dir: Path = tmp_path_factory.mktemp("flood")
    url = f"sqlite:///{run_dir / 'class.sqlite'}"
    server = Server(APP_ROOT, free_port(), env={"FFNLAB_CLASS_DB": url})
    engine = sa.create_engine(url)
    try:
        server.wait_healthy()
        flood.visit(server.url, "192.0.2.200", "ZZZZZZ", None)  # the page's experiment computed once
        yield server, store.Store(engine)
    finally:
        server.stop()
        engine.dispose()


def room(db: store.Store) -> tuple[str, str]:
    made = db.create_room(time.time(), client="192.0.2.1")
    assert isinstance(made, tuple)
    return made


def test_a_flood_of_500_sessions_from_one_address_leaves_the_room_to_the_class(app):
    server, db = app
    code, key = room(db)
    results, _ = flood.crowd(server.url, flood.SCRIPT, code, 500, workers=16)
    notes = flood.tally(results)
    assert not [r["exceptions"] for r in results if r["exceptions"]]
    # A class's worth of seats (half again), and of votes (the class); then the seats bound, then the sessions
    # bound, each with its note.
    assert notes == {"seated": store.MAX_JOINS_PER_CLIENT,
                     "join_limit": guard.MAX_SESSIONS - store.MAX_JOINS_PER_CLIENT,
                     "sessions_limit": 500 - guard.MAX_SESSIONS}, notes
    qid = next(r["qid"] for r in results if r["qid"])
    assert db.snapshot(code, qid, time.time()).answered == store.CLASS_PER_CLIENT
    # Students from other addresses join at once; the instructor locks the door at once.
    assert flood.visit(server.url, flood.ELSEWHERE, code, "2")["outcome"] == "seated"
    assert db.set_door(code, key, True, time.time()) is store.Status.OK
    assert flood.visit(server.url, "192.0.2.45", code, None)["outcome"] == "locked"
    # Two minutes on, the flood's seats (their sessions closed, none heard from) no longer count.
    later = db.seats(code, key, time.time() + store.SEAT_IDLE + 1)
    assert (later.held, later.here) == (store.MAX_JOINS_PER_CLIENT + 1, 0)
    assert db.snapshot(code, qid, time.time()).answered == store.CLASS_PER_CLIENT + 1  # no vote lost
    # The projector counts the one student here; the flood's seats are said apart, as away.
    snap = db.snapshot(code, qid, time.time() + store.SEAT_IDLE + 1)
    assert (snap.joined, snap.away) == (0, store.MAX_JOINS_PER_CLIENT + 1)


def test_a_class_of_100_behind_one_address_joins_over_a_minute_and_all_vote(app):
    server, db = app
    code, _ = room(db)
    results, wall = flood.crowd(server.url, flood.SCHOOL, code, 100, workers=8, spread_s=60.0)
    assert flood.tally(results) == {"seated": 100}
    assert wall >= 59  # they came over a minute, as a class does
    qids = {r["qid"] for r in results}
    assert len(qids) == 1 and None not in qids
    assert db.snapshot(code, qids.pop(), time.time()).answered == 100


def test_sessions_sending_17_mb_values_do_not_grow_the_server(app):
    server, db = app
    code, _ = room(db)
    settle(server.proc.pid, most_s=20)
    before = server.rss_mb()
    answered = flood.big_values(server.url, "203.0.113.67", code, 5, 17)
    settle(server.proc.pid, most_s=20)
    grown = server.rss_mb() - before
    assert answered == [False] * 5  # each websocket closed on the message, its value never taken
    assert grown < 5 * 3, f"5 sessions of 17 MB grew the server by {grown:.0f} MB"
    assert flood.visit(server.url, "203.0.113.67", code, "2")["outcome"] == "seated"  # the server serves on
    assert server.alive()


def test_a_message_past_the_frame_bound_is_refused_before_streamlit_reads_it(app):
    """server.maxMessageSize (2 MB) refuses a larger frame by its header: Streamlit never holds the 10 MB value
    (it logs each client message it read whole and then found past maxWidgetStateSize); a page still works."""
    server, db = app
    code, _ = room(db)
    read_whole = server.log().count("exceeds the limit")
    assert flood.big_values(server.url, "203.0.113.70", code, 3, 10) == [False] * 3
    assert server.log().count("exceeds the limit") == read_whole
    run = flood.visit(server.url, "203.0.113.70", code, "2")
    assert run["outcome"] == "seated" and run["qid"] and not run["exceptions"]


def test_wrong_codes_are_refused_past_a_bound_per_session_and_per_address(app):
    server, _ = app
    first, total = flood.wrong_codes(server.url, "203.0.113.68", 40)
    assert (first, total) == (guard.FAILS_PER_SESSION, guard.FAILS_PER_CLIENT)
    # Another address is not refused for it.
    assert flood.wrong_codes(server.url, "203.0.113.69", 3)[0] == 3


@pytest.mark.skipif(NGINX is None, reason="nginx not installed (apt-get install nginx): the balancer is not tried")
def test_cookie_less_sessions_from_one_address_meet_one_replica(tmp_path_factory):
    """deploy/nginx.conf hashes a client without the affinity cookie by its address: a script that drops cookies
    opens all its sessions on one replica, whose per-address bounds (ui/room/guard.py) it meets once."""
    with balancer(tmp_path_factory.mktemp("deploy")) as (url, replicas):
        assert settle_replicas(replicas, [0, 0]) == [0, 0]
        sessions = [Session(url) for _ in range(8)]
        try:
            for s in sessions:
                assert s.open(HOME, "lang=en").ok
            counts = (settle_replicas(replicas, [8, 0]) if active_sessions(replicas[0])
                      else settle_replicas(replicas, [0, 8]))
        finally:
            for s in sessions:
                s.close()
        assert sorted(counts) == [0, 8], counts
