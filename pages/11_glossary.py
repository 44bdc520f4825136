"""The glossary: every term the pages use, in plain words first and then precisely."""
import streamlit as st

from ui.kit import glossary, shell

page = shell.setup("glossary")
t = page.t

st.title(t("glossary.title"))
st.markdown(t("glossary.lesson"))
# Alphabetical in the page's language, so a student finds a word as in any glossary.
for term in sorted(glossary.TERMS, key=lambda k: glossary.name(t, k).casefold()):
    with st.container(border=True):
        st.markdown(f"**{glossary.name(t, term)}** — {t(f'glossary.{term}.plain')}")
        st.caption(f"{t('glossary.precise')}: {t(f'glossary.{term}.precise')}")
