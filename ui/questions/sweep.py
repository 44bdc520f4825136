"""Page 5's questions: how much lower the error gets with more neurons, how low the widest fit gets, how many
pieces it uses."""
from __future__ import annotations

from collections.abc import Mapping

from ffn_core.sweep import sweep
from ui.questions import Asked, Question, at
from ui.registry import rules
from ui.verdicts import sweep as verdicts

SECTION = "sweep"
# "Wider is better, in proportion": sixteen times the neurons, sixteen times lower? A ratio spans orders of
# magnitude (145× at the defaults, below 1× for a plain gradient fit), so a guess counts within a factor of 2.
GAIN = Question("questions.sweep_gain", "number", lo=0, hi=1_000_000, factor=2,
                cases=("faster", "slower", "worse"), measure="gain")
# RMSE spans orders of magnitude: asked as its order, the page's measure "rmse_band" at the widest width.
RMSE = Question("questions.sweep_rmse", "choice", options=("0", "1", "2", "3"), measure="rmse_band")


def pieces_question(width: int) -> Question:
    """m ReLU neurons make at most m + 1 pieces; a guess within 15% of the pieces used counts (at least one piece):
    at m = 256 the fit uses about 115, and "all 257" is the idea the question is there to test."""
    return Question("questions.sweep_pieces", "number", lo=1, hi=width + 1, tolerance=1, relative=0.15,
                    cases=("all", "fewer"), measure="pieces")


def gain_case(gain: float, times: float) -> str:
    """"worse" below 1×; else "faster" when the error fell by more than the neurons grew, "slower" otherwise."""
    if gain < 1:
        return "worse"
    return "faster" if gain > times else "slower"


def ask(results: Mapping[str, sweep.Sweep], settings: Mapping[str, object]) -> tuple[Asked, ...]:
    """results: one sweep per method on screen (the first is the page's main one); settings: the page's controls."""
    main = next(iter(results.values()))
    fits = main.fits
    narrow, wide = fits[0], fits[-1]
    asked = []
    gain = rules.gain(main)
    if gain is not None and gain <= GAIN.hi:
        times = wide.width / narrow.width
        asked.append(at(SECTION, settings, GAIN, gain,
                        {"m0": narrow.width, "m1": wide.width, "e0": narrow.rmse, "e1": wide.rmse, "times": times},
                        {"m0": narrow.width, "m1": wide.width, "target": main.label, "times": times},
                        case=gain_case(gain, times)))
    asked.append(at(SECTION, settings, RMSE, rules.rmse_band(wide),
                    {"m": wide.width, "rmse": verdicts.EXACT_MARK if wide.exact_on_grid else wide.rmse},
                    {"m": wide.width, "target": main.label}))
    if main.act == "relu" and wide.pieces is not None:
        bound = wide.width + 1
        asked.append(at(SECTION, settings, pieces_question(wide.width), wide.pieces, {"m": wide.width, "bound": bound},
                        {"m": wide.width, "bound": bound}, case="all" if wide.pieces == bound else "fewer"))
    return tuple(asked)
