"""The sentences' numbers and Korean particles (ui/base/text.py), which agree with the corpus's (one rule, ffn_core/hangul.py),
and the short labels of the pages' metrics."""
import math
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ffn_core import hangul
from ffn_core.gpt import corpus
from ui.base import i18n, text


@pytest.mark.parametrize("word, eul, ro, i", [
    ("64", "를", "로", "가"),          # 육십사
    ("16", "을", "으로", "이"),        # 십육
    ("0.0250", "을", "으로", "이"),    # 영 점 영 이 오 영
    ("110", "을", "으로", "이"),       # 백십
    ("1,000", "을", "으로", "이"),     # 천
    ("1", "을", "로", "이"),           # 일: ㄹ takes 로
    ("78.1%", "를", "로", "가"),       # 퍼센트
    ("3배", "를", "로", "가"),
    ("잔차", "를", "로", "가"),
    ("ReLU", "를", "로", "가"),        # 렐루
    ("m", "을", "으로", "이"),         # 엠
    ("W₂W₁", "을", "로", "이"),        # 더블유 이 더블유 일
    ("3.3 × 10⁻¹⁶", "을", "으로", "이"),
    ("Rome", "을", "으로", "이"),      # 롬: the silent e leaves an m
    ("Paris", "를", "로", "가"),       # 파리
    ("Beijing", "을", "으로", "이"),   # 베이징
    ("Seoul", "을", "로", "이"),       # 서울
    ("France", "를", "로", "가"),      # 프랑스
    ("GPT", "를", "로", "가"),         # 지피티: an acronym by its letters
    ("FFN", "을", "으로", "이"),       # 에프에프엔
    ("d_ff", "를", "로", "가"),        # 디 에프 에프: no vowel, read by letters
    ("Adam", "을", "으로", "이"),      # 아담
    ("exp", "를", "로", "가"),         # 이엑스피: a short name by its letters
    # A number in a name is read in English, as Koreans say the name; any other number in Korean.
    ("DeepSeek-V3", "를", "로", "가"),  # 딥시크 브이쓰리, not 브이삼
    ("Qwen3", "를", "로", "가"),        # 큐웬쓰리
    ("GPT-4", "를", "로", "가"),        # 지피티포, not 지피티사
    ("T5", "를", "로", "가"),           # 티파이브
    ("V1", "을", "으로", "이"),         # 브이원
    ("GPT-3.5", "를", "로", "가"),      # 쓰리 점 파이브
    ("Phi-2", "를", "로", "가"),        # 파이투
    ("Claude-7", "을", "으로", "이"),   # 세븐
    ("R8", "을", "으로", "이"),         # 알에잇
    ("LLaMA-13", "을", "으로", "이"),   # 써틴
    ("LLaMA-12", "를", "로", "가"),     # 트웰브
    ("GPT-20", "를", "로", "가"),       # 트웬티
    ("block 3", "을", "으로", "이"),    # 블록 삼: a number after a space is read in Korean
    ("k-1", "을", "로", "이"),          # 케이 빼기 일: one letter and a hyphen is arithmetic
    ("x_1", "을", "로", "이"),          # 엑스 일
    ("W₃", "을", "으로", "이"),         # 더블유 삼: an index
])
def test_particles_agree_with_how_the_word_is_read(word, eul, ro, i):
    assert (text.particle(word, "을"), text.particle(word, "으로"), text.particle(word, "가")) == (eul, ro, i)
    assert text.particle(word, "을/를") == eul


def test_sentences_never_show_an_exponent_or_inf():
    assert text.render("{x:ratio}배", {"x": 110.4}) == "110배"
    assert text.render("{x:ratio}×", {"x": 2.0}) == "2×"
    assert text.render("{x:ratio}", {"x": 3.5}) == "3.5"
    assert text.render("{x:tiny}", {"x": 3.3e-16}) == "3.3 × 10⁻¹⁶"
    assert text.render("{x:.2g}", {"x": 123456.0}) == "1.2 × 10⁵"
    assert text.render("{x}", {"x": 0.02503}) == "0.0250"
    assert text.render("{x}", {"x": float("inf")}) == "∞"
    assert text.render("{x:pct1}", {"x": 0.99999}) == ">99.9%"
    assert text.render("{x:pct1}", {"x": 1e-9}) == "<0.1%"
    assert text.render("{x:pct1}", {"x": 0.0}) == "0%"
    assert text.render("{x:,}", {"x": 2097152}) == "2,097,152"


def test_particles_inside_locale_sentences():
    assert text.render("{x:sig3|을} 잽니다", {"x": 0.0250}) == "0.0250을 잽니다"
    assert text.render("{n|으로} 줄이면", {"n": 16}) == "16으로 줄이면"
    assert text.render("{n:|이고}", {"n": 64}) == "64이고"
    assert text.render("랭크가 {r|이라서}", {"r": 4}) == "랭크가 4라서"
    assert text.render("랭크가 {r|이라서}", {"r": 16}) == "랭크가 16이라서"
    assert text.render("{w|으로}", {"w": "Rome"}) == "Rome으로"
    assert text.render("{name|은} 토큰마다", {"name": "DeepSeek-V3"}) == "DeepSeek-V3는 토큰마다"
    assert text.render("전문가 {e|으로} 갑니다", {"e": 3}) == "전문가 3으로 갑니다"
    t = i18n.Translator("ko")
    # A Term is translated before its particle is chosen.
    assert "ReLU가" in t("collapse.no_product", act=text.Term("collapse.act_relu"))


