"""The address bar is the view. On every demo page a link names the choices by id, every other
control is moved off its value, and the address, copied into a fresh browser, must show every
control the same, and opening the link writes no stack trace to the server's log. (Links with
bad or infinite numbers: test_bad_links.py.)"""

from __future__ import annotations

import urllib.parse

import pytest

from e2e_support import (
    MAIN,
    STACK,
    assert_no_exception,
    demo_pages,
    fit_viewport,
    open_app,
    open_link,
    page_ids,
    read_controls,
    wait_for_app_run,
)

PAGES = demo_pages()

# Choices named by their id in the link (none is the page's default), as a teacher writes a link.
LINKED = {
    "position_wise": {"act": "none", "perm": "roll"},
    "linear_collapse": {"act": "gelu"},
    "width_sweep": {"act": "gelu", "method": "naive", "target": "custom", "expr": "x**3 - x"},
    "activation_sparsity": {"act": "silu", "init": "xavier", "task": "random_labels"},
}


def _box(page, key: str):
    return page.locator(MAIN).locator(f".st-key-{key}")


def move(page, key: str) -> None:
    """One control off the value it shows, as a student moves it."""
    box = _box(page, key)
    if box.locator('[data-testid="stSelectbox"]').count():
        shown = box.locator('input[role="combobox"]').input_value()
        box.locator('button[aria-haspopup="listbox"]').click()
        options = page.locator('[role="listbox"] [role="option"]').filter(visible=True)
        options.first.wait_for(state="visible")
        [o for o in options.all() if o.inner_text().strip() != shown][-1].click()
    elif box.locator('[data-testid="stRadio"]').count():
        box.locator("label:has(input:not(:checked))").last.click()
    elif box.locator('[data-testid="stCheckbox"]').count():
        box.locator("label").first.click()
    elif box.locator('[data-testid="stNumberInputField"]').count():
        box.locator('[data-testid="stNumberInputStepUp"]').click()
    elif box.locator('[data-testid="stTextInput"]').count():
        field = box.locator("input").first
        shown = field.input_value()
        field.fill(f"{shown} x" if shown else "x")
        field.press("Enter")
    elif box.locator('[data-testid="stMultiSelect"]').count():
        box.locator('[data-tag] button[aria-label^="Remove"]').last.click()  # one width fewer
    elif box.locator('[data-testid="stSlider"]').count():
        # One step down where it can (smaller is cheaper to compute), else one up.
        thumb = box.locator('input[type="range"]').first
        before = thumb.input_value()
        thumb.focus()
        thumb.press("ArrowLeft")
        wait_for_app_run(page)
        if thumb.input_value() != before:
            return
        thumb.focus()
        thumb.press("ArrowRight")
    else:
        raise AssertionError(f"no control to move under key {key!r}")
    wait_for_app_run(page)


@pytest.mark.parametrize("app_page", PAGES, ids=page_ids(PAGES))
def test_every_control_survives_the_address_bar(new_page, server, app_page):
    linked = LINKED.get(app_page.url_path, {})
    page = new_page()
    open_app(page, server, app_page, urllib.parse.urlencode({"lang": "en", **linked}))
    # A window as tall as the page: a list that opens and scrolls the page closes at once.
    fit_viewport(page)
    before = read_controls(page)
    assert set(linked) <= set(before), f"{app_page.name}: no control for {set(linked) - set(before)}"
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(page.url).query)
    assert {k: v[0] for k, v in query.items() if k in linked} == linked, f"the address lost the link's choices: {page.url}"
    # Bottom up: a control whose options follow another's (the key/value heads follow the heads)
    # moves first. A second pass moves again any that a later move put back on its first value.
    for _ in range(2):
        for key in reversed([k for k in before if k not in linked]):
            if read_controls(page).get(key) == before[key]:
                move(page, key)
    assert_no_exception(page, server)
    after = read_controls(page)
    unmoved = [k for k in before if k not in linked and after.get(k) == before[k]]
    assert not unmoved, f"{app_page.name}: controls left on their value: {unmoved} ({after})"

    link = page.url
    log_from = len(server.log())
    student = new_page()
    open_link(student, link)
    assert_no_exception(student, server)
    assert read_controls(student) == after, f"{app_page.name}: {link} opened other control values"
    assert urllib.parse.urlsplit(student.url).query == urllib.parse.urlsplit(link).query
    log = server.log()[log_from:]
    assert not STACK.search(log), f"{app_page.name}: opening {link} logged:\n{log[-3000:]}"
