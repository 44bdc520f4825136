"""Checks every verdict's rendered sentences must pass, in both languages (used by the verdicts' property tests)."""
from __future__ import annotations

import functools
import re

from ui import verdicts
from ui.base import i18n, text

# "1.1e+02", "3e-16": a sentence never carries an exponent; "inf" and "nan" never reach it either.
EXPONENT = re.compile(r"\d[eE][+-]?\d")
NONFINITE = re.compile(r"\b(inf|nan|NaN)\b")
# "1 heads", "1 directions": a count of one takes the singular (ui.text's "{n|head;heads}").
_ONE_PLURAL = re.compile(r"(?<![\d.,/])(?<!\+ )1 (heads|directions|neurons|tokens|keys|prompts|kinks|points|pieces|pairs|layers|"
                         r"blocks|times|classes|outputs|parameters|weights|facts|words|seeds|steps|bends)\b")
# A Korean particle right after a Latin-script word or a number must agree with how that is read ("Rome을", "4라서").
_LATIN_PARTICLE = re.compile(r"([A-Za-z]+)(으로|을|를|이|가|은|는|과|와|로)(?=[\s.,:;)\]]|$)")
_NUMBER_COPULA = re.compile(r"(\d[\d,.]*%?)(이라서|라서|이라면|라면)(?=[\s.,]|$)")


def sentences(v: verdicts.Verdict) -> dict[str, list[str]]:
    """The verdict's claims and takeaway as each language shows them."""
    shown = {}
    for lang in i18n.LANGS:
        t = i18n.Translator(lang)
        texts = [t(c.key, **c.values) for c in v.claims]
        texts += [t(key, **v.takeaway_values) for key in v.takeaway.split()]
        shown[lang] = texts
    return shown


def assert_readable(v: verdicts.Verdict) -> dict[str, list[str]]:
    """Every key exists in both languages, every placeholder is filled, no exponent or inf; returns the texts."""
    en = i18n.strings("en")
    for key in [c.key for c in v.claims] + v.takeaway.split():
        assert key in en, key
    shown = sentences(v)
    for lang, texts in shown.items():
        for text in texts:
            assert "{" not in text and "}" not in text.replace("\\}", ""), (lang, text)
            assert not EXPONENT.search(text), (lang, text)
            assert not NONFINITE.search(text), (lang, text)
            check_words(lang, text)
    return shown


def check_words(lang: str, sentence: str) -> None:
    """English counts agree with their nouns; Korean particles agree with the Latin word or number before them."""
    if lang == "en":
        assert not _ONE_PLURAL.search(sentence), sentence
        return
    for word, form in _LATIN_PARTICLE.findall(sentence):
        assert text.particle(word, form) == form, (word + form, sentence)
    for number, form in _NUMBER_COPULA.findall(sentence):
        full = form if form.startswith("이") else "이" + form
        assert text.particle(number, full) == form, (number + form, sentence)


class Branches:
    """The conditional checks of a property test, and which of them an example reached.

    A check under `if key in keys:` proves nothing when no drawn setting gives that key, and a few
    examples of a large control space can miss it. Decorate the @given test with `@branches.required`
    and mark each conditional check with `branches.reach(name)`: once every example has run, a name
    no example reached fails the test (then add an @example that reaches it).
    """

    def __init__(self, *names: str) -> None:
        self.names = frozenset(names)
        self.reached: set[str] = set()

    def reach(self, name: str) -> None:
        assert name in self.names, f"unknown branch {name!r}"
        self.reached.add(name)

    def required(self, test):
        @functools.wraps(test)
        def run(*args, **kwargs):
            self.reached.clear()
            test(*args, **kwargs)
            missed = sorted(self.names - self.reached)
            assert not missed, f"no example reached: {missed}"

        return run
