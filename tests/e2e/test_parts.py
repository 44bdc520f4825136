"""A student's move reruns only the part of the page that holds the control (ui.kit.shell.part), against the
real server, spoken to as the browser speaks to it (bench/stclient.py): the title, the lesson and the
sidebar are not drawn again, the part's results are, and a page whose sections have controls of their
own (the GPT surgery) reruns only the section moved."""

from __future__ import annotations

import random

import pytest

from e2e_support import demo_pages, page_ids
from stclient import Session, current_value, neighbour

PAGES = demo_pages()


def _moved(server, page, key: str | None = None):
    session = Session(server.url)
    try:
        opened = session.open(page, "lang=en")
        assert opened.ok, opened.exceptions
        widget = opened.widgets[0] if key is None else next(w for w in opened.widgets if w.key == key)
        assert widget.fragment_id, f"{page.name}: control {widget.key} is drawn outside a part of the page"
        value = neighbour(widget, random.Random(3), current_value(widget))
        return opened, session.set(widget, value)
    finally:
        session.close()


@pytest.mark.parametrize("app_page", PAGES, ids=page_ids(PAGES))
def test_a_move_reruns_its_part_alone(server, app_page):
    opened, moved = _moved(server, app_page)
    assert moved.ok and moved.status == "FINISHED_FRAGMENT_RUN_SUCCESSFULLY", (moved.status, moved.exceptions)
    # The page's first text (its lede, above every part) was drawn by the full run and not by the move.
    assert opened.texts and opened.texts[0] not in moved.texts
    assert len(moved.texts) < len(opened.texts)
    # What the part shows is drawn again: its controls and results.
    assert moved.widgets and (moved.metrics or moved.charts or moved.captions)


def test_each_surgery_section_reruns_alone(server):
    surgery = next(p for p in PAGES if p.url_path == "gpt_surgery")
    opened, moved = _moved(server, surgery, "step")
    assert moved.ok and moved.status == "FINISHED_FRAGMENT_RUN_SUCCESSFULLY"
    assert {w.key for w in moved.widgets} == {"step"}  # not the ablation's or the edit's controls
    sparsity = [label for label, _ in moved.metrics]
    assert sparsity and set(sparsity) < {label for label, _ in opened.metrics}
