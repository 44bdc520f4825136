"""Fixtures of the core's tests. No Streamlit here: `python -m pytest tests/core` runs the core alone."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

# The one run below also does what a server does beside the report (the width sweep's other method),
# so the sympy check sees every experiment the app can start without a second full report.
_RUN = """\
import json, sys
from pathlib import Path
from ffn_core import report
from ffn_core.sweep import sweep
out = Path(sys.argv[1])
status = report.main(["--seed", "0", "--write", str(out)])
sweep.fit_widths(widths=(2, 4), act="gelu", method="naive", steps=3)
loaded = sorted(n for n in sys.modules if n.split(".")[0] in ("sympy", "mpmath", "streamlit", "altair"))
(out / "modules.json").write_text(json.dumps(loaded))
raise SystemExit(status)
"""


@dataclass(frozen=True)
class ReportRun:
    """One `ffn_core.report` run at seed 0: what it printed, the files it wrote, the modules it loaded."""

    stdout: str
    json: dict[str, Any]
    markdown: str
    modules: list[str]


@pytest.fixture(scope="session")
def report_run(tmp_path_factory: pytest.TempPathFactory) -> ReportRun:
    # The full report is the slowest thing the core does (every experiment at the lesson's sizes, the
    # trained GPT's evaluation included): computed once per test session, in a fresh process so that
    # what it imports is its own, and shared by every test that reads it.
    out: Path = tmp_path_factory.mktemp("report")
    one_thread = {**os.environ, "OMP_NUM_THREADS": "1"}  # as the tests run (tests/conftest.py)
    done = subprocess.run([sys.executable, "-c", _RUN, str(out)], cwd=ROOT, capture_output=True, text=True,
                          check=True, timeout=600, env=one_thread)
    return ReportRun(
        stdout=done.stdout,
        json=json.loads((out / "report.json").read_text(encoding="utf-8")),
        markdown=(out / "report.md").read_text(encoding="utf-8"),
        modules=json.loads((out / "modules.json").read_text(encoding="utf-8")),
    )
