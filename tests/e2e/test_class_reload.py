"""A class that survives reloads, in real browsers on one `streamlit run dashboard.py` (the app's st.App with
its cookie route and watcher): an instructor at 1280×720 and three students, one a Korean phone at 390×844,
on page 9's memory edit.

- Page 9's edit question is one question for the room: the English and the Korean student answer it and the
  instructor's panel counts both under it (its prompt language is the instructor's, carried by the join address).
- A student reloads: the same seat (the panel's counts do not move) and their guess is shown again.
- The instructor reloads: the panel, the join card and the room's code are back, the key nowhere on the page.
- Reveal reaches every student within a few seconds, the one who only looked included.
"""
from __future__ import annotations

import os
import re
import time

import pytest

from e2e_support import (APP_ROOT, CHART, MAIN, Server, class_context, discover_pages, free_port, open_class_box, open_link,
                          wait_for_app_run)
from ui.base import i18n

pytestmark = pytest.mark.e2e
SURGERY = next(p for p in discover_pages() if p.file.endswith("gpt_surgery.py"))
EN, KO = i18n.Translator("en"), i18n.Translator("ko")
EDIT_BOX = 1  # page 9's question boxes: the ablation's, the edit's, the sparsity's


@pytest.fixture(scope="module")
def class_server(tmp_path_factory):
    """A server of its own, with a class database of its own (the per-address bounds count from zero)."""
    folder = tmp_path_factory.mktemp("class_reload")
    before = os.environ.get("FFNLAB_DATA_DIR")
    os.environ["FFNLAB_DATA_DIR"] = str(folder)
    srv = Server(APP_ROOT, free_port())
    try:
        srv.wait_healthy()
        yield srv
    finally:
        srv.stop()
        if before is None:
            os.environ.pop("FFNLAB_DATA_DIR", None)
        else:
            os.environ["FFNLAB_DATA_DIR"] = before


def _edit_box(page, t):
    return page.locator(f'{MAIN} [data-testid="stExpander"]').filter(has_text=t("questions.heading")).nth(EDIT_BOX)


def _edit_question(page, t) -> str:
    """The edit question's text as the page shows it (its first line in the box)."""
    box = _edit_box(page, t)
    box.locator('[data-testid="stRadio"], [data-testid="stAlert"]').first.wait_for(state="visible", timeout=120_000)
    return box.locator('[data-testid="stMarkdownContainer"] strong').first.inner_text()


def _counts(page, joined: int, answered: int):
    return page.get_by_text(EN("room.panel_counts", joined=joined, answered=answered))


def _panel_counts(page) -> list[str]:
    pattern = re.compile(EN("room.panel_counts", joined=r"\d+", answered=r"\d+"))
    return [c for c in page.locator(f"{MAIN} p").all_inner_texts() if pattern.fullmatch(c.strip())]


def test_reloads_keep_seats_guesses_and_the_panel(browser, class_server):
    url = class_server.url
    contexts = []
    try:
        contexts.append(ctx := class_context(browser))
        teacher = ctx.new_page()
        open_link(teacher, f"{url}/{SURGERY.url_path}?lang=en")
        open_class_box(teacher, EN)
        teacher.get_by_role("button", name=EN("room.start")).click()
        wait_for_app_run(teacher)
        card = teacher.locator('.st-key-room_join_card [data-testid="stCode"]')
        card.wait_for(state="visible", timeout=120_000)
        short = card.inner_text().strip()
        code = re.search(r"room=([A-Z0-9]{6})", short).group(1)
        assert "edit_lang=en" in short, short  # the prompt's language travels with the room's address
        teacher.wait_for_timeout(1500)  # the browser fetches the instructor's cookie (an invisible image)
        assert any(c["name"] == "ffnlab_host" and c["httpOnly"] and c["sameSite"] == "Lax"
                   for c in ctx.cookies()), ctx.cookies()

        students = []
        for phone, lang, t in ((False, "en-US", EN), (True, "ko-KR", KO), (False, "en-US", EN)):
            contexts.append(sctx := class_context(browser, phone=phone, lang=lang))
            page = sctx.new_page()
            open_link(page, f"http://{short}")
            students.append((sctx, page, t))
        en_student, ko_student, looker = students
        # One question in two languages: the Korean phone reads it in Korean about the English prompt.
        en_text, ko_text = _edit_question(en_student[1], EN), _edit_question(ko_student[1], KO)
        prompt = re.search(r"“(.+?) …”", en_text).group(1)
        assert prompt.isascii() and f"“{prompt} …”" in ko_text and ko_text != en_text, (en_text, ko_text)

        for _, page, t in students[:2]:
            box = _edit_box(page, t)
            box.locator('[data-testid="stRadio"] label:has(input)').first.click()
            box.get_by_role("button", name=t("questions.commit")).first.click()
            wait_for_app_run(page)
            page.get_by_text(t("questions.stored")).first.wait_for(state="visible", timeout=30_000)
        _edit_box(looker[1], EN).get_by_role("button", name=EN("questions.look")).first.click()
        wait_for_app_run(looker[1])
        for _, page, _t in students:
            page.wait_for_timeout(1500)  # each seat's cookie
        assert all(any(c["name"] == "ffnlab_seat" and c["httpOnly"] for c in s[0].cookies()) for s in students)

        # The panel counts the two languages' answers under one question.
        _counts(teacher, 3, 2).first.wait_for(timeout=20_000)
        before = _panel_counts(teacher)

        # A student reloads: the same seat and the same guess.
        en_student[1].reload(wait_until="domcontentloaded")
        wait_for_app_run(en_student[1])
        box = _edit_box(en_student[1], EN)
        box.get_by_text(EN("questions.stored")).wait_for(state="visible", timeout=60_000)
        assert box.locator('[data-testid="stRadio"]').count() == 0  # the choice is not asked again (the box's number question is)
        assert f"room={code}" in en_student[1].url
        teacher.wait_for_timeout(3000)  # the panel redraws every 2 s
        assert _panel_counts(teacher) == before

        # The instructor reloads: the panel, the card and the code are back; the key is nowhere on the page.
        # Students have joined, so the card is folded to its one line (the room's code), and opens again.
        teacher.reload(wait_until="domcontentloaded")
        wait_for_app_run(teacher)
        line = teacher.locator(".st-key-room_join_line")
        line.wait_for(state="visible", timeout=120_000)
        assert code in line.inner_text()
        line.locator("summary").first.click()
        wait_for_app_run(teacher)
        card.wait_for(state="visible", timeout=60_000)
        assert f"room={code}" in card.inner_text()
        assert teacher.get_by_role("button", name=EN("room.start")).count() == 0
        _counts(teacher, 3, 2).first.wait_for(timeout=30_000)
        assert _panel_counts(teacher) == before
        host = next(c["value"] for c in ctx.cookies() if c["name"] == "ffnlab_host")
        html = teacher.content()
        assert host not in html and host not in teacher.url

        # Reveal the edit question: every student's page shows the class's guesses within a few seconds.
        # The presenter's view shows one question of each box at a time, the edit's box last: its Reveal is the last.
        teacher.get_by_role("button", name=EN("room.reveal")).last.click()
        revealed = time.monotonic()
        waits = []
        for _, page, t in students:
            _edit_box(page, t).locator(CHART).last.wait_for(state="visible", timeout=30_000)
            waits.append(time.monotonic() - revealed)
        print(f"\nReveal reached the three students after {', '.join(f'{w:.1f}' for w in waits)} s (room {code})")
    finally:
        for ctx in contexts:
            ctx.close()
