"""A teacher's own question, end to end in real browsers: the instructor writes it in the lesson builder on the
view on screen, opens the lesson's link, starts a class and the lesson; two students answer it, vote again after
the first distribution, see the Reveal with the measurement; the results CSV holds the question's text and its
measure."""
from __future__ import annotations

import csv
import io
import os
import sys
from pathlib import Path

import pytest

from e2e_support import APP_ROOT, MAIN, class_context, open_link, start_linked_lesson, wait_for_app_run
from test_vote import _click, _presenter, _wait_status
from stclient import Server

sys.path.insert(0, str(APP_ROOT))
from ui.base import i18n  # noqa: E402

pytestmark = pytest.mark.e2e
EN, KO = i18n.Translator("en"), i18n.Translator("ko")
ASKED = "What share of one block's weights does the FFN hold, in percent?"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("teacher")
    old = os.environ.get("FFNLAB_CLASS_DB")
    os.environ["FFNLAB_CLASS_DB"] = f"sqlite:///{folder / 'class.sqlite'}"
    srv = Server(APP_ROOT)
    try:
        srv.wait_healthy()
        yield srv
    finally:
        srv.proc.terminate()
        srv.proc.wait(timeout=30)
        if old is None:
            os.environ.pop("FFNLAB_CLASS_DB", None)
        else:
            os.environ["FFNLAB_CLASS_DB"] = old


def _open_sidebar(page) -> None:
    expand = page.locator('[data-testid="stExpandSidebarButton"]')
    if expand.count() and expand.first.is_visible():
        expand.first.click()


def _answer(page, t, guess: str) -> None:
    """Type a number into the teacher's question (the page's own two come first) and commit it."""
    box = page.locator(f'{MAIN} [data-testid="stExpander"]').filter(has_text=t("questions.heading")).first
    mark = box.get_by_text(ASKED).first
    mark.wait_for(state="visible", timeout=40_000)
    form = box.locator('[data-testid="stForm"]').filter(has=page.locator('[data-testid="stTextInput"]')).last
    form.locator('[data-testid="stTextInput"] input').fill(guess)
    form.get_by_role("button", name=t("questions.commit")).click()
    wait_for_app_run(page)
    page.get_by_text(t("questions.stored")).first.wait_for(state="visible", timeout=30_000)


def test_a_question_built_in_the_app_is_voted_twice_revealed_and_kept_in_the_results(browser, server):
    contexts = [class_context(browser, accept_downloads=True), class_context(browser),
                class_context(browser, phone=True, lang="ko-KR")]
    try:
        teacher, first, second = (ctx.new_page() for ctx in contexts)
        open_link(teacher, f"{server.url}/parameter_split?lang=en")
        _open_sidebar(teacher)
        sidebar = teacher.locator('[data-testid="stSidebar"]')
        sidebar.get_by_text(EN("lesson.build")).click()
        wait_for_app_run(teacher)
        sidebar.get_by_label(EN("lesson.ask_text")).fill(ASKED)
        sidebar.get_by_label(EN("lesson.ask_text")).press("Tab")
        value = sidebar.get_by_label(EN("lesson.ask_value"))
        value.fill("3")
        value.press("Tab")
        wait_for_app_run(teacher)
        sidebar.get_by_role("button", name=EN("lesson.ask_add")).click()
        wait_for_app_run(teacher)
        sidebar.get_by_text(EN("lesson.ask_added", n=1, asks=1)).wait_for()
        link = sidebar.locator('[data-testid="stCode"]').filter(has_text="plan=").inner_text().strip()

        # The lesson's link, as the instructor would share it with themself or a colleague.
        open_link(teacher, link)
        join = start_linked_lesson(teacher, EN, 1)
        _presenter(teacher).locator(".room-q").filter(has_text=ASKED).wait_for(timeout=40_000)
        open_link(first, join)
        open_link(second, join)
        # The Korean student reads the teacher's English as written, marked as the teacher's.
        second.get_by_text(KO("questions.teacher_mark").strip("*")).first.wait_for(timeout=40_000)
        _answer(first, EN, "66")  # the measured share is 66.67%: right within ±3
        _answer(second, KO, "10")
        _wait_status(teacher, EN("room.panel_counts", joined=2, answered=2))
        _click(teacher, EN("vote.close_now"))
        _click(teacher, EN("vote.show"))
        _click(teacher, EN("vote.second"))
        _wait_status(teacher, EN("vote.status_open", n=2))
        for page, t in ((first, EN), (second, KO)):
            page.get_by_text(t("vote.again")).first.wait_for(state="visible", timeout=40_000)
            _answer(page, t, "67")
        _wait_status(teacher, EN("room.panel_counts", joined=2, answered=2))
        _click(teacher, EN("vote.close_now"))
        _click(teacher, EN("room.reveal"))
        _presenter(teacher).get_by_text(EN("vote.shift", first="50%", last="100%")).wait_for()
        assert "66.7%" in _presenter(teacher).inner_text()  # the measurement the Reveal shows
        # After the Reveal each student reads the measurement beside their own guess.
        first.get_by_text(EN("questions.guess_measured", guess="67%", measured="66.7%") + " ✓").first.wait_for(
            timeout=40_000)

        _open_sidebar(teacher)
        sidebar.get_by_role("button", name=EN("results.open")).click()
        dialog = teacher.locator('[data-testid="stDialog"]')
        with teacher.expect_download() as caught:
            dialog.get_by_role("button", name=EN("common.download_csv")).click()
        rows = list(csv.DictReader(io.StringIO(Path(caught.value.path()).read_text(encoding="utf-8"))))
        mine = [r for r in rows if r["question"] == ASKED]
        assert [(r["measure"], r["vote"], r["votes"], r["right"]) for r in mine] == [
            ("ffn_share", "1", "2", "1"), ("ffn_share", "2", "2", "2")], rows
    finally:
        for ctx in contexts:
            ctx.close()
