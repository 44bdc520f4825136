"""The width sweep's Train press goes through the turns: counted, one per session, repeats ignored.

AppTest runs the page as one session. REPEAT_S (how soon after a training a press counts as one
made while it ran) is set far out of reach or to zero, so no assertion depends on how fast the
machine is.
"""
import pytest

from ffn_core.sweep import sweep
from tests.conftest import chart_specs, open_page
from ui.compute import cache

pytestmark = pytest.mark.usefixtures("fresh_caches")  # counts what is computed: starts from empty caches

PAGE = "pages/5_width_sweep.py"


def _press(at) -> int:
    """Press Train; how many trainings the server computed for it."""
    before = cache.TURNS.counts["computed"]
    at.button(key="train").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return cache.TURNS.counts["computed"] - before


def _last_loss(at) -> dict[int, float]:
    rows = [r for s in chart_specs(at) for rows in s["datasets"].values() for r in rows if "step" in r]
    last = max(r["step"] for r in rows)
    return {r["width"]: r["rmse"] for r in rows if r["step"] == last}


def test_a_press_during_a_training_shows_its_result_without_training_again(monkeypatch):
    monkeypatch.setattr(cache, "REPEAT_S", 3600.0)  # every press counts as made while it ran
    at = open_page(PAGE, "en", widths=["2", "8"])
    assert _press(at) == 1
    first = _last_loss(at)
    assert _press(at) == 0 and _press(at) == 0
    assert _last_loss(at) == first  # the same final curves, drawn at once
    ref = sweep.fit_widths(widths=(2, 8))
    assert first == pytest.approx({f.width: f.history[-1] for f in ref.fits}, rel=1e-9)


def test_a_press_after_watching_trains_again(monkeypatch):
    monkeypatch.setattr(cache, "REPEAT_S", 0.0)
    at = open_page(PAGE, "en", widths=["2", "8"], method="both")
    assert _press(at) == 2  # one training per method
    assert _press(at) == 2
