"""A lesson plan: an ordered list of steps (a page, its settings, the questions to put up, a note for the
instructor), read from a TOML file in `lessons/` or built in the app from the views on screen and shared as a link.

A plan is checked against the pages' declared controls (ui/registry/catalog.py) and the questions each page asks
(ui/questions/<page>.py): an unknown page, setting, value or question, or a missing note in one of the
languages, gets a short message naming the step, never a traceback.

    lesson = plan.load(Path("lessons/ffn_story.toml"))     # Lesson, or raises PlanError("step 3: ...")
    plan.shipped()                                       # {id: Lesson} of every good file in lessons/
    plan.encode(lesson) / plan.decode(text)             # a lesson built in the app, in a link's `plan=`
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
from typing import Any

from ui.base import i18n
from ui.registry import catalog
from ui.questions import Question

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "lessons"
MAX_STEPS = 40
MAX_NOTE = 600
MAX_LINK = 3000  # characters of a link's `plan=`
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


def _sections() -> dict[str, Any]:
    return dict(catalog.CONTROLS)


def _text(value: object, where: str, what: str, *, most: int = MAX_NOTE) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > most:
        raise PlanError(f"{where}: {what} must be a text of 1-{most} characters")
    return value.strip()


def _languages(value: object, where: str, what: str, *, required: bool = True) -> dict[str, str]:
    if value is None and not required:
        return {}
    if not isinstance(value, Mapping):
        raise PlanError(f"{where}: {what} needs one text per language ({', '.join(i18n.LANGS)})")
    missing = [lang for lang in i18n.LANGS if lang not in value]
    if missing and required:
        raise PlanError(f"{where}: {what} has no {', '.join(missing)} text")
    return {lang: _text(value[lang], where, f"{what}.{lang}") for lang in i18n.LANGS if lang in value}


def step(raw: object, where: str, *, notes: bool = True) -> Step:
    """One step checked against its page's controls and questions."""
    if not isinstance(raw, Mapping):
        raise PlanError(f"{where}: a step is a table (page, settings, questions, note)")
    unknown = set(raw) - {"page", "settings", "questions", "note"}
    if unknown:
        raise PlanError(f"{where}: unknown field {sorted(unknown)[0]!r}")
    sections = _sections()
    section = raw.get("page")
    if section not in sections:
        raise PlanError(f"{where}: no page {section!r} (pages: {', '.join(sections)})")
    settings = raw.get("settings", {})
    if not isinstance(settings, Mapping):
        raise PlanError(f"{where}: settings must be a table")
    controls = sections[section]
    known = {c.key: c for c in controls}
    chosen: dict[str, object] = {}
    written: dict[str, str] = {}
    for name in settings:
        if name not in known:
            raise PlanError(f"{where}: page {section!r} has no setting {name!r}")
    for control in controls:  # in declared order: an option may follow an earlier control's value
        if control.key not in settings:
            chosen[control.key] = control.default_for(chosen)
            continue
        raw_value = settings[control.key]
        text = control.format(raw_value) if isinstance(raw_value, bool) else str(raw_value)
        value = control.parse(text, chosen)
        if value is None:
            raise PlanError(f"{where}: {control.key} = {raw_value!r} is not a value page {section!r} takes")
        chosen[control.key] = value
        written[control.key] = control.format(value)
    questions = raw.get("questions", [])
    if not isinstance(questions, list) or not all(isinstance(q, str) for q in questions):
        raise PlanError(f"{where}: questions must be a list of question keys")
    asked = page_questions(section)
    for q in questions:
        if q not in asked:
            raise PlanError(f"{where}: page {section!r} asks no question {q!r}")
    note = _languages(raw.get("note"), where, "note", required=notes)
    return Step(section, written, tuple(questions), note)


def lesson(raw: object, name: str = "lesson", *, notes: bool = True) -> Lesson:
    """A lesson checked whole: its id, a title per language, 1-MAX_STEPS good steps."""
    if not isinstance(raw, Mapping):
        raise PlanError(f"{name}: not a table")
    lesson_id = raw.get("id")
    if not isinstance(lesson_id, str) or not ID_RE.fullmatch(lesson_id):
        raise PlanError(f"{name}: id must be 1-41 lower-case letters, digits, - or _")
    title = _languages(raw.get("title"), name, "title", required=notes)
    steps = raw.get("steps")
    if not isinstance(steps, list) or not 0 < len(steps) <= MAX_STEPS:
        raise PlanError(f"{name}: steps must be a list of 1-{MAX_STEPS} [[steps]] tables")
    return Lesson(lesson_id, title, tuple(step(s, f"{name}, step {i}", notes=notes) for i, s in enumerate(steps, 1)))


def load(path: Path) -> Lesson:
    """A lesson file read and checked; PlanError says what is wrong with it."""
    try:
        with path.open("rb") as f:
            raw = tomllib.load(f)
    except OSError as e:
        raise PlanError(f"{path.name}: cannot be read ({e.__class__.__name__})") from e
    except tomllib.TOMLDecodeError as e:
        raise PlanError(f"{path.name}: not TOML ({e})") from e
    return lesson(raw, path.name)


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
    steps = [[s.section, dict(s.settings), list(s.questions)] for s in built.steps]
    text = json.dumps({"id": built.id, "steps": steps}, separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(zlib.compress(text.encode("utf-8"), 9)).decode("ascii").rstrip("=")


def decode(value: object) -> Lesson:
    """The lesson a link's `plan=` carries, checked like a file's (without notes); PlanError otherwise."""
    if not isinstance(value, str) or not 0 < len(value) <= MAX_LINK:
        raise PlanError("plan: not a lesson link")
    try:
        packed = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        inflate = zlib.decompressobj()
        text = inflate.decompress(packed, 20_000)
        if inflate.unconsumed_tail:
            raise PlanError("plan: too long")
        raw = json.loads(text.decode("utf-8"))
    except (binascii.Error, zlib.error, UnicodeDecodeError, json.JSONDecodeError, ValueError) as e:
        if isinstance(e, PlanError):
            raise
        raise PlanError("plan: not a lesson link") from e
    if not isinstance(raw, Mapping) or not isinstance(raw.get("steps"), list):
        raise PlanError("plan: not a lesson link")
    steps = []
    for item in raw["steps"]:
        if not (isinstance(item, list) and len(item) == 3):
            raise PlanError("plan: not a lesson link")
        steps.append({"page": item[0], "settings": item[1], "questions": item[2]})
    return lesson({"id": raw.get("id"), "steps": steps}, "plan", notes=False)


def built(lesson_id: str, views: list[tuple[str, Mapping[str, str], tuple[str, ...]]]) -> Lesson:
    """A lesson made of the views an instructor added one by one (page, settings, questions)."""
    return lesson({"id": lesson_id, "steps": [{"page": s, "settings": dict(p), "questions": list(q)}
                                               for s, p, q in views]}, "plan", notes=False)
