"""Fixtures of the Streamlit-side tests (verdicts, locales, shell, query, compute, AppTest pages)."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fresh_caches():
    """Each test starts with empty caches (st.cache_data's and the experiments'), so no test reads another's result."""
    import streamlit as st

    from ui.compute import cache

    st.cache_data.clear()
    cache.clear()
    yield
    st.cache_data.clear()
    cache.clear()
