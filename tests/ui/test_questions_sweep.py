"""Page 4's questions: each answer is what the page shows for the fits on screen."""
from __future__ import annotations

from hypothesis import example, given, settings

from ffn_core.sweep import best, targets
from tests.question_checks import assert_sound, korean_is_korean, shown_number
from tests.ui.test_lessons_sweep import _reference, _run, _usable, settings_space
from ui.questions import sweep as questions


def _page(s: dict):
    key = (_usable(s["target"]) if s["target"] not in targets.BUILTIN else s["target"]) or targets.DEFAULT
    methods = ("pieces", "naive") if s["method"] == "both" else (s["method"],)
    results = {m: _run(key, s["widths"], s["act"], m, s["seed"]) for m in methods}
    ref = _reference(key, s["widths"], s["act"])
    found = [best.combine(r, *(res.fits[j].rmse for res in results.values())) for j, r in enumerate(ref.rmse)]
    settings_on_screen = {"target": key, "widths": s["widths"], "act": s["act"], "method": s["method"],
                          "seed": s["seed"]}
    return results, questions.ask(results, found, settings_on_screen)


@settings(max_examples=8)
@given(settings_space)
@example({"target": "sin3x", "widths": (2, 4, 8, 16, 32), "act": "relu", "method": "pieces", "seed": 0})
@example({"target": "x", "widths": (1, 2), "act": "relu", "method": "both", "seed": 0})  # every fit exact: band 0
@example({"target": "abs", "widths": (2,), "act": "gelu", "method": "naive", "seed": 0})  # one width, no pieces
def test_sweep_questions_are_answered_by_the_page(s: dict) -> None:
    results, asked = _page(s)
    by_key = assert_sound(asked, "sweep")
    main = next(iter(results.values()))
    narrow, wide = main.fits[0], main.fits[-1]
    # The page's metric for the widest fit: "≈0" when exact, else f"{rmse:.4g}"; its band read from that.
    shown = 0.0 if wide.rmse <= main.exact_tol else shown_number(f"{wide.rmse:.4g}")
    bands = [0.001, 0.01, 0.1]
    expected = str(sum(shown >= edge for edge in bands))
    if not any(abs(shown - edge) <= 1e-3 * edge for edge in bands):  # 4 digits cannot place a value on an edge
        assert by_key["questions.sweep_rmse"].answer == expected
    if len(main.fits) > 1:
        falls = all(b.rmse < a.rmse or (a.exact and b.exact) for a, b in zip(main.fits, main.fits[1:]))
        assert by_key["questions.sweep_falls"].answer == ("yes" if falls else "no")
    else:
        assert "questions.sweep_falls" not in by_key
    if s["act"] == "relu":
        # The page's metric: f"{pieces} / {m + 1}".
        pieces, bound = f"{wide.pieces} / {wide.width + 1}".split(" / ")
        assert by_key["questions.sweep_pieces"].answer == int(pieces) <= int(bound)
    else:
        assert "questions.sweep_pieces" not in by_key
    assert narrow.width == s["widths"][0]


def test_the_seed_sweep_asks_about_the_widest_fit():
    _, asked = _page({"target": "sin3x", "widths": (2, 4, 8, 16, 32), "act": "relu", "method": "pieces", "seed": 0})
    by_key = {a.question.key: a for a in asked}
    # The seed reached 0.0250 at m = 32 (between 0.01 and 0.1); the page's fit does at least as well.
    assert by_key["questions.sweep_rmse"].answer in ("0", "1", "2")
    assert by_key["questions.sweep_falls"].answer == "yes"
    korean_is_korean(asked)
    _, other = _page({"target": "sin3x", "widths": (2, 4, 8, 16, 32), "act": "relu", "method": "pieces", "seed": 1})
    assert {a.id for a in asked}.isdisjoint(a.id for a in other)
