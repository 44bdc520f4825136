"""The server around the pages: what the project's one `st.App` (built in dashboard.py) starts and serves.

`streamlit run dashboard.py` finds the App by reading dashboard.py for an assignment `app = st.App(...)`
(streamlit/web/server/app_discovery.py reads the source; a name imported from elsewhere is not found,
so the App is built there from the parts below), imports the file as a module and serves the App with
uvicorn. Community Cloud runs the same command, so the same App runs there.

- `lifespan`: at process start, before the first visitor, the warm-up begins (ui/compute/warmup.py): every
  page's default view, then the neighbours of each (ui/compute/neighbours.py), computed in the background;
  and the class room's watcher (ui/room/push.py), one task on the server's event loop.
- `routes()`: `/ready`, which says whether the warm-up is over, so an instructor can wake the app before
  class and see when it is warm; and the class room's cookie route (ui/room/passes.py).
"""
from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ui.compute import warmup
from ui.room import passes, push, session


async def ready(_request: Request) -> JSONResponse:
    """The warm-up's progress: 503 while it runs, 200 once every default view is computed (or it ended, failed or off).

    `warm` is true when every default view is in the cache; `state` is starting, running, done, failed or off.
    """
    status = warmup.status()
    return JSONResponse(status, status_code=503 if status["state"] in ("starting", "running") else 200,
                        headers={"Cache-Control": "no-store"})


def routes() -> list[Any]:
    """The App's own routes: readiness, then the class room's cookie route."""
    return [Route("/ready", ready, methods=["GET"]), *passes.routes(session.store_for_routes)]


def _versions(codes: list[str]) -> dict[str, int]:
    return session.store_for_routes().versions(codes, time.time())


@contextlib.asynccontextmanager
async def lifespan(_app: Any) -> AsyncIterator[None]:
    """Start the warm-up (it waits for the server to listen) and the class room's watcher; stop both with the process."""
    warmup.start()
    watcher = asyncio.create_task(push.run(_versions))
    try:
        yield
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        warmup.stop()
