"""Students open the link on their phones: at 390 × 844 (a phone's viewport, touch, a phone
browser's User-Agent) every page opens with the sidebar closed, its charts drawn, and nothing
wider than the screen. One language per page, alternating, to keep the suite short."""

from __future__ import annotations

import time

import pytest

from e2e_support import (
    MAIN,
    PHONE_AGENT,
    assert_no_exception,
    chart_states,
    discover_pages,
    fit_viewport,
    open_app,
    page_ids,
)

PAGES = discover_pages()
WIDTH, HEIGHT = 390, 844

# What sticks out past the screen's right edge: the document's and the main area's scroll widths,
# and any element of the main area wider than the screen that no scrolling box of its own holds
# (a table or a code block scrolls inside itself; that is fine).
OVERFLOW = """(main) => {
    const m = document.querySelector(main);
    const edge = window.innerWidth + 1;
    const held = e => {
        for (let a = e.parentElement; a && a !== m; a = a.parentElement) {
            if (getComputedStyle(a).overflowX !== 'visible' && a.getBoundingClientRect().right <= edge) return true;
        }
        return false;
    };
    const out = [...m.querySelectorAll('*')].filter(e => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.right > edge && !held(e);
    });
    return {
        document: document.documentElement.scrollWidth, main: m.scrollWidth, width: window.innerWidth,
        out: out.slice(0, 5).map(e => `${e.getAttribute('data-testid') || e.tagName.toLowerCase()} to ${Math.round(e.getBoundingClientRect().right)} px`),
    };
}"""


@pytest.fixture(scope="module")
def _phone_tab(browser):
    # One phone for the file: each page is a fresh load (a fresh session), the app's scripts stay cached.
    ctx = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, device_scale_factor=3,
                              is_mobile=True, has_touch=True, user_agent=PHONE_AGENT, locale="en-US")
    ctx.set_default_timeout(60_000)
    yield ctx.new_page()
    ctx.close()


@pytest.fixture
def phone(_phone_tab):
    _phone_tab.set_viewport_size({"width": WIDTH, "height": HEIGHT})  # the last page's fit_viewport made it taller
    return _phone_tab


@pytest.mark.parametrize("app_page", PAGES, ids=page_ids(PAGES))
def test_every_page_fits_a_phone(phone, server, app_page):
    lang = ("en", "ko")[PAGES.index(app_page) % 2]
    open_app(phone, server, app_page, f"lang={lang}")
    assert_no_exception(phone, server)
    sidebar = phone.locator('[data-testid="stSidebar"]')
    right = sidebar.evaluate("e => e.getBoundingClientRect().right")
    assert right <= 0, f"{app_page.name}: the sidebar covers {right:.0f} of {WIDTH} px"

    fit_viewport(phone, WIDTH)  # charts mount once in view: show the whole page, at the phone's width
    deadline = time.monotonic() + 30
    while not all(states := chart_states(phone)) and time.monotonic() < deadline:
        phone.wait_for_timeout(250)
    assert all(states), f"{app_page.name}: charts not drawn: {states}"
    phone.wait_for_timeout(300)  # vega sizes a chart to its container just after drawing it
    fit = phone.evaluate(OVERFLOW, MAIN)
    assert fit["document"] <= WIDTH and fit["main"] <= WIDTH and not fit["out"], f"{app_page.name} ({lang}): {fit}"
