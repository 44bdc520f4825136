"""A safe target expression in x: parsed with `ast` against a whitelist, evaluated by walking the tree with torch ops.

User text is never passed to eval/exec: `ast.parse` only builds the syntax tree, and every node in it
must be one of the few kinds listed here before anything is computed.
"""
from __future__ import annotations

import ast
import math
from collections.abc import Callable

import torch

MAX_LENGTH = 80
MAX_DEPTH = 40
MAX_CONSTANT = 1e6
MAX_EXPONENT = 10.0
MAX_VALUE = 1e6

FUNCTIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "sin": torch.sin,
    "cos": torch.cos,
    "tan": torch.tan,
    "tanh": torch.tanh,
    "exp": torch.exp,
    "log": torch.log,
    "sqrt": torch.sqrt,
    "abs": torch.abs,
}
CONSTANTS: dict[str, float] = {"pi": math.pi}
_BINARY: dict[type[ast.operator], Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = {
    ast.Add: torch.add,
    ast.Sub: torch.sub,
    ast.Mult: torch.mul,
    ast.Div: torch.div,
    ast.Pow: torch.pow,
}


class ExprError(ValueError):
    """A refused or unusable expression; `code` names the reason (the page translates it)."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail


def _check(node: ast.AST, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise ExprError("too_deep")
    if isinstance(node, ast.Constant):
        # bool is an int subclass and complex/str are constants too: only plain numbers pass.
        if type(node.value) not in (int, float):
            raise ExprError("constant", repr(node.value)[:20])
        if not math.isfinite(float(node.value)) or abs(float(node.value)) > MAX_CONSTANT:
            raise ExprError("big_number")
        return
    if isinstance(node, ast.Name):
        if node.id != "x" and node.id not in CONSTANTS:
            raise ExprError("name", node.id)
        return
    if isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, (ast.USub, ast.UAdd)):
            raise ExprError("operator", type(node.op).__name__)
        _check(node.operand, depth + 1)
        return
    if isinstance(node, ast.BinOp):
        if type(node.op) not in _BINARY:
            raise ExprError("operator", type(node.op).__name__)
        _check(node.left, depth + 1)
        _check(node.right, depth + 1)
        if isinstance(node.op, ast.Pow) and not any(
                isinstance(n, ast.Name) and n.id == "x" for n in ast.walk(node.right)):
            # An exponent without x is a number: bound it (9 ** 9 ** 9 stops here, before any work).
            # One with x (2 ** x) is left to the finite-value check on the range.
            with torch.no_grad():
                exponent = float(_eval(node.right, torch.zeros(1, dtype=torch.float64))[0])
            if not math.isfinite(exponent) or abs(exponent) > MAX_EXPONENT:
                raise ExprError("power")
        return
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            raise ExprError("call", ast.unparse(node.func)[:20])
        if node.keywords or len(node.args) != 1 or isinstance(node.args[0], ast.Starred):
            raise ExprError("arguments", node.func.id)
        _check(node.args[0], depth + 1)
        return
    raise ExprError("syntax", type(node).__name__)


def parse(text: str) -> ast.Expression:
    """Parse a target expression in x, refusing anything outside the whitelist (raises ExprError)."""
    if not isinstance(text, str):
        raise ExprError("syntax")
    if len(text) > MAX_LENGTH:
        raise ExprError("too_long", str(len(text)))
    if not text.strip():
        raise ExprError("empty")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise ExprError("syntax") from None
    _check(tree.body, 0)
    return tree


def canonical(text: str) -> str:
    """The expression as one normal spelling (so 'x*x' and 'x * x' share a cache entry)."""
    return ast.unparse(parse(text))


def _eval(node: ast.AST, x: torch.Tensor) -> torch.Tensor:
    if isinstance(node, ast.Constant):
        return torch.full_like(x, float(node.value))
    if isinstance(node, ast.Name):
        return x if node.id == "x" else torch.full_like(x, CONSTANTS[node.id])
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, x)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)](_eval(node.left, x), _eval(node.right, x))
    if isinstance(node, ast.Call):
        return FUNCTIONS[node.func.id](_eval(node.args[0], x))  # type: ignore[union-attr]
    raise ExprError("syntax", type(node).__name__)


def evaluate(text: str, x: torch.Tensor) -> torch.Tensor:
    """The expression's values at x (float64); raises ExprError if any value is not finite or too large."""
    tree = parse(text)
    x = x.to(torch.float64)
    with torch.no_grad():
        y = _eval(tree.body, x)
    if not bool(torch.isfinite(y).all()):
        raise ExprError("nonfinite")
    if float(y.abs().max()) > MAX_VALUE:
        raise ExprError("too_large")
    return y
