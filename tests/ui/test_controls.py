"""Each page's link is its declared controls (ui/registry/catalog.py): the registry agrees with pages/, every
control survives a link, a bad value in a link is the default, apply() moves a page, and the app-wide
ask and room are read as declared."""
from __future__ import annotations

import ast
import logging
import math
import urllib.parse
from typing import Any

import pytest
from streamlit import source_util
from streamlit.elements.lib import policies
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT, TIMEOUT, open_page
from ui.kit import shell
from ui.registry import catalog, kinds, links, query
from ui.registry.kinds import Choice, Code, Number, Several, Text, Toggle

SECTIONS = [entry.section for entry in catalog.PAGES]
DEMOS = [entry for entry in catalog.PAGES if entry.path.startswith("pages/")]
KINDS = ("slider", "select_slider", "number_input", "selectbox", "radio", "toggle", "multiselect", "text_input")


# --- the registry --------------------------------------------------------------------------------


def _setup_section(path: str) -> str | None:
    """The section a page file passes to shell.setup, read from its source."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "setup"
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "shell"):
            return node.args[0].value  # type: ignore[attr-defined]
    return None


def test_every_page_file_is_registered_and_every_row_has_its_file():
    files = {f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py")} | {"dashboard.py"}
    rows = {entry.path for entry in catalog.PAGES}
    assert files == rows, (sorted(files - rows), sorted(rows - files))


# Every page's address as the menu had it when the files were numbered in its order (issue 36): links
# shared before, and lessons/*.toml, name these. A file renamed or renumbered must keep its address.
ADDRESSES = {
    "home": "", "split": "parameter_split", "position": "position_wise", "collapse": "linear_collapse",
    "gated": "gated_ffn", "sweep": "width_sweep", "keyvalue": "key_value", "sparsity": "activation_sparsity",
    "gpt": "trained_gpt", "gptsurgery": "gpt_surgery", "moe": "mixture_of_experts", "glossary": "glossary",
}


def test_every_page_keeps_its_address():
    """Streamlit's pages/ router names a page by its file minus the number; ours (query.url_path) agrees."""
    assert {entry.section for entry in catalog.PAGES} == set(ADDRESSES)
    for entry in catalog.PAGES:
        assert query.url_path(entry.path) == ADDRESSES[entry.section], entry.path
        if entry.path.startswith("pages/"):
            assert source_util.page_icon_and_name(ROOT / entry.path)[1] == ADDRESSES[entry.section], entry.path


def test_every_page_file_is_numbered_as_the_menu_shows_it():
    for position, entry in enumerate(catalog.PAGES[1:], start=1):
        assert entry.path.startswith(f"pages/{position}_"), (position, entry.path)


def test_every_registered_page_declares_its_controls_under_its_own_section():
    assert list(catalog.CONTROLS) == SECTIONS
    for entry in catalog.PAGES:
        assert _setup_section(entry.path) == entry.section, entry.path
    for section, declared in catalog.CONTROLS.items():
        keys = [c.key for c in declared]
        assert len(keys) == len(set(keys)), section
        assert not set(keys) & {c.key for c in catalog.APP}, f"{section} reuses an app-wide key"


