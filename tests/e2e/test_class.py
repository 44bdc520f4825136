"""A class in real browsers: an instructor on a projector and three students (one on a phone, in Korean)
join through the join card's address, answer a question, the instructor's live view counts three
answers without anyone touching it, Reveal, and every student's page shows the class's guesses.

It runs behind deploy/'s nginx with two replicas sharing one SQLite file: the instructor's replica
is not the one two of the students are on, so the room is seen across replicas through the store.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pytest

from e2e_support import (APP_ROOT, CHART, MAIN, NGINX, SCREENSHOTS, active_sessions, class_context, discover_pages,
                          open_class_box, open_link, settle, wait_for_app_run)
from e2e_support import balancer as start_balancer
from stclient import Session

if NGINX is None:
    pytest.skip("nginx not installed (apt-get install nginx): the class test skipped", allow_module_level=True)

sys.path.insert(0, str(APP_ROOT))
from ui.base import i18n  # noqa: E402

pytestmark = pytest.mark.e2e
HOME = discover_pages()[0]
COLLAPSE = next(p for p in discover_pages() if p.file.endswith("linear_collapse.py"))
EN, KO = i18n.Translator("en"), i18n.Translator("ko")
SHOT = os.environ.get("FFNLAB_CLASS_SCREENSHOT")  # where to save the projector's view (README's picture)


@pytest.fixture(scope="module")
def balancer(tmp_path_factory):
    """Two replicas and nginx (deploy/run.sh), one class database file for both."""
    run_dir: Path = tmp_path_factory.mktemp("class")
    with start_balancer(run_dir, FFNLAB_CLASS_DB=f"sqlite:///{run_dir / 'class.sqlite'}") as (url, replicas):
        yield url, replicas, run_dir


def _cookies_by_replica(url: str, replicas: list[int]) -> list[str]:
    """An affinity cookie that nginx sends to each replica, found by trying (each try: an even chance).

    A try whose replica cannot be told apart (the machine slow to count a session) is skipped.
    """
    found: dict[int, str] = {}
    for i in range(40):
        cookie = f"ffnlab_replica=class-{i}"
        base = [active_sessions(p) for p in replicas]
        session = Session(url, cookie=cookie)
        try:
            assert session.open(HOME, "lang=en").ok
            deadline = time.monotonic() + 20
            while (grew := [n - b for n, b in zip([active_sessions(p) for p in replicas], base)]).count(1) != 1 \
                    and time.monotonic() < deadline:
                time.sleep(0.2)
        finally:
            session.close()
        if grew.count(1) == 1 and grew.count(0) == len(replicas) - 1:
            found.setdefault(grew.index(1), cookie)
        settle(replicas, base)
        if len(found) == 2:
            return [found[0], found[1]]
    pytest.fail("40 cookies all went to one replica: the balancer does not balance")


@pytest.fixture(scope="module")
def cookies(balancer) -> list[str]:
    url, replicas, _ = balancer
    return _cookies_by_replica(url, replicas)


def _context(browser, url: str, cookie: str, *, phone: bool = False, lang: str = "en-US"):
    ctx = class_context(browser, phone=phone, lang=lang, timeout_ms=60_000)
    name, value = cookie.split("=", 1)
    ctx.add_cookies([{"name": name, "value": value, "url": url}])
    return ctx


def _answer(page, t: i18n.Translator, option: int, number: int) -> None:
    """Answer the page's first two questions (a choice, then a number); the page says the room stored each."""
    # The question box, by its heading: the page's lesson folds into an expander of its own ("Read more").
    questions = page.locator(f'{MAIN} [data-testid="stExpander"]').filter(has_text=t("questions.heading")).first
    questions.locator('[data-testid="stRadio"]').first.locator("label:has(input)").nth(option).click()
    questions.get_by_role("button", name=t("questions.commit")).first.click()
    wait_for_app_run(page)
    stored = page.get_by_text(t("questions.stored"))
    stored.first.wait_for(state="visible", timeout=20_000)
    page.wait_for_timeout(1100)  # the room takes one guess a second from a student
    questions.locator('[data-testid="stTextInput"] input').first.fill(str(number))
    questions.get_by_role("button", name=t("questions.commit")).first.click()
    wait_for_app_run(page)
    stored.nth(1).wait_for(state="visible", timeout=20_000)


