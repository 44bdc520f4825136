"""The views one move away from a view: each declared control changed alone, the others kept.

A class moves one control at a time, from a page's defaults or from where it stands. The views
here are links (query strings) of the page's declared controls (ui/registry/catalog.py), so a page opened
with one computes exactly what a student making that move computes, keyed as the page keys it.

Bounded: each control gives at most PER_CONTROL values, nearest to where it stands first (a
slider's next steps, a seed's next numbers, a list's adjacent options), and the controls take turns,
so the likeliest moves come first whatever the time allows. Text boxes give none (any text can be typed).
"""
from __future__ import annotations

import itertools
import os
from collections.abc import Mapping

from ui.registry import catalog, links
from ui.registry.kinds import Choice, Control, Number, Several, Text, Toggle

PER_CONTROL = int(os.environ.get("FFNLAB_NEIGHBOURS_PER_CONTROL", "8"))
MAX_SEEN = 20_000  # views remembered as done, so none is opened twice (a few MB at most)
# Pages without experiments: moving their controls computes nothing.
_STILL = ("home", "glossary")


def _nearest(options: list[object], current: object, most: int) -> list[object]:
    """The options other than `current`, nearest to it in the list first (next, previous, …)."""
    if current not in options:
        return options[:most]
    at = options.index(current)
    out: list[object] = []
    for step in range(1, len(options)):
        for i in (at + step, at - step):
            if 0 <= i < len(options):
                out.append(options[i])
    return out[:most]


def _number_values(control: Number, current: float, most: int) -> list[float]:
    out: list[float] = []
    for k in range(1, most + 1):  # the next steps up and down: a slider's drag, a number box's arrows
        for x in (current + k * control.step, current - k * control.step):
            value = control.check(int(x) if control.whole else float(x), {})
            if value is not None:
                out.append(value)  # type: ignore[arg-type]
    return out[:most]


def values(control: Control, current: object, known: Mapping[str, object], most: int = PER_CONTROL) -> list[object]:
    """The values one move of `control` reaches from `current` (the controls before it at `known`)."""
    if isinstance(control, Toggle):
        return [not current]
    if isinstance(control, Number):
        return _number_values(control, current, most)  # type: ignore[arg-type]
    if isinstance(control, Choice):
        return _nearest(control.options_for(dict(known)), current, most)
    if isinstance(control, Several):
        chosen = tuple(current)  # type: ignore[arg-type]
        out = []
        for option in control.options:  # one option added or taken away
            moved = tuple(o for o in control.options if (o in chosen) != (o == option))
            if moved and control.check(list(moved), known) is not None:
                out.append(moved)
        return _nearest(out, None, most)
    return []  # Text, Code: anything can be typed


def around(section: str, params: Mapping[str, str]) -> list[tuple[str, str]]:
    """(section, query string) of every view one control away from page `section` at `params`, likeliest first."""
    if section in _STILL:
        return []
    declared = links.declared(section)
    typed = links.clean(declared, params)
    per_control: list[list[str]] = []
    known: dict[str, object] = {}
    for control in declared:
        if isinstance(control, Text):
            known[control.key] = typed[control.key]
            continue
        moves = []
        for value in values(control, typed[control.key], known):
            moved = {**params, control.key: control.format(value)}
            cleaned = links.clean(declared, moved)
            if cleaned[control.key] != value:
                continue  # the page would not take it (it depends on another control's value)
            moves.append(links.link(section, moved).partition("?")[2])
        per_control.append(moves)
        known[control.key] = typed[control.key]
    # The controls take turns: every control's first move, then every control's second, …
    out = [(section, q) for q in itertools.chain.from_iterable(itertools.zip_longest(*per_control)) if q is not None]
    return list(dict.fromkeys(out))


def from_defaults() -> list[tuple[str, str]]:
    """Every page's neighbours of its default view, the pages taking turns (each page's first moves first)."""
    per_page = [around(entry.section, {}) for entry in catalog.PAGES]
    return [v for v in itertools.chain.from_iterable(itertools.zip_longest(*per_page)) if v is not None]
