"""Peer instruction, the presenter's view, a lesson and the results, in real browsers on one server.

(a) at 1280×720 in projector mode the question, its counts and, after Reveal, its whole distribution are
inside the first screen, the join card folded after the first join; (b) a phone at 390×844 in Korean: the
result's option labels do not overlap and the student's own guess is drawn; (c) a two-vote question with a
timer the store's clock closes; (d) a lesson of three steps moved with Next, a student following; (e) the
results CSV, whose rows match the database.
"""
from __future__ import annotations

import csv
import io
import os
import re
import sqlite3
import sys
from pathlib import Path

import pytest

from e2e_support import (APP_ROOT, CHART, MAIN, class_context, class_server, open_class_box, open_link, start_linked_lesson,
                         wait_for_app_run)
# test_teacher_question.py presses the presenter's buttons by this name too.
from e2e_support import press_presenter_button as _click

sys.path.insert(0, str(APP_ROOT))
from ui.base import i18n  # noqa: E402
from ui.room import plan  # noqa: E402

pytestmark = pytest.mark.e2e
EN, KO = i18n.Translator("en"), i18n.Translator("ko")
TIMER = 8  # seconds: the vote timer of this test's server (FFNLAB_VOTE_TIMER)
SHOT = os.environ.get("FFNLAB_VOTE_SCREENSHOT")  # where to save the two-vote result (README's picture)
OWN = "#2563eb"


@pytest.fixture(scope="module")
def classroom(tmp_path_factory):
    """This file's class room (in place of conftest's): its vote timer, and its database's path for the results CSV."""
    folder = tmp_path_factory.mktemp("vote")
    with class_server(folder, FFNLAB_VOTE_TIMER=str(TIMER)) as srv:
        yield srv, folder / "class.sqlite"


def _context(browser, **screen):
    """class_context's screens; every one may download the results CSV."""
    return class_context(browser, accept_downloads=True, **screen)


def _start_class(teacher, url: str) -> str:
    """The instructor (projector mode) starts a class; the join card's address."""
    open_link(teacher, url)
    teacher.locator('[data-testid="stExpandSidebarButton"]').click()
    open_class_box(teacher, EN)
    teacher.get_by_role("button", name=EN("room.start")).click()
    wait_for_app_run(teacher)
    short = teacher.locator('.st-key-room_join_card [data-testid="stCode"]').inner_text().strip()
    teacher.locator('[data-testid="stSidebarCollapseButton"]').first.click()  # the projector: the page alone
    return f"http://{short}"


def _box(page, t):
    return page.locator(f'{MAIN} [data-testid="stExpander"]').filter(has_text=t("questions.heading")).first


def _choose(page, t, option: int, nth: int = 0) -> None:
    """Commit the `option`-th choice of the page's first question box; the page says the room stored it."""
    box = _box(page, t)
    box.locator('[data-testid="stRadio"]').nth(nth).locator("label:has(input)").nth(option).click()
    box.get_by_role("button", name=t("questions.commit")).nth(nth).click()
    wait_for_app_run(page)
    page.get_by_text(t("questions.stored")).first.wait_for(state="visible", timeout=30_000)


def _presenter(teacher):
    return teacher.locator(f'{MAIN} [class*="st-key-room_presenter"]').first


def _status(teacher) -> str:
    return _presenter(teacher).locator(".room-status").inner_text()


def _wait_status(teacher, text: str, timeout_ms: int = 30_000) -> None:
    teacher.wait_for_function(
        "([sel, want]) => (document.querySelector(sel)?.innerText || '').includes(want)",
        arg=[f'{MAIN} [class*="st-key-room_presenter"] .room-status', text], timeout=timeout_ms)


def _bottom_in_first_screen(teacher, locator) -> float:
    """Where the element ends, with the page scrolled to its top (Streamlit scrolls stMain, not the document)."""
    teacher.locator(MAIN).evaluate("el => el.scrollTo(0, 0)")
    box = locator.bounding_box()
    assert box is not None
    return box["y"] + box["height"]


