"""Page 9's computations, before and after the kept corpus pass, timed side by side in CPU seconds.

    python bench/gpt_surgery.py [--threads 1] [--edits 3] [--repeat 1]

"before" is the plain path (a hooked copy of the model for each ablation, an edited copy passed over
every prompt, the prompts' own pass for the predictions and each covariance); "after" is the kept
corpus pass (ffn_core/gpt/states.py, run once per distinct prefix: ffn_core/gpt/prefixes.py) as
ui/gpt/probes.py calls it. Both measure over the whole corpus: every sentence for the scores, every
prompt for the edit. Each pair runs back to back, so the machine's load is the same for both; the
load average is printed beside them; with --repeat N each pair runs N times, in turn, and the least
CPU time of each is shown (a shared machine only ever adds time). The results are checked equal as
they are timed, and the kept block inputs against the whole pass's, bit for bit.
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

from ffn_core.gpt import ablation, corpus, edit, evaluate, neurons, prefixes, states, weights  # noqa: E402

REPEAT = 1


def cpu(fn):  # noqa: ANN001, ANN201
    t = time.process_time()
    value = fn()
    return value, time.process_time() - t


def pair(old, new):  # noqa: ANN001, ANN201
    """(old's value, its least CPU time, new's value, its least CPU time) over REPEAT turns, in turn."""
    times_old, times_new = [], []
    for _ in range(REPEAT):
        a, t = cpu(old)
        times_old.append(t)
        b, t = cpu(new)
        times_new.append(t)
    return a, min(times_old), b, min(times_new)


def same_inputs(model, kept) -> bool:  # noqa: ANN001
    """Every kept block input at every corpus token is the whole pass's, bit for bit."""
    for b, (_, path), inputs in zip(evaluate.corpus_batches(), prefixes.corpus(), kept.inputs):
        seen = states.whole_pass_inputs(model, b.ids)
        if not all(torch.equal(mine[path], theirs) for mine, theirs in zip(inputs, seen)):
            return False
    return True


def load() -> str:
    return "load %.2f %.2f %.2f" % os.getloadavg()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=1, help="torch threads (a server shares its cores)")
    ap.add_argument("--edits", type=int, default=3, help="edits timed (page 9's default first)")
    ap.add_argument("--repeat", type=int, default=1, help="turns of each pair; the least CPU time is shown")
    args = ap.parse_args(argv)
    global REPEAT
    REPEAT = max(1, args.repeat)
    torch.set_num_threads(args.threads)
    model = weights.load()
    for p in model.parameters():
        p.requires_grad_(False)
    corpus.prompts("all")
    print(f"page 9, CPU seconds on {args.threads} torch thread(s); {load()}")
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

    # new_first's first turn builds the prefix index too, as a fresh server's first view does.
    (base, old_edit), t_old, (kept, new_edit), t_new = pair(old_first, new_first)
    prefixes.corpus.cache_clear()
    prefixes.prompts.cache_clear()
    _, t_index = cpu(lambda: ([part.words for part, _ in prefixes.corpus()], [p.part.words for p in prefixes.prompts()]))
    same = ablation.kept_scores(kept) == base and dataclasses.replace(new_edit, delta_norm=0) == \
        dataclasses.replace(old_edit, delta_norm=0)
    print(f"{'first view (scores + default edit)':<38} before {t_old:6.2f} s  after {t_new:6.2f} s  "
          f"×{t_old / t_new:4.1f}  equal={same}  ({load()})")
    t_kept = min(cpu(lambda: states.corpus_states(model))[1] for _ in range(REPEAT))
    print(f"{'  of which the kept pass':<38} {'':>16}  after {t_kept:6.2f} s"
          f"  (holds {kept.nbytes / 2**20:.0f} MB; building the prefix index {t_index:.2f} s, once)")
    print(f"{'  kept inputs = whole pass, bit for bit':<38} {same_inputs(model, kept)}")
    worst = 0.0
    for target in ablation.targets(len(model.blocks)):
        old, t_old, new, t_new = pair(lambda: ablation.ablate(model, target, base),
                                      lambda: ablation.scores_from(model, kept, target))
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
        old, t_old, new, t_new = pair(
            lambda: edit.edit(model, country, "capital", "en", template, new_answer, layer, method,
                              covariance=cov_old[layer], before=preds),
            lambda: edit.edit(model, country, "capital", "en", template, new_answer, layer, method,
                              covariance=cov_new[layer], kept=kept))
        equal = dataclasses.replace(old, delta_norm=0) == dataclasses.replace(new, delta_norm=0)
        print(f"{f'edit {country}→{new_answer} block {layer} {method}':<38} before {t_old:6.2f} s  after {t_new:6.2f} s"
              f"  equal={equal}")
    print(f"slowest new ablation {worst:.2f} s; {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
