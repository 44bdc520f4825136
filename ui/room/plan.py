"""A lesson plan: an ordered list of steps (a page, its settings, the questions to put up, a note for the
instructor), read from a TOML file in `lessons/` or built in the app from the views on screen and shared as a link.

A plan is checked against the pages' declared controls (ui/registry/catalog.py) and the questions each page asks
(ui/questions/<page>.py): an unknown page, setting, value or question, a title in no language (a title, a
note or an ask's text in one language is shown as written to readers of the other), the same question twice
in a step, a field of the wrong type, a number out of range, text that is not UTF-8, a file too large or
nested too deep: each gets a short message naming the step, never a traceback.
"""
from __future__ import annotations

import base64
import binascii
import functools
import importlib
import json
import re
import tomllib
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ui.base import i18n
from ui.registry import catalog
from ui.questions import Question, teacher
from ui.questions.teacher import shown, to_raw

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "lessons"
MAX_STEPS = 40
MAX_NOTE = 600
MAX_LINK = 3000  # characters of a link's `plan=`
MAX_FILE = 256 * 1024  # bytes of a lesson file: the largest lesson (40 steps, 40 asks) is a fraction of this
# Brackets and braces open at once in a link's JSON: a plan nests 6 deep (the plan, its steps, a step, its asks,
# an ask, its text); json.loads recurses once per level, so a link of 3000 `[` must not reach it.
MAX_DEPTH = 8
ID_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,40}")


class PlanError(ValueError):
    """A plan that cannot be used; the message says where and why, in a few words."""


@dataclass(frozen=True)
class Step:
    """One step of a lesson: the page, its settings as a link writes them, the questions, the instructor's note."""

    section: str
    settings: Mapping[str, str] = field(default_factory=dict)
    questions: tuple[str, ...] = ()  # question locale keys ("questions.collapse_rank"); empty: the page's first
    note: Mapping[str, str] = field(default_factory=dict)  # language -> the note for the instructor
    asks: tuple[Question, ...] = ()  # the teacher's own questions (`[[steps.ask]]`), answered by the page's measures


@dataclass(frozen=True)
class Lesson:
    id: str
    title: Mapping[str, str]  # language -> title
    steps: tuple[Step, ...]


@functools.cache
def page_questions(section: str) -> frozenset[str]:
    """The keys of the questions page `section` asks (its ui/questions module's Questions)."""
    try:
        module = importlib.import_module(f"ui.questions.{section}")
    except ImportError:
        return frozenset()
    return frozenset(v.key for v in vars(module).values() if isinstance(v, Question))


def _text(value: object, where: str, what: str, *, most: int = MAX_NOTE) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > most:
        raise PlanError(f"{where}: {what} must be a text of 1-{most} characters")
    return value.strip()


def _languages(value: object, where: str, what: str, *, required: bool = True) -> dict[str, str]:
    # A text in one language is shown as written to readers of the other, as a teacher's ask is: a teacher
    # who writes in one language writes a whole lesson. `required`: at least one text; else it may be absent.
    if value is None and not required:
        return {}
    if not isinstance(value, Mapping) or not value:
        raise PlanError(f"{where}: {what} needs a text in {' or '.join(i18n.LANGS)}, e.g. {what} = {{ en = \"…\" }}")
    unknown = [lang for lang in value if lang not in i18n.LANGS]
    if unknown:
        raise PlanError(f"{where}: {what} has a text in {shown(str(unknown[0]))}, not one of {', '.join(i18n.LANGS)}")
    return {lang: _text(value[lang], where, f"{what}.{lang}") for lang in i18n.LANGS if lang in value}