def test_a_projector_shows_one_question_its_counts_and_after_reveal_its_distribution_in_the_first_screen(
        browser, classroom):
    srv, _ = classroom
    teacher_ctx, student_ctx = _context(browser), _context(browser, phone=True, lang="ko-KR")
    try:
        teacher = teacher_ctx.new_page()
        join = _start_class(teacher, f"{srv.url}/linear_collapse?lang=en&present=1")
        assert teacher.locator(".st-key-room_join_card").is_visible()  # whole until someone joins
        student = student_ctx.new_page()
        open_link(student, join)
        # The first join folds the card to its line by itself (the card looks every 2 s).
        teacher.locator(".st-key-room_join_line").wait_for(state="visible", timeout=30_000)
        line = teacher.locator(".st-key-room_join_line").inner_text()
        assert re.search(r"Room [A-Z0-9]{6} · join", line), line
        assert teacher.locator(".st-key-room_join_card").count() == 0

        presenter = _presenter(teacher)
        question = presenter.locator(".room-q")
        _wait_status(teacher, EN("room.panel_counts", joined=1, answered=0))
        assert _bottom_in_first_screen(teacher, question) <= 720
        assert _bottom_in_first_screen(teacher, presenter.locator(".room-status")) <= 720
        # The instructor never answers: no form on the projector.
        assert teacher.get_by_role("button", name=EN("questions.commit")).count() == 0

        _choose(student, KO, option=1)  # "no": the two layers are one d×d matrix (the measured answer)
        _wait_status(teacher, EN("room.panel_counts", joined=1, answered=1))
        assert presenter.locator(CHART).count() == 0  # hidden until shown
        _click(teacher, EN("room.reveal"))
        chart = presenter.locator(CHART).first
        chart.wait_for(state="visible")
        teacher.wait_for_timeout(1500)  # vega draws
        assert _bottom_in_first_screen(teacher, chart) <= 720
        measured = presenter.get_by_text(EN("vote.right", share="100%"))
        assert _bottom_in_first_screen(teacher, measured) <= 720

        # (b) The phone, in Korean: the class's result after Reveal, labels apart, the own guess drawn.
        result = _box(student, KO).locator(CHART).first
        result.wait_for(state="visible", timeout=30_000)
        result.scroll_into_view_if_needed()
        student.wait_for_function(
            "el => el.querySelectorAll('svg .role-axis-label text').length >= 2", arg=result.element_handle(),
            timeout=30_000)
        boxes = result.evaluate("""el => [...el.querySelectorAll('svg .role-axis-label text')].map(t => {
            const r = t.getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom, t.textContent]; })""")
        labels = [b for b in boxes if re.search(r"[\uac00-\ud7a3]", b[4])]  # the options, not the count axis
        assert len(labels) == 2, boxes
        (l1, r1, *_), (l2, r2, *_) = sorted(labels)
        assert r1 <= l2, f"option labels overlap: {labels}"
        assert max(r1, r2) <= 390 and min(l1, l2) >= 0, f"a label runs off the phone's screen: {labels}"
        own = result.evaluate(f"""el => [...el.querySelectorAll('svg path')].filter(
            p => (p.getAttribute('stroke') || '').toLowerCase() === '{OWN}').length""")
        assert own >= 1, "the student's own option is not outlined"
        assert result.get_by_text(KO("questions.legend_own")).count() + result.locator(
            f"svg text:has-text('{KO('questions.legend_own')}')").count() >= 1
    finally:
        teacher_ctx.close()
        student_ctx.close()


