"""A class run by the keyboard alone: Tab to move, Enter or Space to press, typing only into text boxes
(and, inside a radio group, which is one stop of the Tab order, an arrow key to the next option).

The instructor starts a room, closes the first vote and opens a second, shows the votes, reveals, starts
the shipped lesson and moves it on with Next. A student joins by typing the room's code, answers a
choice and a number question, votes again, and reads the measured result. Every control reached is
checked to show its focus: the screen around it differs from the same screen with focus taken away.
"""
from __future__ import annotations

import re
import sys

import pytest

from e2e_support import APP_ROOT, MAIN, discover_pages, open_class_box, open_link, wait_for_app_run

sys.path.insert(0, str(APP_ROOT))
from ui.base import i18n  # noqa: E402

pytestmark = pytest.mark.e2e
EN = i18n.Translator("en")
COLLAPSE = next(p for p in discover_pages() if p.file.endswith("linear_collapse.py"))
LAPTOP = {"width": 1400, "height": 900}
MOST_TABS = 250  # the sidebar's menu and a page's controls: a control further than this is unreachable in practice

# What the focused element is called, as a screen reader would say it: its aria-label, its label's text (a
# radio's option), or its own text without what is hidden from the reader (a button's icon ligature).
FOCUSED = """() => {
    const a = document.activeElement;
    if (!a || a === document.body) return null;
    const spoken = el => {
        if (!el) return '';
        const copy = el.cloneNode(true);
        copy.querySelectorAll('[aria-hidden="true"], [data-testid="stIconMaterial"]').forEach(e => e.remove());
        return copy.textContent.replace(/\\s+/g, ' ');
    };
    const label = a.closest('label');
    const byId = a.id ? document.querySelector(`label[for="${CSS.escape(a.id)}"]`) : null;
    return {tag: a.tagName.toLowerCase(), type: a.getAttribute('type'),
            name: (a.getAttribute('aria-label') || spoken(byId) || spoken(label) || spoken(a)).trim(),
            box: (() => { const e = (a.getBoundingClientRect().width < 4 && label) ? label : a;
                          const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height}; })()};
}"""


def _focus_shows(page, box: dict) -> bool:
    """Whether focus is drawn: the area around the focused element, with focus and with it taken away, differ."""
    pad = 6
    clip = {"x": max(0, box["x"] - pad), "y": max(0, box["y"] - pad),
            "width": max(1, box["width"] + 2 * pad), "height": max(1, box["height"] + 2 * pad)}
    with_focus = page.screenshot(clip=clip, animations="disabled")
    page.evaluate("() => { window.__kbFocused = document.activeElement; document.activeElement.blur(); }")
    without = page.screenshot(clip=clip, animations="disabled")
    page.evaluate("() => window.__kbFocused && window.__kbFocused.focus()")
    return with_focus != without


def tab_to(page, name: str | re.Pattern, *, kind: str | None = None, back: bool = False) -> dict:
    """Press Tab (Shift+Tab with `back`) until the focused element is called `name` (and is a `kind` element);
    fail if it is never reached, or if its focus cannot be seen."""
    key = "Shift+Tab" if back else "Tab"
    for _ in range(MOST_TABS):
        page.keyboard.press(key)
        now = page.evaluate(FOCUSED)
        if now is None or (kind is not None and now["tag"] != kind and now["type"] != kind):
            continue
        if (name.search(now["name"]) if isinstance(name, re.Pattern) else now["name"] == name):
            page.wait_for_timeout(150)  # a focus ring may fade in
            assert _focus_shows(page, now["box"]), f"{name!r} has focus, but nothing on screen shows it"
            return now
    raise AssertionError(f"{name!r} never took focus in {MOST_TABS} presses of {key} on {page.url}")


def press(page, key: str) -> None:
    page.keyboard.press(key)
    wait_for_app_run(page)


def start_over(page) -> None:
    """Let go of the focus (a run may have redrawn what held it); Tab goes on from there, round past the end."""
    page.evaluate("() => document.activeElement && document.activeElement.blur()")


def _wait_status(teacher, text: str) -> None:
    teacher.wait_for_function(
        "([sel, want]) => [...document.querySelectorAll(sel)].some(e => e.innerText.includes(want))",
        arg=[f'{MAIN} [class*="st-key-room_presenter"] .room-status', text], timeout=30_000)


