"""One call at the top of every page: page config, the sidebar (language, menu, ask me first, presenter options),
the app-wide choices read as ui/registry/catalog.py declares them (lang, present, code, ask, room)."""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import streamlit as st
import torch

from ui import widgets
from ui.base import i18n
from ui.base.page import Page
from ui.kit import access
from ui.registry import catalog, links, query
from ui.room import session as room

# Torch's intra-op pool would spawn a thread per core for every student's session thread;
# one thread each keeps a class on a 2-core server from fighting over the cores.
torch.set_num_threads(1)

# The scale is a root font size: Streamlit sizes its text in rem, so everything grows together.
# Metric values, already the largest text, keep about their usual size: any larger and a value
# such as "2% → 100%" is cut off four to a row on a 1280-pixel projector.
# The first screen of 720 pixels must hold the title, the lede and the headline: the main area's
# top padding (6rem, sized for Streamlit's header) and the title's size shrink to what the
# projector's few lines can spare. The sidebar's text is sized in pixels by Streamlit, so it is
# enlarged apart, to the page's scale.
_PRESENTER_CSS = """
<style>
html { font-size: 21px !important; }
[data-testid="stMetricValue"] { font-size: 1.75rem; }
[data-testid="stMainBlockContainer"] { padding-top: 3.2rem !important; }
[data-testid="stMain"] h1 { font-size: 2.1rem !important; padding-top: 0.25rem !important; }
[data-testid="stSidebar"] :is(p, label, input, [data-testid="stMarkdownContainer"], [data-testid="stPageLink"] span) {
  font-size: 1rem !important;
}
[data-testid="stSidebar"] h3 { font-size: 1.25rem !important; }
</style>
"""

# A displayed formula wider than a phone scrolls inside itself; otherwise the whole page would
# scroll sideways under the student's thumb.
_NARROW_CSS = """
<style>
.katex-display { overflow-x: auto; overflow-y: hidden; }
</style>
"""


# Streamlit keeps a page link's label, a metric's label and value and a widget's label on one line and cuts
# what does not fit with an ellipsis. A demo card's title, "Neurons for 90% (before → after)", a
# value such as "100.0% → 47.5%" in a third of a projector's width, or a
# select's name are the words a class reads: they wrap instead, in every view (a Korean title is
# cut on a 1280-pixel window even at the usual size). Korean text wraps between words, as it is
# printed, rather than inside one.
_WRAP_CSS = """
<style>
[data-testid="stMain"] [data-testid="stPageLink"] *,
[data-testid="stMetricLabel"] *,
[data-testid="stMetricValue"] *,
[data-testid="stMain"] [data-testid="stWidgetLabel"] * {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
  word-break: keep-all; overflow-wrap: anywhere;  /* Korean breaks between words, as it is printed */
}
[data-testid="stMain"] [data-testid="stPageLink"] a { height: auto; align-items: flex-start; }
/* A multiselect's chips scroll sideways out of view in a narrow column (page 5's "32" on a
   projector): they wrap onto a second line instead. */
[data-testid="stMultiSelectTagsContainer"] { flex-wrap: wrap !important; height: auto !important; overflow: visible !important; }
[data-testid="stMultiSelect"] :has(> [data-testid="stMultiSelectTagsContainer"]) { height: auto !important; max-height: none !important; }
[data-testid="stMain"] [data-testid="stMarkdownContainer"] :is(p, li, span, strong),
[data-testid="stSidebar"] :is([data-testid="stWidgetLabel"], [data-testid="stMarkdownContainer"]) * {
  word-break: keep-all; overflow-wrap: anywhere;  /* the sidebar's boxes are narrow on a projector too */
}
</style>
"""


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


def _choose_app() -> dict[str, object]:
    # Each app-wide choice: a valid value in the address wins (shared links), then the session's,
    # then the default (for the language, the browser's). A value the declaration refuses (a forged
    # room code, `present=maybe`) counts as absent and leaves the address at the next write.
    state = st.session_state
    chosen: dict[str, object] = {}
    for control in links.app_declared():
        raw = query.text(control.key)
        value = None if raw is None else control.parse(raw, chosen)
        if value is None and control.key in state:
            value = control.check(state[control.key], chosen)
        if value is None:
            value = _browser_lang() if control.key == "lang" else control.default_for(chosen)
        state[control.key] = chosen[control.key] = value
    return chosen


def _adopt(widget_key: str, state_key: str) -> None:
    # Widgets are per page; the plain session key is what carries a choice to the next page,
    # and the URL must follow at once, since a value in the URL wins on the next run.
    st.session_state[state_key] = st.session_state[widget_key]
    _sync_url()


