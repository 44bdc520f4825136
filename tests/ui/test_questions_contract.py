"""The contract a page's questions share with the class room: parsing a guess, judging it, a stable id."""
import math
import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import ROOT
from ui.questions import Asked, Question, band, fingerprint

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
    here = Asked("collapse", NUMBER, 64, fingerprint(settings), "why").id
    code = ("from ui.questions import Asked, Question, fingerprint\n"
            "q = Question('q.number', 'number', lo=0, hi=100, tolerance=5, unit='questions.unit_pct')\n"
            f"print(Asked('collapse', q, 64, fingerprint({settings!r}), 'why').id)")
    there = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": "123", "PATH": ""}).stdout.strip()
    assert there == here and here.startswith("collapse:q.number:")


def test_bands_split_the_line_at_their_edges():
    edges = (0.001, 0.01, 0.1)
    assert [band(x, edges) for x in (0.0, 0.0009, 0.001, 0.05, 0.1, 3.0)] == ["0", "0", "1", "2", "3", "3"]