def test_a_class_runs_by_keyboard_alone(browser, classroom):
    contexts = [browser.new_context(locale="en-US", viewport=LAPTOP) for _ in range(2)]
    try:
        for ctx in contexts:
            ctx.set_default_timeout(60_000)
        teacher, student = (ctx.new_page() for ctx in contexts)

        # The instructor starts a room.
        open_link(teacher, f"{classroom.url}/{COLLAPSE.url_path}?lang=en")
        tab_to(teacher, EN("room.section_closed"))  # the class box, folded outside a class: Enter opens it
        press(teacher, "Enter")
        tab_to(teacher, EN("room.start"), kind="button")
        press(teacher, "Enter")
        card = teacher.locator(".st-key-room_join_card")
        card.wait_for(state="visible")
        code = re.search(r"room=([A-Z0-9]{6})", card.locator('[data-testid="stCode"]').inner_text()).group(1)

        # The student types the code into the class section and presses Enter.
        open_link(student, f"{classroom.url}/{COLLAPSE.url_path}?lang=en")
        tab_to(student, EN("room.section_closed"))
        press(student, "Enter")
        tab_to(student, EN("access.join_code"), kind="input")
        student.keyboard.type(code.lower())  # as typed off a projector: the case does not matter
        press(student, "Enter")
        sidebar = student.locator('[data-testid="stSidebar"]')
        sidebar.get_by_text(re.compile(f"room {code}")).first.wait_for(timeout=30_000)

        # A choice: Tab to its first option, Space picks it, Tab to Commit, Enter.
        box = student.locator(f'{MAIN} [data-testid="stExpander"]').filter(has_text=EN("questions.heading")).first
        options = box.locator('[data-testid="stRadio"]').first.locator("label:has(input)")
        first_option = options.first.inner_text().strip()
        start_over(student)
        tab_to(student, first_option, kind="radio")
        student.keyboard.press("Space")
        tab_to(student, EN("questions.commit"), kind="button")
        press(student, "Enter")
        stored = student.get_by_text(EN("questions.stored"))
        stored.first.wait_for(state="visible", timeout=30_000)

        # A number: Tab to its box, type it, Enter commits (the room takes one guess a second).
        student.wait_for_timeout(1100)
        start_over(student)
        tab_to(student, EN("questions.your_number"), kind="input")
        student.keyboard.type("64")
        press(student, "Enter")
        stored.nth(1).wait_for(state="visible", timeout=30_000)

        # The instructor closes the first vote and opens the second: each button by Tab, Enter or Space.
        _wait_status(teacher, EN("room.panel_counts", joined=1, answered=1))
        start_over(teacher)
        tab_to(teacher, EN("vote.close_now"), kind="button")
        press(teacher, "Enter")
        _wait_status(teacher, EN("vote.status_closed", n=1))
        start_over(teacher)
        tab_to(teacher, EN("vote.second"), kind="button")
        press(teacher, "Space")
        _wait_status(teacher, EN("vote.status_open", n=2))

        # The student votes again: the form is back (the page looks at the room by itself), another option.
        again = box.locator('[data-testid="stRadio"]').first.locator("label:has(input)")
        again.first.wait_for(state="visible", timeout=30_000)
        second_option = again.nth(1).inner_text().strip()
        start_over(student)
        # A radio group is one stop of the Tab order; its arrow keys move between its options (the platform's
        # own keys for a group, as WAI-ARIA's radio group pattern has them), Space picks the one focused.
        tab_to(student, again.first.inner_text().strip(), kind="radio")
        student.keyboard.press("ArrowRight")
        assert student.evaluate(FOCUSED)["name"] == second_option
        student.keyboard.press("Space")
        assert again.nth(1).locator("input").is_checked()
        tab_to(student, EN("questions.commit"), kind="button")
        press(student, "Enter")
        student.get_by_text(EN("questions.stored")).first.wait_for(state="visible", timeout=30_000)

        # The instructor shows the votes, then reveals.
        _wait_status(teacher, EN("room.panel_counts", joined=1, answered=1))
        start_over(teacher)
        tab_to(teacher, EN("vote.show"), kind="button")
        press(teacher, "Space")
        teacher.locator(f'{MAIN} [class*="st-key-room_presenter"] [data-testid="stVegaLiteChart"]').first.wait_for(
            timeout=30_000)
        start_over(teacher)
        tab_to(teacher, EN("room.reveal"), kind="button")
        press(teacher, "Enter")
        measured = EN("room.panel_measured", value="").replace("*", "").strip()
        teacher.get_by_text(measured).first.wait_for(timeout=30_000)

        # The student reads the result: the guess beside the measurement, judged in words and a mark.
        said = re.compile(re.escape(EN("questions.guess_measured", guess="§", measured="¶")).replace("§", ".+")
                          .replace("¶", ".+") + " [✓✗]")
        result = box.get_by_text(said).first
        result.wait_for(state="visible", timeout=30_000)
        assert said.search(result.inner_text()), result.inner_text()

        # The instructor starts the shipped lesson and moves it on with Next.
        start_over(teacher)
        tab_to(teacher, EN("lesson.start"), kind="button")
        press(teacher, "Enter")
        bar = teacher.locator(".st-key-room_lesson_bar")
        step = re.compile(r"step (\d+) of (\d+)")
        bar.get_by_text(step).first.wait_for(timeout=30_000)
        before = step.search(bar.inner_text()).group(1)
        start_over(teacher)
        tab_to(teacher, EN("lesson.next"), kind="button")
        press(teacher, "Enter")
        teacher.wait_for_function(
            "([sel, was]) => { const m = (document.querySelector(sel)?.innerText || '').match(/step (\\d+) of/);"
            " return m && m[1] !== was; }", arg=[".st-key-room_lesson_bar", before], timeout=30_000)
        assert step.search(bar.inner_text()).group(1) == str(int(before) + 1)
    finally:
        for ctx in contexts:
            ctx.close()