def step(raw: object, where: str) -> Step:
    """One step checked against its page's controls and questions."""
    if not isinstance(raw, Mapping):
        raise PlanError(f"{where}: a step is a table (page, settings, questions, note)")
    unknown = set(raw) - {"page", "settings", "questions", "note", "ask"}
    if unknown:
        raise PlanError(f"{where}: unknown field {shown(sorted(map(str, unknown))[0])}")
    sections = catalog.CONTROLS
    section = raw.get("page")
    if not isinstance(section, str) or section not in sections:
        raise PlanError(f"{where}: no page {shown(section)} (pages: {', '.join(sections)})")
    settings = raw.get("settings", {})
    if not isinstance(settings, Mapping):
        raise PlanError(f"{where}: settings must be a table")
    controls = sections[section]
    known = {c.key: c for c in controls}
    chosen: dict[str, object] = {}
    written: dict[str, str] = {}
    for name in settings:
        if not isinstance(name, str) or name not in known:
            raise PlanError(f"{where}: page {section!r} has no setting {shown(name)}")
    for control in controls:  # in declared order: an option may follow an earlier control's value
        if control.key not in settings:
            chosen[control.key] = control.default_for(chosen)
            continue
        raw_value = settings[control.key]
        value = None
        # A list or a table is no control's value (nor is its str), and an int of more than 4300 digits has no str.
        if isinstance(raw_value, (str, float)) or isinstance(raw_value, int) and raw_value.bit_length() <= 64:
            text = control.format(raw_value) if isinstance(raw_value, bool) else str(raw_value)
            value = control.parse(text, chosen)
        if value is None:
            raise PlanError(f"{where}: {control.key} = {shown(raw_value)} is not a value page {section!r} takes")
        chosen[control.key] = value
        written[control.key] = control.format(value)
    questions = raw.get("questions", [])
    if not isinstance(questions, list) or not all(isinstance(q, str) for q in questions):
        raise PlanError(f"{where}: questions must be a list of question keys")
    asked = page_questions(section)
    for n, q in enumerate(questions):
        if q not in asked:
            raise PlanError(f"{where}: page {section!r} asks no question {shown(q)}")
        if q in questions[:n]:
            raise PlanError(f"{where}: questions lists {shown(q)} twice")
    note = _languages(raw.get("note"), where, "note", required=False)
    asks = raw.get("ask", [])
    if not isinstance(asks, list) or len(asks) > teacher.MAX_ASKS:
        raise PlanError(f"{where}: ask must be a list of at most {teacher.MAX_ASKS} [[steps.ask]] tables")
    checked: list[Question] = []
    for n, item in enumerate(asks, 1):
        try:
            found = teacher.ask(item, section, chosen)
        except teacher.AskError as e:
            raise PlanError(f"{where}, ask {n}: {e}") from None
        # The page keys each question's widgets by the question: the same one twice would break the page.
        keys = [q.key for q in checked]
        if found.key in keys:
            raise PlanError(f"{where}, ask {n}: the same question as ask {keys.index(found.key) + 1} "
                            "(the same measure, text and rule); a step asks each question once")
        checked.append(found)
    return Step(section, written, tuple(questions), note, tuple(checked))


def values(section: str, settings: Mapping[str, str]) -> dict[str, object] | None:
    """Every control of page `section` at a step's (or a view's) settings, defaults filled in; None if one is not the page's."""
    chosen: dict[str, object] = {}
    for control in catalog.CONTROLS.get(section, ()):
        if control.key not in settings:
            chosen[control.key] = control.default_for(chosen)
            continue
        value = control.parse(str(settings[control.key]), chosen)
        if value is None:
            return None
        chosen[control.key] = value
    return chosen


def lesson(raw: object, name: str = "lesson", *, titled: bool = True) -> Lesson:
    """A lesson checked whole: its id, a title (in one language or both; a link's may have none where not
    `titled`), 1-MAX_STEPS good steps."""
    if not isinstance(raw, Mapping):
        raise PlanError(f"{name}: not a table")
    lesson_id = raw.get("id")
    if not isinstance(lesson_id, str) or not ID_RE.fullmatch(lesson_id):
        raise PlanError(f"{name}: id must be 1-41 lower-case letters, digits, - or _")
    title = _languages(raw.get("title"), name, "title", required=titled)
    steps = raw.get("steps")
    if not isinstance(steps, list) or not 0 < len(steps) <= MAX_STEPS:
        raise PlanError(f"{name}: steps must be a list of 1-{MAX_STEPS} [[steps]] tables")
    checked = tuple(step(s, f"{name}, step {i}") for i, s in enumerate(steps, 1))
    asks = sum(len(s.asks) for s in checked)
    if asks > teacher.MAX_ASKS:
        raise PlanError(f"{name}: {asks} asks; a lesson holds at most {teacher.MAX_ASKS}")
    return Lesson(lesson_id, title, checked)


def problems(raw: object, name: str = "lesson") -> list[str]:
    """Every reason a lesson cannot be used, one line per bad step (and one for the lesson itself): [] for a good one."""
    if not isinstance(raw, Mapping):
        return [f"{name}: not a table"]
    out: list[str] = []
    steps = raw.get("steps")
    try:
        lesson({**raw, "steps": [{"page": "home", "note": {lang: "-" for lang in i18n.LANGS}}]}, name)  # the id and title alone
    except PlanError as e:
        out.append(str(e))
    if not isinstance(steps, list) or not 0 < len(steps) <= MAX_STEPS:
        return out + [f"{name}: steps must be a list of 1-{MAX_STEPS} [[steps]] tables"]
    asks = 0
    for i, s in enumerate(steps, 1):
        try:
            asks += len(step(s, f"{name}, step {i}").asks)
        except PlanError as e:
            out.append(str(e))
    if asks > teacher.MAX_ASKS:
        out.append(f"{name}: {asks} asks; a lesson holds at most {teacher.MAX_ASKS}")
    return out


