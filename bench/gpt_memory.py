"""Page 8's checkpoint and word-in-context views against their budgets.

    python bench/gpt_memory.py

First compute at the page's defaults (France's capital, the English prompt, step 300, Germany second),
from a fresh process: each view's core work, the checkpoint's loading and corpus pass included.
Budget 0.5 s a view. Then page 8's warm rerun in AppTest (every result cached): script time, budget 200 ms
for the page's new sections (printed for the whole page, all sections). The extra server memory for
every checkpoint held at once: budget 60 MB. The load average is printed beside the numbers: the machine
is shared and wall times count waiting for a core.
"""
from __future__ import annotations

import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from ffn_core.gpt import context, corpus, neurons, progress, weights  # noqa: E402


def timed(label: str, func) -> object:
    start = time.perf_counter()
    out = func()
    print(f"{label:<52} {1000 * (time.perf_counter() - start):8.1f} ms")
    return out


def main() -> None:
    torch.set_num_threads(1)
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    p = next(q for q in corpus.prompts("all") if q.fact.country == "France" and q.fact.relation == "capital"
             and q.lang == "en")
    final = timed("load the final model", lambda: weights.load())
    model = timed("load the step-300 checkpoint", lambda: weights.load(300))
    keys = timed("step 300: corpus pass (predictions, neuron keys)", lambda: neurons.corpus_keys(model))
    timed("step 300: answer, accuracy, attribution, neurons", lambda: progress.snapshot(model, 300, p.words, p.answer, keys))
    timed("curve across training (from the log)", lambda: progress.curve(weights.log(), weights.steps()))
    timed("France in its sentences, block by block", lambda: context.compare(final, context.word_contexts("France")))
    timed("France and Germany in one form", lambda: context.compare(final, context.role_contexts(p.template, ("France", "Germany"))))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    held = [weights.load(s) for s in weights.steps()]
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    size = sum(t.numel() * t.element_size() for m in held for t in m.parameters()) / 2**20  # the head is wte
    print(f"every checkpoint held: {len(held)} models, parameters {size:.1f} MB; peak RSS grew {(after - before) / 1024:.1f} MB")

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "dashboard.py"), default_timeout=300)
    at.query_params["lang"] = "en"
    at.run()
    at.switch_page("pages/8_trained_gpt.py")
    timed("page 8, first run in AppTest (all sections)", at.run)
    for i in range(3):
        timed(f"page 8, warm rerun {i + 1} (all sections)", at.run)
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")


if __name__ == "__main__":
    main()
