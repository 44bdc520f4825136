"""Page 7's questions: each answer is what the page shows at init and after training."""
from __future__ import annotations

from hypothesis import assume, given, settings

from ffn_core import memory_training
from tests.question_checks import assert_sound, korean_is_korean, shown_number
from tests.ui.test_lessons_sparsity import N_KEYS, _at_init, _train, space
from ui.questions import sparsity as questions
from ui.verdicts import sparsity as verdicts


def _asked(s: dict):
    start = _at_init(s["d"], s["m"], s["act"], s["init"], s["bias"], s["seed"])
    run = _train(s["d"], s["m"], s["steps"], s["task"], s["act"], s["init"], s["bias"], s["seed"])
    return start, run, questions.at_init(start, s["seed"]) + questions.training(start, run, s["act"], s)


@settings(max_examples=4)
@given(space)
def test_sparsity_questions_are_answered_by_the_page(s: dict) -> None:
    assume(N_KEYS * s["d"] * s["m"] * s["steps"] <= memory_training.MAX_WORK)  # the page stops otherwise
    start, run, asked = _asked(s)
    by_key = assert_sound(asked, "sparsity", [verdicts.judge_init(start), verdicts.judge(start, run, s["act"])])
    # The page's metrics: f"{mean:.4f}" and str(dead); the training metric f"{before:.3f} → {after:.3f}".
    assert abs(by_key["questions.sparsity_half"].answer - 100 * shown_number(f"{start.mean_active_fraction:.4f}")) <= 0.005
    # The per-neuron chart's lowest bar: the most selective neuron's share of the tokens.
    selective = by_key["questions.sparsity_selective"]
    assert abs(selective.answer - 100 * min(start.per_neuron)) < 1e-9
    assert selective.why.key.endswith("broad" if min(start.per_neuron) >= 0.1 else "narrow")
    half = by_key["questions.sparsity_half"]
    assert half.why.key.endswith("half" if 0.45 <= start.mean_active_fraction <= 0.55 else "off")
    if s["steps"] == 0:
        assert "questions.sparsity_trained" not in by_key
    else:
        change = run.active_train[-1] - run.active_train[0]
        expected = "fell" if change <= -0.01 else "rose" if change >= 0.01 else "flat"
        assert by_key["questions.sparsity_trained"].answer == expected
    other = _asked({**s, "seed": (s["seed"] + 1) % 10000})[2]
    assert {a.id for a in asked}.isdisjoint(a.id for a in other)


def test_at_random_init_about_half_fire():
    s = {"act": "relu", "init": "default", "bias": True, "seed": 0, "d": 64, "m": 256, "task": "memorise",
         "steps": 0}
    _, _, asked = _asked(s)
    half = next(a for a in asked if a.question.key == "questions.sparsity_half")
    assert 45 <= half.answer <= 55  # the seed measured 50.3%
    # "Neurons are clean rules from the start": a rule fires for a few tokens; here even the most selective
    # neuron fires for a third or more, so a guess under 10% is wrong.
    selective = next(a for a in asked if a.question.key == "questions.sparsity_selective")
    assert selective.answer > 30 and not selective.question.is_right(5, selective.answer)
    korean_is_korean(asked)
