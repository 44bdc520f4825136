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


# A lesson's Korean (lessons/*.toml) is read out in class beside the pages: the same rules hold for it.
LESSONS = sorted((ROOT / "lessons").glob("*.toml"))
_LESSON_FIELDS = frozenset({"title", "note", "text", "why_right", "why_wrong"})
SOURCES = ("locales", *(path.name for path in LESSONS))


def _lesson_texts(path) -> list[tuple[str, str, dict]]:
    """Every {en, ko} text of a lesson file (its title, notes, questions and their explanations): where, which, texts."""
    found = []

    def walk(node, where: str, field: str) -> None:
        if isinstance(node, dict):
            if field in _LESSON_FIELDS and "ko" in node:
                found.append((f"{path.name}: {where}", field, node))
            for name, value in node.items():
                walk(value, f"{where}.{name}" if where else name, name)
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}[{i}]", field)

    walk(tomllib.loads(path.read_text(encoding="utf-8")), "", "")
    return found


def _korean_sentences(source: str = "locales"):
    if source == "locales":
        return [(key, value) for key, value in i18n.strings("ko").items()]
    return [(where, texts["ko"]) for where, _, texts in _lesson_texts(ROOT / "lessons" / source)]


def test_every_lesson_text_is_found_and_its_korean_is_korean():
    # The walk must reach each kind of text, or the rules below would pass on nothing.
    seen = set()
    for path in LESSONS:
        texts = _lesson_texts(path)
        assert {"title", "note"} <= {field for _, field, _ in texts}, path.name
        for where, field, t in texts:
            seen.add(field)
            assert _hangul_share(t["ko"]) > 0.3 and t["ko"] != t.get("en"), where
    assert seen == _LESSON_FIELDS


# One word each (ui/locales/glossary.md): 코퍼스, 초기화, 뉴런 for a hidden unit.
_NOT = ("말뭉치", "초기값", "유닛")


@pytest.mark.parametrize("source", SOURCES)
def test_korean_uses_one_term_for_each_idea_and_the_pages_own_register(source):
    # Questions in 합니다체 (…입니까?, …습니까?), not the rhetorical ~ㄹ까요?
    for key, value in _korean_sentences(source):
        for word in _NOT:
            assert word not in value, (key, word)
        assert not re.search(r"[가-힣]까요\?", value), (key, value)


_QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"|'[^']*'|`[^`]*`")
# A particle written as its own word ("프랑스 의 수도 는") is the corpus's morpheme-level spelling: inside
# running Korean it must be quoted as an example, or it reads as a typo.
_SPACED_PARTICLE = re.compile(r"[가-힣]+ (의|는|은|를|을|이다|에서) [가-힣]")
_LATIN_THEN_PARTICLE = re.compile(r"(?<![A-Za-z_])([A-Za-z]{2,})(으로|을|를|이|가|은|는|과|와|로)(?![가-힣])")


@pytest.mark.parametrize("source", SOURCES)
def test_korean_particles_agree_with_the_latin_words_they_follow_and_corpus_spelling_is_quoted(source):
    for key, value in _korean_sentences(source):
        if key.endswith("placeholder"):  # an input's example text, in the corpus's own spelling
            continue
        bare = _QUOTED.sub("Q", value)
        assert not _SPACED_PARTICLE.search(bare), (key, _SPACED_PARTICLE.search(bare).group(0))
        for word, form in _LATIN_THEN_PARTICLE.findall(re.sub(r"\{[^}]*\}", "", value)):
            assert text.particle(word, form) == form, (key, word + form)


# A particle whose form depends on the word before it (을/를, 이/가, 은/는, 과/와, (으)로, the copula's
# 이라/이고/이며/이면 …), taken whole: followed by no syllable, or by one a particle goes on with (으로는, 이라서).
_VARYING = r"(?:으로|이에요|예요|이라|이고|이며|이면|이나|이든|이랑|을|를|이|가|은|는|과|와|로|라|나|랑)"
_GOES_ON = "는도서써의만면고며다요라나든에었였랑"
_AFTER_CLOSE = re.compile(r"(?<!\\)([})\]])(" + _VARYING + r")(?![가-힣])|(?<!\\)([})\]])(" + _VARYING + r")(?=[" + _GOES_ON + "])")
_NAME_NUMBER_THEN_PARTICLE = re.compile(r"(?<![A-Za-z_])([A-Za-z][A-Za-z-]*\d[\d.]*)(으로|을|를|이|가|은|는|과|와|로)(?![가-힣])")
# "8d²이", "10⁻¹⁶을": a power is read 제곱, 승 (ui.base.text), closing on a consonant
_POWER_THEN_PARTICLE = re.compile(r"(\S*[⁰¹²³⁴⁵⁶⁷⁸⁹])(으로|을|를|이|가|은|는|과|와|로)(?![가-힣])")


def _hand_written_particles(value: str) -> list[str]:
    hits = []
    for m in _AFTER_CLOSE.finditer(value):
        if m.group(0)[0] == "}" and "|" in value[value.rfind("{", 0, m.start()):m.start()]:
            continue  # {x|으로}는: the engine chose the particle, 는 goes on from it
        hits.append(m.group(0))
    return hits


@pytest.mark.parametrize("value, found", [
    ("전문가 {top}({share:pct1})로 갑니다", [")로"]),
    ("{measured}를 남깁니다", ["}를"]),
    ("{x}이고, 그다음", ["}이고"]),
    ("{x}이라서", ["}이라"]),
    ("FFN(x)와 같습니다", [")와"]),
    ("[perm]가 옵니다", ["]가"]),
    ("{x|을} 놓칩니다", []),             # the engine's own form
    ("{n}개를 씁니다", []),              # a counter, not a particle
    ("{n}가지", []), ("{x}이내", []),     # words that begin like a particle
    ("{x}의 몫", []), ("(GELU)에서", []), ("{x}만", []),  # particles that never change
    ("\\{x\\}를", []),                    # an escaped brace in LaTeX is no placeholder
    ("{m|으로}는", []),                  # 는 goes on from the engine's 으로
])
def test_the_hand_written_particle_check_finds_what_it_should(value, found):
    assert _hand_written_particles(value) == found


@pytest.mark.parametrize("source", SOURCES)
def test_no_korean_particle_is_written_by_hand_after_a_placeholder_or_a_bracket(source):
    # After {x} the word is only known when the sentence is rendered: the engine chooses ({x|을}). After a
    # bracket a reader cannot tell which word the particle agrees with: the sentence is written without one.
    found = [(key, hit) for key, value in _korean_sentences(source) for hit in _hand_written_particles(value)]
    assert not found, found


@pytest.mark.parametrize("source", SOURCES)
def test_a_particle_after_a_name_with_a_number_or_a_power_agrees_with_how_it_is_read(source):
    # "Qwen3는", "GPT-4는": the number of a name is read in English (ui.base.text); "8d²이": a power as 제곱
    for key, value in _korean_sentences(source):
        bare = re.sub(r"\{[^}]*\}", "", value)
        for word, form in _NAME_NUMBER_THEN_PARTICLE.findall(bare) + _POWER_THEN_PARTICLE.findall(bare):
            assert text.particle(word, form) == form, (key, word + form)
