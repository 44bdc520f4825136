"""Korean particles: which form follows a word, decided by its last syllable's final consonant (받침).

The one rule the app's sentences (ui/base/text.py, which first works out how a number or a symbol is read)
and the GPT corpus's templates (ffn_core/gpt/corpus.py) both follow.
"""
from __future__ import annotations

# Each particle's form after a final consonant, then after a vowel.
PAIRS: dict[str, tuple[str, str]] = {
    "을": ("을", "를"), "이": ("이", "가"), "은": ("은", "는"), "과": ("과", "와"), "으로": ("으로", "로"),
    "이에요": ("이에요", "예요"),
}
RIEUL = 8  # index of ㄹ among the final consonants: (으)로 takes 로 after it, as after a vowel
_FIRST, _COUNT, _FINALS = 0xAC00, 11172, 28


def final(syllable: str) -> int | None:
    """The index (1-27) of a Hangul syllable's final consonant, 0 for none; None if it is not a Hangul syllable."""
    code = ord(syllable) - _FIRST
    return code % _FINALS if 0 <= code < _COUNT else None


def form(base: str, final_consonant: int) -> str:
    """The form of the particle `base` (either of its forms: 을 or 를) after a final consonant (0: after a vowel)."""
    closed, open_ = next(pair for pair in PAIRS.values() if base in pair)
    if closed == "으로":
        return closed if final_consonant and final_consonant != RIEUL else open_
    return closed if final_consonant else open_
