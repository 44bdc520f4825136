"""Nothing a class must read is cut off: the home page's demo-card titles in both languages, in the
normal and the projector view, on 1280- and 1400-pixel windows; and the projector view's metric
labels and select labels on the pages that have the longest ones."""

from __future__ import annotations

import pytest

from e2e_support import VIEWPORT_HEIGHT, assert_no_exception, demo_pages, discover_pages, open_app

PAGES = {p.name: p for p in discover_pages()}
HOME = next(iter(PAGES.values()))

# An element is cut when its text needs more room than its box gives it: wider (an ellipsis or a
# clipped line) or, for a line-clamped title, taller.
CUT = """(selector) => [...document.querySelectorAll(selector)]
    .filter(el => el.offsetParent !== null)
    .filter(el => [el, ...el.querySelectorAll('*')].some(
        e => e.scrollWidth > e.clientWidth + 1 || (getComputedStyle(e).overflow !== 'visible'
                                                   && e.scrollHeight > e.clientHeight + 1)))
    .map(el => el.innerText.trim())"""
CARD_TITLES = '[data-testid="stMain"] [data-testid="stPageLink"]'
METRIC_LABELS = '[data-testid="stMetricLabel"]'
WIDGET_LABELS = '[data-testid="stMain"] [data-testid="stWidgetLabel"]'


def cut_texts(page, selector: str) -> list[str]:
    return page.evaluate(CUT, selector)


@pytest.mark.parametrize("present", [False, True], ids=["normal", "projector"])
@pytest.mark.parametrize("lang", ["ko", "en"])
def test_home_card_titles_are_whole(new_page, server, lang, present):
    page = new_page()
    open_app(page, server, HOME, f"lang={lang}" + ("&present=1" if present else ""))
    assert_no_exception(page, server)
    assert page.evaluate(f"() => document.querySelectorAll('{CARD_TITLES}').length") == len(demo_pages())  # a card for each experiment
    cut = {}
    for width in (1280, 1400):  # a common projector, and a laptop
        page.set_viewport_size({"width": width, "height": VIEWPORT_HEIGHT})
        page.wait_for_timeout(300)  # let the layout follow the window
        cut[width] = cut_texts(page, CARD_TITLES)
    assert cut == {1280: [], 1400: []}


@pytest.mark.parametrize("name, lang, selector", [("key_value", "ko", METRIC_LABELS), ("key_value", "en", METRIC_LABELS),
                                                  ("activation_sparsity", "ko", WIDGET_LABELS)])
def test_projector_labels_are_whole(new_page, server, name, lang, selector):
    page = new_page()
    open_app(page, server, PAGES[name], f"lang={lang}&present=1")
    assert_no_exception(page, server)
    assert page.evaluate(f"() => document.querySelectorAll('{selector}').length") > 0
    assert cut_texts(page, selector) == []
