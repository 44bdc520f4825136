"""Seats that outlive a reload: the app's cookie route, and what a page needs to reach it.

A session lives over a websocket, which cannot set a cookie; a reload is a new session. So a page
whose session holds a seat asks the store for a one-time nonce (`Store.seat_pass` / `host_pass`) and
draws an invisible image whose address is this app's route with the nonce. The browser fetches it;
the route redeems the nonce (once, within the store's NONCE_TTL) and answers with the cookie: an
opaque random secret, HttpOnly, SameSite=Lax, scoped to the app's path, expiring with the room. The
next page load presents it (`st.context.cookies`), and `Store.claim` gives the seat back: the same
token (so the same seat and guesses), or the instructor key, which never reaches the page, the
address bar or the screen. A forged cookie names no row and gives nothing; a nonce leaked after
use gives nothing either.

`ROUTES` goes into the project's one `st.App` (ui/server.py). Nothing here draws.
"""
from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable, Mapping
from urllib.parse import urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from streamlit import config as st_config

from ui.room import store

COOKIES = {"seat": "ffnlab_seat", "host": "ffnlab_host"}
# A 1×1 transparent GIF: the route answers an <img>, and a broken-image icon must not show anywhere.
_PIXEL = bytes.fromhex("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b")
_ROUTE = "ffnlab/pass"


def base_path() -> str:
    """The app's path on its host ("/" or "/<server.baseUrlPath>/"): the cookies' scope and the route's prefix."""
    base = (st_config.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}/" if base else "/"


def route_path() -> str:
    return base_path() + _ROUTE


def pass_address(nonce: str) -> str:
    """The address a page's image fetches to turn `nonce` into its cookie (absolute path, same origin)."""
    return f"{route_path()}?{urlencode({'n': nonce})}"


def client_id(ip: str | None, headers: Mapping[str, str] | None) -> str | None:
    """Which client asks, for the per-client bounds (the store's and ui/room/guard.py's): the peer's address, or
    behind a proxy on this host (deploy/nginx.conf) the address that proxy saw, which it appends last to
    X-Forwarded-For; an IPv6 address by its /64 prefix (`store.address_key`)."""
    if not ip:
        return None
    try:
        peer = ipaddress.ip_address(ip)
    except ValueError:
        return None
    forwarded = (headers or {}).get("X-Forwarded-For") or (headers or {}).get("x-forwarded-for") or ""
    if peer.is_loopback and forwarded:
        try:
            peer = ipaddress.ip_address(forwarded.split(",")[-1].strip())
        except ValueError:
            pass  # not an address: the proxy's own stands
    return store.address_key(str(peer))


def _secure(request: Request) -> bool:
    return request.url.scheme == "https" or request.headers.get("x-forwarded-proto", "") == "https"


def answer(found: store.Pass | None, *, now: float, secure: bool) -> Response:
    """The route's answer: the pixel, with the cookie when the nonce was good."""
    response = Response(_PIXEL, media_type="image/gif", headers={"Cache-Control": "no-store"})
    if found is not None and found.kind in COOKIES:
        response.set_cookie(COOKIES[found.kind], found.secret, max_age=max(1, int(found.expires - now)),
                            path=base_path(), secure=secure, httponly=True, samesite="lax")
    return response


def _redeem(get_store: Callable[[], store.Store], nonce: object) -> store.Pass | None:
    try:
        return get_store().redeem_nonce(nonce, time.time())
    except store.StoreUnavailable:
        return None


def routes(get_store: Callable[[], store.Store]) -> list[Route]:
    """The cookie route, under the app's base path (st.App mounts user routes as given), on the pages' own store."""

    async def pass_route(request: Request) -> Response:
        nonce = request.query_params.get("n")
        found = await run_in_threadpool(_redeem, get_store, nonce) if nonce else None
        return answer(found, now=time.time(), secure=_secure(request))

    return [Route(route_path(), pass_route, methods=["GET"])]
