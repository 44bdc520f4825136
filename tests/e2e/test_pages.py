"""A tour of every page (home and each file in pages/), once in Korean and once in English: it runs,
it draws its charts, it speaks the language asked for in the link, its numbers fit their boxes, a
screenshot is kept for review, and a demo page's first table arrives as a CSV in the page's language
(written when the button is pressed, not on every rerun). (Numbers kept whole in projector mode:
test_first_screen.py, which walks every page in it.)"""

from __future__ import annotations

import csv
import io

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
    wait_for_app_run,
    wait_for_charts,
)

PAGES = discover_pages()


def hangul_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    return sum(bool(HANGUL.match(c)) for c in letters) / max(len(letters), 1)


def download_first_table(page, name: str) -> list[list[str]]:
    """Press the page's first download button (opening the box that folds it) and read the CSV."""
    buttons = page.locator(f'{MAIN} [data-testid="stDownloadButton"] button')
    # A table may wait in a closed box: one drawn but closed shows its button once opened; one folded
    # (ui/widgets.folded) draws its table only when opened, so the closed boxes are opened in turn.
    boxes = page.locator(f'{MAIN} [data-testid="stExpander"] details:not([open]) > summary')
    while not buttons.filter(visible=True).count() and boxes.count():
        drawn = page.locator(f'{MAIN} [data-testid="stExpander"]:not(:has(details[open]))').filter(
            has=page.locator('[data-testid="stDownloadButton"]'))
        (drawn.first.locator("summary") if drawn.count() else boxes.first).click()
        wait_for_app_run(page)
    assert buttons.filter(visible=True).count(), f"{name}: no download button"
    button = buttons.filter(visible=True).first
    button.scroll_into_view_if_needed()
    with page.expect_download() as info:
        button.click()
    download = info.value
    assert download.suggested_filename.endswith(".csv"), download.suggested_filename
    with open(download.path(), encoding="utf-8") as f:
        text = f.read()
    rows = list(csv.reader(io.StringIO(text)))
    assert len(rows) >= 2, f"{name}: a CSV with no data rows: {text[:200]!r}"
    assert len({len(row) for row in rows}) == 1, f"{name}: ragged CSV: {text[:300]!r}"
    assert all(cell.strip() for cell in rows[0]), f"{name}: an unnamed column in {rows[0]}"
    return rows


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("app_page", PAGES, ids=page_ids(PAGES))
def test_page_renders_in_language(tab, server, app_page, lang):
    page = tab
    open_app(page, server, app_page, f"lang={lang}")
    assert_no_exception(page, server)
    demo = app_page.name not in REFERENCE and app_page is not PAGES[0]
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
    if demo:
        header = download_first_table(page, app_page.name)[0]
        # Column names are translated with the page; a Korean table must not arrive with English headers.
        assert bool(HANGUL.search(",".join(header))) == (lang == "ko"), f"{app_page.name} ({lang}): header {header}"
        assert_no_exception(page, server)
