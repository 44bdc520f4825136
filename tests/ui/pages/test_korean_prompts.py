"""The GPT pages ask in the reader's language first: Korean prompts on a Korean page, English on an
English one, and a link that names the other language keeps it."""
import pytest

from tests.conftest import open_page
from ui.base import i18n


def _radio(at, label_key, lang):
    label = i18n.Translator(lang)(label_key)
    return next(r for r in at.radio if r.label == label)


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_gpt_page_prompts_in_the_page_language(lang):
    at = open_page("pages/8_trained_gpt.py", lang)
    assert not at.exception
    assert _radio(at, "gpt.prompt_lang", lang).value == lang
    assert "plang" not in at.query_params  # the default: the link stays short and means the same view


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_surgery_edits_in_the_page_language(lang):
    at = open_page("pages/9_gpt_surgery.py", lang)
    assert not at.exception
    assert _radio(at, "gptsurgery.edit_lang", lang).value == lang
    t = i18n.Translator(lang)
    new = next(s for s in at.selectbox if s.label == t("gptsurgery.new_answer")).value
    assert new == ("로마" if lang == "ko" else "Rome")


def test_a_link_naming_english_keeps_english_on_a_korean_page():
    at = open_page("pages/9_gpt_surgery.py", "ko", edit_lang="en")
    assert not at.exception
    assert _radio(at, "gptsurgery.edit_lang", "ko").value == "en"
