"""Every page (home and each file in pages/), in Korean and English: it runs, it draws its charts,
it speaks the language asked for in the link, its numbers fit their boxes (on a projector too),
and a screenshot is kept for review."""

from __future__ import annotations

import pytest

from e2e_support import (
    HANGUL,
    MAIN,
    REFERENCE,
    assert_no_exception,
    cut_metric_values,
    discover_pages,
    main_title,
    open_app,
    page_ids,
    screenshot,
    wait_for_charts,
)

PAGES = discover_pages()


def hangul_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    return sum(bool(HANGUL.match(c)) for c in letters) / max(len(letters), 1)


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("app_page", PAGES, ids=page_ids(PAGES))
def test_page_renders_in_language(new_page, server, app_page, lang):
    page = new_page()
    open_app(page, server, app_page, f"lang={lang}")
    assert_no_exception(page, server)
    if app_page.name not in REFERENCE:
        assert wait_for_charts(page) >= 1
    assert main_title(page)
    share = hangul_share(page.locator(MAIN).inner_text())
    if lang == "ko":
        assert share > 0.2, f"{app_page.name}?lang=ko: only {share:.0%} of the letters are Hangul"
    else:
        assert share < 0.02, f"{app_page.name}?lang=en: {share:.0%} of the letters are Hangul"
    assert cut_metric_values(page) == []
    screenshot(page, f"{app_page.name}-{lang}")


@pytest.mark.parametrize("app_page", PAGES, ids=page_ids(PAGES))
def test_projector_mode_keeps_every_number_whole(new_page, server, app_page):
    # Projector mode enlarges all text on a 1280-pixel-wide window, a common projector size.
    page = new_page()
    open_app(page, server, app_page, "lang=ko&present=1")
    assert_no_exception(page, server)
    if app_page.name not in REFERENCE:
        wait_for_charts(page)
    assert cut_metric_values(page) == []
