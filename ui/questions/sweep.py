"""Page 4's questions: does every step in width lower the error, how low the widest fit gets, how many pieces it uses."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from ffn_core.sweep import sweep
from ui.questions import Asked, Question, at, band
from ui.verdicts import sweep as verdicts

SECTION = "sweep"
FALLS = Question("questions.sweep_falls", "choice", options=("yes", "no"))
# RMSE spans orders of magnitude: asked as its order, the bands' edges below.
EDGES = (0.001, 0.01, 0.1)
RMSE = Question("questions.sweep_rmse", "choice", options=("0", "1", "2", "3"))


def pieces_question(width: int) -> Question:
    """m ReLU neurons make at most m + 1 pieces; a guess within an eighth of m counts (at least one piece)."""
    return Question("questions.sweep_pieces", "number", lo=1, hi=width + 1, tolerance=max(1, width // 8))


def ask(results: Mapping[str, sweep.Sweep], best: Sequence[float], settings: Mapping[str, object]) -> tuple[Asked, ...]:
    """results: one sweep per method on screen (the first is the page's main one); settings: the page's controls."""
    main = next(iter(results.values()))
    fits = main.fits
    narrow, wide = fits[0], fits[-1]
    verdict = verdicts.judge(results, best)
    asked = []
    if len(fits) > 1:
        claim = next(c for c in verdict.claims if c.key == "sweep.claim_falls")
        asked.append(at(SECTION, settings, FALLS, "yes" if verdicts.falls(fits) else "no", claim.key, claim.values,
                        {"m0": narrow.width, "m1": wide.width, "target": main.label}))
    rmse = 0.0 if wide.exact else wide.rmse
    asked.append(at(SECTION, settings, RMSE, band(rmse, EDGES), "questions.sweep_rmse_why",
                    {"m": wide.width, "rmse": verdicts.EXACT_MARK if wide.exact else wide.rmse},
                    {"m": wide.width, "target": main.label}))
    if main.act == "relu" and wide.pieces is not None:
        kinks = next(c for c in verdict.claims if c.key == "sweep.fact_kinks")
        asked.append(at(SECTION, settings, pieces_question(wide.width), wide.pieces, "questions.sweep_pieces_why",
                        {"m": wide.width, "pieces": wide.pieces, "kinks": wide.kinks_inside, "bound": wide.width + 1,
                         "counts": kinks.values["counts"]},
                        {"m": wide.width, "bound": wide.width + 1}))
    return tuple(asked)
