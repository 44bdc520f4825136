"""The verdicts' shared pieces: sentence numbers without exponents, Korean particles that agree, no UI imports."""
import json
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from ui import i18n, lessons


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
])
def test_particles_agree_with_how_the_word_is_read(word, eul, ro, i):
    assert (lessons.particle(word, "을"), lessons.particle(word, "으로"), lessons.particle(word, "가")) == (eul, ro, i)
    assert lessons.particle(word, "을/를") == eul


def test_sentences_never_show_an_exponent_or_inf():
    assert lessons.render("{x:ratio}배", {"x": 110.4}) == "110배"
    assert lessons.render("{x:ratio}×", {"x": 2.0}) == "2×"
    assert lessons.render("{x:ratio}", {"x": 3.5}) == "3.5"
    assert lessons.render("{x:tiny}", {"x": 3.3e-16}) == "3.3 × 10⁻¹⁶"
    assert lessons.render("{x:.2g}", {"x": 123456.0}) == "1.2 × 10⁵"
    assert lessons.render("{x}", {"x": 0.02503}) == "0.0250"
    assert lessons.render("{x}", {"x": float("inf")}) == "∞"
    assert lessons.render("{x:pct1}", {"x": 0.99999}) == ">99.9%"
    assert lessons.render("{x:pct1}", {"x": 1e-9}) == "<0.1%"
    assert lessons.render("{x:pct1}", {"x": 0.0}) == "0%"
    assert lessons.render("{x:,}", {"x": 2097152}) == "2,097,152"


def test_particles_inside_locale_sentences():
    assert lessons.render("{x:sig3|을} 잽니다", {"x": 0.0250}) == "0.0250을 잽니다"
    assert lessons.render("{n|으로} 줄이면", {"n": 16}) == "16으로 줄이면"
    assert lessons.render("{n:|이고}", {"n": 64}) == "64이고"
    t = i18n.Translator("ko")
    # A Term is translated before its particle is chosen.
    assert "ReLU가" in t("collapse.no_product", act=lessons.Term("collapse.act_relu"))


def test_lessons_import_no_ui_package():
    code = (
        "import json, sys\n"
        "import ui.lessons.home, ui.lessons.split, ui.lessons.position, ui.lessons.collapse\n"
        "print(json.dumps(sorted(n for n in sys.modules if n.split('.')[0] in ('streamlit', 'altair'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


# The glossary's rules, for the sections of home, split, position-wise and collapse (and the shared ones).
GLOSSARY_SECTIONS = ("common", "home", "split", "position", "collapse")
NOT_OUR_TERMS = ("특이값", "로그 척도", "레이어 정규화", "원문", "바이어스", "매개변수", "자코비안", "(bias)")
HAEYO = re.compile(r"(세요|해요|예요|에요|어요|아요|죠)[.!?\"]?(\s|$)")


def test_korean_sections_follow_the_glossary():
    ko = i18n.strings("ko")
    mine = {key: text for key, text in ko.items() if key.split(".")[0] in GLOSSARY_SECTIONS}
    assert len(mine) > 150
    for key, text in mine.items():
        assert not any(term in text for term in NOT_OUR_TERMS), key
        assert not HAEYO.search(text), key  # one register: 합니다체
        # A particle right after a placeholder goes through the formatter, which makes it agree.
        assert not re.search(r"\}(을|를|은|는|과|와|로|으로)(?=[\s.,)])", text), key
