"""Crafted links: garbage, markup, huge sizes and infinite numbers in the query string still open a
working page (defaults, no traceback, no script run, nothing in the server's log). In the browser each
page opens one of the links in turn, so every link meets several pages and every page one link; every
bad value of every key of every page is fed to the page exhaustively in AppTest
(tests/ui/test_query.py, tests/ui/test_controls.py). A link that made a run hang fails on the run timeout;
how long a bounded run takes is measured by bench/, not asserted on a shared machine here."""

from __future__ import annotations

import urllib.parse

import pytest

from e2e_support import (
    REFERENCE,
    STACK,
    assert_no_exception,
    discover_pages,
    main_title,
    open_app,
    read_controls,
    wait_for_charts,
)

PAGES = discover_pages()

LINKS = {
    # wrong types, a negative size, markup, an unknown language, a NUL byte
    "garbage": "d=abc&m=-5&seed=%3Cscript%3Ealert(1)%3C%2Fscript%3E&lang=xx&act=%00",
    # sizes far past any bound, repeated keys, an unknown option, an injected expression
    "huge": (
        "d=1000000&m=99999999&n=1e308&seed=-1&width=100000&widths=2&widths=99999&steps=1e9"
        "&expansion=1e6&tokens=100000&target=__import__('os')&expr=__import__('os').system('x')"
        "&preset=../../etc/passwd&lang=ko&present=%3Cb%3E&code=1;DROP"
    ),
    # infinities and NaN where a number goes: those controls show their defaults, the address drops them
    "infinite": "lang=ko&seed=inf&n=1e400&act=gelu&token=1e309&d=nan&steps=-Infinity",
}
# The numbers the "infinite" link names, and the default each shows where a page has it.
INFINITE_DEFAULTS = {"seed": "0", "token": "0"}


# Page i opens link i mod 3; the infinite link goes first, so the home page reads it too.
CASES = [(app_page, list(LINKS)[(i + 2) % len(LINKS)]) for i, app_page in enumerate(PAGES)]


@pytest.mark.parametrize(("app_page", "link"), CASES, ids=[f"{p.name}-{link}" for p, link in CASES])
def test_crafted_link_opens_a_working_page(tab, server, app_page, link):
    page = tab
    log_from = len(server.log())
    open_app(page, server, app_page, LINKS[link])
    assert_no_exception(page, server)
    assert main_title(page)
    if app_page.name not in REFERENCE:
        assert wait_for_charts(page) >= 1
    assert not page.dialogs, f"{app_page.name}: markup in the link ran script: {page.dialogs}"
    assert page.locator("script", has_text="alert(1)").count() == 0, f"{app_page.name}: a script tag from the link"
    log = server.log()[log_from:]
    assert not STACK.search(log), f"{app_page.name}: opening the {link} link logged:\n{log[-3000:]}"
    if link == "infinite":
        controls = read_controls(page)
        shown = {key: controls[key] for key in INFINITE_DEFAULTS if key in controls}
        assert shown == {key: INFINITE_DEFAULTS[key] for key in shown}, (app_page.name, controls)
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
        assert not set(shown) & set(query), page.url
