"""Text as the app's sentences show it: numbers, Korean particles, the sentence formatter, short labels.

The translator (ui/base/i18n.py) formats every locale sentence through `render`, which adds to Python's
format mini-language what a sentence needs:

    {x}          a float, three significant digits, never in scientific notation
    {x:sig2}     two significant digits (ratios: "110", "3.5")
    {x:ratio}    a ratio or a factor, three significant digits without trailing zeros ("2", "3.5", "110")
    {x:pct1}     a fraction as a percentage with one decimal ("78.1%")
    {x:tiny}     a small error as "3.3 × 10⁻¹⁶" (a sentence never reads "3.3e-16")
    {x:,}        any Python spec; an exponent in its result is rewritten as × 10ⁿ
    {x:sig2|을}  the Korean particle that agrees with what precedes it: "64를", "0.0250을", "3배를"
    {x|을}       the same without a number spec
    {n:,|head;heads}  an English count with its noun, singular for exactly one: "1 head", "8 heads"

A particle is written in either of its forms (을/를, 이/가, 은/는, 과/와, 으로/로, 이에요/예요) and agrees with
how the text before it is read aloud: a Latin word by its letters' names or by its ending, a number in a name
in English ("Qwen3" 큐웬쓰리는), any other number and an index (W₂) in Korean. The copula's 이라서, 이라면, 이라고,
이라는 drop their 이 after a vowel ("4라서"); 이고, 이면, 이며 keep it ("64이고"), which reads best in writing.

The last part holds the short labels of a page's metrics and tables (an error, a model's size, a
change "a → b"), which are not sentences and so not in the locale files.
Nothing here imports streamlit: verdicts and their property tests use it too.
"""
from __future__ import annotations

import html
import math
import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from ffn_core import hangul

T = TypeVar("T")


@dataclass(frozen=True)
class Term:
    """A value that is itself a locale key ("collapse.act_relu"), translated before the sentence is formatted."""

    key: str


# --- numbers in sentences -------------------------------------------------------------------------

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def tiny(x: float, digits: int = 2) -> str:
    """A small magnitude as "3.3 × 10⁻¹⁶"; zero as "0"."""
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return _nonfinite(x)
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    exp = int(exponent)
    if exp == 0:
        return mantissa
    return f"{mantissa} × 10{str(exp).translate(_SUPERSCRIPT)}"


def sig(x: float, digits: int = 3) -> str:
    """x to `digits` significant digits, never in scientific notation; thousands separated; tiny values as × 10ⁿ."""
    if not math.isfinite(x):
        return _nonfinite(x)
    if x == 0:
        return "0"
    if abs(x) < 1e-3:
        return tiny(x, digits)
    magnitude = math.floor(math.log10(abs(x)))
    decimals = max(0, digits - 1 - magnitude)
    text = f"{round(x, decimals):,.{decimals}f}"
    return "0" if text in ("-0", "-0.0") else text


def ratio(x: float) -> str:
    """A factor for "2×" or "3.5배": three significant digits, trailing zeros dropped; a whole fraction as "1/32"."""
    if 0 < x < 1 and math.isfinite(x):
        inverse = 1 / x
        if abs(inverse - round(inverse)) < 1e-9 * inverse:  # 2/64 is one thirty-second, not "0.0312"
            return f"1/{round(inverse)}"
    text = sig(x, 3)
    return text.rstrip("0").rstrip(".") if "." in text and "×" not in text else text


def pct(x: float, decimals: int = 1) -> str:
    """A fraction as a percentage, never "100.0%" for a value short of one nor "0.0%" for one above zero."""
    if not math.isfinite(x):
        return _nonfinite(x)
    if x == 0:
        return "0%"  # exactly zero, which is often the point
    text = f"{x * 100:.{decimals}f}"
    full = f"{100:.{decimals}f}"
    zero = f"{0:.{decimals}f}"
    if text == full and x < 1:
        return f">{100 - 10 ** -decimals:.{decimals}f}%"
    if text == zero and x > 0:
        return f"<{10 ** -decimals:.{decimals}f}%"
    return f"{text}%"