def test_every_control_a_page_draws_is_declared_and_every_declared_one_is_drawn():
    """Each page's source names its controls through controls.draw(page, "<key>") and nothing else binds."""
    for entry in DEMOS:
        source = (ROOT / entry.path).read_text(encoding="utf-8")
        assert 'bind="query-params"' not in source, entry.path
        tree = ast.parse(source)
        # controls.draw(page, "<key>", ...) draws one; controls.row(page, "<key>", "<key>", ...) several.
        drawn = [arg.value for node in ast.walk(tree)
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                 and node.func.attr in ("draw", "row") and isinstance(node.func.value, ast.Name)
                 and node.func.value.id == "controls"
                 for arg in (node.args[1:2] if node.func.attr == "draw" else node.args[1:])
                 if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
        assert sorted(drawn) == sorted(c.key for c in catalog.CONTROLS[entry.section]), entry.path


@pytest.mark.parametrize("section", SECTIONS)
def test_labels_and_helps_are_in_both_locales(section):
    from ui.base import i18n

    for lang in i18n.LANGS:
        t = i18n.Translator(lang)
        for control in (*catalog.CONTROLS[section], *catalog.APP):
            keys = [k for k in (control.label, control.help, getattr(control, "placeholder", None)) if k]
            for key in keys:
                assert t(key) != key, (lang, key)
            if isinstance(control, Choice) and isinstance(control.option_label, str):
                for option in control.options_for(links.clean(catalog.CONTROLS[section], {})):
                    assert t(f"{control.option_label}{option}") != f"{control.option_label}{option}", (lang, option)


# --- values as a link writes them ----------------------------------------------------------------


def _moved(declared: tuple[kinds.Control, ...]) -> dict[str, object]:
    """Every control off its default, each to a value that is cheap to compute."""
    values: dict[str, object] = {}
    for control in declared:
        default = control.default_for(values)
        if isinstance(control, Number):
            value = control.lo if default != control.lo else control.lo + control.step
        elif isinstance(control, Choice):
            # The first other option that leaves every later choice something to move to.
            value = next(o for o in control.options_for(values) if o != default
                         and _later_choices_move(declared, {**values, control.key: o}))
        elif isinstance(control, Several):
            value = tuple(control.options[:1]) if tuple(control.options[:1]) != default else tuple(control.options[:2])
        elif isinstance(control, Toggle):
            value = not default
        elif isinstance(control, Text):
            value = "x**3 - x" if control.key == "expr" else "the capital of japan is"
        else:
            raise AssertionError(control)
        assert control.check(value, values) == value, (control.key, value)
        values[control.key] = value
    return values


def _later_choices_move(declared: tuple[kinds.Control, ...], values: dict[str, object]) -> bool:
    known = dict(values)
    for control in declared:
        if control.key in known:
            continue
        if isinstance(control, Choice) and len(control.options_for(known)) < 2:
            return False
        known[control.key] = control.default_for(known)
    return True


def _shown(at) -> dict[str, Any]:
    shown = {w.key: w.value for kind in KINDS for w in at.main.get(kind) if getattr(w, "key", None)}
    return {k: tuple(v) if isinstance(v, list) else v for k, v in shown.items()}


def _harness(section: str) -> None:
    """Every declared control of `section` drawn as its page draws it, with nothing computed, and
    what the API reads back kept in the session for the test."""
    import streamlit as st

    from ui.base import i18n
    from ui.base.page import Page
    from ui.kit import controls, shell
    from ui.registry import links

    page = Page(section=section, lang="en", t=i18n.Translator("en"), presenter=False, show_details=True)
    shell._open_fresh(section)
    links.begin(section)
    if "_apply_first" in st.session_state:  # as the class room's follow step does, from the sidebar
        links.apply(section, st.session_state.pop("_apply_first"))
    for control in links.declared(section):
        controls.draw(page, control.key)
    st.session_state["_view"] = links.view_params(section)
    st.session_state["_values"] = links.values(section)
    if st.button("apply", key="_apply_button"):
        links.apply(section, st.session_state["_to_apply"])
        st.rerun()


def _open_harness(section: str, params: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_function(_harness, args=(section,), default_timeout=TIMEOUT)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("section", [s for s in SECTIONS if catalog.CONTROLS[s]])
def test_every_control_round_trips_through_a_link(section):
    declared = catalog.CONTROLS[section]
    moved = _moved(declared)
    # The student moves every control; the view's link, opened anew, shows the same values.
    at = _open_harness(section)
    assert at.session_state["_view"] == {}
    assert at.session_state["_values"] == links.clean(declared, {})
    params = {c.key: c.format(moved[c.key]) for c in declared}
    at.session_state["_to_apply"] = params
    at.button(key="_apply_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert _shown(at) == moved
    view = at.session_state["_view"]
    assert view == params  # every control is off its default, so every one is in the link
    address = {key: at.query_params[key] for key in params}
    assert address == params, "the address bar does not carry the view"

    link = links.link(section, view, app={"lang": "ko"})
    path, _, query_string = link.partition("?")
    assert path == f"/{query.url_path(catalog.page_path(section))}"
    opened = dict(urllib.parse.parse_qsl(query_string, keep_blank_values=True))
    assert opened.pop("lang") == "ko"
    fresh = _open_harness(section, opened)
    assert _shown(fresh) == moved
    assert fresh.session_state["_values"] == moved
    assert fresh.session_state["_view"] == params


@pytest.mark.parametrize("entry", DEMOS, ids=[e.section for e in DEMOS])
def test_a_pages_own_link_opens_the_page_on_those_values(entry):
    """The real page, opened by the link view_params would give, shows every value moved."""
    declared = catalog.CONTROLS[entry.section]
    moved = _moved(declared)
    params = {c.key: c.format(moved[c.key]) for c in declared}
    at = open_page(entry.path, "en", **params)
    assert not at.exception, [e.value for e in at.exception]
    shown = _shown(at)
    assert {k: shown[k] for k in params if k in shown} == {k: moved[k] for k in params if k in shown}
    # Only the sweep's formula hides behind its choice (moved to another built-in target); the rest shows.
    assert set(params) - set(shown) <= {"expr"}


# --- bad values ----------------------------------------------------------------------------------


def _bad(control: kinds.Control) -> list[str]:
    """Values a link may carry that the control does not take."""
    common = ["", "\x00", "x" * 500]
    if isinstance(control, Number):
        span = control.hi - control.lo
        return [*common, "inf", "-inf", "nan", "1e400", "-1e400", "Infinity", "abc", "1,2", "<b>1</b>",
                str(control.hi + control.step), str(control.lo - control.step), str(control.hi + span * 1000),
                *([str(control.lo + 0.5)] if control.whole else []),
                *([str(control.lo + 1)] if control.step > 1 else [])]
    if isinstance(control, Choice):
        return [*common, "inf", "nan", "__import__('os')", "../../etc/passwd", "none_of_these", "-1", "99999"]
    if isinstance(control, Several):
        return ["3", "2,2", ",".join(map(str, control.options)), "inf", "abc", "2,abc", "x" * 500]
    if isinstance(control, Toggle):
        return ["maybe", "2", "-1", "inf", "nan", "<b>", "x" * 500]
    if isinstance(control, Text):
        return ["x" * (control.most + 1), "a\x00b", "line\nbreak"]
    raise AssertionError(control)


def _keep(control: kinds.Control, raw: str, values: dict[str, object]) -> bool:
    # A choice's option whose id happens to read like a number (heads=-1 is not one; m=256 is).
    return isinstance(control, Choice) and raw in {str(o) for o in control.options_for(values)}


@pytest.mark.parametrize("section", [s for s in SECTIONS if catalog.CONTROLS[s]])
def test_every_bad_value_is_refused_by_its_control(section):
    declared = catalog.CONTROLS[section]
    defaults = links.clean(declared, {})
    for control in declared:
        for raw in _bad(control):
            if _keep(control, raw, defaults):
                continue
            assert control.parse(raw, defaults) is None, (section, control.key, raw)
            assert links.clean(declared, {control.key: raw}) == defaults, (section, control.key, raw)
            assert control.check(raw, defaults) is None or isinstance(control, Text), (control.key, raw)
        # Values of the wrong type in the session: never taken as the control's.
        wrongs: list[object] = [math.inf, math.nan, None, object(), b"1", 1.5j]
        if isinstance(control, Number | Toggle):
            wrongs.append("1")
        elif isinstance(control, Text):
            wrongs.append(1)
        elif isinstance(control, Choice):  # an option's id as text is not the option
            first = control.options_for(defaults)[0]
            wrongs.append(str(first) if not isinstance(first, str) else 1)
        for wrong in wrongs + ([] if isinstance(control, Several) else [[1]]):
            assert control.check(wrong, defaults) is None, (section, control.key, wrong)


@pytest.mark.parametrize("position", [0, 1, 2])
@pytest.mark.parametrize("section", [s for s in SECTIONS if catalog.CONTROLS[s]])
def test_a_link_of_bad_values_opens_every_control_on_its_default(section, position):
    """Every control at once given a bad value (a different one per run): no exception, the defaults
    shown and computed, and the bad values gone from the address."""
    declared = catalog.CONTROLS[section]
    defaults = links.clean(declared, {})
    bad = {}
    for control in declared:
        spellings = [raw for raw in _bad(control) if not _keep(control, raw, defaults) and "\x00" not in raw]
        bad[control.key] = spellings[position % len(spellings)]
    at = _open_harness(section, bad)
    assert at.session_state["_values"] == defaults
    shown = _shown(at)
    assert shown == {k: v for k, v in defaults.items() if k in shown}
    assert at.session_state["_view"] == {}
    assert not [k for k in bad if k in at.query_params and at.query_params[k] == bad[k]], dict(at.query_params)


def test_a_number_past_the_range_is_the_default_not_the_end_of_the_range():
    at = open_page("pages/6_key_value.py", "en", d="4096", top="7")
    assert not at.exception
    assert at.slider(key="d").value == 64  # Streamlit alone would clamp it to 128
    assert at.slider(key="top").value == 7
    assert "d" not in at.query_params and at.query_params["top"] == "7"


def test_a_toggle_spelled_one_way_is_written_the_way_it_is_read():
    at = open_page("pages/3_linear_collapse.py", "en", bias="1")
    assert at.toggle(key="bias").value is True
    assert at.query_params["bias"] == "true"


def test_old_links_that_repeat_the_widths_still_open():
    at = open_page("pages/5_width_sweep.py", "en", widths=["2", "8"])
    assert not at.exception
    assert at.multiselect(key="widths").value == [2, 8]
    assert at.query_params["widths"] == "2,8"


# --- apply --------------------------------------------------------------------------------------


def test_apply_moves_the_page_and_leaves_the_rest_at_the_defaults():
    declared = catalog.CONTROLS["keyvalue"]
    at = _open_harness("keyvalue", {"seed": "5", "top": "9"})
    assert at.session_state["_values"]["seed"] == 5
    at.session_state["_to_apply"] = {"d": "32", "token": "inf", "bogus": "1", "m": "64"}
    at.button(key="_apply_button").click().run()
    assert not at.exception
    expected = {**links.clean(declared, {}), "d": 32, "m": 64}  # token=inf is its default; seed and top too
    assert at.session_state["_values"] == expected
    assert _shown(at) == expected
    assert {k: at.query_params.get(k) for k in ("d", "m", "seed", "top", "token", "bogus")} == {
        "d": "32", "m": "64", "seed": None, "top": None, "token": None, "bogus": None}
    # The next run keeps them, and a moved control still moves (the browser writes a bound
    # widget's move into the address; AppTest has no browser, so only the values are checked).
    at.slider(key="d").set_value(48).run()
    assert at.session_state["_values"]["d"] == 48 and at.session_state["_values"]["m"] == 64
    assert at.session_state["_view"] == {"d": "48", "m": "64"}


def test_apply_before_the_controls_are_drawn_takes_effect_in_the_same_run(caplog, monkeypatch):
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)  # Streamlit warns once a process
    at = _open_harness("position", {"seed": "5"})
    at.session_state["_apply_first"] = {"act": "gelu", "n": "4", "causal": "true"}
    with caplog.at_level(logging.WARNING):
        at.run()
    assert not at.exception
    # A bound widget given a default as well as a session value would log a warning with a stack trace.
    assert not [r for r in caplog.records if r.name.startswith("streamlit") and (r.stack_info or r.exc_info)]
    expected = {**links.clean(catalog.CONTROLS["position"], {}), "act": "gelu", "n": 4, "causal": True}
    assert at.session_state["_values"] == expected and _shown(at) == expected
    assert "_controls_pending" not in at.session_state
    assert {k: at.query_params.get(k) for k in ("act", "n", "causal", "seed")} == {
        "act": "gelu", "n": "4", "causal": "true", "seed": None}


def test_apply_before_opening_another_page_opens_it_on_those_values():
    at = open_page("pages/6_key_value.py", "en")
    at.session_state["_controls_pending"] = ("collapse", links.clean(catalog.CONTROLS["collapse"], {"act": "gelu", "seed": "3"}))
    at.switch_page("pages/3_linear_collapse.py").run()
    assert not at.exception
    assert at.selectbox(key="act").value == "gelu"
    assert at.number_input(key="seed").value == 3
    assert at.query_params["act"] == "gelu" and at.query_params["seed"] == "3"


def test_link_keeps_only_what_the_page_takes():
    link = links.link("sweep", {"act": "gelu", "seed": "inf", "bogus": "1", "method": "pieces"},
                         app={"lang": "ko", "room": " abc234 ", "present": "maybe"})
    assert link == "/width_sweep?lang=ko&room=ABC234&act=gelu"
    assert links.link("home", {}) == "/"
    assert links.link("split", {"heads": "4", "kv_heads": "4"}) == "/parameter_split?heads=4"


# --- the app-wide ask and room -------------------------------------------------------------------


ROOM = next(c for c in catalog.APP if c.key == "room")


@pytest.mark.parametrize(("raw", "code"), [
    ("ABC234", "ABC234"), (" abc234 ", "ABC234"), ("zyx987", "ZYX987"),
    ("ABC23", None), ("ABC2345", None), ("ABCDE1", None), ("ABCDE0", None), ("ABCDEO", None), ("ABCDEI", None),
    ("ABCDEL", None), ("AB CD23", None), ("ABC-23", None), ("'; DROP", None), ("", None), ("x" * 500, None),
])
def test_a_room_code_is_six_unambiguous_characters(raw, code):
    assert isinstance(ROOM, Code)
    assert ROOM.parse(raw, {}) == code


@pytest.fixture
def no_room_store(monkeypatch):
    """The shell's carrying of a room code alone: the class room's own sidebar (which joins the room
    in its store and drops a code it does not know) is tested with the room."""
    from ui.room import session

    monkeypatch.setattr(session, "sidebar", lambda page: None)


def test_ask_and_room_come_from_the_link_and_ride_every_menu_link(no_room_store):
    at = open_page("dashboard.py", "en", ask="1", room=" abc234 ")
    assert not at.exception
    assert at.session_state["ask"] is True and at.session_state["room"] == "ABC234"
    assert at.query_params["room"] == "ABC234" and at.query_params["ask"] == "1"
    links = at.sidebar.get("page_link")
    assert links and all("room=ABC234" in link.proto.query_string and "ask=1" in link.proto.query_string
                         for link in links)
    # Across pages, as a student in a class moves through them from the menu.
    at.switch_page("pages/3_linear_collapse.py")
    at.query_params.clear()
    for key, value in {"lang": "en", "ask": "1", "room": "ABC234"}.items():
        at.query_params[key] = value
    at.run()
    assert at.session_state["room"] == "ABC234" and at.session_state["ask"] is True
    at.sidebar.toggle(key="_ask_widget").set_value(False).run()
    assert "ask" not in at.query_params and at.session_state["ask"] is False


@pytest.mark.parametrize("bad", ["ABCDE1", "<script>", "abc", "ABC2345", "%00"])
def test_a_forged_room_is_dropped_silently(bad, no_room_store):
    at = open_page("dashboard.py", "en", room=bad, ask="maybe")
    assert not at.exception
    assert at.session_state["room"] == "" and at.session_state["ask"] is False
    assert "room" not in at.query_params and "ask" not in at.query_params
    assert not at.warning and not at.error


def _page_fields() -> None:
    import streamlit as st

    from ui.kit import shell

    # The menu's page links need the app's own pages, which a script made of this function has not.
    sidebar, shell._sidebar = shell._sidebar, lambda page: None
    try:
        page = shell.setup("home")
    finally:
        shell._sidebar = sidebar
    st.session_state["_page"] = (page.ask, page.room)


def test_page_exposes_ask_and_room():
    at = AppTest.from_function(_page_fields, default_timeout=TIMEOUT)
    at.query_params["room"] = "xyz789"
    at.query_params["ask"] = "on"
    at.run()
    assert at.session_state["_page"] == (True, "XYZ789")
    at = AppTest.from_function(_page_fields, default_timeout=TIMEOUT).run()
    assert at.session_state["_page"] == (False, None)


def test_the_sidebar_offers_ask_me_first_as_the_link_says():
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=TIMEOUT)
    at.query_params["lang"] = "ko"
    at.query_params["ask"] = "1"
    at.run()
    toggle = at.sidebar.toggle(key="_ask_widget")
    assert toggle.value is True and toggle.label == "먼저 물어보기"


def _timed_scene() -> None:
    """A control drawn as a page draws it; with `timed` set, the run first acts as a live part's timed run."""
    import streamlit as st
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    from ui.registry import links

    st.session_state["_section"] = "collapse"
    if st.session_state.pop("timed", False):
        ctx = get_script_run_ctx()
        ctx.fragment_ids_this_run = ["a-timed-part"]
        try:
            links.undo_stale()
        finally:
            ctx.fragment_ids_this_run = None
    st.selectbox("act", ["none", "relu", "gelu"], key="act")
    links.drawn("collapse", "act")


def test_a_timed_run_brings_back_what_the_page_drew_and_a_whole_run_keeps_a_move():
    """A timed run's copy of a control that differs from what the page last drew is an old copy: undone.
    The same value in a whole run is the student's move: kept."""
    at = AppTest.from_function(_timed_scene, default_timeout=TIMEOUT).run()
    at.session_state["act"] = "relu"  # set by the app (a lesson's step): drawn as relu
    at.run()
    assert at.selectbox(key="act").value == "relu"
    at.selectbox(key="act").set_value("none")  # the browser's copy from before that run
    at.session_state["timed"] = True
    at.run()
    assert not at.exception and at.selectbox(key="act").value == "relu"
    at.selectbox(key="act").set_value("gelu").run()  # a move: its own whole run
    assert at.selectbox(key="act").value == "gelu"
    at.session_state["timed"] = True
    at.run()  # a timed run that agrees with the page changes nothing
    assert at.selectbox(key="act").value == "gelu"
