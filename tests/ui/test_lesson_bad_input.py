"""Bad lesson input gets one short line naming the bad step, never a traceback: a crafted `plan=` link on any page,
a nonsense lesson file under `python -m lessons check` and in the instructor's list, the same question twice in a
step, an ask the page would never ask at its step's settings. Teacher text reaches the instructor's screen as
typed, never as markup."""
from __future__ import annotations

import base64
import json
import math
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import ROOT, open_class, open_page
from ui.base import i18n, text
from ui.questions import teacher
from ui.room import lesson, plan, results

EN = i18n.Translator("en")
ASK = {"measure": "ffn_share", "text": {"en": "How much?"}, "tolerance": 2}


def link(raw: object) -> str:
    """A `plan=` value as the app writes one (plan.encode), of any JSON."""
    packed = zlib.compress(json.dumps(raw, separators=(",", ":")).encode("utf-8"), 9)
    return base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")


def nested(depth: int) -> str:
    """A link whose lesson nests `depth` arrays deep where a step belongs (its JSON under the link's bounds)."""
    body = '{"id":"x","steps":' + "[" * depth + "]" * depth + "}"
    return base64.urlsafe_b64encode(zlib.compress(body.encode(), 9)).decode("ascii").rstrip("=")


# --- 1. a crafted link ----------------------------------------------------------------------------------------

CRAFTED = {
    "unhashable page": (link({"id": "x", "steps": [[["split"], {}, []]]}), "plan, step 1: no page ['split']"),
    "tolerance of 401 digits": (link({"id": "x", "steps": [["split", {}, [], [{**ASK, "tolerance": 10 ** 400}]]]}),
                                "plan, step 1, ask 1: tolerance must be a finite number ≥ 0"),
    "9000 nested arrays": (nested(9000), "plan: nested too deeply"),
}


@pytest.mark.parametrize("case", CRAFTED)
def test_a_crafted_link_is_a_plan_error_naming_the_step(case):
    value, said = CRAFTED[case]
    assert len(value) <= plan.MAX_LINK  # what a link may carry, refused for what it says
    with pytest.raises(plan.PlanError) as e:
        plan.decode(value)
    assert str(e.value).startswith(said) and len(str(e.value)) < 200 and "\n" not in str(e.value)


GOOD_LINK = {"id": "x", "steps": [["sweep", {"target": "abs", "seed": "3"}, ["questions.sweep_rmse"],
                                   [{"measure": "rmse", "where": {"m": 8}, "text": {"en": "How close?"},
                                     "relative": 0.25, "why_right": {"ko": "네."}}]]]}
HOSTILE = (None, True, math.inf, math.nan, 10 ** 400, -1, 8.0, "", "x" * 3000, [], {}, [[["deep"]]],
           {"a": {"b": {"c": 1}}}, ["split"], [None] * 50)


def _paths(node: object, at: tuple = ()) -> list[tuple]:
    out = [at]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*at, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*at, i))
    return out


def _replaced(node: object, at: tuple, value: object) -> object:
    if not at:
        return value
    copy = dict(node) if isinstance(node, dict) else list(node)  # type: ignore[call-overload]
    copy[at[0]] = _replaced(copy[at[0]], at[1:], value)
    return copy


def test_any_field_of_a_link_replaced_by_anything_is_a_lesson_or_a_plan_error():
    assert plan.decode(link(GOOD_LINK)).steps[0].asks[0].where == 8
    tried = 0
    for at in _paths(GOOD_LINK):
        for value in HOSTILE:
            try:
                plan.decode(link(_replaced(GOOD_LINK, at, value)))
            except plan.PlanError as e:
                assert len(str(e)) < 300 and "\n" not in str(e), (at, value, str(e))
            tried += 1
    assert tried == len(_paths(GOOD_LINK)) * len(HOSTILE) >= 300


@pytest.mark.parametrize("case", CRAFTED)
def test_a_crafted_link_leaves_the_page_working_with_its_line_in_the_sidebar(case):
    value, said = CRAFTED[case]
    at = open_page("pages/1_parameter_split.py", "en", folded=True, plan=value)
    assert not at.exception, [e.value for e in at.exception]
    with pytest.raises(plan.PlanError) as e:
        plan.decode(value)
    shown = EN("lesson.link_refused", reason=text.literal(str(e.value)))
    assert shown in [c.value for c in at.sidebar.caption]
    assert at.title[0].value == EN("split.title")  # the page itself is drawn as usual


