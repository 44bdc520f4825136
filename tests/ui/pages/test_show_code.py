""""Show the code" shows what ran: every function a page lists was called while the page computed.

A seed no other test uses keeps the compute cache from answering instead of the code."""
import ast
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import TIMEOUT, open_page

pytestmark = pytest.mark.usefixtures("fresh_caches")  # counts what is computed: starts from empty caches

ROOT = Path(__file__).resolve().parents[3]


def _shown(path: str) -> list[str]:
    """The dotted names passed to widgets.show_code in the page's source (the last two parts: module.func)."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "show_code":
            names += [ast.unparse(arg).split(".")[-1] for arg in node.args[1:] if isinstance(arg, ast.Attribute)]
    return names


@pytest.mark.parametrize(("path", "query"), [
    ("pages/5_width_sweep.py", {"seed": "4817", "target": "abs"}),
    ("pages/6_key_value.py", {"seed": "4817"}),
    ("pages/7_activation_sparsity.py", {"seed": "4817"}),
])
def test_every_function_shown_ran(path, query):
    called: set[str] = set()

    def profile(frame, event, arg):
        if event == "call" and "ffn_core" in frame.f_code.co_filename:
            called.add(frame.f_code.co_name)

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        at = open_page(path, "en", **query)
        # A part the page shows when done (page 7's runs over seeds) runs on a thread of its own: what it ran counts.
        deadline = time.monotonic() + TIMEOUT
        while any(t.name == "ffnlab-later" for t in threading.enumerate()) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    assert not at.exception
    shown = _shown(path)
    assert shown
    assert [name for name in shown if name not in called] == []


def test_surgery_page_shows_no_function_it_does_not_call():
    # The page is too slow to profile here; its list names only functions the page or ui/gpt_probes call.
    shown = _shown("pages/9_gpt_surgery.py")
    source = (ROOT / "pages/9_gpt_surgery.py").read_text() + (ROOT / "ui/gpt/probes.py").read_text()
    assert "curve" not in shown
    for name in shown:
        assert f"{name}(" in source or f".{name}" in source, name