def read(path: Path) -> object:
    """A lesson file's TOML as a table; PlanError when it cannot be read, is too large, or is not UTF-8 TOML."""
    try:
        with path.open("rb") as f:
            data = f.read(MAX_FILE + 1)
    except OSError as e:
        raise PlanError(f"{path.name}: cannot be read ({e.__class__.__name__})") from e
    if len(data) > MAX_FILE:
        raise PlanError(f"{path.name}: over {MAX_FILE // 1024} KB; a lesson file holds at most {MAX_FILE // 1024} KB")
    try:
        text = data.decode("utf-8-sig")  # an editor's byte order mark is no part of the lesson
    except UnicodeDecodeError as e:
        raise PlanError(f"{path.name}: not UTF-8 text (byte {e.start}); save it as UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PlanError(f"{path.name}: not TOML ({e})") from None
    except RecursionError:
        raise PlanError(f"{path.name}: arrays or tables nested too deeply to read") from None
    except ValueError:  # tomllib's int() of a number of more than 4300 digits
        raise PlanError(f"{path.name}: a number too long to read") from None


def load(path: Path) -> Lesson:
    """A lesson file read and checked; PlanError says what is wrong with it."""
    return lesson(read(path), path.name)


def shipped(folder: Path = FOLDER) -> tuple[dict[str, Lesson], list[str]]:
    """Every lesson file of the folder that checks out, by id; and a message per file that does not."""
    good: dict[str, Lesson] = {}
    bad: list[str] = []
    for path in sorted(folder.glob("*.toml")):
        try:
            found = load(path)
        except PlanError as e:
            bad.append(str(e))
            continue
        good.setdefault(found.id, found)
    return good, bad


# --- a lesson built in the app, carried by a link ---------------------------------------------------

def encode(built: Lesson) -> str:
    """The lesson as a link's `plan=` value (compact JSON, compressed, URL-safe base64)."""
    steps = [[s.section, dict(s.settings), list(s.questions), [to_raw(s.section, a) for a in s.asks]]
             for s in built.steps]
    text = json.dumps({"id": built.id, "steps": steps}, separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(zlib.compress(text.encode("utf-8"), 9)).decode("ascii").rstrip("=")


def decode(value: object) -> Lesson:
    """The lesson a link's `plan=` carries, checked like a file's (a title not needed); PlanError otherwise."""
    if not isinstance(value, str) or not 0 < len(value) <= MAX_LINK:
        raise PlanError("plan: not a lesson link")
    try:
        packed = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        inflate = zlib.decompressobj()
        inflated = inflate.decompress(packed, 20_000)
        if inflate.unconsumed_tail:
            raise PlanError("plan: too long")
        text = inflated.decode("utf-8")
        if _depth(text) > MAX_DEPTH:
            raise PlanError("plan: nested too deeply to be a lesson")
        raw = json.loads(text)
    except (binascii.Error, zlib.error, UnicodeDecodeError, ValueError) as e:  # JSONDecodeError is a ValueError
        if isinstance(e, PlanError):
            raise
        raise PlanError("plan: not a lesson link") from e
    if not isinstance(raw, Mapping) or not isinstance(raw.get("steps"), list):
        raise PlanError("plan: not a lesson link")
    steps = []
    for n, item in enumerate(raw["steps"], 1):
        if not (isinstance(item, list) and len(item) in (3, 4)):  # links made before asks have three fields
            raise PlanError(f"plan, step {n}: not a step of a lesson link")
        steps.append({"page": item[0], "settings": item[1], "questions": item[2],
                      **({"ask": item[3]} if len(item) == 4 else {})})
    return lesson({"id": raw.get("id"), "steps": steps}, "plan", titled=False)


def _depth(text: str) -> int:
    """How deep a JSON text's arrays and objects nest (brackets inside its strings not counted)."""
    depth = deepest = 0
    in_string = escaped = False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def built(lesson_id: str, views: list[tuple], title: Mapping[str, str] | None = None) -> Lesson:
    """A lesson made of the views an instructor added one by one: (page, settings, questions[, asks as raw tables])."""
    steps = [{"page": v[0], "settings": dict(v[1]), "questions": list(v[2]), **({"ask": list(v[3])} if len(v) > 3 else {})}
             for v in views]
    return lesson({"id": lesson_id, "steps": steps, **({"title": dict(title)} if title else {})}, "plan", titled=False)


def to_toml(built: Lesson) -> str:
    """The lesson as a lesson file writes it (what `load` and `python -m lessons check` read back)."""
    lines = [f"id = {_toml(built.id)}", ""]
    if built.title:
        lines += ["[title]", *(f"{lang} = {_toml(text)}" for lang, text in built.title.items()), ""]
    for s in built.steps:
        lines.append("[[steps]]")
        lines.append(f"page = {_toml(s.section)}")
        if s.settings:
            lines.append("settings = { " + ", ".join(f"{k} = {_toml(v)}" for k, v in s.settings.items()) + " }")
        if s.questions:
            lines.append("questions = [" + ", ".join(_toml(q) for q in s.questions) + "]")
        if s.note:
            lines += ["[steps.note]", *(f"{lang} = {_toml(text)}" for lang, text in s.note.items())]
        for a in s.asks:
            lines.append("[[steps.ask]]")
            for name, value in to_raw(s.section, a).items():
                lines.append(f"{name} = {_toml(value)}")
        lines.append("")
    return "\n".join(lines)


def _toml(value: object) -> str:
    """One TOML value: a string (JSON's escapes are TOML's basic string's), a number, a list or an inline table."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    return json.dumps(str(value), ensure_ascii=False)
