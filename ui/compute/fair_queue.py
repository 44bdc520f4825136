"""Experiments take turns: a fair queue shared by every session's thread (the results it computes are kept in
ui/compute/result_cache.py).

Nothing here imports Streamlit: a caller is a session id and a `check` that raises when its
session has gone or moved on, so the same code runs under the server and under plain threads.
"""
from __future__ import annotations

import contextlib
import pickle
import threading
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any

POLL_S = 0.1  # how often a waiting caller asks whether its session still wants the result
# A hundred students waiting, each told every change of its place, would be ~N² page updates, and
# sixteen watching one training redraw its charts at every snapshot: a waiting caller hears of its
# place at most once a second and of the progress at most twice a second.
NOTE_S = 1.0
PROGRESS_S = 0.5
OUTCOMES = ("computed", "shared", "abandoned", "dropped", "failed")


@dataclass(frozen=True)
class Caller:
    """Who asks: its session (None: no session, no limit) and how to tell it has gone or moved on.

    `check` raises when the caller should give up; `superseded` builds what to raise when the same
    session has since asked for something else. `control` are the exceptions that mean "this
    caller's script was stopped", not "the experiment failed". `background`: the server's own
    warm-up, which waits behind every student (see Scheduler). `awaited`: background work a page
    shows when it is done (ui/compute/cache.py's `later`), whose result is kept like a student's.
    """

    session: str | None
    check: Callable[[], None]
    superseded: Callable[[], BaseException]
    control: tuple[type[BaseException], ...] = ()
    background: bool = False
    awaited: bool = False


@dataclass(eq=False)
class _Ticket:
    key: Hashable
    lane: str | None = None
    calls: set[_Call] = field(default_factory=set)
    running: bool = False
    done: bool = False
    blob: bytes | None = None
    error: BaseException | None = None
    progress: Any = None
    progress_seq: int = 0

    @property
    def background(self) -> bool:
        # A ticket only the warm-up waits for; a student asking for the same thing makes it theirs.
        return bool(self.calls) and all(call.background for call in self.calls)


@dataclass(eq=False)
class _Call:
    session: str | None
    ticket: _Ticket
    background: bool = False
    seq: int = 0  # when it arrived: a student's ticket takes its turn from its first student's arrival
    evicted: bool = False