def _nonfinite(x: float) -> str:
    if math.isnan(x):
        return "—"
    return "∞" if x > 0 else "-∞"


def number(value: Any, spec: str = "") -> str:
    """One value formatted for a sentence (see the module docstring for the specs)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return format(value, spec)
    if spec.startswith("sig"):
        return sig(float(value), int(spec[3:] or 3))
    if spec == "ratio":
        return ratio(float(value))
    if spec.startswith("pct"):
        return pct(float(value), int(spec[3:] or 1))
    if spec.startswith("tiny"):
        return tiny(float(value), int(spec[4:] or 2))
    if not spec:
        return sig(value) if isinstance(value, float) else str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return _nonfinite(value)
    text = format(value, spec)
    if "e" in text and not text.endswith("%"):  # a "g" spec chose an exponent: write it as × 10ⁿ
        mantissa, exponent = text.split("e")
        return f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"
    return text


# --- Korean particles -----------------------------------------------------------------------------

# Which form follows a syllable is ffn_core.hangul's rule, shared with the GPT corpus; what is added
# here is how the end of a number, a Latin letter or a symbol is read aloud.
_FORMS = {form for pair in hangul.PAIRS.values() for form in pair}
_NO_FINAL = -1
# Sino-Korean readings of a last digit: 영 일 이 삼 사 오 육 칠 팔 구, as final-consonant indices.
_DIGIT_FINAL = {"0": 21, "1": 8, "2": _NO_FINAL, "3": 16, "4": _NO_FINAL, "5": _NO_FINAL,
                "6": 1, "7": 8, "8": 8, "9": _NO_FINAL}
# A whole number ending in k zeros is read ending in 십 (ㅂ), 백 (ㄱ), 천 (ㄴ), 만 (ㄴ), 억 (ㄱ), 조 (none).
_ZEROS_FINAL = {1: 17, 2: 1, 3: 4, 4: 4, 5: 4, 6: 4, 7: 4, 8: 1, 9: 1, 10: 1, 11: 1}
# Latin letters as Koreans read them: 엘, 엠, 엔, 알 close on a consonant; the rest on a vowel.
_LETTER_FINAL = {"l": 8, "m": 16, "n": 4, "r": 8}
# A word's ending as a Korean reading of it closes: Beijing 베이징, Rome 롬, Berlin 베를린, Seoul 서울,
# Bangkok 방콕, Adam 아담; -r, -s, -t, -d, -x … open on a vowel (달러, 파리, 부다페스트, 파운드, 소프트맥스).
_WORD_ENDINGS = (("ng", 21), ("m", 16), ("n", 4), ("l", 8), ("k", 1), ("p", 17))
_VOWEL_LETTERS = set("aeiouy")
# Symbols read aloud: 퍼센트, 무한대.
_SYMBOL_FINAL = {"%": _NO_FINAL, "∞": _NO_FINAL}
# A digit in a name read in English (zero 제로, one 원, two 투, …, six 식스, seven 세븐, eight 에잇, nine 나인).
_ENGLISH_DIGIT_FINAL = {"0": 0, "1": 4, "2": 0, "3": 0, "4": 0, "5": 0, "6": 0, "7": 4, "8": 19, "9": 4}
_SUBSCRIPT_DIGITS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_SUBSCRIPT_SET = set("₀₁₂₃₄₅₆₇₈₉")
_SUPERSCRIPTS = set("⁰¹²³⁴⁵⁶⁷⁸⁹")
_DIGITS = set("0123456789")  # str.isdigit() is true for "²" too
_SILENT = set(" )]}'\"`*_$.,!?:;·")


def _final(text: str) -> int:
    """The final consonant (its index, 0 for none) of the last spoken syllable of `text` read in Korean."""
    stripped = text.rstrip()
    while stripped and stripped[-1] in _SILENT:
        stripped = stripped[:-1]
    if not stripped:
        return 0
    last = stripped[-1]
    syllable = hangul.final(last)
    if syllable is not None:
        return syllable
    if last in _SUBSCRIPT_SET:  # an index is read in Korean: W₂W₁ reads "더블유 이 더블유 일"
        return max(0, _digits_final(stripped.translate(_SUBSCRIPT_DIGITS)))
    if last in _DIGITS:
        if _in_a_name(stripped):  # DeepSeek-V3 브이쓰리, Qwen3 큐웬쓰리, GPT-4 지피티포
            return _english_final(stripped)
        return max(0, _digits_final(stripped))
    if last in _SUPERSCRIPTS:  # 10⁻¹⁶ reads "10의 마이너스 16승"
        return 21
    if last.isascii() and last.isalpha():
        return _latin_final(stripped)
    return max(0, _SYMBOL_FINAL.get(last, _NO_FINAL))


def _latin_final(text: str) -> int:
    """The final consonant of a Latin-script word's Korean reading: letters by name, words by their ending."""
    word = ""
    for char in reversed(text):
        if not (char.isascii() and char.isalpha()):
            break
        word = char + word
    lower = word.lower()
    # m, GPT, d_ff and short names (exp, log, max) are read letter by letter; longer words by how they end.
    if len(word) <= 3 or word.isupper() or not _VOWEL_LETTERS & set(lower):
        return _LETTER_FINAL.get(lower[-1], 0)
    if len(lower) > 3 and lower[-1] == "e" and lower[-2] not in _VOWEL_LETTERS:
        lower = lower[:-1]  # a silent e: Rome, Ukraine
    return next((final for ending, final in _WORD_ENDINGS if lower.endswith(ending)), 0)