# --- 2. the same question twice in a step -----------------------------------------------------------------------

def test_the_same_question_twice_in_a_step_is_refused_whatever_its_comments():
    with pytest.raises(plan.PlanError) as e:
        plan.step({"page": "split", "ask": [ASK, {**ASK, "why_right": {"en": "Yes."}}]}, "x, step 1")
    assert str(e.value).startswith("x, step 1, ask 2: the same question as ask 1")
    # Another text, another rule: another question.
    other = plan.step({"page": "split", "ask": [ASK, {**ASK, "tolerance": 3}, {**ASK, "text": {"en": "And?"}}]}, "x")
    assert len(other.asks) == 3
    with pytest.raises(plan.PlanError, match="questions lists 'questions.split_share' twice"):
        plan.step({"page": "split", "questions": ["questions.split_share"] * 2}, "x")


def test_the_builder_refuses_a_question_the_step_already_asks():
    at = open_page("pages/1_parameter_split.py", "en")
    for _ in range(2):
        at.sidebar.text_input(key="lesson_ask_text").input("How much of a block is the FFN?")
        at.sidebar.button(key="lesson_ask_add").click().run()
        assert not at.exception, [e.value for e in at.exception]
    assert EN("lesson.ask_twice") in [c.value for c in at.sidebar.caption]
    (_section, _params, _questions, asks), = at.session_state["_room_built"]
    assert len(asks) == 1


# --- 3, 4 and 6: `python -m lessons check` on nonsense files ----------------------------------------------------

HEAD = 'id = "t"\ntitle = { en = "T", ko = "티" }\n'
NOTE = 'note = { en = "n", ko = "메모" }\n'


def _file(page: str, settings: str = "", ask: str = "") -> str:
    body = HEAD + f"[[steps]]\npage = {page}\n" + (f"settings = {settings}\n" if settings else "") + NOTE
    return body + (f"[[steps.ask]]\n{textwrap.dedent(ask).strip()}\n" if ask else "")


def _ask(measure: str, rule: str, where: str = "") -> str:
    return f'measure = "{measure}"\n' + (f"where = {where}\n" if where else "") + f'text = {{ en = "How?" }}\n{rule}'


GOOD = _file('"split"', ask=_ask("ffn_share", "tolerance = 2")).encode()
# Each file, and the words of its one line (every line starts with the file's name).
FILES: dict[str, tuple[bytes, str]] = {
    "bad_utf8.toml": (b'id = "t"\n# \xff\xfe\n', "bad_utf8.toml: not UTF-8 text (byte 11)"),
    "utf16.toml": (GOOD.decode().encode("utf-16"), "utf16.toml: not UTF-8 text"),
    "deep_arrays.toml": (("x = " + "[" * 5000 + "]" * 5000 + "\n").encode(),
                         "deep_arrays.toml: arrays or tables nested too deeply"),
    "deep_tables.toml": (("x = " + "{ a = " * 3000 + "1" + " }" * 3000 + "\n").encode(),
                         "deep_tables.toml: arrays or tables nested too deeply"),
    "page_list.toml": (_file('["moe"]').encode(), "page_list.toml, step 1: no page ['moe']"),
    "page_table.toml": (_file("{ a = 1 }").encode(), "page_table.toml, step 1: no page {'a': 1}"),
    "tolerance_401_digits.toml": (_file('"split"', ask=_ask("ffn_share", "tolerance = 1" + "0" * 400)).encode(),
                                  "tolerance_401_digits.toml, step 1, ask 1: tolerance must be a finite number ≥ 0"),
    "int_5001_digits.toml": (_file('"split"', ask=_ask("ffn_share", "tolerance = 1" + "0" * 5000)).encode(),
                             "int_5001_digits.toml: a number too long to read"),
    "too_large.toml": (GOOD + b"#" * plan.MAX_FILE, "too_large.toml: over 256 KB; a lesson file holds at most 256 KB"),
    "bom.toml": (b"\xef\xbb\xbf" + GOOD, "bom.toml: ok (1 steps, 1 asks)"),
    "long_page.toml": (_file('"' + "x" * 200 + '"').encode(), "long_page.toml, step 1: no page 'xxxxx"),
    "relative_50.toml": (_file('"split"', ask=_ask("ffn_share", "relative = 50")).encode(),
                         "relative_50.toml, step 1, ask 1: relative = 50 is more than 1: it is a fraction of the "
                         "measured value (0.5 means ±50%)"),
    "where_float.toml": (_file('"sweep"', ask=_ask("rmse", "relative = 0.5", "{ m = 8.0 }")).encode(),
                         "where_float.toml: ok (1 steps, 1 asks)"),
    "twice.toml": (_file('"split"', ask=_ask("ffn_share", "tolerance = 2") + "\n[[steps.ask]]\n"
                         + _ask("ffn_share", "tolerance = 2")).encode(),
                   "twice.toml, step 1, ask 2: the same question as ask 1"),
    # Asks the page never asks at the step's settings: it shows a note there and computes nothing.
    "edit_not_applied.toml": (_file('"gptsurgery"', "{ apply = false }",
                                    _ask("other_facts_changed", "tolerance = 2")).encode(),
                              "edit_not_applied.toml, step 1, ask 1: at these settings the page computes no edit, "
                              "so it never asks 'other_facts_changed': apply = false"),
    "sparsity_costly.toml": (_file('"sparsity"', "{ d = 128, m = 512, steps = 1000 }",
                                   _ask("dead", "tolerance = 2")).encode(),
                             "sparsity_costly.toml, step 1, ask 1: at these settings the page computes no experiment, "
                             "so it never asks 'dead': n·d·m·steps must be at most"),
    "keyvalue_token.toml": (_file('"keyvalue"', "{ n = 16, token = 30 }", _ask("n90", "tolerance = 2")).encode(),
                            "keyvalue_token.toml, step 1, ask 1: at these settings the page computes no experiment, "
                            "so it never asks 'n90': token = 30 is not one of the n = 16 stored keys"),
    "position_big.toml": (_file('"position"', "{ n = 16, d = 128 }", _ask("ffn_off", "tolerance = 2")).encode(),
                          "position_big.toml, step 1, ask 1: at these settings the page computes no experiment, "
                          "so it never asks 'ffn_off': n_tokens × d_model must be at most 1024"),
}


