"""A teacher's own questions: checked with one line per bad step, answered by the page's measure at the step's
settings, shown as written and never as markup, carried by links and lesson files, asked on the page (alone
and in a class room), and kept in the room's results with their text and measure."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from lessons import measured
from tests.conftest import ROOT, open_class, open_page
from ui.base import i18n, text
from ui.questions import quiz, teacher
from ui.registry import measures
from ui.room import plan, results

GOOD_ASK = {"measure": "rmse", "where": {"m": 8}, "relative": 0.25,
            "text": {"en": "With 8 neurons, how close does the fit of |x| get?", "ko": "뉴런 8개로 |x|에 얼마나 가깝게 맞출까요?"}}
SWEEP = {"target": "abs", "seed": "3"}


def _lesson(*steps: str) -> str:
    head = 'id = "mine"\n[title]\nen = "Mine"\nko = "내 수업"\n'
    note = '[steps.note]\nen = "A note."\nko = "메모입니다."\n'
    return head + "".join(f"\n[[steps]]\n{textwrap.dedent(s).strip()}\n{note}" for s in steps)


def _check(tmp_path: Path, body: str) -> subprocess.CompletedProcess:
    path = tmp_path / "lesson.toml"
    path.write_text(body, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "lessons", "check", str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


ASK_TEXT = 'text = { en = "How much?" }'
# Each bad step, and the words its one line must say.
BAD = [
    ('page = "nowhere"', "no page 'nowhere'"),
    (f'page = "sweep"\n[[steps.ask]]\nmeasure = "volume"\n{ASK_TEXT}\ntolerance = 1', "has no measure 'volume'"),
    (f'page = "sweep"\n[[steps.ask]]\nmeasure = "top_word"\n{ASK_TEXT}\noptions = ["Paris", "Rome"]',
     "belongs to page 'gpt'"),
    (f'page = "sweep"\n[[steps.ask]]\nmeasure = "rmse"\n{ASK_TEXT}\nrelative = 0.2', "needs where = { m = … }"),
    (f'page = "sweep"\n[[steps.ask]]\nmeasure = "rmse"\nwhere = {{ m = 3 }}\n{ASK_TEXT}\nrelative = 0.2',
     "m = 3 is not on screen"),
    (f'page = "split"\n[[steps.ask]]\nmeasure = "ffn_share"\n{ASK_TEXT}\ntolerance = -1', "finite number ≥ 0"),
    (f'page = "split"\n[[steps.ask]]\nmeasure = "ffn_share"\n{ASK_TEXT}\ntolerance = inf', "finite number ≥ 0"),
    (f'page = "split"\n[[steps.ask]]\nmeasure = "ffn_share"\n{ASK_TEXT}\nrelative = nan', "finite number ≥ 0"),
    (f'page = "split"\n[[steps.ask]]\nmeasure = "bigger"\n{ASK_TEXT}\noptions = ["ffn", "embedding"]',
     "can never be 'embedding'"),
    (f'page = "split"\n[[steps.ask]]\nmeasure = "ffn_share"\ntext = {{ en = "{"x" * 301}" }}\ntolerance = 2',
     "301 characters"),
    ('page = "split"\n[[steps.ask]]\nmeasure = "ffn_share"\ntext = { en = "Guess <script>alert(1)</script>" }\n'
     'tolerance = 2', "markup"),
    ('page = "split"\n[[steps.ask]]\nmeasure = "ffn_share"\ntext = { en = "See [this](https://example.com)" }\n'
     'tolerance = 2', "markup"),
    (f'page = "split"\n[[steps.ask]]\nmeasure = "ffn_share"\n{ASK_TEXT}', "say what counts as right"),
    (f'page = "split"\n[[steps.ask]]\nmeasure = "ffn_share"\n{ASK_TEXT}\nfactor = 1', "factor must be more than 1"),
    (f'page = "split"\n[[steps.ask]]\nmeasure = "bigger"\n{ASK_TEXT}\ntolerance = 1', "is a word"),
    ('page = "split"\n' + "".join(f'[[steps.ask]]\nmeasure = "ffn_share"\n{ASK_TEXT}\ntolerance = 1\n'
                                  for _ in range(41)), "at most 40"),
]


def test_check_names_every_bad_step_in_one_line_of_its_own(tmp_path):
    good = 'page = "split"\n[[steps.ask]]\nmeasure = "ffn_share"\ntext = { en = "How much?" }\ntolerance = 2'
    out = _check(tmp_path, _lesson(good, *(body for body, _ in BAD)))
    assert out.returncode == 1, out.stdout + out.stderr
    assert "Traceback" not in out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    assert len(lines) == len(BAD), lines
    for n, ((_, said), line) in enumerate(zip(BAD, lines), start=2):  # step 1 is the good one
        assert f"step {n}" in line and said in line, (n, said, line)


def test_check_accepts_the_shipped_lessons_and_says_what_they_hold(tmp_path):
    out = subprocess.run([sys.executable, "-m", "lessons", "check", "lessons/ffn_story.toml", "lessons/modern_ffn.toml"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.splitlines() == ["ffn_story.toml: ok (10 steps, 0 asks)", "modern_ffn.toml: ok (6 steps, 8 asks)"]
    broken = _check(tmp_path, "id = [")
    assert broken.returncode == 1 and "not TOML" in broken.stdout and "Traceback" not in broken.stderr


def test_the_asks_only_lesson_asks_nothing_built_in_and_covers_the_modern_ffn():
    lesson = plan.load(ROOT / "lessons/modern_ffn.toml")
    assert all(not s.questions for s in lesson.steps)
    assert 6 <= sum(len(s.asks) for s in lesson.steps) <= 8
    assert {"gated", "moe"} <= {s.section for s in lesson.steps} and {"gpt", "gptsurgery"} & {s.section for s in lesson.steps}
    assert all(set(s.note) == set(i18n.LANGS) for s in lesson.steps)
    # Every ask is answered at its step: the measure holds a value there.
    for s in lesson.steps:
        chosen = plan.values(s.section, s.settings)
        for a in s.asks:
            m = measures.get(s.section, a.measure)
            (asked,) = teacher.asked(s.section, m.part, measured.results(s.section, m.part, chosen), (a,),
                                     dict(s.settings))
            assert asked.answer == m.value(measured.results(s.section, m.part, chosen), a.where)


def test_measures_lists_each_measure_with_its_value_at_the_defaults():
    out = subprocess.run([sys.executable, "-m", "lessons", "measures", "split"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stdout.splitlines() if line.startswith("- ")]
    assert [line.split(":")[0][2:] for line in lines] == [m.id for m in measures.of("split")]
    assert "at the defaults: 66.67" in lines[0] and "at the defaults: 2,097,152" in lines[1]
    nowhere = subprocess.run([sys.executable, "-m", "lessons", "measures", "nowhere"], cwd=ROOT, capture_output=True,
                             text=True, timeout=120)
    assert nowhere.returncode == 1 and "no page 'nowhere'" in nowhere.stdout


def test_an_ask_is_answered_by_the_measure_at_the_steps_settings():
    chosen = plan.values("sweep", SWEEP)
    a = teacher.ask(GOOD_ASK, "sweep", chosen)
    res = measured.results("sweep", "experiment", chosen)
    (asked,) = teacher.asked("sweep", "experiment", res, (a,), SWEEP)
    fit = next(f for f in next(iter(res["results"].values())).fits if f.width == 8)
    assert asked.answer == fit.rmse and asked.question.measure == "rmse"
    q = asked.question
    assert q.is_right(fit.rmse * 1.2, asked.answer) and not q.is_right(fit.rmse * 1.3, asked.answer)
    # The same ask is the same question in every session; another text is another question.
    assert teacher.ask(GOOD_ASK, "sweep", chosen).key == q.key and q.key.startswith("teacher.sweep_rmse_")
    other = teacher.ask({**GOOD_ASK, "text": {"en": "Another?"}}, "sweep", chosen)
    assert other.key != q.key
    # A part that does not hold the measure asks nothing of it.
    assert teacher.asked("sweep", "other", res, (a,), SWEEP) == ()


def test_a_question_in_one_language_reads_as_written_in_the_other():
    q = teacher.ask({**GOOD_ASK, "text": {"ko": "뉴런 8개로 얼마나?"}}, "sweep", plan.values("sweep", SWEEP))
    from ui.questions import title
    assert title(i18n.Translator("en"), q, {}) == title(i18n.Translator("ko"), q, {}) == "뉴런 8개로 얼마나?"


@pytest.mark.parametrize("hostile", [
    "<img src=x onerror=alert(1)>", "[click](javascript:alert(1))", "![x](http://evil/x.png)", "# Heading",
    "**bold** _it_ `code`", "$\\frac{1}{0}$", "https://evil.example/phish", "a\nb | c", "&lt;b&gt;",
])
def test_teacher_text_is_shown_exactly_as_typed(hostile):
    from markdown_it import MarkdownIt
    shown = text.literal(hostile)
    # Nothing a linkifier could take for an address: its scheme and its "www." are broken by a backslash.
    assert not any(sign in shown for sign in ("http://", "https://", "javascript:", "www."))
    rendered = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(shown)
    assert "<img" not in rendered and "<a " not in rendered and "<h1" not in rendered and "<strong" not in rendered
    assert "<code" not in rendered and "<em" not in rendered
    # Read back as text, it is what the teacher typed (line breaks as spaces).
    import html
    import re
    assert html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip() == " ".join(hostile.split())


def test_a_lesson_with_asks_survives_a_link_and_its_own_toml():
    raw = tomllib.loads(_lesson('page = "sweep"\nsettings = { target = "abs", seed = 3 }\n[[steps.ask]]\n'
                                'measure = "rmse"\nwhere = { m = 8 }\ntext = { en = "How close?", ko = "얼마나?" }\n'
                                'relative = 0.25\nwhy_right = { en = "Yes: \\"close\\"." }'))
    lesson = plan.lesson(raw)
    assert plan.lesson(tomllib.loads(plan.to_toml(lesson))) == lesson
    linked = plan.decode(plan.encode(lesson))
    assert [s.asks for s in linked.steps] == [s.asks for s in lesson.steps]
    assert plan.problems(tomllib.loads(plan.to_toml(lesson))) == []


def test_the_rooms_results_keep_a_teachers_text_tolerance_and_measure():
    chosen = plan.values("sweep", SWEEP)
    a = teacher.ask(GOOD_ASK, "sweep", chosen)
    (asked,) = teacher.asked("sweep", "experiment", measured.results("sweep", "experiment", chosen), (a,), SWEEP)
    about = results.about(asked)
    q = results.question_of(about)
    assert q.relative == 0.25 and q.measure == "rmse" and dict(q.text) == dict(a.text)
    tally = SimpleNamespace(question=asked.id, about=about, first=None, last=(asked.answer * 1.1, asked.answer * 3),
                            revealed=True)
    (row,) = results.rows([tally])
    assert row.share == 0.5 and row.measure == "rmse" and row.text["en"].startswith("With 8 neurons")
    frame = results.frame([row], lambda r: r.text["en"])
    assert frame.loc[0, "question"] == GOOD_ASK["text"]["en"] and frame.loc[0, "measure"] == "rmse"


def test_a_step_asks_its_own_question_on_the_page_and_a_guess_goes_to_the_room(monkeypatch):
    """A student at the lesson's first step (the gated page, activation off): the teacher's two questions are
    asked beside the page's own, marked as the teacher's, and a guess is sent under the teacher's question."""
    step = plan.load(ROOT / "lessons/modern_ffn.toml").steps[0]
    sent: list[tuple[str, object]] = []
    stand_in = SimpleNamespace(
        current=lambda page: "seat", is_instructor=lambda page: False, vote=lambda page, asked: None,
        submit=lambda page, asked, guess: sent.append((asked.id, guess)) or SimpleNamespace(stored=True, message_key=None,
                                                                                              round=1),
        revealed=lambda page, asked: None, own_guess=lambda page, asked: None)
    monkeypatch.setattr(quiz, "room", stand_in)
    monkeypatch.setattr(quiz.lesson, "step_here", lambda page: step)
    at = open_page("pages/4_gated_ffn.py", "ko", act="none")
    assert not at.exception, [e.value for e in at.exception]
    t = i18n.Translator("ko")
    heads = [m.value for m in at.markdown if t("questions.teacher_mark") in m.value]
    assert len(heads) == 2 and text.literal(dict(step.asks[0].text)["ko"]) in heads[0]
    qid = next(b.key.split(":", 1)[1] for b in at.button
               if b.key and b.key.startswith("_ask_commit:") and ":teacher.gated_fit_error_" in b.key)
    at.text_input(key=f"_ask_in:{qid}").input("100")
    at.button(key=f"_ask_commit:{qid}").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert sent == [(qid, 100.0)]


