"""The views one move away (ui/compute/neighbours.py): one control changed, the others kept, as the page reads a link."""
from __future__ import annotations

from urllib.parse import parse_qsl

from ui.compute import neighbours
from ui.registry import catalog, links
from ui.registry.kinds import Choice, Number, Several, Text, Toggle


def _moved(section: str, params: dict[str, str], query: str) -> set[str]:
    """The controls whose value differs between `params` and the view `query`, both read as the page reads them."""
    declared = links.declared(section)
    before, after = links.clean(declared, params), links.clean(declared, dict(parse_qsl(query)))
    return {c.key for c in declared if before[c.key] != after[c.key]}


def test_every_neighbour_of_a_default_view_moves_exactly_one_control():
    for entry in catalog.PAGES:
        views = neighbours.around(entry.section, {})
        if entry.section in ("home", "glossary"):
            assert views == []
            continue
        assert views, entry.section
        assert len(views) == len(set(views))  # none twice
        for section, query in views:
            moved = _moved(section, {}, query)
            # One control chosen; a control whose options follow it may move with it (heads → kv_heads).
            assert moved, (section, query)
            first = next(c.key for c in links.declared(section) if c.key in moved)
            follows = {c.key for c in links.declared(section)
                       if isinstance(c, Choice) and (callable(c.default) or callable(c.options))}
            assert moved - {first} <= follows, (section, query, moved)


def test_each_control_gives_its_nearest_values_first_and_at_most_per_control():
    sweep = links.declared("sweep")
    seed = next(c for c in sweep if c.key == "seed")
    assert isinstance(seed, Number)
    assert neighbours.values(seed, 0, {}) == list(range(1, neighbours.PER_CONTROL + 1))  # 0 has no −1
    assert neighbours.values(seed, 100, {})[:4] == [101, 99, 102, 98]
    widths = next(c for c in sweep if c.key == "widths")
    assert isinstance(widths, Several)
    moves = neighbours.values(widths, (2, 4, 8, 16, 32), {}, most=100)
    assert all(len(set(m) ^ {2, 4, 8, 16, 32}) == 1 for m in moves)  # one width added or taken away
    assert (2, 4, 8, 16) in moves and (1, 2, 4, 8, 16, 32) in moves
    toggle = next(c for c in links.declared("sparsity") if isinstance(c, Toggle))
    assert neighbours.values(toggle, True, {}) == [False]
    assert all(neighbours.values(c, c.default, {}) == [] for c in sweep if isinstance(c, Text))


def test_the_controls_take_turns_so_the_first_moves_of_every_control_come_first():
    views = neighbours.around("sweep", {})
    firsts = [_moved("sweep", {}, q) for _, q in views[:6]]
    assert len({next(iter(m)) for m in firsts}) == 6  # six different controls before any second move


def test_neighbours_of_a_students_view_keep_the_students_other_values():
    params = {"seed": "7", "act": "gelu"}
    for _, query in neighbours.around("sweep", params):
        typed = links.clean(links.declared("sweep"), dict(parse_qsl(query)))
        moved = _moved("sweep", params, query)
        assert len(moved) == 1
        if "seed" not in moved:
            assert typed["seed"] == 7
        if "act" not in moved:
            assert typed["act"] == "gelu"


def test_from_defaults_interleaves_the_pages_and_is_bounded():
    views = neighbours.from_defaults()
    demos = [e.section for e in catalog.DEMOS]
    assert [s for s, _ in views[: len(demos)]] == demos  # each page's first move before any page's second
    per_control = neighbours.PER_CONTROL
    for entry in catalog.DEMOS:
        n = sum(1 for s, _ in views if s == entry.section)
        assert n <= per_control * len(links.declared(entry.section))