def _final_by_jamo(syllable: str) -> int:
    # An independent reading of the final consonant: Unicode's canonical decomposition into jamo.
    jamo = unicodedata.normalize("NFD", syllable)
    return 0 if len(jamo) == 2 else ord(jamo[2]) - 0x11A7


@given(st.text(st.integers(0xAC00, 0xD7A3).map(chr), min_size=1, max_size=4),
       st.sampled_from(("은", "이", "을", "과", "으로")))
def test_the_app_and_the_corpus_choose_the_same_particle_for_a_word(word, base):
    # One rule: the corpus's templates and the app's sentences agree on every Hangul word.
    assert corpus.particle(word, base) == text.particle(word, base)
    final = _final_by_jamo(word[-1])
    closed, open_ = hangul.PAIRS[base]
    expected = open_ if final == 0 or (base == "으로" and final == 8) else closed  # 8 is ㄹ
    assert text.particle(word, base) == expected


def test_unknown_particles_are_refused_and_the_copula_follows_the_final_sound():
    with pytest.raises(KeyError):
        text.particle("64", "의를")
    assert text.particle("64", "이라서") == "라서" and text.particle("16", "이라서") == "이라서"
    assert text.particle("64", "이고") == "이고" and text.particle("4", "이라면") == "라면"
    assert text.particle("64", "이에요") == "예요" and text.particle("16", "예요") == "이에요"


@pytest.mark.parametrize("x, shown", [
    (0.0, "0"), (3.3e-16, "3.3e-16"), (-2.5e-7, "-2.5e-07"), (0.01234, "0.0123"), (12.345, "12.3"),
    (float("nan"), "—"), (float("inf"), "∞"),
])
def test_an_error_keeps_an_exact_zero_and_writes_small_ones_in_e_notation(x, shown):
    assert text.error(x) == shown


def test_a_fit_error_within_rounding_of_exact_reads_approximately_zero():
    assert text.fit_error(1e-9, exact_tol=1e-6) == "≈0"
    assert text.fit_error(1e-6, exact_tol=1e-6) == "≈0"
    assert text.fit_error(0.012345678, exact_tol=1e-6) == "0.01235"


@pytest.mark.parametrize("n, shown", [(124_439_808, "124.4M"), (6_738_415_616, "6.74B"), (68_976_648_192, "68.98B"),
                                      (1_000_000_000, "1.00B")])
def test_a_model_size_reads_as_model_cards_write_it(n, shown):
    assert text.model_size(n) == shown


def test_a_change_shows_before_and_after_and_a_dash_for_what_is_missing():
    assert text.change((12, 3)) == "12 → 3"
    assert text.change((None, 3)) == "— → 3"
    assert text.change(None) == "—"
    assert text.change((0.5, 0.25), text.pct) == "50.0% → 25.0%"
    assert text.pct_change((0.904, 0.12)) == "90% → 12%"
    assert text.pct_change(None) == "—"


@given(st.floats(0, 1, allow_nan=False))
def test_a_percentage_never_claims_all_or_nothing_it_is_not(x):
    shown = text.pct(x)
    assert (shown == "0%") == (x == 0)
    assert (shown == "100.0%") == (x == 1)
    assert shown.endswith("%")
    if not shown.startswith(("<", ">")):
        assert math.isclose(float(shown.rstrip("%")), 100 * x, abs_tol=0.05 + 1e-9)


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12))
def test_a_sentence_number_never_shows_an_exponent_and_keeps_three_significant_digits(x):
    shown = text.sig(x)
    assert "e" not in shown and "E" not in shown
    if x != 0 and abs(x) >= 1e-3:
        assert math.isclose(float(shown.replace(",", "")), x, rel_tol=5e-3)


@given(st.integers(0, 10**6))
def test_an_english_count_takes_the_singular_for_exactly_one(n):
    shown = text.render("{n:,|head;heads} ({k:,|key/value head;key/value heads})", {"n": n, "k": n})
    assert shown.startswith(f"{n:,} head" + ("s" if n != 1 else " "))
    assert shown.endswith(f"({n:,} key/value head" + ("s)" if n != 1 else ")"))


@pytest.mark.parametrize("x, shown", [(2 / 64, "1/32"), (0.5, "1/2"), (1 / 3, "1/3"), (0.3, "0.3"), (2.0, "2"),
                                      (8 / 3, "2.67"), (0.0312, "0.0312")])
def test_a_ratio_below_one_that_is_a_whole_fraction_reads_as_one(x, shown):
    assert text.ratio(x) == shown
