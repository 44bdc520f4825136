"""Links that always open: infinite numbers in a link, choices carried by id in the address,
no warning logged for a choice named by a link, charts laid out for a phone."""
import logging

import pytest
from streamlit.elements.lib import policies

from tests.conftest import open_page
from ui import widgets
from ui.base import i18n
from ui.kit import controls
from ui.registry import catalog

# The experiments: the glossary has no controls to feed bad numbers to.
DEMOS = [entry.path for entry in catalog.DEMOS]
# What Python's float() reads as infinite or not-a-number; Streamlit turns some into int(inf).
NON_FINITE = ("inf", "-inf", "Infinity", "1e309", "1e400", "nan")
# Each choice and the option it is moved to (page, key, option).
CHOICES = [
    ("pages/2_position_wise.py", "act", "gelu"),
    ("pages/2_position_wise.py", "perm", "roll"),
    ("pages/3_linear_collapse.py", "act", "silu"),
    ("pages/5_width_sweep.py", "target", "custom"),
    ("pages/5_width_sweep.py", "act", "gelu"),
    ("pages/5_width_sweep.py", "method", "both"),
    ("pages/7_activation_sparsity.py", "act", "gelu"),
    ("pages/7_activation_sparsity.py", "init", "kaiming"),
    ("pages/7_activation_sparsity.py", "task", "random_labels"),
]


def _controls(at) -> dict[str, object]:
    """Every keyed control of the main area and its value."""
    return {w.key: w.value for kind in ("slider", "select_slider", "number_input", "selectbox", "radio",
                                        "toggle", "multiselect", "text_input")
            for w in at.main.get(kind) if getattr(w, "key", None)}


def test_non_finite_numbers_in_any_key_open_every_page_on_its_defaults():
    """`seed=inf` raised OverflowError inside Streamlit's number box: every key of every page gets
    every spelling at once, and the page must open on exactly its default controls."""
    failures = []
    numeric_pages = 0
    for path in DEMOS:
        at = open_page(path, "en", folded=True)  # the guess boxes are no controls of the link
        defaults = _controls(at)
        assert defaults, f"{path}: no keyed controls found"
        # Choices and text boxes get the spellings too; the number boxes are what used to raise.
        numeric_pages += any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in defaults.values())
        for spelling in NON_FINITE:
            at.query_params.clear()
            at.query_params["lang"] = "en"
            at.switch_page("dashboard.py").run()  # a page seeds its widgets from the link when it is opened
            at.switch_page(path)
            for key in defaults:
                at.query_params[key] = spelling
            at.run()
            if at.exception:
                failures.append((path, spelling, at.exception[0].value[:80]))
                continue
            if _controls(at) != defaults:
                failures.append((path, spelling, "controls off their defaults"))
            left = [key for key in defaults if at.query_params.get(key) == spelling]
            if left:
                failures.append((path, spelling, f"still in the address: {left}"))
    assert not failures, failures
    assert numeric_pages >= 5, "the number boxes were not found"


def test_token_inf_on_key_value():
    at = open_page("pages/6_key_value.py", "ko", token="inf", seed="1e400")
    assert not at.exception
    assert at.number_input(key="token").value == 0
    assert at.number_input(key="seed").value == 0
    assert "token" not in at.query_params and "seed" not in at.query_params


def test_a_finite_number_is_kept():
    at = open_page("pages/6_key_value.py", "en", token="7", seed="3")
    assert at.number_input(key="token").value == 7
    assert at.query_params["token"] == "7"


def _choice(at, key: str):
    return at.radio(key=key) if key in ("method", "task") else at.selectbox(key=key)


@pytest.mark.parametrize("path", sorted({path for path, _, _ in CHOICES}))
def test_the_choices_go_into_the_address_by_id_and_back(path):
    moves = {key: option for page, key, option in CHOICES if page == path}
    at = open_page(path, "ko")
    defaults = {key: _choice(at, key).value for key in moves}
    assert not set(moves) & set(at.query_params)  # defaults stay out of the address
    for key, option in moves.items():
        _choice(at, key).set_value(option).run()
        assert not at.exception
        assert at.query_params[key] == option
    # The address, opened anew in the other language, shows the same choices.
    again = open_page(path, "en", **{k: v for k, v in at.query_params.items() if k != "lang"})
    assert {key: _choice(again, key).value for key in moves} == moves
    assert {key: again.query_params[key] for key in moves} == moves
    # Back to a default: out of the address again.
    key = next(iter(moves))
    _choice(at, key).set_value(defaults[key]).run()
    assert key not in at.query_params


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_a_label_in_a_link_becomes_the_id_in_the_address(lang):
    label = i18n.Translator("ko" if lang == "en" else "en")("sparsity.init_xavier")
    at = open_page("pages/7_activation_sparsity.py", lang, init=label)
    assert at.selectbox(key="init").value == "xavier"
    assert at.query_params["init"] == "xavier"


def test_a_custom_target_keeps_its_expression():
    at = open_page("pages/5_width_sweep.py", "en", target="custom", expr="x**3")
    assert not at.exception
    assert at.selectbox(key="target").value == "custom"
    assert at.text_input(key="expr").value == "x**3"
    assert at.query_params["target"] == "custom" and at.query_params["expr"] == "x**3"


def _choice_app():
    import streamlit as st

    from ui.base import i18n
    from ui.base.page import Page
    from ui.kit import controls
    from ui.registry import kinds

    page = Page(section="home", lang="en", t=i18n.Translator("en"), presenter=False, show_details=True)
    options = ["x", "y"] if st.toggle("other options", key="flip") else ["a", "b", "c"]
    pick = kinds.Choice("pick", options, options[1], option_label=lambda tr, o: o.upper(), label="pick")
    controls._choice(page, pick, st.selectbox, "pick", {})


def test_a_choice_whose_options_change_falls_back_to_its_default():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_choice_app, default_timeout=60)
    at.query_params["pick"] = "C"  # a label in the link
    at.run()
    assert at.selectbox(key="pick").value == "c" and at.query_params["pick"] == "c"
    at.toggle(key="flip").set_value(True).run()
    assert not at.exception
    assert at.selectbox(key="pick").value == "y"  # the default (index 1), not the first option
    assert "pick" not in at.query_params


def test_a_choice_named_by_a_link_logs_no_warning(caplog, monkeypatch):
    """Position's act has a non-first default; a link naming it used to log a warning with a stack trace."""
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)  # Streamlit warns once a process
    with caplog.at_level(logging.WARNING):
        for act in ("relu", "gelu", "none"):
            at = open_page("pages/2_position_wise.py", "en", act=act)
            assert at.selectbox(key="act").value == act
    logged = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith("streamlit")]
    assert not [m for m in logged if "Session State API" in m], logged
    assert not [r for r in caplog.records if r.stack_info or r.exc_info]