def _db_counts(db: Path, code: str) -> dict[tuple[str, int], int]:
    """Per (question, vote) the guesses the room holds: the first vote's kept apart, the last in class_guesses."""
    with sqlite3.connect(db) as conn:
        rounds = dict(conn.execute("SELECT question, round FROM class_votes WHERE room = ?", (code,)).fetchall())
        counts: dict[tuple[str, int], int] = {}
        for question, n in conn.execute(
                "SELECT question, count(*) FROM class_first_votes WHERE room = ? GROUP BY question", (code,)):
            counts[(question, 1)] = n
        for question, n in conn.execute(
                "SELECT question, count(*) FROM class_guesses WHERE room = ? GROUP BY question", (code,)):
            counts[(question, rounds.get(question, 1))] = n
        for (question,) in conn.execute("SELECT question FROM class_questions WHERE room = ?", (code,)):
            counts.setdefault((question, rounds.get(question, 1)), 0)
    return counts


def test_two_votes_with_a_timer_then_the_shift_and_the_results_csv(browser, classroom):
    srv, db = classroom
    contexts = [_context(browser), _context(browser), _context(browser, phone=True, lang="ko-KR")]
    try:
        teacher, first, second = (ctx.new_page() for ctx in contexts)
        join = _start_class(teacher, f"{srv.url}/linear_collapse?lang=en&present=1")
        open_link(first, join)
        open_link(second, join)
        _wait_status(teacher, EN("room.panel_counts", joined=2, answered=0))
        _choose(first, EN, option=0)  # "yes": wrong
        _choose(second, KO, option=1)  # "no": right
        _wait_status(teacher, EN("room.panel_counts", joined=2, answered=2))
        # The measurement waits for the Reveal: a kept guess says so, and nothing more.
        assert first.get_by_text(EN("vote.held", guess=EN("questions.collapse_wide_opt_yes"))).count() == 1

        # The timer: the projector counts down, the store's clock closes the vote, no one touches anything.
        _click(teacher, EN("vote.close_timer", seconds=TIMER))
        assert re.search(r"vote 1 closes in \d+ s", _status(teacher)), _status(teacher)
        _wait_status(teacher, EN("vote.status_closed", n=1), timeout_ms=TIMER * 1000 + 30_000)
        _click(teacher, EN("vote.show"))
        _presenter(teacher).locator(CHART).first.wait_for(state="visible")
        assert _presenter(teacher).get_by_text(EN("room.measured"), exact=True).count() == 0  # no answer yet

        _click(teacher, EN("vote.second"))
        _wait_status(teacher, EN("vote.status_open", n=2))
        # Each student's page asks again by itself (its watcher sees the room move).
        for page, t in ((first, EN), (second, KO)):
            page.get_by_text(t("vote.again")).first.wait_for(state="visible", timeout=40_000)
            _choose(page, t, option=1)
        _wait_status(teacher, EN("room.panel_counts", joined=2, answered=2))
        _click(teacher, EN("vote.close_now"))
        _click(teacher, EN("room.reveal"))
        shift = _presenter(teacher).get_by_text(EN("vote.shift", first="50%", last="100%"))
        shift.wait_for(state="visible")
        chart = _presenter(teacher).locator(CHART).first
        teacher.wait_for_timeout(1500)  # vega draws
        titles = chart.evaluate("el => [...el.querySelectorAll('svg .role-title-text')].map(t => t.textContent)")
        assert titles == [EN("vote.vote_n", n=1), EN("vote.vote_n", n=2)], titles
        if SHOT:
            teacher.locator(MAIN).evaluate("el => el.scrollTo(0, 0)")
            teacher.mouse.move(1270, 710)  # off the chart: no hover menu in the picture
            # Between two of the live view's runs: Streamlit fades what a run is redrawing.
            teacher.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=20_000,
                                      polling=50)
            teacher.screenshot(path=SHOT)
        assert _bottom_in_first_screen(teacher, chart) <= 720
        assert _bottom_in_first_screen(teacher, shift) <= 720
        # The students see the measurement now, with the class's second vote.
        first.get_by_text(EN("questions.guess_measured", guess=EN("questions.collapse_wide_opt_no"),
                             measured=EN("questions.collapse_wide_opt_no")) + " ✓").wait_for(timeout=40_000)

        # (e) The results: one row per question and vote, matching the database.
        teacher.locator('[data-testid="stExpandSidebarButton"]').click()
        teacher.get_by_role("button", name=EN("results.open")).click()
        dialog = teacher.locator('[data-testid="stDialog"]')
        dialog.get_by_text(EN("results.most_wrong")).wait_for()
        with teacher.expect_download() as caught:
            dialog.get_by_role("button", name=EN("common.download_csv")).click()
        rows = list(csv.DictReader(io.StringIO(Path(caught.value.path()).read_text(encoding="utf-8"))))
        assert rows and not any("token" in k for k in rows[0])
        got = {(r["question_id"], int(r["vote"])): int(r["votes"]) for r in rows}
        code = re.search(r"room=([A-Z0-9]{6})", join).group(1)
        assert got == _db_counts(db, code)
        wide = [r for r in rows if r["question_id"].split(":")[1] == "questions.collapse_wide"]
        assert [(r["vote"], r["votes"], r["right"], float(r["share_right"])) for r in wide] == [
            ("1", "2", "1", 0.5), ("2", "2", "2", 1.0)]
    finally:
        for ctx in contexts:
            ctx.close()