@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> tuple[subprocess.CompletedProcess, dict[str, list[str]]]:
    """One run of the check tool over every file above and the shipped lessons: its output, its lines by file."""
    folder = tmp_path_factory.mktemp("lessons")
    for name, (body, _) in FILES.items():
        (folder / name).write_bytes(body)
    out = subprocess.run([sys.executable, "-m", "lessons", "check", *(str(folder / n) for n in FILES),
                          "lessons/ffn_story.toml", "lessons/modern_ffn.toml"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    lines: dict[str, list[str]] = {}
    for line in out.stdout.splitlines():
        lines.setdefault(line.split(":")[0].split(",")[0], []).append(line)
    return out, lines


def test_check_says_nothing_but_its_lines(checked):
    out, lines = checked
    assert out.returncode == 1
    assert out.stderr == "", out.stderr[:2000]  # no traceback, no Streamlit "missing ScriptRunContext"
    assert lines["ffn_story.toml"] == ["ffn_story.toml: ok (10 steps, 0 asks)"]
    assert lines["modern_ffn.toml"] == ["modern_ffn.toml: ok (6 steps, 8 asks)"]


@pytest.mark.parametrize("name", FILES)
def test_check_gives_each_bad_file_one_short_line_naming_it(checked, name):
    _out, lines = checked
    (line,) = lines[name]
    assert line.startswith(FILES[name][1]), line
    assert len(line) < 260


def test_a_value_quoted_in_a_line_is_cut_short(checked):
    (line,) = checked[1]["long_page.toml"]
    assert "'" + "x" * 38 + "…" in line and "x" * 40 not in line


def test_an_integral_index_is_the_index_and_a_relative_rule_is_a_fraction():
    settings = plan.values("sweep", {})
    a = teacher.ask({"measure": "rmse", "where": {"m": 8.0}, "text": {"en": "How?"}, "relative": 0.5}, "sweep", settings)
    assert a.where == 8 and type(a.where) is int and teacher.to_raw("sweep", a)["where"] == {"m": 8}
    assert teacher.ask({**ASK, "relative": 1}, "split", plan.values("split", {})).relative == 1.0  # ±100% is a rule
    with pytest.raises(teacher.AskError, match="0.5 means ±50%"):
        teacher.ask({**ASK, "relative": 1.01}, "split", plan.values("split", {}))


def test_the_rules_of_a_silent_part_are_the_pages_own_stops():
    # Each stop is where the page's own test says so (pages/*.py): just inside it the page computes.
    assert teacher.silent("position", "experiment", plan.values("position", {"n": "8", "d": "128"})) is None
    assert teacher.silent("position", "block", plan.values("position", {"n": "16", "d": "128"}))
    assert teacher.silent("keyvalue", "experiment", plan.values("keyvalue", {"n": "16", "token": "15"})) is None
    costly = plan.values("sparsity", {"d": "128", "m": "512", "steps": "200"})  # 128·128·512·200 ≤ MAX_WORK
    assert teacher.silent("sparsity", "experiment", costly) is None
    assert teacher.silent("gptsurgery", "ablation", plan.values("gptsurgery", {"apply": "off"})) is None
    assert teacher.silent("gptsurgery", "edit", plan.values("gptsurgery", {})) is None  # applied by default


# --- 3. a bad file in lessons/ on the instructor's screen; 5. teacher text as typed ----------------------------

HOSTILE_TITLE = "**Bold** <b>tag</b> [link](https://evil.example) # not a heading"
HOSTILE_NOTE = "![img](https://evil.example/x.png) $x^2$ `code` <script>alert(1)</script>"


def test_a_bad_shipped_file_is_left_out_and_named(tmp_path: Path):
    (tmp_path / "good.toml").write_bytes(GOOD)
    (tmp_path / "bad.toml").write_bytes(GOOD.replace(b'page = "split"', b'page = ["split"]'))
    (tmp_path / "utf16.toml").write_bytes(GOOD.decode().encode("utf-16"))
    good, bad = plan.shipped(tmp_path)
    assert list(good) == ["t"]
    assert [line.split(":")[0] for line in bad] == ["bad.toml, step 1", "utf16.toml"]


def test_the_instructor_sees_a_left_out_file_and_the_lessons_text_as_typed(tmp_path, monkeypatch):
    from ui.room import session

    raw = {"id": "hostile", "title": {"en": HOSTILE_TITLE, "ko": HOSTILE_TITLE},
           "steps": [{"page": "split", "note": {"en": HOSTILE_NOTE, "ko": HOSTILE_NOTE}}]}
    shipped = ({"hostile": plan.lesson(raw)}, ["bad.toml, step 2: no page ['split'] (pages: …)"])
    monkeypatch.setenv("FFNLAB_CLASS_DB", f"sqlite:///{tmp_path / 'class.sqlite'}")
    monkeypatch.setattr(plan, "shipped", lambda: shipped)
    lesson._shipped.clear()
    try:
        at = open_page("pages/1_parameter_split.py", "en", folded=True)
        open_class(at).sidebar.button(key="room_start").click().run()
        assert at.session_state[session.SEAT] is not None
        captions = [c.value for c in at.sidebar.caption]
        assert EN("lesson.file_left_out", reason=text.literal(shipped[1][0])) in captions
        at.sidebar.selectbox(key="room_lesson_pick").set_value("hostile").run()
        at.sidebar.button(key="room_lesson_start").click().run()
        assert not at.exception, [e.value for e in at.exception]
        shown = [m.value for m in at.markdown]
        assert EN("lesson.where", title=text.literal(HOSTILE_TITLE), n=1, total=1) in shown
        assert text.literal(HOSTILE_NOTE) in shown
        assert not any(HOSTILE_TITLE in v or HOSTILE_NOTE in v for v in shown)
    finally:
        lesson._shipped.clear()


def test_the_most_missed_show_a_teachers_text_as_typed_and_a_pages_question_as_written():
    page = SimpleNamespace(lang="en", t=EN)
    row = results.Row("split", "", {}, "teacher.split_x", 1, 3, 0, 0.0, 50.0, 2.0, True, "ffn_share",
                      {"en": HOSTILE_TITLE})
    assert lesson._markdown(page, row) == text.literal(HOSTILE_TITLE)
    builtin = results.Row("collapse", "questions.collapse_rank", {}, "q1", 1, 3, 0, 0.0, 64.0, 2.0, True)
    assert lesson._markdown(page, builtin) == EN("questions.collapse_rank")
    bare = results.Row("collapse", "", {}, "<b>id</b>", 1, 3, 0, 0.0, 64.0, 2.0, True)
    assert lesson._markdown(page, bare) == text.literal("<b>id</b>")
