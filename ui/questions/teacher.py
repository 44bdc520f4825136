"""A teacher's own questions: written in a lesson file's `[[steps.ask]]` or in the lesson builder, answered by the
page's measure at the step's settings (the format: README.md, "Your own questions, answered by the experiment").

`ask` checks one (an AskError says why not, in a few words); `asked` answers a step's asks from the results
the page already holds. Nothing here imports streamlit.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
import reprlib
from collections.abc import Mapping, Sequence
from typing import Any

from ffn_core import memory_training, position, sparsity
from ui.base import i18n
from ui.questions import TEACHER, Asked, Question, Why, fingerprint
from ui.registry import measures

MAX_TEXT = 300
MAX_ASKS = 40  # in one lesson
MAX_OPTIONS = 6
MAX_WORD = 40
MAX_NUMBER = 1e12  # a tolerance or factor past this is no rule (the builder's box stops here too)
MAX_SHOWN = 40  # characters of a value quoted in a message
RULES = ("tolerance", "relative", "factor")  # what counts as right for a number
FIELDS = {"measure", "where", "text", *RULES, "options", "why_right", "why_wrong"}
# Markup a student's screen must never receive: a tag, an entity, a Markdown link or image.
_MARKUP = re.compile(r"<\s*[a-zA-Z/!?]|&[#a-zA-Z0-9]+;|\]\s*\(|!\[")


class AskError(ValueError):
    """A teacher's question that cannot be asked; the message says why, in a few words."""


# A crafted file or link may hold a value nested a thousand deep or a thousand characters long: its repr is
# bounded by depth and length before it is cut, so quoting it can neither recurse without end nor flood a line.
_REPR = reprlib.Repr()
_REPR.maxlevel = 2
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 4 * MAX_SHOWN  # its own cut is in the middle: ours is at the end
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 4


def shown(value: object) -> str:
    """A value as a message quotes it: its repr, at most MAX_SHOWN characters (cut with …)."""
    try:
        text = _REPR.repr(value)
    except ValueError:  # an int of more than 4300 digits has no decimal repr (a TOML file may write one in hex)
        return "(a number too long to show)"
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN - 1] + "…"


def to_raw(section: str, q: Question) -> dict[str, Any]:
    """A teacher's question as a lesson file writes it (what `ask` reads back)."""
    raw: dict[str, Any] = {"measure": q.measure}
    m = measures.get(section, q.measure)
    if q.where is not None and m is not None:
        raw["where"] = {m.index: q.where}
    raw["text"] = dict(q.text)
    for name in RULES:
        if getattr(q, name):
            raw[name] = getattr(q, name)
    if q.options:
        raw["options"] = list(q.options)
    for name in ("why_right", "why_wrong"):
        if getattr(q, name):
            raw[name] = dict(getattr(q, name))
    return raw


def _texts(value: object, what: str, required: bool) -> tuple[tuple[str, str], ...]:
    if value is None and not required:
        return ()
    if isinstance(value, str):
        raise AskError(f"{what} needs a language: {what} = {{ en = \"...\" }} or {{ ko = \"...\" }}")
    if not isinstance(value, Mapping) or not value:
        raise AskError(f"{what} must be a table of texts by language ({', '.join(i18n.LANGS)})")
    unknown = [k for k in value if k not in i18n.LANGS]
    if unknown:
        raise AskError(f"{what} has a text in an unknown language {shown(unknown[0])}")
    out = []
    for lang in i18n.LANGS:
        if lang not in value:
            continue
        text = value[lang]
        if not isinstance(text, str) or not text.strip():
            raise AskError(f"{what}.{lang} must be a text")
        if len(text) > MAX_TEXT:
            raise AskError(f"{what}.{lang} is {len(text)} characters; at most {MAX_TEXT}")
        if _MARKUP.search(text) or any(ord(c) < 32 and c not in "\t\n" for c in text):
            raise AskError(f"{what}.{lang} holds markup (HTML, a link or a control character): plain text only")
        out.append((lang, " ".join(text.split())))
    return tuple(out)