def test_a_student_reads_the_teachers_questions_the_instructor_put_up_and_asks_the_same_one(tmp_path):
    """The room keeps what a teacher's question asks: a student whose lesson came from nowhere (a link only the
    instructor opened) asks the same question, with the same id, from its own page's values."""
    import time

    from sqlalchemy import create_engine

    from ui.room import store
    db = store.Store(create_engine(f"sqlite:///{tmp_path / 'class.sqlite'}"))
    now = time.time()
    code, key = db.create_room(now)
    chosen = plan.values("sweep", SWEEP)
    a = teacher.ask({**GOOD_ASK, "why_wrong": {"en": "Wider fits bend more."}}, "sweep", chosen)
    res = measured.results("sweep", "experiment", chosen)
    (shown,) = teacher.asked("sweep", "experiment", res, (a,), chosen)
    assert db.register(code, key, shown.id, results.about(shown), now) == store.Status.OK
    (qid, about), = db.teacher_questions(code, "sweep", now)
    assert qid == shown.id and "answer" not in about
    q = results.question_of(about)
    again = teacher.asked_of("sweep", "experiment", res, q, dict(chosen))
    assert again.id == shown.id and again.answer == shown.answer and again.question.why_wrong == shown.question.why_wrong
    # Another view computes another id: the student's page then does not ask it.
    other = plan.values("sweep", {**SWEEP, "seed": "4"})
    assert teacher.asked_of("sweep", "experiment", res, q, other).id != shown.id
    assert db.teacher_questions(code, "split", now) == [] and db.teacher_questions("ZZZZZZ", "sweep", now) == []
    assert db.teacher_questions(code, "x" * 100, now) == [] and db.teacher_questions(code, None, now) == []


