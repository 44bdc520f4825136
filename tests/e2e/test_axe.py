"""axe-core finds no WCAG 2.2 AA violation: every page in both languages on a laptop (1400×900), on a phone
(390×844) and in presenter mode, a page with its charts' tables open, a question asked and answered, and the
class room's views (the instructor's panel with a distribution, a student after the Reveal).

One tab per view, reused from page to page: each page is a fresh load (a fresh session), the app's scripts
stay cached; the six views of a page load and are checked at once.
Every chart is drawn before the check (the window is made as tall as the page), so axe sees the whole page.
A test gathers every view's violations and fails once, listing them all by view.
"""
from __future__ import annotations

import sys
import time

import pytest

from axe_support import axe_source, collect, report, start, violations
from e2e_support import (APP_ROOT, CHART, MAIN, PHONE_AGENT, RUN_TIMEOUT_MS, assert_no_exception, chart_states,
                         discover_pages, fit_viewport, open_app, open_class_box, open_link, press_presenter_button, wait_for_app_run)
from playwright.sync_api import expect

sys.path.insert(0, str(APP_ROOT))
from ui.base import i18n  # noqa: E402

PAGES = discover_pages()
LAPTOP = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}
SCREENS = {"laptop": dict(viewport=LAPTOP),
           "phone": dict(viewport=PHONE, is_mobile=True, has_touch=True, user_agent=PHONE_AGENT)}
EN, KO = i18n.Translator("en"), i18n.Translator("ko")
COLLAPSE = next(p for p in PAGES if p.file.endswith("linear_collapse.py"))
SPLIT = next(p for p in PAGES if p.file.endswith("parameter_split.py"))


@pytest.fixture(scope="module")
def axe() -> str:
    return axe_source()


@pytest.fixture(scope="module")
def screens(browser):
    """A tab by name ("laptop", "phone-ko"), opened when first asked for, closed at the end of the file."""
    opened: dict[str, object] = {}
    contexts = []

    def tab(name: str):
        screen = name.split("-")[0]  # "phone", or "laptop-en": a tab of its own on that screen
        if name not in opened:
            ctx = browser.new_context(locale="en-US", **SCREENS[screen])
            ctx.set_default_timeout(60_000)
            contexts.append(ctx)
            opened[name] = ctx.new_page()
        page = opened[name]
        page.set_viewport_size(SCREENS[screen]["viewport"])  # the last page's fit_viewport made it taller
        return page

    yield tab
    for ctx in contexts:
        ctx.close()


def drawn(page, width: int) -> None:
    """The whole page in view and every chart drawn (a chart mounts once scrolled into view)."""
    fit_viewport(page, width)
    deadline = time.monotonic() + 30
    while not all(states := chart_states(page)) and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    assert all(states), f"{page.url}: charts not drawn: {states}"
    page.wait_for_timeout(200)  # vega sizes a chart to its container just after drawing it


def check(page, axe: str, view: str, found: dict, width: int) -> None:
    drawn(page, width)
    if items := violations(page, axe):
        found[view] = items


# The page walk's views: (screen, language, query). Presenter mode is on the laptop's screen.
WALK = [("laptop", "en", ""), ("laptop", "ko", ""), ("phone", "en", ""), ("phone", "ko", ""),
        ("laptop", "en", "present=1"), ("laptop", "ko", "present=1")]


def test_every_page_has_no_violation(screens, server, axe):
    """Each page in the walk's six views at once (a tab each, so the server and the browser work in parallel)."""
    tabs = [screens(f"{screen}-{lang}" + ("-presenter" if extra else "")) for screen, lang, extra in WALK]
    found: dict[str, list] = {}
    for app_page in PAGES:
        views = []
        for (screen, lang, extra), tab in zip(WALK, tabs):
            tab.set_viewport_size(SCREENS[screen]["viewport"])  # the last page's fit_viewport made it taller
            url = f"{server.url}/{app_page.url_path}?lang={lang}" + (f"&{extra}" if extra else "")
            response = tab.goto(url, wait_until="commit")
            assert response is not None and response.status == 200, f"GET {url} -> {response and response.status}"
            views.append((tab, f"{app_page.name} ({'presenter' if extra else screen}, {lang})", screen, lang))
        for tab, view, screen, lang in views:
            tab.wait_for_load_state("domcontentloaded")
            wait_for_app_run(tab)
            assert_no_exception(tab, server)
            # A screen reader reads a page in its language: <html lang> follows the page's (axe checks only that
            # one is set and valid).
            tab.wait_for_function("want => document.documentElement.lang === want", arg=lang, timeout=10_000)
            drawn(tab, SCREENS[screen]["viewport"]["width"])
            start(tab, axe)
        for tab, view, _, _ in views:
            if items := collect(tab):
                found[view] = items
    assert not found, "axe-core violations:\n" + report(found)


# The box widgets.chart draws under a chart: its label begins with the table_chart icon.
CHART_BOX = f'{MAIN} [data-testid="stExpander"]:has([aria-label="table_chart icon"])'


