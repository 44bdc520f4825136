"""Page 8's computations, before and after the kept corpus pass, timed side by side in CPU seconds.

    python bench/gpt_surgery.py [--threads 1] [--edits 3]

"before" is the plain path (a hooked copy of the model for each ablation, an edited copy passed over
every prompt, the prompts' own pass for the predictions and each covariance); "after" is the kept
corpus pass (ffn_core/gpt/states.py) as ui/gpt_probes.py calls it. Both measure over the whole
corpus: every sentence for the scores, every prompt for the edit. Each pair runs back to back, so
the machine's load is the same for both; the load average is printed beside them. The results are
checked equal as they are timed.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from ffn_core.gpt import ablation, corpus, edit, neurons, states, weights  # noqa: E402


def cpu(fn):  # noqa: ANN001, ANN201
    t = time.process_time()
    value = fn()
    return value, time.process_time() - t


def load() -> str:
    return "load %.2f %.2f %.2f" % os.getloadavg()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=1, help="torch threads (a server shares its cores)")
    ap.add_argument("--edits", type=int, default=3, help="edits timed (page 8's default first)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    model = weights.load()
    for p in model.parameters():
        p.requires_grad_(False)
    corpus.prompts("all")
    print(f"page 8, CPU seconds on {args.threads} torch thread(s); {load()}")
    template = corpus.template_id("capital", "en", 0)

    # The page's first view: the scores, the default edit (France → Rome, block 1, ROME's update).
    def old_first():
        base = ablation.scores(model)
        keys = neurons.corpus_keys(model)
        cov = edit.key_covariance(model, 0).to(torch.float32)
        return base, edit.edit(model, "France", "capital", "en", template, "Rome", 1, "covariance",
                               covariance=cov, before=keys.predictions)

    def new_first():
        kept = states.corpus_states(model)
        cov = states.key_covariance(model, kept, 0).to(torch.float32)
        return kept, edit.edit(model, "France", "capital", "en", template, "Rome", 1, "covariance",
                               covariance=cov, kept=kept)

    (base, old_edit), t_old = cpu(old_first)
    (kept, new_edit), t_new = cpu(new_first)
    same = ablation.kept_scores(kept) == base and dataclasses.replace(new_edit, delta_norm=0) == \
        dataclasses.replace(old_edit, delta_norm=0)
    print(f"{'first view (scores + default edit)':<38} before {t_old:6.2f} s  after {t_new:6.2f} s  "
          f"×{t_old / t_new:4.1f}  equal={same}  ({load()})")
    print(f"{'  of which the kept pass':<38} {'':>16}  after {cpu(lambda: states.corpus_states(model))[1]:6.2f} s"
          f"  (holds {kept.nbytes / 2**20:.0f} MB)")
    worst = 0.0
    for target in ablation.targets(len(model.blocks)):
        old, t_old = cpu(lambda: ablation.ablate(model, target, base))
        new, t_new = cpu(lambda: ablation.scores_from(model, kept, target))
        worst = max(worst, t_new)
        equal = (old.seen, old.heldout, old.template) == (new.seen, new.heldout, new.template)
        print(f"{'ablation ' + target:<38} before {t_old:6.2f} s  after {t_new:6.2f} s  equal={equal}")
    capitals = [f for f in corpus.FACTS if f.relation == "capital"]
    cases = [("France", "Rome", 1, "covariance"), ("France", "Rome", 2, "plain"), ("Japan", "Paris", 3, "covariance"),
             ("Brazil", "Rome", 4, "covariance"), ("Egypt", "Rome", 1, "plain")][: args.edits]
    known = {f.country for f in capitals}
    cov_old = {layer: edit.key_covariance(model, layer - 1).to(torch.float32) for layer in range(1, len(model.blocks) + 1)}
    cov_new = {layer: states.key_covariance(model, kept, layer - 1).to(torch.float32) for layer in cov_old}
    preds = kept.predictions
    for country, new_answer, layer, method in cases:
        if country not in known or layer > len(model.blocks):
            continue
        old, t_old = cpu(lambda: edit.edit(model, country, "capital", "en", template, new_answer, layer, method,
                                           covariance=cov_old[layer], before=preds))
        new, t_new = cpu(lambda: edit.edit(model, country, "capital", "en", template, new_answer, layer, method,
                                           covariance=cov_new[layer], kept=kept))
        equal = dataclasses.replace(old, delta_norm=0) == dataclasses.replace(new, delta_norm=0)
        print(f"{f'edit {country}→{new_answer} block {layer} {method}':<38} before {t_old:6.2f} s  after {t_new:6.2f} s"
              f"  equal={equal}")
    print(f"slowest new ablation {worst:.2f} s; {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