def test_a_lesson_of_three_steps_moves_a_following_student_with_next(browser, classroom):
    """A lesson built in the app and shared as a link: three steps, Next twice, the student follows by default."""
    srv, _ = classroom
    three = plan.built("three", [("collapse", {"act": "none"}, ("questions.collapse_wide",)),
                                 ("collapse", {"act": "relu"}, ()), ("split", {"d": "1024"}, ())])
    contexts = [_context(browser), _context(browser, phone=True, lang="ko-KR")]
    try:
        teacher, student = (ctx.new_page() for ctx in contexts)
        open_link(teacher, f"{srv.url}/linear_collapse?lang=en&plan={plan.encode(three)}")
        assert "plan=" not in teacher.url  # read once, then out of the address
        join = start_linked_lesson(teacher, EN, 3)
        bar = teacher.locator(".st-key-room_lesson_bar")

        open_link(student, join)
        # In a lesson the student follows by default (the toggle is on, in the closed sidebar).
        assert student.locator(".st-key-_room_follow_widget input").is_checked()

        bar.get_by_role("button", name=EN("lesson.next")).click()
        wait_for_app_run(teacher)
        bar.get_by_text("step 2 of 3").wait_for()
        # The step's label and its settings are drawn by the one run that follows the click; the address
        # is written by the same run, once the control is drawn.
        try:
            teacher.wait_for_function("() => location.search.includes('act=relu')", timeout=40_000)
        except Exception as e:  # say what the page shows, not only that the address never changed
            shown = teacher.locator(f'{MAIN} .st-key-act input').first.input_value(timeout=5_000)
            raise AssertionError(f"step 2's address never came: {teacher.url!r}, the control shows {shown!r}; "
                                 f"the server's log ends:\n{srv.log()[-3000:]}") from e
        student.wait_for_function("() => location.search.includes('act=relu')", timeout=40_000)

        bar.get_by_role("button", name=EN("lesson.next")).click()
        wait_for_app_run(teacher)
        teacher.locator(".st-key-room_lesson_bar").get_by_text("step 3 of 3").wait_for()
        assert teacher.locator(f"{MAIN} h1").first.inner_text().strip() == EN("split.title")
        student.wait_for_function(
            "([sel, want]) => document.querySelector(sel)?.innerText.trim() === want",
            arg=[f"{MAIN} h1", KO("split.title")], timeout=40_000)
        assert "d=1024" in student.url and "room=" in student.url
        assert teacher.locator(".st-key-room_lesson_bar").get_by_role(
            "button", name=EN("lesson.next")).is_disabled()  # the last step
    finally:
        for ctx in contexts:
            ctx.close()