def test_a_class_joins_answers_and_sees_the_reveal_across_two_replicas(browser, balancer, cookies):
    url, replicas, run_dir = balancer
    cookie_a, cookie_b = cookies
    contexts = []
    try:
        # The instructor, on replica A, projecting.
        ctx = _context(browser, url, cookie_a)
        contexts.append(ctx)
        teacher = ctx.new_page()
        open_link(teacher, f"{url}/{COLLAPSE.url_path}?lang=en&present=1")
        # Projector mode starts with the sidebar closed; the instructor opens it to start the class.
        teacher.locator('[data-testid="stExpandSidebarButton"]').click()
        open_class_box(teacher, EN)
        teacher.get_by_role("button", name=EN("room.start")).click()
        wait_for_app_run(teacher)
        card = teacher.locator(".st-key-room_join_card")
        card.wait_for(state="visible")
        qr = card.locator('[data-testid="stImage"] img').first
        qr.wait_for(state="visible")
        assert qr.get_attribute("src").startswith("data:image/svg+xml"), "no QR code on the join card"
        assert qr.bounding_box()["width"] >= 150, qr.bounding_box()
        short = card.locator('[data-testid="stCode"]').inner_text().strip()
        code = re.search(r"room=([A-Z0-9]{6})", short).group(1)
        assert "lang=" not in short, short  # a student lands in their own language
        join = f"http://{short}"
        assert join.startswith(f"{url}/{COLLAPSE.url_path}?"), join

        # Three students through the card's address: two on replica B (one a phone, in Korean), one on A.
        students = []
        for cookie, phone, lang, t in ((cookie_b, False, "en-US", EN), (cookie_b, True, "ko-KR", KO),
                                       (cookie_a, False, "en-US", EN)):
            ctx = _context(browser, url, cookie, phone=phone, lang=lang)
            contexts.append(ctx)
            page = ctx.new_page()
            open_link(page, join)
            if phone:  # the class section is in the sidebar, closed on a phone; the page speaks Korean
                assert page.locator(f"{MAIN} h1").first.inner_text().strip() == KO("collapse.title_asking")
            students.append((page, t))
        assert settle(replicas, [2, 2]) == [2, 2], "the class is not spread over both replicas"
        for i, (page, t) in enumerate(students):
            _answer(page, t, option=i % 2, number=(64, 256, 512)[i])
        answered = time.monotonic()

        # The instructor's live view counts three answers to each question by itself (it polls every 2 s).
        # The presenter's view shows one question at a time: the first, then the second picked.
        counts = teacher.get_by_text(EN("room.panel_counts", joined=3, answered=3))
        counts.first.wait_for(timeout=15_000)
        seen_after = time.monotonic() - answered
        measured = teacher.get_by_text(EN("room.panel_measured", value="").replace("*", "").strip())
        for i in range(2):  # Reveal each question
            if i:
                teacher.locator(f"{MAIN} button").filter(has_text=re.compile(f"^{EN('vote.question_n', n=2)}$")).first.click()
                wait_for_app_run(teacher)
                counts.first.wait_for(timeout=15_000)
            teacher.get_by_role("button", name=EN("room.reveal")).first.click()
            measured.first.wait_for(timeout=15_000)

        # Every student's page shows the class's guesses beside their own, without a touch.
        for page, t in students:
            box = page.locator(f'{MAIN} [data-testid="stExpander"]').filter(has_text=t("questions.heading")).first
            box.locator(CHART).nth(1).wait_for(state="visible", timeout=20_000)
        if SHOT:  # the projector: the rank question's distribution with the measurement over it
            teacher.locator(f'{MAIN} {CHART}').nth(1).scroll_into_view_if_needed()
            teacher.mouse.move(800, 400)
            teacher.mouse.wheel(0, -160)  # the question's text above its chart
            teacher.mouse.move(1240, 700)  # off the chart: no hover menu in the picture
            teacher.wait_for_timeout(1500)  # let vega draw
            teacher.screenshot(path=SHOT)
            teacher.locator(MAIN).evaluate("el => el.scrollTo(0, 0)")
            teacher.wait_for_timeout(500)
            teacher.screenshot(path=SHOT.replace(".png", "_top.png"))
        print(f"\nthe instructor's view counted the third answers {seen_after:.1f} s after the last student's page said stored "
              f"(room {code}, replicas {replicas})")
    finally:
        for ctx in contexts:
            ctx.close()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)


def test_a_following_student_moves_with_the_instructor(browser, balancer, cookies):
    """Follow across replicas: the instructor moves a slider, then opens another page; the student's page follows."""
    from e2e_support import SLIDER_INPUT, main_title

    url, replicas, _ = balancer
    cookie_a, cookie_b = cookies
    contexts = []
    try:
        contexts.append(ctx := _context(browser, url, cookie_a))
        teacher = ctx.new_page()
        open_link(teacher, f"{url}/{COLLAPSE.url_path}?lang=en")
        open_class_box(teacher, EN)
        teacher.get_by_role("button", name=EN("room.start")).click()
        wait_for_app_run(teacher)
        short = teacher.locator('.st-key-room_join_card [data-testid="stCode"]').inner_text().strip()
        contexts.append(ctx := _context(browser, url, cookie_b))
        student = ctx.new_page()
        open_link(student, f"http://{short}")
        student.locator('[data-testid="stSidebar"]').get_by_text(EN("room.follow")).click()
        wait_for_app_run(student)

        thumb = teacher.locator(MAIN).locator(SLIDER_INPUT).first  # d
        before = thumb.input_value()
        thumb.focus()
        thumb.press("ArrowLeft")
        wait_for_app_run(teacher)
        after = thumb.input_value()
        assert after != before
        student.wait_for_function(
            "([sel, want]) => document.querySelector(sel)?.value === want",
            arg=[f"{MAIN} {SLIDER_INPUT}", after], timeout=20_000)

        teacher.locator('[data-testid="stSidebar"]').get_by_text(EN("position.menu")).click()
        wait_for_app_run(teacher)
        assert main_title(teacher) == EN("position.title_asking")
        student.wait_for_function(
            "([sel, want]) => document.querySelector(sel)?.innerText.trim() === want",
            arg=[f"{MAIN} h1", EN("position.title_asking")], timeout=20_000)
        assert "room=" in student.url
    finally:
        for ctx in contexts:
            ctx.close()
