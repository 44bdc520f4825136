"""The address bar is the view. On every demo page a link names the choices by id, every other
control is moved off its value as a student moves it (a slider with the keyboard, a select, a
toggle...), the chart or a metric answers, and the address, copied into a fresh browser (a student
who got the link from the instructor), must show every control and every metric the same, and
opening the link writes no stack trace to the server's log. A page opened from the menu starts from
its own defaults. (Links with bad or infinite numbers: test_bad_links.py.)"""

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
    control_values,
    move_slider,
    open_link,
    page_ids,
    read_controls,
    snapshot,
    wait_for_app_run,
    wait_for_change,
    wait_for_charts,
)

PAGES = demo_pages()

# Choices named by their id in the link (none is the page's default), as a teacher writes a link.
LINKED = {
    "position_wise": {"act": "none", "perm": "roll"},
    "linear_collapse": {"act": "gelu"},
    "width_sweep": {"act": "gelu", "method": "naive", "target": "custom", "expr": "x**3 - x"},
    "activation_sparsity": {"act": "silu", "init": "xavier", "task": "random_labels"},
    # An FFN taken out, so that its kind (zeroed or its mean) has two options to move between: an attention
    # target, where the move of the target would land, offers zeroing only.
    "gpt_surgery": {"target": "ffn_1"},
}


def metrics(page) -> list[str]:
    return page.locator(f'{MAIN} [data-testid="stMetricValue"]').all_inner_texts()


def query_of(url: str) -> dict[str, list[str]]:
    return urllib.parse.parse_qs(urllib.parse.urlsplit(url).query, keep_blank_values=True)


def _box(page, key: str):
    return page.locator(MAIN).locator(f".st-key-{key}")


def move(page, key: str) -> None:
    """One control off the value it shows, as a student moves it, then the address bar left to settle.

    A slider bound to the address writes it from the browser a moment after its run; a control moved
    within that moment (no student is that fast) can have its own parameter written over by it.
    """
    _move_once(page, key)
    shown, stable_since = page.url, 0
    for _ in range(50):  # 5 s at most
        page.wait_for_timeout(100)
        stable_since = stable_since + 1 if page.url == shown else 0
        shown = page.url
        if stable_since >= 5:
            return


def _move_once(page, key: str) -> None:
    box = _box(page, key)
    if box.locator('[data-testid="stSelectbox"]').count():
        # By keyboard, as a student can: the list is virtual (178 countries) and a click on an option could land
        # while a late rerun redraws it. The next option down, or up from the last one.
        field = box.locator('input[role="combobox"]')
        shown = field.input_value()
        for arrow in ("ArrowDown", "ArrowUp"):
            field.click()
            field.press(arrow)
            field.press("Enter")
            wait_for_app_run(page)
            if field.input_value() != shown:
                return
        raise AssertionError(f"the select {key!r} kept {shown!r} after both arrows")
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
    wait_for_charts(page)
    before_view, before_url = snapshot(page), page.url
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
    assert query_of(page.url) != query_of(before_url), f"{app_page.name}: the moves left the URL at {page.url}"
    if page.locator(MAIN).locator('[data-testid="stVegaLiteChart"]').count():
        wait_for_charts(page)
    assert wait_for_change(page, before_view), f"{app_page.name}: neither chart nor metric changed after the moves"

    link, numbers = page.url, metrics(page)
    log_from = len(server.log())
    student = new_page()
    open_link(student, link)
    assert_no_exception(student, server)
    assert read_controls(student) == after, f"{app_page.name}: {link} opened other control values"
    assert metrics(student) == numbers, f"{app_page.name}: the link {link} opened other metrics"
    assert urllib.parse.urlsplit(student.url).query == urllib.parse.urlsplit(link).query
    log = server.log()[log_from:]
    assert not STACK.search(log), f"{app_page.name}: opening {link} logged:\n{log[-3000:]}"


def test_a_page_opened_from_the_menu_starts_from_its_defaults(new_page, server):
    # Key-value and activation sparsity both have sliders d and m with the same range; the values
    # moved on one must not follow the student into the other (the lesson's text assumes the defaults).
    pages = {p.url_path: p for p in PAGES}
    page = new_page()
    open_app(page, server, pages["activation_sparsity"], "lang=en")
    defaults = control_values(page)["sliders"]
    open_app(page, server, pages["key_value"], "lang=en")
    move_slider(page, 0)
    move_slider(page, 1)
    assert {"d", "m"} <= set(query_of(page.url)), page.url
    page.locator('[data-testid="stSidebar"] a[href*="activation_sparsity"]').first.click()
    page.wait_for_url("**/activation_sparsity**")
    wait_for_charts(page)
    assert_no_exception(page, server)
    assert control_values(page)["sliders"] == defaults
    assert not {"d", "m"} & set(query_of(page.url)), page.url
