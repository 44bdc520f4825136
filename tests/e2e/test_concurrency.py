"""Two students with the same seed get the same numbers, even when their runs overlap.

Streamlit runs each session's script in its own thread of one process, so the core's experiments
run concurrently. A module that seeded or drew from torch's global generator would give a result
that depends on what other threads drew meanwhile; a local torch.Generator per call does not.
Each module's `report(seed)` (the DESIGN.md contract) is run alone, then several at once with
interleaved seeds, and the results must match exactly (same process, same thread count).
No browser needed.
"""

from __future__ import annotations

import importlib
import json
import re
import threading
from pathlib import Path

import pytest
import torch

CORE = Path(__file__).resolve().parents[2] / "ffn_core"
# Modules whose report(seed) draws random numbers under the contract; found by reading the files, so collection
# imports nothing. A report without a seed (the published models' counts) has nothing to draw.
# Dotted names below ffn_core, subpackages included ("sweep.lesson"); ffn_core/report.py runs them all.
MODULES = sorted(
    ".".join(path.relative_to(CORE).with_suffix("").parts)
    for path in CORE.rglob("*.py")
    if path != CORE / "report.py" and re.search(r"^def report\(seed\b", path.read_text(encoding="utf-8"), re.M)
)


def canonical(result: dict) -> str:
    # JSON text compares floats bit for bit (repr round-trips) and treats NaN as equal to itself.
    return json.dumps(result, sort_keys=True, default=repr)


@pytest.fixture(autouse=True)
def one_torch_thread():
    # As the app runs (ui/kit/shell.py): one intra-op thread per session thread.
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_modules_found():
    assert len(MODULES) >= 4, f"expected the demo modules' report() functions in {CORE}, found {MODULES}"


@pytest.mark.parametrize("module_name", MODULES)
def test_same_seed_same_result_when_runs_overlap(module_name):
    module = importlib.import_module(f"ffn_core.{module_name}")
    alone = {seed: canonical(module.report(seed)) for seed in (0, 1)}

    seeds = (0, 1, 0, 1)
    results: list[str | BaseException | None] = [None] * len(seeds)
    start = threading.Barrier(len(seeds))

    def student(i: int) -> None:
        try:
            start.wait(timeout=60)
            results[i] = canonical(module.report(seeds[i]))
        except BaseException as e:  # reported below, with the thread's seed
            results[i] = e

    threads = [threading.Thread(target=student, args=(i,)) for i in range(len(seeds))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    for seed, got in zip(seeds, results):
        assert not isinstance(got, BaseException), f"{module_name}.report({seed}) raised in a thread: {got!r}"
        assert got == alone[seed], f"{module_name}.report({seed}) differs when run beside other sessions"
