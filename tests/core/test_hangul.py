"""The particle rule's final consonant (ffn_core/hangul.py) against Unicode's own decomposition of each syllable."""
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ffn_core import hangul


def _final_by_jamo(syllable: str) -> int:
    # An independent reading of the final consonant: Unicode's canonical decomposition into jamo.
    jamo = unicodedata.normalize("NFD", syllable)
    return 0 if len(jamo) == 2 else ord(jamo[2]) - 0x11A7


@given(st.integers(0xAC00, 0xD7A3).map(chr))
def test_the_final_consonant_agrees_with_the_syllables_jamo(syllable):
    assert hangul.final(syllable) == _final_by_jamo(syllable)


@pytest.mark.parametrize("char", ["a", "1", "%", "ㄱ", " "])
def test_a_character_that_is_no_hangul_syllable_has_no_final(char):
    assert hangul.final(char) is None


@pytest.mark.parametrize("word, base, expected", [
    ("파리", "을", "를"), ("서울", "을", "을"), ("서울", "으로", "로"), ("베이징", "으로", "으로"), ("도쿄", "이", "가"),
    ("베를린", "은", "은"), ("캐나다", "과", "와"), ("영국", "와", "과"), ("파리", "이에요", "예요"),
])
def test_the_form_follows_the_final_consonant_and_rieul_takes_ro(word, base, expected):
    assert hangul.form(base, hangul.final(word[-1])) == expected
