"""`python -m lessons check FILE …` and `python -m lessons measures [PAGE]` (see lessons/__init__.py)."""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import streamlit.logger

from ui.base import i18n
from lessons import measured
from ui.registry import catalog, measures
from ui.room import plan


def check(paths: list[str]) -> int:
    bad = 0
    for name in paths:
        path = Path(name)
        try:
            found = plan.problems(plan.read(path), path.name)
        except plan.PlanError as e:
            found = [str(e)]
        if found:
            bad += 1
            print("\n".join(found))
        else:
            lesson = plan.load(path)
            print(f"{path.name}: ok ({len(lesson.steps)} steps, {sum(len(s.asks) for s in lesson.steps)} asks)")
    return 1 if bad else 0


def _shown(value: object) -> str:
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        return f"{value:.4g}" if value != int(value) or abs(value) >= 1e15 else f"{int(value):,}"
    return str(value)


def list_measures(section: str | None) -> int:
    sections = [section] if section else list(measures.BY_PAGE)
    unknown = [s for s in sections if s not in measures.BY_PAGE]
    if unknown:
        print(f"no page {unknown[0]!r} (pages: {', '.join(measures.BY_PAGE)})")
        return 1
    en = i18n.Translator("en")
    for s in sections:
        defaults = plan.values(s, {}) or {}
        print(f"## {s} ({catalog.page_path(s)})")
        cache: dict[str, dict] = {}
        for m in measures.of(s):
            if m.part not in cache:
                cache[m.part] = measured.results(s, m.part, defaults)
            kind = f"number{' (' + en(m.unit) + ')' if m.unit else ''}" if m.kind == "number" else "word"
            raw = m.read(cache[m.part])
            if m.index:
                shown = ", ".join(f"{m.index}={i}: {_shown(m.value(cache[m.part], i))}"
                                  for i in (m.indices(defaults) if m.indices else ()))
                where = f"  where = {{ {m.index} = … }}"
            else:
                shown, where = _shown(m.value(cache[m.part])), ""
            words = ""
            if m.kind == "word" and m.words:
                taken = m.words(defaults)
                words = f"  words: {', '.join(taken[:8])}{' …' if len(taken) > 8 else ''}"
            del raw
            print(f"- {m.id}: {en(m.label)} — {kind}{where} — at the defaults: {shown}{words}")
        print()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lessons", description="Check lesson files; list what they can ask.")
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="check lesson files: one line per bad step")
    c.add_argument("files", nargs="+")
    m = sub.add_parser("measures", help="every measure a question can ask, with its value at the page's defaults")
    m.add_argument("page", nargs="?")
    args = parser.parse_args(argv)
    return check(args.files) if args.command == "check" else list_measures(args.page)


if __name__ == "__main__":
    # Bare mode: a page's option reads the session (catalog.page_lang), and with no runtime behind it Streamlit
    # warns "missing ScriptRunContext" once per read. Its loggers do not propagate and each holds its own
    # level, so a level set on the "streamlit" logger reaches none of them; this sets every one, and the next.
    streamlit.logger.set_log_level("error")
    sys.exit(main())
