"""The parts of the project's one `st.App` (dashboard.py assigns it, where `streamlit run` looks for it):
the app's own routes and the lifespan that starts what runs beside the sessions.

- `routes()`: the class room's cookie route (ui/room/passes.py).
- `lifespan`: the class room's watcher (ui/room/push.py), one task on the server's event loop.
"""
from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from ui.room import passes, push, session

SCRIPT = str(Path(__file__).resolve().parents[1] / "dashboard.py")


def routes() -> list[Any]:
    return passes.routes(session.store_for_routes)


def _versions(codes: list[str]) -> dict[str, int]:
    return session.store_for_routes().versions(codes, time.time())


@contextlib.asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    watcher = asyncio.create_task(push.run(_versions))
    try:
        yield
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
