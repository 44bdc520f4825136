"""One call at the top of every page: page config, the sidebar (language, menu, presenter options)."""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st
import torch

from ui import i18n, query, warmup

# Torch's intra-op pool would spawn a thread per core for every student's session thread;
# one thread each keeps a class on a 2-core server from fighting over the cores.
torch.set_num_threads(1)

PAGES: tuple[tuple[str, str, str], ...] = (
    ("home", "dashboard.py", ":material/home:"),
    ("split", "pages/1_parameter_split.py", ":material/balance:"),
    ("position", "pages/2_position_wise.py", ":material/swap_horiz:"),
    ("collapse", "pages/3_linear_collapse.py", ":material/compress:"),
    ("sweep", "pages/4_width_sweep.py", ":material/show_chart:"),
    ("keyvalue", "pages/5_key_value.py", ":material/key:"),
    ("sparsity", "pages/6_activation_sparsity.py", ":material/bolt:"),
    ("gpt", "pages/7_trained_gpt.py", ":material/psychology:"),
    ("gptsurgery", "pages/8_gpt_surgery.py", ":material/healing:"),
)
LANG_NAMES = {"ko": "한국어", "en": "English"}

# The scale is a root font size: Streamlit sizes its text in rem, so everything grows together.
# Metric values, already the largest text, keep about their usual size: any larger and a value
# such as "2% → 100%" is cut off four to a row on a 1280-pixel projector.
_PRESENTER_CSS = """
<style>
html { font-size: 21px !important; }
[data-testid="stMetricValue"] { font-size: 1.75rem; }
</style>
"""

# A displayed formula wider than a phone scrolls inside itself; otherwise the whole page would
# scroll sideways under the student's thumb.
_NARROW_CSS = """
<style>
.katex-display { overflow-x: auto; overflow-y: hidden; }
</style>
"""


# Streamlit keeps a page link's label, a metric's label and a widget's label on one line and cuts
# what does not fit with an ellipsis. A demo card's title, "Neurons for 90% (before → after)" or a
# select's name are the words a class reads: they wrap instead, in every view (a Korean title is
# cut on a 1280-pixel window even at the usual size). Korean text wraps between words, as it is
# printed, rather than inside one.
_WRAP_CSS = """
<style>
[data-testid="stMain"] [data-testid="stPageLink"] *,
[data-testid="stMetricLabel"] *,
[data-testid="stMain"] [data-testid="stWidgetLabel"] * {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
  word-break: keep-all; overflow-wrap: anywhere;  /* Korean breaks between words, as it is printed */
}
[data-testid="stMain"] [data-testid="stPageLink"] a { height: auto; align-items: flex-start; }
[data-testid="stMain"] [data-testid="stMarkdownContainer"] :is(p, li, span, strong) {
  word-break: keep-all; overflow-wrap: anywhere;
}
</style>
"""


@dataclass(frozen=True)
class Page:
    """What a page needs from the shell: the language, its translator and the presenter options."""

    section: str
    lang: str
    t: i18n.Translator
    presenter: bool
    show_details: bool
    phone: bool = False


def _browser_lang() -> str:
    try:
        locale = st.context.locale
    except Exception:  # no browser behind the session (a bare script run)
        locale = None
    return i18n.resolve_lang(locale) or i18n.DEFAULT_LANG


def _on_phone() -> bool:
    # The browser's own word (the "Mobi" token every phone browser sends, as MDN advises to test):
    # the server never learns the screen's width, and a chart's layout is decided on the server.
    try:
        agent = st.context.headers.get("User-Agent") or ""
    except Exception:  # no browser behind the session (a bare script run)
        agent = ""
    return "Mobi" in agent


def _choose_lang() -> str:
    # A valid ?lang= wins (shared links), then the session's choice, then the browser's language.
    lang = i18n.resolve_lang(query.text("lang")) or st.session_state.get("lang") or _browser_lang()
    st.session_state["lang"] = lang
    return lang


def _choose_flag(name: str, default: bool) -> bool:
    from_url = query.flag(name)
    value = from_url if from_url is not None else st.session_state.get(name, default)
    st.session_state[name] = value
    return value


