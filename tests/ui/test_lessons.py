"""The verdicts' shared rules: no UI imports, Korean sentences that follow the glossary."""
import json
import re

from tests.conftest import fresh_import
from ui.base import i18n


def test_lessons_import_no_ui_package():
    lines = fresh_import("import ui.base.text, ui.verdicts.home, ui.verdicts.split, ui.verdicts.position, ui.verdicts.collapse",
                         ("streamlit", "altair"))
    assert json.loads(lines[-1]) == []


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