def test_the_lesson_builder_adds_a_question_on_the_view_and_writes_a_file_check_accepts():
    at = open_page("pages/1_parameter_split.py", "en")  # every folded box opened, the builder's too
    assert not at.exception, [e.value for e in at.exception]
    t = i18n.Translator("en")
    assert at.sidebar.selectbox(key="lesson_ask_measure").options[0] == t("measures.split_ffn_share")
    at.sidebar.button(key="lesson_ask_add").click().run()  # no text yet: refused with the reason, nothing added
    assert any(c.value.startswith("Not added: text") for c in at.sidebar.caption)
    assert at.session_state["_room_built"] == []
    at.sidebar.text_input(key="lesson_ask_text").input("How much of a block is the FFN? <b>guess</b>")
    at.sidebar.button(key="lesson_ask_add").click().run()
    assert any("markup" in c.value for c in at.sidebar.caption)  # HTML is refused here as in a file
    at.sidebar.text_input(key="lesson_ask_text").input("How much of a block is the FFN?")
    at.sidebar.radio(key="lesson_ask_rule").set_value("relative")
    at.sidebar.number_input(key="lesson_ask_value").set_value(150.0)  # the box is in percent: past 100, refused
    at.sidebar.button(key="lesson_ask_add").click().run()
    assert t("lesson.ask_percent") in [c.value for c in at.sidebar.caption]
    assert at.session_state["_room_built"] == []
    at.sidebar.number_input(key="lesson_ask_value").set_value(5.0)
    at.sidebar.button(key="lesson_ask_add").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert t("lesson.ask_added", n=1, asks=1) in [c.value for c in at.sidebar.caption]
    at.sidebar.selectbox(key="lesson_ask_measure").set_value("bigger").run()
    at.sidebar.text_input(key="lesson_ask_text").input("Which part is bigger?")
    at.sidebar.multiselect(key="lesson_ask_options").set_value(["attention", "ffn"])
    at.sidebar.button(key="lesson_ask_add").click().run()
    assert not at.exception, [e.value for e in at.exception]
    (section, params, questions_, asks), = at.session_state["_room_built"]  # the same view: the same step
    assert section == "split" and [a["measure"] for a in asks] == ["ffn_share", "bigger"]
    assert asks[0]["relative"] == 0.05
    # The link carries both; the downloaded file is a lesson `check` accepts, with both asks.
    link = next(c.value for c in at.sidebar.code if "plan=" in c.value).split("plan=", 1)[1]
    assert [a.measure for a in plan.decode(link).steps[0].asks] == ["ffn_share", "bigger"]
    (download,) = [d for d in at.sidebar.get("download_button") if d.proto.label == t("lesson.download")]
    written = tomllib.loads(lesson_file(at))
    assert plan.problems(written) == []
    assert [a.measure for a in plan.lesson(written).steps[0].asks] == ["ffn_share", "bigger"]