def _url_values(lang: str, presenter: bool, show_details: bool) -> dict[str, str | None]:
    # Defaults stay out of the address bar, so shared links carry only what differs.
    return {"lang": lang, "present": "1" if presenter else None, "code": None if show_details else "0"}


def link_params(page: Page) -> dict[str, str]:
    """The app-wide choices a link to another page carries (language, presenter options)."""
    values = _url_values(page.lang, page.presenter, page.show_details)
    return {name: value for name, value in values.items() if value is not None}


def _adopt(widget_key: str, state_key: str) -> None:
    # Widgets are per page; the plain session key is what carries a choice to the next page,
    # and the URL must follow at once, since a value in the URL wins on the next run.
    st.session_state[state_key] = st.session_state[widget_key]
    _sync_url()


def _sync_url() -> None:
    state = st.session_state
    values = _url_values(state["lang"], state["present"], state["code"])
    for name, value in values.items():
        query.set_value(name, value)




# What the shell keeps in a session across pages; everything else in it is a page's controls.
_SHELL_KEYS = frozenset({"lang", "present", "code", "_lang_widget", "_present_widget", "_code_widget", "_section"})


def _open_fresh(section: str) -> None:
    # Streamlit carries a URL-bound control's value to the next page that has a control with the
    # same key and range (d, m, seed...), so a page opened from the menu would show, and compute,
    # whatever the last page was left at. A page opened from the menu starts from its own
    # defaults, as it does in a fresh tab: the lesson's text and a prepared link then mean the
    # same view for everyone. The menu's links carry only the shell's keys.
    state = st.session_state
    if state.get("_section", section) != section:
        for key in [key for key in state.keys() if key not in _SHELL_KEYS]:
            del state[key]
    state["_section"] = section


def _sidebar(page: Page) -> None:
    t = page.t
    with st.sidebar:
        st.selectbox(
            t("common.language"),
            i18n.LANGS,
            index=i18n.LANGS.index(page.lang),
            format_func=LANG_NAMES.__getitem__,
            key="_lang_widget",
            on_change=_adopt,
            args=("_lang_widget", "lang"),
        )
        st.markdown(f"### {t('common.menu')}")
        params = link_params(page)
        for section, path, icon in PAGES:
            st.page_link(path, label=t(f"{section}.menu"), icon=icon, query_params=params)
        st.markdown(f"### {t('common.presenter')}")
        st.toggle(t("common.presenter_mode"), value=page.presenter, key="_present_widget",
                  on_change=_adopt, args=("_present_widget", "present"), help=t("common.presenter_help"))
        st.toggle(t("common.show_details"), value=page.show_details, key="_code_widget",
                  on_change=_adopt, args=("_code_widget", "code"), help=t("common.show_details_help"))
        with st.expander(t("common.copy_link")):
            st.caption(t("common.copy_link_help"))
            params_now = {key: st.query_params.get_all(key) for key in st.query_params}
            st.code(query.view_url(st.context.url, params_now), language=None, wrap_lines=True)


def setup(section: str) -> Page:
    """Set the page config, draw the sidebar and return the page's language, translator and options."""
    query.drop_non_finite()
    _open_fresh(section)
    lang = _choose_lang()
    t = i18n.Translator(lang)
    st.set_page_config(
        page_title=f"{t(f'{section}.title')} · FFN Lab",
        page_icon=":material/neurology:",
        layout="wide",
        initial_sidebar_state="auto",  # open on a laptop or projector, closed on a phone
    )
    presenter = _choose_flag("present", False)
    show_details = _choose_flag("code", True)
    page = Page(section=section, lang=lang, t=t, presenter=presenter, show_details=show_details, phone=_on_phone())
    _sync_url()
    st.html(_NARROW_CSS)
    st.markdown(_WRAP_CSS + (_PRESENTER_CSS if presenter else ""), unsafe_allow_html=True)
    _sidebar(page)
    warmup.start()  # once per process: the first run of any page starts the server's warm-up
    return page
