"""Every page's questions in AppTest, in both languages, with "ask me first" on: what answers them is folded
until a guess; a guess is checked against the live measurement (✓/✗); bad guesses are refused with a message."""
from __future__ import annotations

import importlib
import re
from collections import Counter

import pytest

from tests.conftest import metric_values, open_page
from tests.question_checks import shown_number
from ui.base import i18n
from ui.kit import shell
from ui.questions import Question, tolerance_text
from ui.registry import catalog

# A metric each page folds while it asks (its label's key and values): present only once the questions are answered.
FOLDED = {
    "split": ("split.metric_share", {}),
    "position": ("position.metric_ffn_off", {}),
    "collapse": ("collapse.metric_rank", {}),
    "sweep": ("sweep.metric_pieces", {"m": 32}),
    "keyvalue": ("keyvalue.metric_recall", {}),
    "sparsity": ("sparsity.metric_mean", {}),
    "gpt": ("gpt.metric_top", {}),
    "gptsurgery": ("gptsurgery.measure_seen", {}),
    "gated": ("gated.metric_fit", {}),
    "moe": ("moe.metric_total", {}),
}
PAGES = [(section, path) for section, path, _ in catalog.PAGES if section in FOLDED]


def _page_questions(section: str) -> list[Question]:
    """Every Question a page's module declares, the ones made per width included (at the page's defaults)."""
    module = importlib.import_module(f"ui.questions.{section}")
    found = [v for v in vars(module).values() if isinstance(v, Question)]
    for name, v in vars(module).items():
        if name.endswith("_question") and callable(v):
            found += [v(m) for m in (32, 256)]
    return found


def _pattern(t: i18n.Translator, key: str, **names: str) -> re.Pattern:
    """A locale sentence with its placeholders as groups."""
    marked = t(key, **{name: f"@{name}@" for name in names})
    regex = re.escape(marked)
    for name in names:
        regex = regex.replace(re.escape(f"@{name}@"), f"(?P<{name}>.+)")
    return re.compile(regex)


def _ids(at) -> list[str]:
    return [b.key.split(":", 1)[1] for b in at.button if b.key and b.key.startswith("_ask_commit:")]


def _texts(elements) -> Counter:
    """The elements' texts, counted: two questions may well show the same sentence."""
    return Counter(e.value for e in elements)


def _options(t: i18n.Translator, question_key: str) -> dict[str, str]:
    """Option label -> option id, from the locale (what the radio shows)."""
    prefix = f"{question_key}_opt_"
    return {t(k): k[len(prefix):] for k in i18n.strings("en") if k.startswith(prefix)}


def _click(at, key: str):
    at.button(key=key).click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _commit(at, qid: str, guess: str):
    widget = next((w for w in at.text_input if w.key == f"_ask_in:{qid}"), None)
    if widget is not None:
        widget.input(guess)
    else:
        at.radio(key=f"_ask_in:{qid}").set_value(guess)
    return _click(at, f"_ask_commit:{qid}")