def lesson_file(at) -> str:
    """The TOML the builder's download button offers (AppTest holds the button, not its file: built the same way)."""
    from ui.room import lesson_builder
    built = plan.built("mine", [tuple(v) for v in at.session_state["_room_built"]])
    return plan.to_toml(lesson_builder._as_file(built))


def test_the_asks_only_lesson_runs_end_to_end_in_a_room(tmp_path, monkeypatch):
    """An instructor starts the shipped asks-only lesson and moves through every step with Next: each step opens
    its page at its settings and the presenter's view puts up the step's own first question, as written."""
    import time

    from sqlalchemy import create_engine

    from ui.registry import catalog
    from ui.room import session, store
    monkeypatch.setenv("FFNLAB_CLASS_DB", f"sqlite:///{tmp_path / 'class.sqlite'}")
    db = store.Store(create_engine(f"sqlite:///{tmp_path / 'class.sqlite'}"))
    lesson = plan.load(ROOT / "lessons/modern_ffn.toml")
    at = open_page(catalog.page_path(lesson.steps[0].section), "en", folded=True)
    open_class(at).sidebar.button(key="room_start").click().run()
    code = at.session_state[session.SEAT].code
    at.sidebar.selectbox(key="room_lesson_pick").set_value("modern-ffn").run()
    at.sidebar.button(key="room_lesson_start").click().run()
    for n, step in enumerate(lesson.steps):
        if n:
            at.button(key="room_lesson_next").click().run()
        at.switch_page(catalog.page_path(step.section)).run()  # AppTest reruns the page it opened
        assert not at.exception, (n, [e.value for e in at.exception])
        assert db.lesson(code, time.time()) == ("modern-ffn", n)
        shown = [m.value for m in at.markdown if 'class="room-q"' in m.value]
        first = dict(step.asks[0].text)["en"]
        assert any(first.replace("'", "&#x27;") in v or first in v for v in shown), (n, first, shown)
