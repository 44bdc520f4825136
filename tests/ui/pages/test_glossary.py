"""The glossary: every term in both languages, on its own page, and on each page where a term is used,
its plain words in the help tooltip of the line that names it."""
import ast

import pytest

from tests.conftest import ROOT, open_page
from ui.base import i18n
from ui.kit import glossary
from ui.registry import catalog

PATHS = {entry.section: entry.path for entry in catalog.PAGES}


def _noted(path: str) -> tuple[str, ...]:
    """The terms a page names with `glossary.note(t, ...)`, read from its source."""
    terms: list[str] = []
    for node in ast.walk(ast.parse((ROOT / path).read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "note" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "glossary":
            terms += [arg.value for arg in node.args[1:] if isinstance(arg, ast.Constant)]
    return tuple(dict.fromkeys(terms))


# Which terms each page explains: its glossary.note calls.
NOTED = {entry.section: _noted(entry.path) for entry in catalog.PAGES if _noted(entry.path)}


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_every_term_is_defined_in_both_languages(lang):
    t = i18n.Translator(lang)
    for term in glossary.TERMS:
        for part in ("term", "plain", "precise"):
            assert t.has(f"glossary.{term}.{part}"), (lang, term, part)
    assert len(NOTED) >= 7 and set().union(*NOTED.values()) <= set(glossary.TERMS)
    en, ko = i18n.Translator("en"), i18n.Translator("ko")
    assert all(en(f"glossary.{k}.plain") != ko(f"glossary.{k}.plain") for k in glossary.TERMS)


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_glossary_page_lists_every_term(lang):
    at = open_page(PATHS["glossary"], lang)
    assert not at.exception
    t = i18n.Translator(lang)
    shown = " ".join(m.value for m in at.markdown)
    for term in glossary.TERMS:
        assert t(f"glossary.{term}.plain") in shown, term
    assert "glossary" not in {e.section for e in catalog.DEMOS}  # the home page counts experiments only


def _helps(at) -> list[tuple[str, str]]:
    out = []
    for kind in ("caption", "markdown", "header", "subheader"):
        out += [(e.value, e.proto.help) for e in at.get(kind) if e.proto.help]
    return out


@pytest.mark.parametrize("lang", i18n.LANGS)
@pytest.mark.parametrize("section", [s for s in NOTED if s not in ("gpt", "gptsurgery")])
def test_each_page_explains_its_terms_where_it_names_them(section, lang):
    _check(section, lang)


@pytest.mark.parametrize("section", ["gpt", "gptsurgery"])
def test_gpt_pages_explain_their_terms(section):
    _check(section, "ko")


def _check(section, lang):
    at = open_page(PATHS[section], lang)
    assert not at.exception
    t = i18n.Translator(lang)
    helps = _helps(at)
    for term in NOTED[section]:
        plain = t(f"glossary.{term}.plain")
        carrying = [body for body, help_text in helps if plain in help_text]
        assert carrying, (section, term)
        assert glossary.name(t, term) in carrying[0]  # the line with the tooltip names the term


def _in_order(node):
    """Every element under a block, depth first, in the order the page drew them."""
    for index in sorted(getattr(node, "children", {}) or {}):
        child = node.children[index]
        yield child
        yield from _in_order(child)


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_the_gpt_page_explains_logit_before_it_first_says_it(lang):
    at = open_page(PATHS["gpt"], lang)
    assert not at.exception
    t = i18n.Translator(lang)
    word, plain = glossary.name(t, "logit").casefold(), t("glossary.logit.plain")
    explained = False
    for element in _in_order(at.main):
        proto = getattr(element, "proto", None)
        if proto is not None and plain in (getattr(proto, "help", "") or ""):
            explained = True
        shown = getattr(element, "value", None)
        shown = shown if isinstance(shown, str) else getattr(element, "label", "") or ""
        if word in shown.casefold():
            assert explained, shown[:120]
            return
    pytest.fail("the page never says logit")