def _number(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AskError(f"{name} must be a number")
    # Compared before float(): an integer of 400 digits is a fine int and an OverflowError as a float.
    if not 0 <= value <= MAX_NUMBER:  # NaN compares False
        raise AskError(f"{name} must be a finite number ≥ 0, at most {MAX_NUMBER:,.0f} (got {shown(value)})")
    number = float(value)
    if name == "relative" and number > 1:
        raise AskError(f"relative = {shown(value)} is more than 1: it is a fraction of the measured value "
                       "(0.5 means ±50%)")
    return number


def _where(m: measures.Measure, raw: object, settings: Mapping[str, object]) -> Any:
    if not m.index:
        if raw not in (None, {}):
            raise AskError(f"measure {m.id!r} has no index: leave out `where`")
        return None
    allowed = m.indices(settings) if m.indices else ()
    listed = ", ".join(str(i) for i in allowed[:12])
    if not isinstance(raw, Mapping) or len(raw) != 1:
        raise AskError(f"measure {m.id!r} needs where = {{ {m.index} = … }} (one of {listed})")
    name, value = next(iter(raw.items()))
    if name != m.index:
        raise AskError(f"measure {m.id!r} is indexed by {m.index!r}, not {shown(name)}")
    if isinstance(value, bool) or value not in allowed:
        raise AskError(f"{m.index} = {shown(value)} is not on screen at this step (one of {listed})")
    # The index as the page holds it: `m = 8.0` is m = 8, and the question's key is the same either way.
    return allowed[list(allowed).index(value)]


def ask(raw: object, section: str, settings: Mapping[str, object]) -> Question:
    """One `[[steps.ask]]` table checked against page `section` at the step's settings (the controls' values): the
    Question it is, keyed by a digest of what it asks, the same in every session and replica."""
    if not isinstance(raw, Mapping):
        raise AskError("an ask is a table: measure, text, and a tolerance or options")
    unknown = set(raw) - FIELDS
    if unknown:
        raise AskError(f"unknown field {shown(sorted(map(str, unknown))[0])}")
    name = raw.get("measure")
    if not isinstance(name, str):
        raise AskError("measure must name one of the page's measures (python -m lessons measures PAGE)")
    m = measures.get(section, name)
    if m is None:
        elsewhere = sorted({x.section for x in measures.find(name)})
        if elsewhere:
            raise AskError(f"measure {shown(name)} belongs to page {elsewhere[0]!r}, not {section!r}")
        known = ", ".join(x.id for x in measures.of(section)) or "none"
        raise AskError(f"page {section!r} has no measure {shown(name)} (its measures: {known})")
    quiet = silent(section, m.part, settings)
    if quiet:
        raise AskError(f"at these settings the page computes no {m.part}, so it never asks {m.id!r}: {quiet}")
    where = _where(m, raw.get("where"), settings)
    text = _texts(raw.get("text"), "text", required=True)
    why_right = _texts(raw.get("why_right"), "why_right", required=False)
    why_wrong = _texts(raw.get("why_wrong"), "why_wrong", required=False)
    given = {k: _number(raw[k], k) for k in RULES if k in raw}
    options = raw.get("options")
    if m.kind == "number":
        if options is not None:
            raise AskError(f"measure {m.id!r} is a number: give tolerance, relative or factor, not options")
        if not any(given.values()) and "tolerance" not in given:
            raise AskError(f"measure {m.id!r} is a number: say what counts as right (tolerance, relative or factor)")
        if "factor" in given and given["factor"] <= 1:
            raise AskError("factor must be more than 1 (2: right within half to twice the measured value)")
        options = ()
    else:
        if given:
            raise AskError(f"measure {m.id!r} is a word: give options, not a tolerance")
        if not (isinstance(options, list) and 2 <= len(options) <= MAX_OPTIONS
                and all(isinstance(o, str) and 0 < len(o) <= MAX_WORD for o in options)):
            raise AskError(f"measure {m.id!r} is a word: options must be a list of 2-{MAX_OPTIONS} short words")
        if len(set(options)) != len(options):
            raise AskError("options must differ from each other")
        can = set(m.words(settings)) if m.words else set()
        never = [o for o in options if o not in can]
        if never:
            sample = ", ".join(sorted(can)[:8])
            raise AskError(f"measure {m.id!r} can never be {shown(never[0])} (it takes words such as {sample})")
        options = tuple(options)
    tolerance, relative, factor = (given.get(k, 0.0) for k in RULES)
    digest = hashlib.sha256(json.dumps([section, m.id, where, text, options, tolerance, relative, factor],
                                       ensure_ascii=False, default=str).encode("utf-8")).hexdigest()[:10]
    # A checked ask of a word has options and no tolerance; one of a number, the reverse.
    bounds = {"lo": m.lo, "hi": m.hi, "unit": m.unit} if m.kind == "number" else {}
    return Question(f"{TEACHER}{section}_{m.id}_{digest}", "number" if m.kind == "number" else "choice",
                    options=options, tolerance=tolerance, relative=relative, factor=factor, measure=m.id,
                    text=text, why_right=why_right, why_wrong=why_wrong, where=where, **bounds)


def _core_refuses(check: Any, *args: Any) -> str | None:
    try:
        check(*args)
    except ValueError as e:
        return str(e)
    return None


# Where a page warns and stops before computing a part, or leaves it undone. The sizes are the core's own bounds:
# the pages stop exactly where the core would refuse their arguments, so the core's checks decide here.
_SILENT: dict[tuple[str, str], Any] = {
    **{("position", part): lambda s: _core_refuses(position._check, s["n"], s["d"], 4 * s["d"], s["act"],
                                                   s["heads"], s["perm"])
       for part in ("experiment", "block")},  # the block part is drawn below the experiment's stop
    ("keyvalue", "experiment"): lambda s: (
        f"token = {s['token']} is not one of the n = {s['n']} stored keys" if s["token"] >= s["n"]
        else _core_refuses(memory_training.check_sizes, s["n"], s["d"], s["m"], s["steps"])),
    ("sparsity", "experiment"): lambda s: _core_refuses(memory_training.check_sizes, sparsity.N_KEYS, s["d"], s["m"],
                                                        s["steps"]),
    ("gptsurgery", "edit"): lambda s: None if s["apply"] else "apply = false (the edit is not made)",
}


def silent(section: str, part: str, settings: Mapping[str, object]) -> str | None:
    """Why page `section` computes nothing for `part` at these settings (every control's value), or None.

    There the page shows a note instead of the part, and asks nothing of it.
    """
    rule = _SILENT.get((section, part))
    try:
        return rule(settings) if rule else None
    except KeyError:  # settings without the page's controls are no view of it: nothing to say
        return None


def asked(section: str, part: str, results: Mapping[str, Any], asks: Sequence[Question],
          settings: Mapping[str, object]) -> tuple[Asked, ...]:
    """The step's asks whose measure this part holds, each with the value measured in `results`.

    settings: every control's value at the step (plan.values). A measure the result holds no value of there
    (the widest fit's pieces under GELU) is not asked.
    """
    return tuple(a for a in (asked_of(section, part, results, q, settings) for q in asks) if a)


def asked_of(section: str, part: str, results: Mapping[str, Any], q: Question,
             settings: Mapping[str, object]) -> Asked | None:
    """A teacher's question asked on this part at these settings, with its measured value; None if the part has none.

    The id's settings are every control's typed value, so a student at the instructor's view computes the same id
    from the page's own values, whether the lesson came from a file or a link.
    """
    m = measures.get(section, q.measure)
    if m is None or m.part != part:
        return None
    value = m.value(results, q.where)
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return None
    plain = {k: tuple(v) if isinstance(v, list) else v for k, v in settings.items()}
    return Asked(section, q, value, fingerprint({**plain, "_ask": q.key}), Why("questions.teacher_why", value))


def outcome_text(question: Question, right: bool, lang: str) -> str | None:
    """The teacher's sentence for this outcome, in `lang` when written in it; None when they wrote none."""
    texts = dict(question.why_right if right else question.why_wrong)
    return texts.get(lang) or next(iter(texts.values()), None)