class Scheduler:
    """Up to `workers` experiments compute at once; the rest wait in arrival order, one place per session.

    - Identical requests in flight (same key) are one ticket: computed once, every caller gets it.
    - A session has at most one call waiting: asking again withdraws its older call.
    - A ticket nobody waits for any more is dropped before it runs.
    - The computing is done by one of the ticket's own callers when the ticket's turn comes,
      so a caller can watch its progress (`on_progress`) and is told how many are ahead (`on_wait`).
    - Turns go in arrival order among the tickets that can start: a ticket whose `lane` is busy (two
      experiments that must not run at once, such as probes of one shared model) lets the next pass.
    - A background ticket starts only while no student's ticket waits, and leaves a worker free
      for the next student (when there are two or more).
    """

    def __init__(self, poll_s: float = POLL_S, workers: int = 1) -> None:
        if workers < 1:
            raise ValueError("a scheduler needs at least one worker")
        self.poll_s, self.workers = poll_s, workers
        self._cond = threading.Condition()
        self._queue: list[_Ticket] = []  # waiting tickets, oldest first
        self._running: list[_Ticket] = []
        self._tickets: dict[Hashable, _Ticket] = {}  # queued or running, by key
        self._sessions: dict[str, _Call] = {}
        self._local = threading.local()
        # Every key present from the start: a metrics reader copies this dict while threads count.
        self.counts: Counter[str] = Counter(dict.fromkeys(OUTCOMES, 0))
        self.most_running = 0  # the most experiments seen computing at once (tests and benchmarks read it)
        self._seq = 0

    def run(self, key: Hashable, work: Callable[[Callable[[Any], None]], Any], caller: Caller, *,
            lane: str | None = None,
            on_result: Callable[[bytes], None] | None = None,
            on_wait: Callable[[int], None] | None = None,
            on_progress: Callable[[Any], None] | None = None) -> Any:
        """work(publish) computed in its turn (or shared with a caller of the same key); its result.

        `publish(x)` hands progress to the ticket's other callers; `on_result(blob)` sees the pickled
        result before any waiter is released (to cache it); `on_wait(n)` is told n tickets are ahead.
        `lane`: tickets of one lane never compute at the same time.
        """
        # A script that goes on to its next experiment after its session has gone (a tab closed while the
        # last one computed) stops here, before it takes a free worker without ever waiting.
        with self._abandoning():
            caller.check()
        if getattr(self._local, "in_turn", False):
            # Called from inside a computation: its turn is already held, and queueing would wait on itself.
            value = work(lambda _progress: None)
            if on_result is not None:
                on_result(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
            return value
        with self._cond:
            ticket = self._tickets.get(key)
            if ticket is None:
                ticket = self._tickets[key] = _Ticket(key, lane)
                self._queue.append(ticket)
            else:
                self.counts["shared"] += 1
            self._seq += 1
            call = _Call(caller.session, ticket, caller.background, self._seq)
            ticket.calls.add(call)
            if caller.session is not None:
                older = self._sessions.get(caller.session)
                if older is not None:
                    older.evicted = True
                    self._leave(older)
                self._sessions[caller.session] = call
            self._cond.notify_all()
        try:
            return self._wait_or_compute(call, work, caller, on_result, on_wait, on_progress)
        finally:
            with self._cond:
                self._leave(call)
                self._cond.notify_all()

    def _order(self) -> list[_Ticket]:
        """The waiting tickets in the order their turns come: the students' first, each from when its first
        student asked (a view the background queued earlier does not jump ahead), then the background's."""
        students = sorted((t for t in self._queue if not t.background),
                          key=lambda t: min(c.seq for c in t.calls if not c.background))
        return students + [t for t in self._queue if t.background]

    def _startable(self) -> list[_Ticket]:
        """The waiting tickets that may start now (holding the condition)."""
        free = self.workers - len(self._running)
        lanes = {t.lane for t in self._running if t.lane is not None}
        students_wait = any(not t.background for t in self._queue)
        background_running = sum(1 for t in self._running if t.background)
        out = []
        for ticket in self._order():
            if free <= 0:
                break
            if ticket.lane is not None and ticket.lane in lanes:
                continue
            if ticket.background and (students_wait or background_running >= max(1, self.workers - 1)):
                continue
            out.append(ticket)
            free -= 1
            background_running += ticket.background
            if ticket.lane is not None:
                lanes.add(ticket.lane)
        return out

    def ahead(self, ticket: _Ticket) -> int:
        """Tickets that will run before this one (the running ones included)."""
        if ticket.running or ticket.done:
            return 0
        order = self._order()
        return len(self._running) + (order.index(ticket) if ticket in order else 0)

    def queued(self) -> int:
        """Tickets waiting or running."""
        with self._cond:
            return len(self._queue) + len(self._running)

    def students_waiting(self) -> int:
        """Tickets waiting or running that a student (not the background) waits for."""
        with self._cond:
            return sum(1 for t in (*self._queue, *self._running) if not t.background)

    def running(self) -> int:
        """Tickets computing now."""
        with self._cond:
            return len(self._running)

    def _wait_or_compute(self, call: _Call, work, caller: Caller, on_result, on_wait, on_progress) -> Any:  # noqa: ANN001
        ticket = call.ticket
        shown, seen = 0, 0
        told = heard = float("-inf")  # when the caller was last told its place, last shown progress
        while True:
            with self._cond:
                if not ticket.done and ticket not in self._startable():
                    self._cond.wait(self.poll_s)
                if call.evicted:
                    self.counts["abandoned"] += 1
                    raise caller.superseded()
                if ticket.done:
                    break
                if ticket in self._startable():
                    self._queue.remove(ticket)
                    self._running.append(ticket)
                    ticket.running = True
                    self.most_running = max(self.most_running, len(self._running))
                    break
                ahead = self.ahead(ticket)
                now = time.monotonic()
                progress = None
                if ticket.progress_seq != seen and now - heard >= PROGRESS_S:
                    progress, seen, heard = ticket.progress, ticket.progress_seq, now
            with self._abandoning():
                caller.check()
                if on_wait is not None and ahead != shown and (now - told >= NOTE_S or ahead == 0):
                    on_wait(ahead)
                    shown, told = ahead, now
                if on_progress is not None and progress is not None:
                    on_progress(progress)
        clear_note = (lambda: on_wait(0)) if on_wait is not None and shown > 0 else None
        if ticket.running:
            return self._compute(ticket, work, caller, on_result, clear_note)
        if clear_note is not None:
            clear_note()
        if ticket.error is not None:
            raise ticket.error
        return pickle.loads(ticket.blob)

    @contextlib.contextmanager
    def _abandoning(self) -> Iterator[None]:
        """Count the caller as abandoned if what runs inside raises (it left, or asked for something newer)."""
        try:
            yield
        except BaseException:
            with self._cond:
                self.counts["abandoned"] += 1
            raise

    def _compute(self, ticket: _Ticket, work, caller: Caller, on_result, prelude) -> Any:  # noqa: ANN001
        # This thread holds the turn (ticket.running); the condition is not held while computing.
        self._local.in_turn = True
        blob, error = None, None
        try:
            if prelude is not None:
                prelude()
            value = work(lambda progress: self._publish(ticket, progress))
            blob = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
            if on_result is not None:
                on_result(blob)
        except BaseException as err:
            error = err
            raise
        finally:
            self._local.in_turn = False
            with self._cond:
                self._running.remove(ticket)
                ticket.running = False
                if isinstance(error, caller.control):
                    # This caller's script was stopped mid-way (a live training draws its progress from
                    # it): the ticket goes back to the front for its other callers, or away if none.
                    self._queue.insert(0, ticket)
                    self.counts["abandoned"] += 1
                else:
                    ticket.done, ticket.blob, ticket.error = True, blob, error
                    self._tickets.pop(ticket.key, None)
                    self.counts["computed" if error is None else "failed"] += 1
                self._cond.notify_all()
        return value

    def _publish(self, ticket: _Ticket, progress: Any) -> None:
        with self._cond:
            ticket.progress = progress
            ticket.progress_seq += 1
            self._cond.notify_all()

    def _leave(self, call: _Call) -> None:
        # Holding the condition. A ticket nobody waits for is dropped unless it is already running.
        ticket = call.ticket
        ticket.calls.discard(call)
        if call.session is not None and self._sessions.get(call.session) is call:
            del self._sessions[call.session]
        if not ticket.calls and not ticket.running and not ticket.done:
            if ticket in self._queue:
                self._queue.remove(ticket)
            if self._tickets.get(ticket.key) is ticket:
                del self._tickets[ticket.key]
                self.counts["dropped"] += 1
