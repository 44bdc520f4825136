"""The shared shell: language choice, translated menu, presenter options, links that carry them."""
import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT, TIMEOUT, open_page
from ui.base import i18n
from ui.kit import shell
from ui.registry import catalog, query


def _home(**context):
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=TIMEOUT)
    at.context = context
    return at


@pytest.mark.parametrize(("locale", "lang"), [("ko-KR", "ko"), ("ko", "ko"), ("en-US", "en"), ("de-DE", "en")])
def test_browser_locale_picks_the_language(locale, lang):
    at = _home(locale=locale).run()
    assert not at.exception
    assert at.session_state["lang"] == lang
    assert at.title[0].value == i18n.Translator(lang)("home.title")
    assert at.query_params["lang"] == lang


def test_lang_in_the_link_beats_the_browser():
    at = _home(locale="en-US")
    at.query_params["lang"] = "ko"
    at.run()
    assert at.session_state["lang"] == "ko"


@pytest.mark.parametrize("bad", ["xx", "<script>alert(1)</script>", "", "k" * 500, "ko\x00"])
def test_a_bad_lang_falls_back_without_error(bad):
    at = _home(locale="ko-KR")
    at.query_params["lang"] = bad
    at.run()
    assert not at.exception
    assert at.session_state["lang"] == "ko"
    assert at.query_params["lang"] == "ko"


def test_language_choice_survives_a_page_switch_and_updates_the_url():
    at = open_page("dashboard.py", "ko")
    at.sidebar.selectbox(key="_lang_widget").set_value("en").run()
    assert at.query_params["lang"] == "en"
    assert at.title[0].value == i18n.Translator("en")("home.title")
    at.switch_page("pages/1_parameter_split.py").run()
    assert not at.exception
    assert at.session_state["lang"] == "en"
    assert at.title[0].value == i18n.Translator("en")("split.title")


def test_menu_labels_follow_the_language():
    labels = {}
    for lang in i18n.LANGS:
        at = open_page("dashboard.py", lang)
        labels[lang] = [link.proto.label for link in at.sidebar.get("page_link")]
    assert len(labels["en"]) == len(catalog.PAGES)
    assert labels["ko"] != labels["en"]
    assert all(a != b for a, b in zip(labels["ko"], labels["en"]))


def test_presenter_options_go_into_the_url_and_the_links():
    at = open_page("dashboard.py", "en")
    at.sidebar.toggle(key="_present_widget").set_value(True).run()
    at.sidebar.toggle(key="_code_widget").set_value(False).run()
    assert at.query_params["present"] == "1"
    assert at.query_params["code"] == "0"
    links = at.get("page_link")
    assert all("present=1" in link.proto.query_string and "code=0" in link.proto.query_string for link in links)
    at.sidebar.toggle(key="_present_widget").set_value(False).run()
    assert "present" not in at.query_params


def test_presenter_flags_from_a_prepared_link():
    at = open_page("dashboard.py", "en", present="1", code="0")
    assert at.session_state["present"] is True
    assert at.session_state["code"] is False
    at = open_page("dashboard.py", "en", present="maybe", code="<b>")
    assert not at.exception
    assert at.session_state["present"] is False


def test_view_url_keeps_repeated_parameters():
    url = query.view_url("http://host/width_sweep", {"widths": ["2", "4"], "lang": ["ko"]})
    assert url == "http://host/width_sweep?widths=2&widths=4&lang=ko"
    assert query.view_url("http://host/", {}) == "http://host/"


def test_a_page_opened_from_the_menu_shows_its_own_defaults():
    # Both pages have sliders keyed d and m with the same range: Streamlit would carry the moved
    # values over (and the page would compute them) unless the shell drops them on a page switch.
    at = open_page("pages/6_key_value.py", "en")
    at.slider(key="d").set_value(80).run()
    at.select_slider(key="m").set_value(512).run()
    at.switch_page("pages/7_activation_sparsity.py")
    at.query_params.clear()
    at.query_params["lang"] = "en"  # what the menu's link carries
    at.run()
    assert not at.exception
    assert at.slider(key="d").value == 64
    assert at.select_slider(key="m").value == 256
    assert "d" not in at.query_params and "m" not in at.query_params
    assert at.session_state["lang"] == "en"



def test_the_sidebars_link_box_and_lesson_builder_draw_only_when_opened_and_then_work():
    at = open_page("pages/3_linear_collapse.py", "en", folded=True, seed="7")
    assert not at.exception, [e.value for e in at.exception]
    assert not at.sidebar.code  # both boxes closed: neither the link nor the plan is drawn
    assert not [b for b in at.button if b.key == "room_lesson_add"]
    at.session_state["_fold:presenter"] = True
    at.session_state["_fold:lesson_build"] = True
    at.run()
    assert any("seed=7" in c.value for c in at.sidebar.code)  # the view's own link
    t = i18n.Translator("en")
    steps = lambda: [c.value for c in at.sidebar.caption if c.value.startswith(t("lesson.build_steps", n=0)[:-1])]  # noqa: E731
    assert steps() == [t("lesson.build_steps", n=0)]
    next(b for b in at.button if b.key == "room_lesson_add").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("plan=" in c.value for c in at.sidebar.code)  # the step went into the lesson's link
    assert steps() == [t("lesson.build_steps", n=1)]  # counted in the run of the press; the box stays open
    at.run()
    assert steps() == [t("lesson.build_steps", n=1)] and any("plan=" in c.value for c in at.sidebar.code)
    next(b for b in at.button if b.key == "room_lesson_clear").click().run()
    assert steps() == [t("lesson.build_steps", n=0)] and not any("plan=" in c.value for c in at.sidebar.code)
