"""Page 5's questions: each answer is what the page shows for the fits on screen."""
from __future__ import annotations

from hypothesis import example, given, settings

from ffn_core.sweep import best, targets
from tests.question_checks import assert_sound, korean_is_korean, shown_number
from tests.ui.test_lessons_sweep import _reference, _run, _usable, settings_space
from ui.questions import sweep as questions
from ui.verdicts import sweep as verdicts


def _page(s: dict):
    key = (_usable(s["target"]) if s["target"] not in targets.BUILTIN else s["target"]) or targets.DEFAULT
    methods = ("pieces", "naive") if s["method"] == "both" else (s["method"],)
    results = {m: _run(key, s["widths"], s["act"], m, s["seed"]) for m in methods}
    ref = _reference(key, s["widths"], s["act"])
    found = [best.combine(r, *(res.fits[j].rmse for res in results.values())) for j, r in enumerate(ref.rmse)]
    settings_on_screen = {"target": key, "widths": s["widths"], "act": s["act"], "method": s["method"],
                          "seed": s["seed"]}
    return results, questions.ask(results, settings_on_screen), verdicts.judge(results, found)


@settings(max_examples=8)
@given(settings_space)
@example({"target": "sin3x", "widths": (2, 4, 8, 16, 32), "act": "relu", "method": "pieces", "seed": 0})
@example({"target": "x", "widths": (1, 2), "act": "relu", "method": "both", "seed": 0})  # every fit exact: band 0
@example({"target": "abs", "widths": (2,), "act": "gelu", "method": "naive", "seed": 0})  # one width, no pieces
@example({"target": "sin3x", "widths": (2, 4, 8, 16), "act": "relu", "method": "naive", "seed": 0})  # wider, worse
def test_sweep_questions_are_answered_by_the_page(s: dict) -> None:
    results, asked, verdict = _page(s)
    by_key = assert_sound(asked, "sweep", [verdict])
    main = next(iter(results.values()))
    narrow, wide = main.fits[0], main.fits[-1]
    # The page's metric for the widest fit: "≈0" when exact, else f"{rmse:.4g}"; its band read from that.
    shown = 0.0 if wide.rmse <= main.exact_tol else shown_number(f"{wide.rmse:.4g}")
    bands = [0.001, 0.01, 0.1]
    expected = str(sum(shown >= edge for edge in bands))
    if not any(abs(shown - edge) <= 1e-3 * edge for edge in bands):  # 4 digits cannot place a value on an edge
        assert by_key["questions.sweep_rmse"].answer == expected
    if len(main.fits) > 1 and not narrow.exact_on_grid and not wide.exact_on_grid and narrow.rmse / wide.rmse <= 1_000_000:
        # The page's two metrics, narrowest and widest RMSE: how many times lower, within their rounding.
        gain = by_key["questions.sweep_gain"]
        assert abs(gain.answer / (narrow.rmse / wide.rmse) - 1) < 1e-9
        times = wide.width / narrow.width
        expected = "worse" if gain.answer < 1 else "faster" if gain.answer > times else "slower"
        assert gain.why.key == f"questions.sweep_gain_why_{expected}"
    else:
        assert "questions.sweep_gain" not in by_key
    if s["act"] == "relu":
        # The page's metric: f"{pieces} / {m + 1}".
        pieces, bound = f"{wide.pieces} / {wide.width + 1}".split(" / ")
        assert by_key["questions.sweep_pieces"].answer == int(pieces) <= int(bound)
        assert by_key["questions.sweep_pieces"].why.key.endswith("all" if pieces == bound else "fewer")
    else:
        assert "questions.sweep_pieces" not in by_key
    assert narrow.width == s["widths"][0]


def test_the_seed_sweep_asks_about_the_widest_fit():
    _, asked, _ = _page({"target": "sin3x", "widths": (2, 4, 8, 16, 32), "act": "relu", "method": "pieces", "seed": 0})
    by_key = {a.question.key: a for a in asked}
    # The seed reached 0.0250 at m = 32 (between 0.01 and 0.1); the page's fit does at least as well.
    assert by_key["questions.sweep_rmse"].answer in ("0", "1", "2")
    # 16 times the neurons, far more than 16 times lower: the proportional guess (16) misses by more than 2×.
    gain = by_key["questions.sweep_gain"]
    assert gain.answer > 32 and not gain.question.is_right(16, gain.answer)
    korean_is_korean(asked)
    _, other, _ = _page({"target": "sin3x", "widths": (2, 4, 8, 16, 32), "act": "relu", "method": "pieces", "seed": 1})
    assert {a.id for a in asked}.isdisjoint(a.id for a in other)


def test_at_large_widths_the_pieces_band_is_relative_and_all_pieces_is_wrong():
    _, asked, _ = _page({"target": "sin3x", "widths": (2, 256), "act": "relu", "method": "pieces", "seed": 0})
    pieces = next(a for a in asked if a.question.key == "questions.sweep_pieces")
    q = pieces.question
    assert pieces.answer < 200
    # "All 257" is the misconception; m/8 = 32 either side would have taken much of it.
    assert not q.is_right(257, pieces.answer)
    assert q.is_right(pieces.answer * 1.1, pieces.answer) and not q.is_right(pieces.answer * 1.3, pieces.answer)
