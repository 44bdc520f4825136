"""The server around the pages: what the project's one `st.App` (built in dashboard.py) starts and serves.

`streamlit run dashboard.py` finds the App by reading dashboard.py for an assignment `app = st.App(...)`
(streamlit/web/server/app_discovery.py reads the source; a name imported from elsewhere is not found,
so the App is built there from the parts below), imports the file as a module and serves the App with
uvicorn. Community Cloud runs the same command, so the same App runs there.

- `lifespan`: at process start, before the first visitor, the warm-up begins (ui/compute/warmup.py): every
  page's default view, then the neighbours of each (ui/compute/neighbours.py), computed in the background.
- `ROUTES`: `/ready`, which says whether the warm-up is over, so an instructor can wake the app before
  class and see when it is warm. Other owners add their routes to ROUTES from their own modules.
"""
from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ui.compute import warmup


@contextlib.asynccontextmanager
async def lifespan(_app: Any) -> AsyncIterator[None]:
    """Start the warm-up with the process (it waits for the server to listen); stop it with the process."""
    warmup.start()
    try:
        yield
    finally:
        warmup.stop()


async def ready(_request: Request) -> JSONResponse:
    """The warm-up's progress: 503 while it runs, 200 once every default view is computed (or it ended, failed or off).

    `warm` is true when every default view is in the cache; `state` is starting, running, done, failed or off.
    """
    status = warmup.status()
    return JSONResponse(status, status_code=503 if status["state"] in ("starting", "running") else 200,
                        headers={"Cache-Control": "no-store"})


ROUTES: list[Route] = [Route("/ready", ready, methods=["GET"])]