@pytest.mark.parametrize("lang", i18n.LANGS)
@pytest.mark.parametrize(("section", "path"), PAGES)
def test_each_question_is_asked_then_checked_against_the_measurement(section, path, lang):
    t = i18n.Translator(lang)
    at = open_page(path, lang, ask="1")
    assert not at.exception, [e.value for e in at.exception]
    key, values = FOLDED[section]
    folded = t(key, **values)
    # Asking: the page's numbers that answer the questions are not drawn.
    assert folded not in metric_values(at)
    assert t("questions.folded") in _texts(at.caption)
    ids = _ids(at)
    assert len(ids) >= 2
    guessed = _pattern(t, "questions.guess_measured", guess="x", measured="y")
    looked = _pattern(t, "questions.measured_only", measured="y")
    refused_once = {"number": False, "choice": False}
    tolerances = {tolerance_text(t, q) for q in _page_questions(section)}
    for qid in ids:
        question_key = qid.split(":")[1]
        number = any(w.key == f"_ask_in:{qid}" for w in at.text_input)
        kind = "number" if number else "choice"
        if not refused_once[kind]:
            refused_once[kind] = True
            if number:
                box = next(w for w in at.text_input if w.key == f"_ask_in:{qid}")
                lo, hi = (int(shown_number(x)) for x in re.findall(r"-?[\d,.]+", box.proto.placeholder)[:2])
                for bad in ("inf", "nan", "1e400", str(hi + 1), str(lo - 1), "abc"):
                    _commit(at, qid, bad)
                    warnings = _texts(at.warning)
                    assert t("questions.bad_number", lo=lo, hi=hi, unit=t("questions.unit_pct")) in warnings or \
                        t("questions.bad_number", lo=lo, hi=hi, unit="") in warnings, (bad, warnings)
                    assert qid in _ids(at)  # still asking: nothing was taken
            else:
                _click(at, f"_ask_commit:{qid}")  # nothing chosen
                assert t("questions.pick_one") in _texts(at.warning)
                assert qid in _ids(at)
        # Look without guessing: the measurement, then ask again.
        before = _texts(at.info)
        _click(at, f"_ask_look:{qid}")
        (shown,) = [looked.fullmatch(x) for x in (_texts(at.info) - before).elements() if looked.fullmatch(x)]
        measured = shown["measured"]
        _click(at, f"_ask_again:{qid}")
        assert qid in _ids(at)
        if number:
            box = next(w for w in at.text_input if w.key == f"_ask_in:{qid}")
            lo, hi = (shown_number(x) for x in re.findall(r"-?[\d,.]+", box.proto.placeholder)[:2])
            # What counts as right is on screen under the box, not only in a tooltip.
            assert any(c.value in tolerances for c in at.caption), qid
            value = shown_number(measured)
            right = f"{value:g}"
            # The end of the range farther from the answer (in ratio, for answers spanning orders of magnitude).
            far_lo = abs(value - lo) if lo <= 0 else max(value / lo, lo / max(value, 1e-12))
            far_hi = abs(value - hi) if lo <= 0 else max(value / hi, hi / max(value, 1e-12))
            wrong = f"{lo:g}" if far_lo > far_hi else f"{hi:g}"
        else:
            labels = _options(t, question_key)
            right = labels[measured]
            wrong = next(o for o in labels.values() if o != right)
        # A right guess: ✓ beside the measurement.
        before = _texts(at.success)
        _commit(at, qid, right)
        (said,) = [x for x in (_texts(at.success) - before).elements() if guessed.fullmatch(x.removesuffix(" ✓"))]
        match = guessed.fullmatch(said.removesuffix(" ✓"))
        assert said.endswith("✓") and match and match["measured"] == measured, said
        _click(at, f"_ask_again:{qid}")
        # A wrong one: ✗, and the same measurement.
        before = _texts(at.error)
        _commit(at, qid, wrong)
        (said,) = [x for x in (_texts(at.error) - before).elements() if guessed.fullmatch(x.removesuffix(" ✗"))]
        match = guessed.fullmatch(said.removesuffix(" ✗"))
        assert said.endswith("✗") and match and match["measured"] == measured, said
    # Every question answered: what answers them is drawn now.
    assert folded in metric_values(at)
    assert not _ids(at)


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_outside_a_class_nothing_is_folded_and_the_questions_are_offered(lang):
    t = i18n.Translator(lang)
    at = open_page("pages/3_linear_collapse.py", lang)
    assert t("collapse.metric_rank") in metric_values(at)
    assert t("questions.folded") not in _texts(at.caption)
    assert len(_ids(at)) == 3
    assert t("questions.heading") in [e.label for e in at.expander]
    qid = next(i for i in _ids(at) if "collapse_rank" in i)
    _commit(at, qid, "64")
    assert any(s.value.endswith("✓") and "64" in s.value for s in at.success)
