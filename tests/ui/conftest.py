"""Fixtures of the Streamlit-side tests (verdicts, locales, shell, query, compute, AppTest pages)."""
from __future__ import annotations

import pytest


@pytest.fixture
def fresh_caches():
    """Empty caches (st.cache_data's and the experiments') before and after the test.

    Only for the tests that count what is computed or called (the cache's own tests, "show the
    code"): every other test may read a result another test computed, since a result is a pure
    function of its key, and recomputing the same default views for hundreds of page runs was a
    large share of the suite's time.
    """
    import streamlit as st

    from ui.compute import cache

    st.cache_data.clear()
    cache.clear()
    yield
    st.cache_data.clear()
    cache.clear()