def _number_start(text: str) -> int:
    """Where the number that ends `text` begins (its digits, separators and decimal point)."""
    i = len(text)
    while i > 0 and (text[i - 1] in _DIGITS or text[i - 1] in ".,"):
        i -= 1
    return i


def _in_a_name(text: str) -> bool:
    """Is the number that ends `text` part of a name, glued to Latin letters (Qwen3, V3) or after a word and a
    hyphen (GPT-4, LLaMA-2)? Such a number is read in English; m = 64, block 3 and x_1 are read in Korean."""
    before = text[: _number_start(text)]
    if before[-1:].isascii() and before[-1:].isalpha():
        return True
    if before.endswith("-"):
        word = before[:-1]
        letters = len(word) - len(word.rstrip(string.ascii_letters))
        return letters >= 2  # "k-1" is k minus one, read in Korean
    return False


def _english_final(text: str) -> int:
    """The final consonant of the number ending `text` read in English, as Korean writes it: one 원, two 투,
    three 쓰리, seven 세븐, eight 에잇, nine 나인, ten 텐, eleven 일레븐, twelve 트웰브, -teen 틴, -ty 티, hundred 헌드레드."""
    number = text[_number_start(text):].replace(",", "")
    if "." in number.strip("."):  # 3.5 is "three point five": its last digit
        return _ENGLISH_DIGIT_FINAL[number[-1]]
    n = int(number.strip(".") or 0)
    if n and n % 100 == 0:
        return 0  # hundred, thousand
    tens = n % 100
    if 10 <= tens <= 19:
        return 0 if tens == 12 else 4  # ten, eleven, -teen close on ㄴ; twelve on a vowel
    if tens >= 20 and tens % 10 == 0:
        return 0  # -ty
    return _ENGLISH_DIGIT_FINAL[str(n % 10)]


