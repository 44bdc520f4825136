"""The core stays a library: importing it loads no UI package and runs no experiment."""
import json
import subprocess
import sys

from tests.conftest import ROOT

# Every module of the core, subpackages included, by dotted name ("collapse", "sweep.varpro").
CORE_MODULES = sorted(
    ".".join(path.relative_to(ROOT / "ffn_core").with_suffix("").parts)
    for path in (ROOT / "ffn_core").rglob("*.py")
    if path.stem != "__init__"
)


def test_core_and_its_tests_import_without_streamlit_or_altair():
    # The core's tests' conftests too: `python -m pytest tests/core` runs the core alone.
    code = (
        "import importlib, json, sys, time\n"
        f"mods = {CORE_MODULES!r}\n"
        "start = time.perf_counter()\n"
        "for m in mods: importlib.import_module('ffn_core.' + m)\n"
        "import tests.conftest, tests.core.conftest\n"
        "print(json.dumps({'ui': sorted(n for n in sys.modules if n.split('.')[0] in ('streamlit', 'altair', 'ui')),"
        " 'seconds': time.perf_counter() - start}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["ui"] == []
    assert len(CORE_MODULES) >= 15
    assert {"sweep.sweep", "sweep.best", "sweep.varpro", "sweep.expr"} <= set(CORE_MODULES)


def test_core_never_seeds_globally():
    offenders = [
        path.name
        for path in (ROOT / "ffn_core").rglob("*.py")
        if "manual_seed(" in path.read_text(encoding="utf-8").replace("Generator().manual_seed(", "")
    ]
    assert offenders == []
