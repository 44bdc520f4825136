"""What one visitor may ask of this server process: wrong room codes tried, sessions open per address.

Counted in this process, per session and per address (`ui.room.passes.client_id`: an IPv4 address, or an IPv6
address's /64), over sliding windows; nothing here imports streamlit and every time comes in as `now`, so tests
control the clock. What each remembers is bounded (MAX_KEYS) and kept in order of last use, so forgetting what
expired costs each call only what expired since the last one, never a walk over every address.

These need no database, so they hold per replica. Behind deploy/'s nginx a browser with the affinity cookie keeps
its replica, and a client without it (a script that drops cookies) is hashed by its address: one address's
cookie-less sessions all meet these bounds on one replica, not N times over. A client that forges the affinity
cookie picks its replica and can meet them on each of N replicas; the store's bounds (new seats per address per
room, guesses per address per question, rooms per address) are in the shared database and hold across replicas.
"""
from __future__ import annotations

import threading
from collections import OrderedDict, deque

# Wrong codes: a student who mistypes the code a few times, a class whose QR codes all work; a guesser meets
# the bound after a handful (31^6 codes: at 60 per ten minutes an address finds one of 1000 live rooms
# about once in 40 years).
FAILS_PER_SESSION = 8
FAILS_PER_CLIENT = 60
FAIL_WINDOW = 600.0
# Sessions one address holds open: a class of 100 behind one school's NAT, each with a page that reloaded
# twice (a closed tab's session lives on for server.disconnectedSessionTTL, 300 s); a session is counted
# until SESSION_TTL after its last run (an open page in a room runs at least every PRESENT_EVERY seconds).
MAX_SESSIONS = 300
SESSION_TTL = 360.0
MAX_KEYS = 20_000  # addresses and sessions remembered at once; the oldest is forgotten first


def sessions_for(class_size: int) -> int:
    """The sessions one address may hold for a class of this size behind it: three a student (100 -> 300)."""
    return 3 * class_size


class _Windows:
    """Timestamps per key within a sliding window, for at most MAX_KEYS keys (least recently used go first)."""

    def __init__(self, window: float, max_keys: int = MAX_KEYS) -> None:
        self.window = window
        self.max_keys = max_keys
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()

    def count(self, key: str, now: float) -> int:
        times = self._seen.get(key)
        if times is None:
            return 0
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self._seen[key]
            return 0
        return len(times)

    def add(self, key: str, now: float, cap: int) -> None:
        times = self._seen.setdefault(key, deque(maxlen=cap))
        self._seen.move_to_end(key)
        times.append(now)
        while len(self._seen) > self.max_keys:
            self._seen.popitem(last=False)


class Failures:
    """Wrong room codes, per session and per address: past either bound a join is refused before it is tried."""

    def __init__(self, per_session: int = FAILS_PER_SESSION, per_client: int = FAILS_PER_CLIENT,
                 window: float = FAIL_WINDOW) -> None:
        self.per_session = per_session
        self.per_client = per_client
        self._sessions = _Windows(window)
        self._clients = _Windows(window)
        self._lock = threading.Lock()

    def refused(self, session_id: str | None, client: str | None, now: float) -> bool:
        with self._lock:
            return bool((session_id and self._sessions.count(session_id, now) >= self.per_session)
                        or (client and self._clients.count(client, now) >= self.per_client))

    def failed(self, session_id: str | None, client: str | None, now: float) -> None:
        with self._lock:
            if session_id:
                self._sessions.add(session_id, now, self.per_session)
            if client:
                self._clients.add(client, now, self.per_client)


class Sessions:
    """The sessions each address holds: a new one past `most` is refused; one that ran before always comes in.

    One table of sessions in order of their last run (the oldest first) and a count per address: each call first
    forgets the sessions whose last run is past `ttl`, from the front, for every address (not only the caller's),
    and stops at the first live one; at most `max_keys` sessions are remembered (the longest quiet go first).
    """

    def __init__(self, most: int = MAX_SESSIONS, ttl: float = SESSION_TTL, max_keys: int = MAX_KEYS) -> None:
        self.most = most
        self.ttl = ttl
        self.max_keys = max_keys
        self._runs: OrderedDict[str, tuple[str, float]] = OrderedDict()  # session -> (address, last run)
        self._open: dict[str, int] = {}  # address -> its sessions in _runs
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """How many sessions this table remembers (every address's)."""
        with self._lock:
            return len(self._runs)

    def _forget(self, session_id: str) -> None:
        client, _ = self._runs.pop(session_id)
        left = self._open[client] - 1
        if left:
            self._open[client] = left
        else:
            del self._open[client]

    def _expire(self, now: float) -> None:
        while self._runs:
            session_id, (_, last) = next(iter(self._runs.items()))
            if last > now - self.ttl:
                return
            self._forget(session_id)

    def admit(self, session_id: str | None, client: str | None, now: float) -> bool:
        """Whether this session may run the page; it counts (from now on) when it may."""
        if not session_id or not client:
            return True
        with self._lock:
            self._expire(now)
            known = self._runs.get(session_id)
            if known is None or known[0] != client:
                if self._open.get(client, 0) >= self.most:
                    return False
                if known is not None:  # the same session from another address: counted there now
                    self._forget(session_id)
                self._open[client] = self._open.get(client, 0) + 1
            self._runs[session_id] = (client, now)
            self._runs.move_to_end(session_id)
            while len(self._runs) > self.max_keys:
                self._forget(next(iter(self._runs)))
            return True

    def open(self, client: str, now: float) -> int:
        """How many sessions this address holds now."""
        with self._lock:
            self._expire(now)
            return self._open.get(client, 0)