def _sync_url() -> None:
    state = st.session_state
    for name, value in links.app_params({c.key: state[c.key] for c in links.app_declared()}).items():
        query.set_value(name, value)


def _open_fresh(section: str) -> None:
    # Streamlit carries a URL-bound control's value to the next page that has a control with the
    # same key and range (d, m, seed...), so a page opened from the menu would show, and compute,
    # whatever the last page was left at. A page opened from the menu starts from its own
    # defaults, as it does in a fresh tab: the lesson's text and a prepared link then mean the
    # same view for everyone. The menu's links carry only the app-wide choices. Only the pages'
    # declared controls go: what else a session keeps (a class room's token) stays.
    state = st.session_state
    if state.get("_section", section) != section:
        for key in links.page_keys() & set(state.keys()):
            del state[key]
    state["_section"] = section


def _sidebar(page: Page) -> None:
    t = page.t
    with st.sidebar:
        st.selectbox(
            t("common.language"),
            i18n.LANGS,
            index=i18n.LANGS.index(page.lang),
            format_func=catalog.LANG_NAMES.__getitem__,
            key="_lang_widget",
            on_change=_adopt,
            args=("_lang_widget", "lang"),
        )
        st.markdown(f"### {t('common.menu')}")
        params = links.app_link_params(page)
        for section, path, icon in catalog.PAGES:
            widgets.page_link(st, path, label=t(f"{section}.menu"), icon=icon, query_params=params)
        st.toggle(t("common.ask_first"), value=page.ask, key="_ask_widget",
                  on_change=_adopt, args=("_ask_widget", "ask"), help=t("common.ask_first_help"))
        # The instructor's settings, folded as the lesson builder below: every page's run draws the sidebar,
        # and a closed box costs its label alone. A toggle is kept in the session (_adopt), so it need not be drawn.
        box = widgets.folded(t("common.presenter"), "presenter", icon=":material/co_present:")
        if box.open:
            with box:
                st.toggle(t("common.presenter_mode"), value=page.presenter, key="_present_widget",
                          on_change=_adopt, args=("_present_widget", "present"), help=t("common.presenter_help"))
                st.toggle(t("common.show_details"), value=page.show_details, key="_code_widget",
                          on_change=_adopt, args=("_code_widget", "code"), help=t("common.show_details_help"))
                st.caption(f"**{t('common.copy_link')}** — {t('common.copy_link_help')}")
                params_now = {key: st.query_params.get_all(key) for key in st.query_params}
                st.code(query.view_url(st.context.url, params_now), language=None, wrap_lines=True)
    room.sidebar(page)


def setup(section: str) -> Page:
    """Set the page config, draw the sidebar and return the page's language, translator and options."""
    query.drop_non_finite()
    _open_fresh(section)
    links.begin(section)  # the page's own keys in the address cleaned, a pending apply() applied
    chosen = _choose_app()
    lang = str(chosen["lang"])
    t = i18n.Translator(lang)
    presenter = bool(chosen["present"])
    st.set_page_config(
        page_title=f"{t(f'{section}.title')} · FFN Lab",
        page_icon=":material/neurology:",
        layout="wide",
        # Open on a laptop, closed on a phone; closed on a projector, where the page needs the
        # whole width (the menu is one tap away).
        initial_sidebar_state="collapsed" if presenter else "auto",
    )
    page = Page(section=section, lang=lang, t=t, presenter=presenter, show_details=bool(chosen["code"]),
                phone=_on_phone(), ask=bool(chosen["ask"]), room=str(chosen["room"]) or None)
    _sync_url()
    # One element for all the page's style and its access script: every element is sent again on every run.
    access.draw(page, _NARROW_CSS + _WRAP_CSS + (_PRESENTER_CSS if presenter else ""))
    _sidebar(page)
    return page


def part(func: Callable[..., None]) -> Callable[..., None]:
    """A part of a page (an st.fragment): moving one of its controls reruns this part alone.

    A student's change then costs the server only what the part draws, not the sidebar, the title
    and the lesson above it, which stay on screen as they were. The sidebar's class room section
    runs on whole runs only; after a part ran alone, the room decides whether the page must rerun
    whole (ui.room.session.after_part: an instructor's new settings, a student's guess to watch).

    A part called inside another is a part of its own: the outer part's run draws it with the values
    it passes (plain values: the prompt, a country), and its own controls rerun it alone with those.
    """

    @functools.wraps(func)
    def run(*args: Any) -> None:
        func(*args)
        room.after_part()

    return st.fragment(run)
