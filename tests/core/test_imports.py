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


def test_core_imports_without_streamlit_or_altair():
    code = (
        "import importlib, json, sys, time\n"
        f"mods = {CORE_MODULES!r}\n"
        "start = time.perf_counter()\n"
        "for m in mods: importlib.import_module('ffn_core.' + m)\n"
        "print(json.dumps({'ui': sorted(n for n in sys.modules if n.split('.')[0] in ('streamlit', 'altair')),"
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


def test_every_experiment_runs_without_loading_sympy():
    # torch loads sympy (with torch.fx) for vmap, meta-device modules, autograd's grad_outputs and
    # torch.optim's first step: 0.7-2 s on the first such experiment a fresh server runs, and ~40 MB
    # it keeps for good. The report runs every experiment at the lesson's settings, and the width
    # sweep's other method and activation run too; none of them needs it.
    code = (
        "import json, sys\n"
        "from ffn_core import report\nfrom ffn_core.sweep import sweep\n"
        "report.collect(seed=0)\n"
        "sweep.fit_widths(widths=(2, 4), act='gelu', method='naive', steps=3)\n"
        "print(json.dumps(sorted(n for n in sys.modules if n.split('.')[0] in ('sympy', 'mpmath'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
