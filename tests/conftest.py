"""Shared by every layer: the repository root on sys.path, Hypothesis profiles, and the AppTest helpers
(open a page, read its charts back) the Streamlit-side tests import.

Nothing here imports streamlit at import time, so `python -m pytest tests/core` runs the core alone;
the Streamlit-side fixtures live in tests/ui/conftest.py.
"""
from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# No results kept on disk between test runs (ui/compute/disk_cache.py): a test that counts computations must
# not find them done by an earlier run. Read when ui.compute is first imported, so set before any test's.
import os  # noqa: E402

os.environ.setdefault("FFNLAB_DISK_CACHE_MB", "0")

# Property tests of the verdicts run the real experiments, so CI draws a bounded number of settings;
# HYPOTHESIS_PROFILE=thorough explores more when there is time.
try:
    from hypothesis import HealthCheck, settings

    settings.register_profile("ci", max_examples=25, deadline=None, derandomize=True,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("thorough", max_examples=300, deadline=None)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
except ImportError:  # the app's own requirements do not include hypothesis
    pass

@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep together, on one pytest-xdist worker, the tests that share an expensive session fixture.

    The suite runs on every core (`-n auto --dist loadgroup` in pytest.ini); a session fixture is made
    once per worker, so the tests reading the full report, the ones using the PostgreSQL server, and
    each browser file (one Streamlit server and one Chromium each) go to one worker per group rather
    than paying for the fixture on every worker. Runs before xdist reads the groups (tryfirst).
    """
    for item in items:
        if item.get_closest_marker("xdist_group"):
            continue
        fixtures = set(getattr(item, "fixturenames", ()))
        path = Path(str(item.path))
        if "report_run" in fixtures:
            group = "report"
        elif hasattr(getattr(item, "module", None), "postgres_server"):  # a module that imports tests/ui/pg.py's fixture
            group = "postgres"
        elif "e2e" in path.parts:
            group = f"e2e-{path.stem}"
        else:
            continue
        item.add_marker(pytest.mark.xdist_group(group))


# A cold torch import plus a first computation takes longer than AppTest's 3 s default.
TIMEOUT = 60.0


@pytest.fixture(scope="session", autouse=True)
def _one_torch_thread():
    """One intra-op thread, as the app runs each session (ui/kit/shell.py).

    On a busy 2-core machine a second thread mostly waits for a core: the report's sections took 10×
    the wall time and CPU time with two. No figure a test checks depends on the count;
    tests/core/test_reproducible_matmul.py checks the ones that could, at one thread and two.
    """
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def shipped_gpt():
    """The shipped GPT, its parameters frozen: the probes take no gradient of a weight. One per module."""
    from ffn_core.gpt import weights

    m = weights.load()
    for p in m.parameters():
        p.requires_grad_(False)
    return m


@pytest.fixture(scope="module")
def shipped_moe():
    """The shipped MoE GPT and its probe pass over every prompt (moe_probes.run), one per module."""
    from ffn_core.gpt import moe_probes, moe_train

    model = moe_train.load()
    return model, moe_probes.run(model)


def unfold(at):
    """Open every box the page folds (ui.widgets.folded: the questions, the code) as a student's click does, and rerun."""
    from ui import widgets

    for _ in range(3):  # a box inside an opened box is drawn, closed, by the run that opens the outer one
        closed = [key for key in at.session_state.keys() if str(key).startswith(widgets.FOLDED) and not at.session_state[key]]
        for key in closed:
            at.session_state[key] = True
        if not closed:
            break
        at.run()
    return at


def open_class(at):
    """Open the sidebar's class box (folded outside a class: Start a class, join by code) as a click does, and rerun."""
    at.session_state["_fold:room_class"] = True
    return at.run()


def open_page(path: str = "dashboard.py", lang: str = "en", *, folded: bool = False, **query: Any):
    """Run dashboard.py, switch to `path` with the given query parameters, and return the AppTest.

    Every folded box (the questions, the code) is then opened, as a student would, unless `folded`.
    """
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=TIMEOUT)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    if path != "dashboard.py":
        at.switch_page(path)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    return at if folded or at.exception else unfold(at)


def fresh_import(statements: str, packages: Sequence[str]) -> list[str]:
    """Run the import `statements` in a fresh interpreter: the lines it printed, the last one the loaded modules of
    `packages` (JSON, sorted). What a module loads or prints on import, unmasked by this process's imports."""
    code = f"import json, sys\n{statements}\nprint(json.dumps(sorted(n for n in sys.modules if n.split('.')[0] in {tuple(packages)!r})))\n"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.strip().splitlines()


# Values a crafted or broken link may carry for any control: not a number, out of range, not whole, empty, markup.
BAD_VALUES = ("abc", "-1", "99999", "1.5", "", "<script>alert(1)</script>")


def open_unbroken(path: str, lang: str = "en", **query: Any):
    """open_page, checked to have run without an exception (a bad link falls back; it never breaks the page)."""
    at = open_page(path, lang, **query)
    assert not at.exception, [e.value for e in at.exception]
    return at


def before_after(shown: str, kind: Callable[[str], Any] = float) -> tuple[Any, Any]:
    """The two numbers of a metric shown as "before → after"."""
    before, after = shown.split(" → ")
    return kind(before), kind(after)


def open_titled(path: str, lang: str, title: str) -> tuple[Any, Any]:
    """open_page at the page's defaults in `lang`, checked to have run without an exception and to show the
    title of locale key `title`: the AppTest and the language's translator."""
    from ui.base import i18n

    at = open_unbroken(path, lang)
    t = i18n.Translator(lang)
    assert at.title[0].value == t(title)
    return at, t


def chart_specs(at) -> list[dict[str, Any]]:
    """The Vega-Lite specs of every Altair chart on the page, datasets inlined under "datasets"."""
    specs = []
    for element in at.get("vega_lite_chart"):
        spec = json.loads(element.proto.spec)
        datasets = dict(spec.get("datasets", {}))
        for dataset in element.proto.datasets:
            datasets[dataset.name] = _arrow_rows(dataset.data.data)
        spec["datasets"] = datasets
        specs.append(spec)
    return specs


def chart_rows(spec: dict[str, Any]) -> list[dict]:
    """Every row of one chart spec's datasets, in order."""
    return [row for rows in spec["datasets"].values() for row in rows]


def _arrow_rows(data: bytes) -> list[dict[str, Any]]:
    import pyarrow as pa

    if not data:
        return []
    return pa.ipc.open_stream(data).read_all().to_pylist()


def metric_values(at) -> dict[str, str]:
    """Each st.metric's label and shown value."""
    return {m.label: m.value for m in at.metric}
