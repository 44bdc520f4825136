"""Streamlit-side helpers shared by the pages: shell (page setup and sidebar), i18n, query, widgets, charts."""
