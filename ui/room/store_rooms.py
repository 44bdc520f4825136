"""The class store's rooms: made, closed and expired; what a room shows (the instructor's view, a lesson's step);
and the passes that carry a seat or the instructor key across a reload, or to another device.

A cookie carries only a random secret, kept here hashed; its row holds the seat's token or the instructor key
sealed under it, as a one-time link's does, and the page only ever sees a one-time nonce (ui/room/passes.py).
"""
from __future__ import annotations

import json
import secrets

from sqlalchemy import and_, delete, func, insert, select, update
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection

from ui.base.room_code import CODE_ALPHABET, CODE_LENGTH
from ui.room.store_inputs import _key_hash, _seal, _sealable, _sha, _token_ok, _unseal, _view_params, normalize_code
from ui.room.store_records import (EXPIRE_EVERY, KEEP_PASSES, LINK_TTL, MAX_ROOMS, MAX_SECTION, NONCE_TTL, Claim, Pass,
                                   Status, StoreUnavailable, View)
from ui.room.store_seats import SeatCalls
from ui.room.store_tables import lessons_table, links, passes, rooms, students


class RoomCalls(SeatCalls):
    """The store's calls on rooms, views and passes (ui/room/store.py composes them into `Store`)."""

    # --- rooms -------------------------------------------------------------------------------

    def create_room(self, now: float, client: object = None) -> tuple[str, str] | Status | None:
        """A new room's (code, instructor key); None when the server holds max_rooms live rooms;
        Status.LIMIT when this client holds max_rooms_per_client of them."""
        key = secrets.token_urlsafe(24)
        salt = secrets.token_hex(16)
        address = client
        for _ in range(8):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            try:
                with self._write() as conn:
                    client = self._client(address)
                    self._maybe_expire(conn, now)
                    if client is not None:
                        mine = conn.execute(select(func.count()).select_from(rooms).where(
                            rooms.c.client == client, rooms.c.expires > now)).scalar_one()
                        if mine >= self.max_rooms_per_client:
                            return Status.LIMIT
                    live = conn.execute(select(func.count()).select_from(rooms)
                                        .where(rooms.c.expires > now)).scalar_one()
                    if live >= self.max_rooms:
                        return None
                    # An expired room not yet swept may still hold this code.
                    self._drop_rooms(conn, and_(rooms.c.code == code, rooms.c.expires <= now))
                    conn.execute(insert(rooms).values(
                        code=code, salt=salt, key_hash=_key_hash(salt, key), created=now,
                        expires=now + self.ttl, view_version=0, client=client))
                return code, key
            except StoreUnavailable as e:
                if isinstance(e.__cause__, sa_exc.IntegrityError):
                    continue  # another replica drew the same code at the same moment
                raise
        raise StoreUnavailable("no free room code after 8 draws")

    def room_live(self, code: object, now: float) -> bool:
        """Whether `code` names a live room."""
        code = normalize_code(code)
        if code is None:
            return False
        with self._read() as conn:
            return self._live(conn, code, now) is not None

    def close(self, code: object, key: object, now: float) -> Status:
        """Delete the room and everything in it."""
        return self._as_instructor(code, key, now, lambda conn, room: self._drop_rooms(conn, rooms.c.code == room))

    def expire(self, now: float) -> int:
        """Delete every room past its time, with its students, guesses and reveals; how many rooms."""
        with self._write() as conn:
            count = conn.execute(select(func.count()).select_from(rooms)
                                 .where(rooms.c.expires <= now)).scalar_one()
            self._sweep(conn, now)
            self._next_expire = now + EXPIRE_EVERY
            return count

    # --- what the room shows ----------------------------------------------------------------------

    def set_view(self, code: object, key: object, section: object, params: object,
                 now: float) -> Status:
        """Set the page (`section`) and settings (`params`, short strings) following students load."""
        text = _view_params(params)
        if text is None or not isinstance(section, str) or not 0 < len(section) <= MAX_SECTION:
            return Status.INVALID
        return self._as_instructor(code, key, now, lambda conn, room: conn.execute(
            update(rooms).where(rooms.c.code == room).values(
                view_section=section, view_params=text, view_version=rooms.c.view_version + 1)))

    def view(self, code: object, now: float) -> View | None:
        """What the instructor shows (one primary-key read); None before set_view or for no live room."""
        code = normalize_code(code)
        if code is None:
            return None
        with self._read() as conn:
            row = conn.execute(select(rooms.c.view_section, rooms.c.view_params, rooms.c.view_version)
                               .where(rooms.c.code == code, rooms.c.expires > now)).first()
        if row is None or row.view_section is None:
            return None
        return View(section=row.view_section, params=json.loads(row.view_params), version=row.view_version)

    def versions(self, codes: object, now: float) -> dict[str, int]:
        """{code: view_version} of the live rooms among `codes` (one read): what the push watcher compares."""
        wanted = sorted({c for c in (normalize_code(x) for x in (codes or ())) if c is not None})[:MAX_ROOMS]
        if not wanted:
            return {}
        with self._read() as conn:
            rows = conn.execute(select(rooms.c.code, rooms.c.view_version).where(
                rooms.c.code.in_(wanted), rooms.c.expires > now)).all()
        return {r.code: r.view_version for r in rows}

    # --- a lesson -------------------------------------------------------------------------------

    def set_lesson(self, code: object, key: object, lesson: object, step: object, now: float) -> Status:
        """The lesson the room follows and its step (lesson None: the room leaves its lesson)."""
        if lesson is not None and not (isinstance(lesson, str) and 0 < len(lesson) <= MAX_SECTION
                                       and isinstance(step, int) and not isinstance(step, bool) and 0 <= step < 1000):
            return Status.INVALID
        def follow(conn: Connection, room: str) -> None:
            if lesson is None:
                conn.execute(delete(lessons_table).where(lessons_table.c.room == room))
            else:
                conn.execute(self._upsert(lessons_table, dict(room=room, lesson=lesson, step=step),
                                          ["room"], ["lesson", "step"]))
        return self._as_instructor(code, key, now, follow)

    def lesson(self, code: object, now: float) -> tuple[str, int] | None:
        """(lesson, step) the room follows, or None (no lesson, or no live room)."""
        code = normalize_code(code)
        if code is None:
            return None
        with self._read() as conn:
            row = conn.execute(select(lessons_table.c.lesson, lessons_table.c.step)
                               .join(rooms, rooms.c.code == lessons_table.c.room)
                               .where(lessons_table.c.room == code, rooms.c.expires > now)).first()
        return (row.lesson, row.step) if row else None


    # --- cookies: seats and the instructor's seat that outlive a reload ----------------------------

    def seat_pass(self, code: object, token: object, now: float) -> str | None:
        """A one-time nonce that the route turns into this seat's cookie; None for no seat held."""
        code = normalize_code(code)
        if code is None or not _sealable(token):
            return None
        with self._write() as conn:
            room = self._live(conn, code, now)
            held = room is not None and conn.execute(select(students.c.joined).where(
                *self._held(code, _sha(token)))).first() is not None
            return self._mint(conn, code, "seat", _sha(token), token, room.expires, now) if held else None

    def host_pass(self, code: object, key: object, now: float) -> str | None:
        """A one-time nonce that the route turns into the instructor's cookie; None without the key."""
        with self._write() as conn:
            if self._instructor(conn, code, key, now) is not Status.OK:
                return None
            code = normalize_code(code)
            return self._mint(conn, code, "host", "host", key, self._live(conn, code, now).expires, now)

    @staticmethod
    def _keep_newest(conn: Connection, code: str, kind: str, owner: str) -> None:
        """Make room for one more pass of `kind` for `owner`: its oldest beyond KEEP_PASSES - 1 are deleted."""
        kept = conn.execute(select(passes.c.pass_hash).where(
            passes.c.room == code, passes.c.owner == owner, passes.c.kind == kind)
            .order_by(passes.c.made.desc(), passes.c.expires.desc())).scalars().all()
        if len(kept) >= KEEP_PASSES:
            conn.execute(delete(passes).where(passes.c.pass_hash.in_(kept[KEEP_PASSES - 1:])))

    def _mint(self, conn: Connection, code: str, kind: str, owner: str, held: str, expires: float, now: float) -> str:
        """A one-time nonce for `owner` (a seat's token hash, or "host"), holding the token or key sealed under it.

        The cookie's secret is drawn only when the nonce is redeemed, so a nonce no browser fetched takes no
        cookie's place; and a session leaving and joining in a loop holds a few rows, not one a turn."""
        self._keep_newest(conn, code, f"nonce:{kind}", owner)
        nonce = secrets.token_urlsafe(24)
        conn.execute(insert(passes).values(pass_hash=_sha(nonce), room=code, kind=f"nonce:{kind}", owner=owner,
                                           made=now, sealed=_seal(held, nonce), expires=min(expires, now + NONCE_TTL)))
        return nonce

    @staticmethod
    def _pass(conn: Connection, token: str, kinds: tuple[str, str], now: float):
        """The unexpired pass row (kind, sealed, room, owner) `token` opens, of one of these kinds; None otherwise."""
        return conn.execute(select(passes.c.kind, passes.c.sealed, passes.c.room, passes.c.owner).where(
            passes.c.pass_hash == _sha(token), passes.c.kind.in_(kinds), passes.c.expires > now)).first()

    def redeem_nonce(self, nonce: object, now: float) -> Pass | None:
        """The cookie a nonce was minted for, the first time only, within NONCE_TTL; else None.

        The cookie's secret is drawn here; the owner's oldest cookie beyond KEEP_PASSES - 1 stops working."""
        if not _token_ok(nonce):
            return None
        with self._write() as conn:
            row = self._pass(conn, nonce, ("nonce:seat", "nonce:host"), now)
            if row is None:
                return None
            # Only the request whose delete took the row gets the cookie (two at once: one wins).
            if conn.execute(delete(passes).where(passes.c.pass_hash == _sha(nonce))).rowcount != 1:
                return None
            room = self._live(conn, row.room, now)
            # A nonce minted before schema 4 (no owner) sealed another thing: refused, its page asks again on reload.
            if room is None or row.owner is None:
                return None
            kind = row.kind.split(":", 1)[1]
            self._keep_newest(conn, row.room, kind, row.owner)
            secret = secrets.token_urlsafe(24)
            conn.execute(insert(passes).values(pass_hash=_sha(secret), room=row.room, kind=kind, owner=row.owner,
                                               made=now, sealed=_seal(_unseal(row.sealed, nonce), secret),
                                               expires=room.expires))
            return Pass(kind=kind, secret=secret, expires=room.expires)

    def claim(self, secret: object, now: float) -> Claim | None:
        """The seat (token) or the instructor's seat (key) a cookie's secret holds in a live room; else None.

        A seat its student left is not given back; a claimed seat counts as seen."""
        if not _token_ok(secret):
            return None
        with self._write() as conn:
            row = self._pass(conn, secret, ("seat", "host"), now)
            if row is None or self._live(conn, row.room, now) is None:
                return None
            held = _unseal(row.sealed, secret)
            if row.kind == "seat":
                seat = conn.execute(select(students.c.left_at).where(
                    students.c.room == row.room, students.c.token_hash == _sha(held))).first()
                if seat is None or seat.left_at is not None:
                    return None
                self._seen(conn, row.room, _sha(held), now)
            elif self._instructor(conn, row.room, held, now) is not Status.OK:
                return None
            return Claim(kind=row.kind, code=row.room, secret=held)

    def one_time_link(self, code: object, key: object, now: float) -> str | None:
        """A token that `redeem` turns into the key once, within LINK_TTL; None without the key."""
        token = secrets.token_urlsafe(24)
        with self._write() as conn:
            if self._instructor(conn, code, key, now) is not Status.OK:
                return None
            conn.execute(insert(links).values(token_hash=_sha(token), room=normalize_code(code),
                                              sealed_key=_seal(key, token), expires=now + LINK_TTL))
        return token

    def redeem(self, code: object, token: object, now: float) -> str | None:
        """The instructor key a one-time link carries, the first time only; None otherwise."""
        code = normalize_code(code)
        if code is None or not _token_ok(token):
            return None
        with self._write() as conn:
            row = conn.execute(select(links.c.sealed_key).where(
                links.c.token_hash == _sha(token), links.c.room == code,
                links.c.expires > now)).first()
            if row is None or self._live(conn, code, now) is None:
                return None
            # Only the redeemer whose delete took the row gets the key (two at once: one wins).
            taken = conn.execute(delete(links).where(links.c.token_hash == _sha(token))).rowcount
            if taken != 1:
                return None
            return _unseal(row.sealed_key, token)
