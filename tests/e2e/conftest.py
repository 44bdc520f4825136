"""Fixtures of the browser tests: one `streamlit run dashboard.py` server and one Chromium per
session, a fresh browser context per page opened, and a file's own server for a class room
(`classroom`). Helpers live in e2e_support.py.

What every file here shares is set once below: each test carries the `e2e` mark, and a test that
opens a browser skips, saying why, where /usr/bin/chromium is missing (the `browser` fixture).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from e2e_support import (
    APP_ROOT,
    CHROMIUM,
    CHROMIUM_ARGS,
    RUN_TIMEOUT_MS,
    SKIP_REASON,
    VIEWPORT_HEIGHT,
    VIEWPORT_WIDTH,
    Server,
    class_server,
    free_port,
)


HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # The hook sees the whole session's items: mark only this folder's.
    for item in items:
        if HERE in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    if not (APP_ROOT / "dashboard.py").exists():
        pytest.fail(f"no dashboard.py in {APP_ROOT}")
    srv = Server(APP_ROOT, free_port())
    try:
        srv.wait_healthy()
    except RuntimeError as e:
        srv.stop()
        pytest.fail(str(e), pytrace=False)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def classroom(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of the test file's own for a class room, its class store in a temporary folder."""
    with class_server(tmp_path_factory.mktemp("class")) as srv:
        yield srv


@pytest.fixture(autouse=True)
def _server_stays_up(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test, with the server's log, if the server died under it."""
    yield
    if "server" in request.fixturenames:
        srv: Server = request.getfixturevalue("server")
        if not srv.alive():
            pytest.fail(f"streamlit died (exit {srv.proc.returncode}); its log:\n{srv.log()}", pytrace=False)


# --- browser ----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        pytest.skip(SKIP_REASON)
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def _watched(page):
    page.dialogs = []  # a markup link must never run script: any alert() lands here
    page.errors = []  # uncaught JavaScript errors, quoted when a chart fails to draw
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


@pytest.fixture
def new_page(browser):
    """Open pages in fresh browser contexts (no shared storage); all are closed after the test."""
    contexts = []

    def open_context():
        ctx = browser.new_context(viewport={"width": VIEWPORT_WIDTH, "height": VIEWPORT_HEIGHT}, locale="en-US")
        ctx.set_default_timeout(RUN_TIMEOUT_MS)
        contexts.append(ctx)
        return _watched(ctx.new_page())

    yield open_context
    for ctx in contexts:
        ctx.close()


@pytest.fixture(scope="module")
def _module_tab(browser):
    ctx = browser.new_context(viewport={"width": VIEWPORT_WIDTH, "height": VIEWPORT_HEIGHT}, locale="en-US")
    ctx.set_default_timeout(RUN_TIMEOUT_MS)
    yield _watched(ctx.new_page())
    ctx.close()


@pytest.fixture
def tab(_module_tab):
    """One browser tab for a whole file's tests, for those that only open links and read what they show.

    Each `goto` is a fresh page load, hence a fresh Streamlit session (the browser keeps no session id
    across loads), but the Streamlit app's scripts stay in the tab's cache: a fresh context pays for
    them again, about a second a test. A test that needs its own cookies or storage takes `new_page`.
    """
    page = _module_tab
    page.set_viewport_size({"width": VIEWPORT_WIDTH, "height": VIEWPORT_HEIGHT})
    page.dialogs.clear()
    page.errors.clear()
    return page