def test_a_page_with_its_charts_tables_open_has_no_violation(screens, server, axe):
    """The box under each of page 1's charts opened onto its data: four short tables, each a <table>."""
    page = screens("laptop")
    open_app(page, server, SPLIT, "lang=ko")
    boxes = page.locator(CHART_BOX)
    count = boxes.count()
    assert count >= 2, f"page 1 draws several charts, each with its box: {count}"
    for i in range(count):
        box = boxes.nth(i)
        box.locator("summary").click()
        wait_for_app_run(page)
        box.locator('[data-testid="stTable"] table').first.wait_for(timeout=30_000)
    assert_no_exception(page, server)
    found: dict[str, list] = {}
    check(page, axe, "every chart's table open (laptop, ko)", found, LAPTOP["width"])
    assert not found, "axe-core violations:\n" + report(found)


def _box(page, t):
    """The page's question box, by its heading."""
    return page.locator(f'{MAIN} [data-testid="stExpander"]').filter(has_text=t("questions.heading")).first


def _commit_first(page, t, choose, judged: bool = True) -> None:
    """`choose` a guess in the box's first open question and commit it; when `judged` (outside a room), wait
    until its commit button is gone: on a busy machine the rerun may not have begun when wait_for_app_run
    first looks, and a guess typed into the next question during that rerun would be lost."""
    box = _box(page, t)
    commits = box.get_by_role("button", name=t("questions.commit"))
    open_before = commits.count()
    choose(box)
    commits.first.click()
    wait_for_app_run(page)
    if judged:
        expect(commits).to_have_count(open_before - 1, timeout=RUN_TIMEOUT_MS)


def _choice(option: int):
    return lambda box: box.locator('[data-testid="stRadio"]').first.locator("label:has(input)").nth(option).click()


@pytest.mark.parametrize("screen, lang", [("laptop", "en"), ("phone", "ko")])
def test_a_question_asked_then_answered_has_no_violation(screens, server, axe, screen, lang):
    """"Ask me first": the question box open before the result; then a choice and a number committed, each judged ✓ or ✗."""
    t = i18n.Translator(lang)
    page = screens(screen)
    width = SCREENS[screen]["viewport"]["width"]
    found: dict[str, list] = {}
    open_app(page, server, COLLAPSE, f"lang={lang}&ask=1")
    check(page, axe, f"question open ({screen}, {lang})", found, width)
    _commit_first(page, t, _choice(0))
    _commit_first(page, t, lambda box: box.locator('[data-testid="stTextInput"] input').first.fill("64"))
    expect(_box(page, t).get_by_role("button", name=t("questions.commit"))).to_have_count(0)  # both judged
    assert_no_exception(page, server)
    check(page, axe, f"after the guesses ({screen}, {lang})", found, width)
    assert not found, "axe-core violations:\n" + report(found)


# --- the class room -------------------------------------------------------------------------------------


def test_the_class_rooms_views_have_no_violation(browser, classroom, axe):
    """The instructor's projector (join card, the live panel, the distribution shown, then revealed) and a
    student's phone in Korean (the question in the room, the guess held, the class's guesses after the Reveal)."""
    contexts = [browser.new_context(locale="en-US", **SCREENS["laptop"]),
                browser.new_context(locale="ko-KR", **SCREENS["phone"])]
    found: dict[str, list] = {}
    try:
        for ctx in contexts:
            ctx.set_default_timeout(60_000)
        teacher, student = (ctx.new_page() for ctx in contexts)
        open_link(teacher, f"{classroom.url}/{COLLAPSE.url_path}?lang=en&present=1")
        teacher.locator('[data-testid="stExpandSidebarButton"]').click()
        open_class_box(teacher, EN)
        teacher.get_by_role("button", name=EN("room.start")).click()
        wait_for_app_run(teacher)
        short = teacher.locator('.st-key-room_join_card [data-testid="stCode"]').inner_text().strip()
        check(teacher, axe, "instructor: join card and panel (presenter, en)", found, LAPTOP["width"])

        open_link(student, f"http://{short}")
        check(student, axe, "student: the question in the room (phone, ko)", found, PHONE["width"])
        _commit_first(student, KO, _choice(1), judged=False)  # the room holds the guess until the Reveal
        student.get_by_text(KO("questions.stored")).first.wait_for(state="visible", timeout=30_000)
        check(student, axe, "student: the guess held (phone, ko)", found, PHONE["width"])

        teacher.get_by_text(EN("room.panel_counts", joined=1, answered=1)).first.wait_for(timeout=30_000)
        press_presenter_button(teacher, EN("vote.show"))
        teacher.locator(f"{MAIN} {CHART}").first.wait_for(state="visible", timeout=30_000)
        check(teacher, axe, "instructor: the distribution shown (presenter, en)", found, LAPTOP["width"])
        press_presenter_button(teacher, EN("room.reveal"))
        teacher.get_by_text(EN("room.panel_measured", value="").replace("*", "").strip()).first.wait_for(timeout=30_000)
        check(teacher, axe, "instructor: after the Reveal (presenter, en)", found, LAPTOP["width"])

        _box(student, KO).locator(CHART).first.wait_for(state="visible", timeout=30_000)  # follows by itself
        check(student, axe, "student: after the Reveal (phone, ko)", found, PHONE["width"])
    finally:
        for ctx in contexts:
            ctx.close()
    assert not found, "axe-core violations:\n" + report(found)
