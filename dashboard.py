"""FFN Lab's home page: what the feed-forward network is, where it sits, and the map of demos."""
import streamlit as st

from ui import shell

page = shell.setup("home")
t = page.t
st.title(t("home.title"))