def _digits_final(text: str) -> int:
    number = text[_number_start(text):]
    if "." in number:  # decimals are read digit by digit: 0.0250 → 영 점 영 이 오 영
        return _DIGIT_FINAL[number[-1]]
    digits = number.replace(",", "")
    if int(digits) == 0:
        return _DIGIT_FINAL["0"]
    zeros = len(digits) - len(digits.rstrip("0"))
    if zeros == 0:
        return _DIGIT_FINAL[digits[-1]]
    return _ZEROS_FINAL.get(zeros, 0)


def particle(text: str, which: str) -> str:
    """The form of a Korean particle that agrees with `text`: particle("64", "을") == "를"."""
    base = which.split("/")[0]  # "을/를" names the pair by both forms
    if base not in _FORMS:
        if which.startswith("이라"):  # the copula's 이라서, 이라면 ...: "4라서", "16이라서"
            return which if _final(text) else which[1:]
        if which.startswith("이") and len(which) > 1:  # its 이고, 이면, 이며 keep their 이: "64이고"
            return which
        raise KeyError(f"unknown particle {which!r}")
    return hangul.form(base, _final(text))


# --- the sentence formatter -----------------------------------------------------------------------

class _SentenceFormatter(string.Formatter):
    def parse(self, format_string: str):  # type: ignore[override]
        # "{m|으로}" is "{m:|으로}": a particle needs no number spec before it.
        for literal, name, spec, conversion in super().parse(format_string):
            if name is not None and "|" in name:
                name, _, which = name.partition("|")
                spec = f"{spec or ''}|{which}"
            yield literal, name, spec, conversion

    def format_field(self, value: Any, format_spec: str) -> str:
        spec, _, which = format_spec.partition("|")
        text = number(value, spec)
        if not which:
            return text
        if which[0].isascii():  # an English noun's two forms: "head;heads"
            one, _, many = which.partition(";")
            return f"{text} {one if text == '1' else many}"  # as shown: "1.0 times" stays plural
        return text + particle(text, which)


_FORMATTER = _SentenceFormatter()


def render(template: str, values: Mapping[str, Any]) -> str:
    """A locale sentence with its values: numbers per the module's specs, particles agreeing."""
    return _FORMATTER.vformat(template, (), dict(values))


# --- a metric's or a table cell's short label -------------------------------------------------------

def error(x: float) -> str:
    """A measured error: an exact 0 stays "0" (that it is exactly zero is the point); small ones as 3.3e-16."""
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return _nonfinite(x)
    return f"{x:.1e}" if abs(x) < 1e-3 else f"{x:.3g}"


def fit_error(x: float, exact_tol: float) -> str:
    """A fit's error, "≈0" where it is within rounding of an exact fit."""
    return "≈0" if x <= exact_tol else f"{x:.4g}"


def model_size(n: int) -> str:
    """A parameter count as model cards write it: "124M", "6.74B"."""
    return f"{n / 1e9:.2f}B" if n >= 1e9 else f"{n / 1e6:.1f}M"


def change(pair: tuple[T | None, T | None] | None, shown: Callable[[T], str] = str) -> str:
    """Before and after as "a → b"; a missing value (or pair) as "—"."""
    if pair is None:
        return "—"
    return " → ".join("—" if value is None else shown(value) for value in pair)


def pct_change(pair: tuple[float, float] | None) -> str:
    """Two fractions before and after as whole percentages: "90% → 12%"."""
    return change(pair, lambda x: pct(x, 0))


_MARKDOWN_SIGNS = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>$=:])")


def literal(text: str) -> str:
    """Text written by a teacher, for st.markdown: shown exactly as typed, never as markup, a link or a formula.

    HTML is escaped, every Markdown and LaTeX sign gets its backslash, and a line break stays a space, so
    neither a lesson file nor a link's `plan=` can put a heading, a link, an image or a script on a screen.
    """
    flat = " ".join(str(text).split())
    return _MARKDOWN_SIGNS.sub(r"\\\1", html.escape(flat, quote=False))
