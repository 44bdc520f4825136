"""The contract a page's questions share with the class room: parsing a guess, judging it, a stable id."""
import importlib
import math
import pkgutil
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import ROOT
from ui import questions
from ui.base import i18n
from ui.questions import Question, at, fingerprint, tolerance_text, why_key

NUMBER = Question("q.number", "number", lo=0, hi=100, tolerance=5, unit="questions.unit_pct")
CHOICE = Question("q.choice", "choice", options=("a", "b", "c"))
plain = st.one_of(st.integers(-10**6, 10**6), st.booleans(), st.text(max_size=8),
                  st.floats(allow_nan=False, allow_infinity=False), st.tuples(st.integers(0, 9)))
settings_maps = st.dictionaries(st.sampled_from(["d", "m", "act", "seed", "bias", "widths"]), plain, max_size=6)


@given(st.one_of(st.floats(), st.text(max_size=12), st.integers(), st.none(), st.booleans()))
def test_a_number_guess_is_a_finite_number_in_range(raw):
    guess = NUMBER.parse(raw)
    if guess is not None:
        assert math.isfinite(guess) and 0 <= guess <= 100
        assert not isinstance(raw, bool)


def test_bad_number_guesses_are_refused():
    for raw in ("inf", "-inf", "nan", "1e400", "101", "-1", "abc", "", "5; DROP TABLE guesses", None, True, [5]):
        assert NUMBER.parse(raw) is None, raw
    assert NUMBER.parse("42.5") == 42.5 and NUMBER.parse(0) == 0.0 and NUMBER.parse(100) == 100.0


def test_a_choice_guess_is_one_of_the_options():
    assert CHOICE.parse("b") == "b"
    for raw in ("d", "", "A", None, 1, "a' OR 1=1 --"):
        assert CHOICE.parse(raw) is None


@given(st.floats(0, 100), st.floats(0, 100))
def test_a_number_is_right_within_its_tolerance(guess, answer):
    assert NUMBER.is_right(guess, answer) == (abs(guess - answer) <= 5)


@given(settings_maps, settings_maps)
def test_fingerprints_differ_exactly_when_settings_differ(a, b):
    same = a.keys() == b.keys() and all(repr(a[k]) == repr(b[k]) for k in a)
    assert (fingerprint(a) == fingerprint(b)) == same


def test_an_asked_id_is_the_same_in_another_process():
    settings = {"d": 64, "m": 256, "act": "none", "bias": False, "seed": 0, "widths": (2, 4)}
    here = at("collapse", settings, NUMBER, 64).id
    code = ("from ui.questions import Question, at\n"
            "q = Question('q.number', 'number', lo=0, hi=100, tolerance=5, unit='questions.unit_pct')\n"
            f"print(at('collapse', {settings!r}, q, 64).id)")
    there = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": "123", "PATH": ""}).stdout.strip()
    assert there == here and here.startswith("collapse:q.number:")


def _declared() -> list[Question]:
    """Every Question the pages' question modules declare, those made per width included."""
    found = []
    for info in pkgutil.iter_modules(questions.__path__):
        module = importlib.import_module(f"ui.questions.{info.name}")
        found += [v for v in vars(module).values() if isinstance(v, Question)]
        sizes = getattr(module, "QUESTION_SIZES", (32, 256))  # what the module's question makers are called with
        found += [v(m) for name, v in vars(module).items() if name.endswith("_question") and callable(v)
                  for m in sizes]
    return found


def test_every_outcome_of_every_question_has_its_sentence_in_both_languages():
    """An outcome no drawn example reached still reads right: each option (each case) has its own sentence."""
    declared = _declared()
    assert len({q.key for q in declared}) >= 16
    for lang in i18n.LANGS:
        have = i18n.strings(lang)
        for q in declared:
            if q.kind == "choice":
                for option in q.options:
                    assert why_key(q, option) in have, (lang, q.key, option)
            else:
                # A number's sentence restates the measurement; with cases, each case has one (the plain
                # sentence too where one outcome has no case of its own).
                keys = [why_key(q, 0.0, case) for case in q.cases] or [why_key(q, 0.0)]
                for key in keys:
                    assert key in have, (lang, key)
                for key in [*keys, why_key(q, 0.0)]:
                    assert key not in have or "{measured" in have[key], (lang, key)
                assert tolerance_text(i18n.Translator(lang), q)


def test_a_question_explains_only_with_its_own_sentence():
    assert why_key(CHOICE, "b") == "q.choice_why_b"
    assert why_key(NUMBER, 3.0) == "q.number_why"
    for bad in (lambda: why_key(CHOICE, "d"), lambda: why_key(NUMBER, 3.0, "other"), lambda: at("x", {}, CHOICE, "z")):
        with pytest.raises(ValueError):
            bad()
    asked = at("collapse", {"d": 64}, CHOICE, "a", {"n": 1})
    assert asked.why.key == "q.choice_why_a" and asked.why.outcome == "a" and asked.why.values == {"n": 1}


@given(st.floats(0.01, 1000), st.floats(0.01, 1000))
def test_a_factor_band_is_a_ratio_either_way(guess, answer):
    q = Question("q.ratio", "number", lo=0, hi=1000, factor=2)
    assert q.is_right(guess, answer) == (max(guess / answer, answer / guess) <= 2)


@given(st.floats(0, 1000), st.floats(0, 1000))
def test_a_relative_band_grows_with_the_answer(guess, answer):
    q = Question("q.count", "number", lo=0, hi=1000, tolerance=1, relative=0.15)
    assert q.is_right(guess, answer) == (abs(guess - answer) <= max(1, 0.15 * answer))
