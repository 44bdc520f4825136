"""The CSV behind a page's table: written when the button is pressed (not on every rerun), and what
arrives in the browser is the table, in the page's language."""

from __future__ import annotations

import csv
import io

import pytest

from e2e_support import HANGUL, MAIN, assert_no_exception, demo_pages, open_app, page_ids

PAGES = demo_pages()


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("app_page", PAGES, ids=page_ids(PAGES))
def test_first_table_downloads_as_csv(new_page, server, app_page, lang):
    page = new_page()
    open_app(page, server, app_page, f"lang={lang}")
    assert_no_exception(page, server)
    buttons = page.locator(f'{MAIN} [data-testid="stDownloadButton"] button')
    assert buttons.count(), f"{app_page.name}: no download button"
    if not buttons.filter(visible=True).count():  # the page keeps its tables in a closed expander
        expander = page.locator(f'{MAIN} [data-testid="stExpander"]').filter(
            has=page.locator('[data-testid="stDownloadButton"]')).first
        expander.locator("summary").click()
    button = buttons.filter(visible=True).first
    button.scroll_into_view_if_needed()
    with page.expect_download() as info:
        button.click()
    download = info.value
    assert download.suggested_filename.endswith(".csv"), download.suggested_filename
    with open(download.path(), encoding="utf-8") as f:
        text = f.read()
    rows = list(csv.reader(io.StringIO(text)))
    assert len(rows) >= 2, f"{app_page.name}: a CSV with no data rows: {text[:200]!r}"
    assert len({len(row) for row in rows}) == 1, f"{app_page.name}: ragged CSV: {text[:300]!r}"
    assert all(cell.strip() for cell in rows[0]), f"{app_page.name}: an unnamed column in {rows[0]}"
    # Column names are translated with the page; a Korean table must not arrive with English headers.
    assert bool(HANGUL.search(",".join(rows[0]))) == (lang == "ko"), f"{app_page.name} ({lang}): header {rows[0]}"
    assert_no_exception(page, server)
