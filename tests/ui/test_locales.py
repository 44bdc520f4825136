"""Both languages are complete, the Korean is Korean, and every key the code asks for exists."""
import re
import tomllib

import pytest

from tests.conftest import ROOT
from ui.base import i18n, text
from ui.kit import shell
from ui.registry import catalog

KEY_CALL = re.compile(r"""\bt\(\s*f?["']([a-z_]+\.[a-z0-9_.]+)["']""")


def _hangul_share(text: str) -> float:
    # Code names (W_q, sum(p.numel()), torch) are written the same in both languages; judge the prose.
    text = re.sub(r"\S*[_()=\\]\S*|\btorch\b|\bFFN\b|\bReLU\b|\bGELU\b", " ", text)
    letters = [c for c in text if c.isalpha()]
    hangul = [c for c in letters if "\uac00" <= c <= "\ud7a3"]
    return len(hangul) / max(1, len(letters))


def test_locale_files_parse_and_share_keys():
    ko, en = i18n.strings("ko"), i18n.strings("en")
    assert set(ko) == set(en)
    assert len(en) > 100
    for lang in i18n.LANGS:
        for path in i18n.files(lang):
            tomllib.loads(path.read_text(encoding="utf-8"))
    parts = {path.name.split(".", 1)[1] for path in i18n.files("en")}
    assert parts == {path.name.split(".", 1)[1] for path in i18n.files("ko")}


def test_korean_text_is_korean_and_differs_from_english():
    ko, en = i18n.strings("ko"), i18n.strings("en")
    prose = [key for key, text in en.items() if len(re.sub(r"\$[^$]*\$|`[^`]*`|\{[^}]*\}", "", text)) > 40]
    assert prose
    for key in prose:
        assert _hangul_share(ko[key]) > 0.3, key
        assert ko[key] != en[key], key
    assert _hangul_share(" ".join(en.values())) == 0.0


def test_placeholders_match_between_languages():
    field = re.compile(r"(?<!\{)\{([a-z_0-9]*)[^{}]*\}(?!\})")
    ko, en = i18n.strings("ko"), i18n.strings("en")
    for key, text in en.items():
        assert set(field.findall(text)) == set(field.findall(ko[key])), key


def test_every_page_has_menu_title_and_summary_in_both_languages():
    for lang in i18n.LANGS:
        table = i18n.strings(lang)
        for section, _path, _icon in catalog.PAGES:
            for key in ("menu", "title"):
                assert table.get(f"{section}.{key}"), (lang, section, key)
            if section != "home":
                assert table.get(f"{section}.summary"), (lang, section)
        menus = [table[f"{section}.menu"] for section, _, _ in catalog.PAGES]
        assert len(set(menus)) == len(menus)


def test_every_key_used_in_code_exists():
    en = i18n.strings("en")
    sources = [ROOT / "dashboard.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "ui").rglob("*.py")]
    sources = [path for path in sources if path.name != "i18n.py"]  # its docstring shows the call's form
    missing = {
        (path.name, key)
        for path in sources
        for key in KEY_CALL.findall(path.read_text(encoding="utf-8"))
        if "{" not in key and key not in en
    }
    assert missing == set()


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_a_sentence_said_again_reads_as_when_first_formatted(lang):
    """Formatted sentences are kept (ui.base.i18n): values that compare equal but print apart must not share one."""
    t = i18n.Translator(lang)
    values = [1, 1.0, True, 0.0, -0.0, 2.5e-16, float("nan"), 7, text.Term("common.claim")]
    for order in (values, values[::-1]):
        for v in order:
            for _ in range(2):
                assert t("position.claim_perm", moved=v, n=v, diff=abs(v) if isinstance(v, float) else 1e-16) == \
                    i18n._render(lang, "position.claim_perm", {"moved": v, "n": v,
                                                               "diff": abs(v) if isinstance(v, float) else 1e-16})
    assert t("position.claim_perm", moved=[1], n=2, diff=0.0)  # an unhashable value is formatted all the same


def _korean_sentences():
    return [(key, value) for key, value in i18n.strings("ko").items()]


def test_korean_uses_one_term_for_each_idea_and_the_pages_own_register():
    # One word each: 코퍼스 (not 말뭉치), 초기화 (not 초기값); questions in 합니다체, not the rhetorical ~ㄹ까요?
    for key, value in _korean_sentences():
        assert "말뭉치" not in value and "초기값" not in value, key
        assert not re.search(r"[가-힣]까요\?", value), (key, value)


_QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"|'[^']*'|`[^`]*`")
# A particle written as its own word ("프랑스 의 수도 는") is the corpus's morpheme-level spelling: inside
# running Korean it must be quoted as an example, or it reads as a typo.
_SPACED_PARTICLE = re.compile(r"[가-힣]+ (의|는|은|를|을|이다|에서) [가-힣]")
_LATIN_THEN_PARTICLE = re.compile(r"(?<![A-Za-z_])([A-Za-z]{2,})(으로|을|를|이|가|은|는|과|와|로)(?![가-힣])")


def test_korean_particles_agree_with_the_latin_words_they_follow_and_corpus_spelling_is_quoted():
    for key, value in _korean_sentences():
        if key.endswith("placeholder"):  # an input's example text, in the corpus's own spelling
            continue
        bare = _QUOTED.sub("Q", value)
        assert not _SPACED_PARTICLE.search(bare), (key, _SPACED_PARTICLE.search(bare).group(0))
        for word, form in _LATIN_THEN_PARTICLE.findall(re.sub(r"\{[^}]*\}", "", value)):
            assert text.particle(word, form) == form, (key, word + form)
