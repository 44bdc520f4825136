"""What a rerun draws: every control of a demo page sits in a part of the page (ui.kit.shell.part, rerun alone
when it moves), and a folded box (the questions outside a class, the code) draws nothing until opened."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import open_page, unfold
from ui import widgets
from ui.base import i18n
from ui.registry import catalog

ROOT = Path(__file__).resolve().parents[3]
DEMOS = [entry.path for entry in catalog.DEMOS]


def _parts(tree: ast.Module) -> list[ast.FunctionDef]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
            and any(ast.unparse(d) == "shell.part" for d in node.decorator_list)]


def _reached(tree: ast.Module) -> list[ast.FunctionDef]:
    """The parts, and the page's own functions they call (at any depth): what runs inside a part."""
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    reached = {part.name: part for part in _parts(tree)}
    todo = list(reached.values())
    while todo:
        for node in ast.walk(todo.pop()):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions \
                    and node.func.id not in reached:
                reached[node.func.id] = functions[node.func.id]
                todo.append(functions[node.func.id])
    return list(reached.values())


@pytest.mark.parametrize("path", DEMOS)
def test_every_control_is_drawn_inside_a_part(path):
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    draws = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and ast.unparse(node.func) in ("controls.draw", "controls.row")]
    inside = {id(node) for function in _reached(tree) for node in ast.walk(function)}
    assert draws, f"{path} draws no control"
    outside = [ast.unparse(node) for node in draws if id(node) not in inside]
    assert not outside, f"{path}: controls outside a part rerun the whole page: {outside}"


def _commits(at) -> list[str]:
    return [b.key for b in at.button if b.key and b.key.startswith("_ask_commit:")]


@pytest.mark.parametrize("lang", i18n.LANGS)
@pytest.mark.parametrize("path", DEMOS)
def test_a_folded_box_draws_nothing_until_opened(path, lang):
    t = i18n.Translator(lang)
    at = open_page(path, lang, folded=True)
    assert not at.exception, [e.value for e in at.exception]
    labels = [e.label for e in at.expander]
    assert t("questions.heading") in labels and t("common.show_code") in labels
    assert not _commits(at)  # the question box is folded outside a class: no form was drawn
    assert not any("def " in c.value for c in at.main.code)  # nor the code
    boxes = [key for key in at.session_state.keys() if str(key).startswith(widgets.FOLDED)]
    assert boxes and not any(at.session_state[key] for key in boxes)
    unfold(at)
    assert not at.exception, [e.value for e in at.exception]
    assert _commits(at) and any("def " in c.value for c in at.main.code)


def test_asking_opens_the_question_box_at_once():
    at = open_page("pages/3_linear_collapse.py", "en", folded=True, ask="1")
    assert _commits(at)
