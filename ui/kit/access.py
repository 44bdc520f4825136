"""What every page does for a student who reads it by keyboard, screen reader or zoom (WCAG 2.2 AA, as axe-core checks it).

- The page's language on the document (`<html lang="ko">`): a screen reader then speaks Korean as Korean.
  Streamlit serves one index.html with `lang="en"`; a small script sets the page's own.
- A box that scrolls sideways (a wide formula or code block on a phone) can be reached by Tab and scrolled
  with the arrow keys: the script gives it `tabindex="0"`, the region role and a name, while (and only
  while) it is wider than its box, so a laptop's Tab order has no stop that does nothing.
- Text of the theme's faded styles meets 4.5:1: a caption's links (Streamlit fades the whole caption,
  links included, to 60%), code comments (Prism's grey on the code block's background) and a chosen
  segment's label (the primary colour on its own 10% tint, 4.48:1; a darker shade of it, 7:1).
- Focus is always visible, with the app's own colour.
"""
from __future__ import annotations

import json

import streamlit as st

from ui.base.page import Page

# The caption's text keeps its grey (a colour, not an opacity, so its links keep theirs): 6.3:1 on the
# sidebar's #f3f4f6, 7:1 on white. Comments: 5.9:1 on the code block's #f9fafb.
_CSS = """
<style>
[data-testid="stCaptionContainer"] { opacity: 1 !important; color: rgba(17, 24, 39, 0.7) !important; }
[data-testid="stCaptionContainer"] a { color: #1d4ed8; }
:is(pre, code) .token:is(.comment, .prolog, .doctype, .cdata) { color: #5c6270 !important; }
button[data-selected="true"] [data-testid="stMarkdownContainer"] :is(p, span) { color: #9a3412 !important; }
[data-ffnlab-scrolls]:focus-visible { outline: 3px solid #c2410c; outline-offset: 2px; }
.st-key-ffnlab_access, [data-testid="stElementContainer"]:has(> .st-key-ffnlab_access),
[data-testid="stLayoutWrapper"]:has(> .st-key-ffnlab_access) { display: none !important; }
</style>
"""

# Runs once per page and language (Streamlit mounts an unchanged element once). The observer it starts
# stays for the tab's life; a later run only updates the language and the names it gives.
_SCRIPT = """
<script>
(() => {
  const self = window.__ffnlabAccess = window.__ffnlabAccess || {};
  self.labels = %(labels)s;
  document.documentElement.lang = %(lang)s;
  const SCROLLERS = '.katex-display, [data-testid="stMain"] pre, [data-testid="stSidebar"] pre';
  self.reach = () => {
    for (const el of document.querySelectorAll(SCROLLERS)) {
      const style = getComputedStyle(el);
      const scrolls = el.scrollWidth > el.clientWidth + 1 && /(auto|scroll)/.test(style.overflowX + style.overflow);
      const name = self.labels[el.matches('.katex-display') ? 'formula' : 'code'];
      if (scrolls && (!el.hasAttribute('data-ffnlab-scrolls') || el.getAttribute('aria-label') !== name)) {
        if (!el.hasAttribute('tabindex')) { el.setAttribute('tabindex', '0'); }
        el.setAttribute('data-ffnlab-scrolls', '');
        el.setAttribute('role', 'region');
        el.setAttribute('aria-label', name);
      } else if (!scrolls && el.hasAttribute('data-ffnlab-scrolls')) {
        for (const a of ['data-ffnlab-scrolls', 'tabindex', 'role', 'aria-label']) el.removeAttribute(a);
      }
    }
  };
  if (!self.observer) {
    let pending = false;
    const later = () => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => { pending = false; self.reach(); });
    };
    self.observer = new MutationObserver(later);
    self.observer.observe(document.body, {childList: true, subtree: true});
    window.addEventListener('resize', later);
  }
  self.reach();
})();
</script>
"""


def draw(page: Page, style: str = "") -> None:
    """The page's language and the reach of its scrolling boxes (a hidden element), the styles above and the
    page's own `style` (<style> blocks)."""
    t = page.t
    labels = {"formula": t("access.formula_scrolls"), "code": t("access.code_scrolls")}
    with st.container(key="ffnlab_access"):
        st.html(style + _CSS + _SCRIPT % {"labels": json.dumps(labels, ensure_ascii=False), "lang": json.dumps(page.lang)},
                unsafe_allow_javascript=True)
