"""The custom target parser: accepts exactly the whitelist, refuses everything else, never runs user text."""
from __future__ import annotations

import math

import pytest
import torch

from ffn_core.sweep import expr, targets

X = torch.linspace(-2.0, 2.0, 17, dtype=torch.float64)


@pytest.mark.parametrize(
    ("text", "reference"),
    [
        ("x", lambda x: x),
        ("sin(3*x)", lambda x: math.sin(3 * x)),
        ("cos(x) + tan(x/4) - tanh(x)", lambda x: math.cos(x) + math.tan(x / 4) - math.tanh(x)),
        ("exp(-x**2) * 2.5", lambda x: math.exp(-(x**2)) * 2.5),
        ("log(x*x + 1) / sqrt(abs(x) + 1)", lambda x: math.log(x * x + 1) / math.sqrt(abs(x) + 1)),
        ("-x ** 3 + pi", lambda x: -(x**3) + math.pi),
        ("+x - -1", lambda x: x + 1),
        ("x ** -2.0 * 0 + 1e3", lambda x: 1e3 if x != 0 else float("nan")),
        ("2**x", lambda x: 2**x),
    ],
)
def test_accepts_whitelist_and_matches_math(text: str, reference) -> None:  # noqa: ANN001
    xs = X[X != 0] if "x ** -2" in text else X
    y = expr.evaluate(text, xs)
    assert y.dtype == torch.float64
    expected = torch.tensor([reference(float(v)) for v in xs], dtype=torch.float64)
    assert torch.allclose(y, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("__import__('os')", "call"),
        ("__import__('os').system('true')", "call"),
        ("x.real", "syntax"),
        ("x.__class__", "syntax"),
        ("y + 1", "name"),
        ("e", "name"),
        ("sin", "name"),
        ("open('f')", "call"),
        ("eval('1')", "call"),
        ("sin(x, 2)", "arguments"),
        ("sin(x=1)", "arguments"),
        ("sin(*[x])", "arguments"),
        ("(lambda: 1)()", "call"),
        ("lambda x: x", "syntax"),
        ("[x][0]", "syntax"),
        ("x[0]", "syntax"),
        ("'a'", "constant"),
        ("True", "constant"),
        ("1j", "constant"),
        ("x if x else 1", "syntax"),
        ("x // 2", "operator"),
        ("x % 2", "operator"),
        ("x @ x", "operator"),
        ("~x", "operator"),
        ("x < 1", "syntax"),
        ("x ** 1000", "power"),
        ("x ** -11", "power"),
        ("x ** (5 * 3)", "power"),
        ("9 ** 9 ** 9", "power"),
        ("1e400 * x", "big_number"),
        ("x * 10000000", "big_number"),
        ("x" + " + x" * 30, "too_long"),
        ("", "empty"),
        ("   ", "empty"),
        ("x +", "syntax"),
        ("x = 1", "syntax"),
        ("import os", "syntax"),
        ("-" * 60 + "x", "too_deep"),
        ("<script>alert(1)</script>", "syntax"),
    ],
)
def test_refuses_outside_whitelist(text: str, code: str) -> None:
    with pytest.raises(expr.ExprError) as err:
        expr.evaluate(text, X)
    assert err.value.code == code


def test_length_limit_is_80() -> None:
    ok = "x+" * 39 + "x"  # 79 characters
    assert len(ok) <= expr.MAX_LENGTH
    expr.parse(ok)
    with pytest.raises(expr.ExprError):
        expr.parse("x " * 40 + "+x")


@pytest.mark.parametrize(("text", "code"), [("log(x)", "nonfinite"), ("1/x", "nonfinite"),
                                            ("sqrt(x - 3)", "nonfinite"), ("exp(exp(x*3))", "too_large")])
def test_non_finite_or_huge_values_are_an_error(text: str, code: str) -> None:
    x = torch.linspace(-2.0, 2.0, 257, dtype=torch.float64)  # includes x = 0
    with pytest.raises(expr.ExprError) as err:
        expr.evaluate(text, x)
    assert err.value.code == code


def test_canonical_spelling_and_builtin_ids() -> None:
    assert expr.canonical("x*x") == expr.canonical(" x * x ") == "x * x"
    assert targets.key("sin3x") == "sin3x"
    assert targets.key("sin( 3*x )") == "sin(3 * x)"
    assert targets.label("sin3x") == "sin(3x)"


def test_never_calls_eval_exec_or_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    def refuse(*_args, **_kwargs):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("user text reached eval/exec/compile")

    for name in ("eval", "exec"):
        monkeypatch.setattr(builtins, name, refuse)
    y = expr.evaluate("sin(x) + x**2", X)
    assert torch.allclose(y, torch.sin(X) + X**2)
