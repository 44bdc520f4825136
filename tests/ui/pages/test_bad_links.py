"""A crafted or broken link falls back (DESIGN.md, "Bad input"): with every key of a page bad at once, or markup
in one key and in the language, the page runs and shows what it shows with no link at all: the same controls'
values, metrics, warnings and charts."""
import pytest

from tests.conftest import BAD_VALUES, chart_specs, metric_values, open_unbroken
from ui.registry import catalog

# Pages whose whole link is checked here. The width sweep checks its own bad values (an empty list of widths
# is a valid choice there, answered with a warning), and joins for the markup.
BAD_SECTIONS = ("position", "collapse", "gated", "keyvalue", "sparsity", "moe")
MARKUP_SECTIONS = ("position", "collapse", "sweep")


def _path(section: str) -> str:
    return next(e.path for e in catalog.PAGES if e.section == section)


def _keys(section: str) -> tuple[str, ...]:
    return tuple(c.key for c in catalog.CONTROLS[section])


def _shown(at, section: str) -> dict:
    """What the page shows that a link could change: its controls' values, metrics, warnings, charts."""
    values = {key: at.session_state[key] for key in _keys(section) if key in at.session_state}
    return {"controls": values, "metrics": metric_values(at), "warnings": [w.value for w in at.warning],
            "charts": len(chart_specs(at))}


_CLEAN: dict[tuple[str, str], dict] = {}


def _clean(section: str, lang: str = "en") -> dict:
    """The page opened with no link, once per module."""
    if (section, lang) not in _CLEAN:
        _CLEAN[section, lang] = _shown(open_unbroken(_path(section), lang), section)
    return _CLEAN[section, lang]


@pytest.mark.parametrize("section", BAD_SECTIONS)
@pytest.mark.parametrize("bad", BAD_VALUES)
def test_every_key_bad_at_once_falls_back_to_defaults(section, bad):
    at = open_unbroken(_path(section), "en", **{key: bad for key in _keys(section)})
    shown = _shown(at, section)
    assert shown["controls"], section  # the controls were read: an empty dict would pass for any page
    assert shown == _clean(section)


@pytest.mark.parametrize(("section", "key"), [(s, k) for s in MARKUP_SECTIONS for k in _keys(s)])
def test_markup_in_one_key(section, key):
    at = open_unbroken(_path(section), "<b>x</b>", **{key: "<script>alert(1)</script>"})
    assert len(chart_specs(at)) == _clean(section)["charts"]
