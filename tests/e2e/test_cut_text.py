"""Nothing a class must read is cut off: the home page's demo-card titles in both languages, in the
normal and the projector view, on 1280- and 1400-pixel windows. (Every page's metric values, metric
labels and control labels in the projector view: test_first_screen.py.)"""

from __future__ import annotations

import pytest

from e2e_support import VIEWPORT_HEIGHT, assert_no_exception, cut_texts, demo_pages, discover_pages, open_app

PAGES = {p.name: p for p in discover_pages()}
HOME = next(iter(PAGES.values()))

CARD_TITLES = '[data-testid="stMain"] [data-testid="stPageLink"]'


@pytest.mark.parametrize("present", [False, True], ids=["normal", "projector"])
@pytest.mark.parametrize("lang", ["ko", "en"])
def test_home_card_titles_are_whole(tab, server, lang, present):
    page = tab
    open_app(page, server, HOME, f"lang={lang}" + ("&present=1" if present else ""))
    assert_no_exception(page, server)
    assert page.evaluate(f"() => document.querySelectorAll('{CARD_TITLES}').length") == len(demo_pages())  # a card for each experiment
    cut = {}
    for width in (1280, 1400):  # a common projector, and a laptop
        page.set_viewport_size({"width": width, "height": VIEWPORT_HEIGHT})
        page.wait_for_timeout(300)  # let the layout follow the window
        cut[width] = cut_texts(page, CARD_TITLES)
    assert cut == {1280: [], 1400: []}
