"""A page's results at given settings without its page: what `python -m lessons measures` lists and what the
measure tests compare the pages' questions with.

Each entry makes the same core calls, with the same arguments, as the page's part of that name
(pages/*.py); a page itself never calls this: it reads its measures from the results it already holds.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ffn_core import collapse, gated, keyvalue, model_counts, moe, params, position, presets, sparsity
from ffn_core.gpt import corpus
from ffn_core.sweep import gated as gated_sweep
from ffn_core.sweep import sweep, targets
from ui.gpt import checkpoints, moe_probes, probes

Settings = Mapping[str, Any]
SPARSITY_TOKENS = 1024  # pages/7_activation_sparsity.py's N_TOKENS


def _sweep(c: Settings) -> dict[str, Any]:
    key = c["target"] if c["target"] in targets.BUILTIN else targets.key(c["expr"])
    methods = ("pieces", "naive") if c["method"] == "both" else (c["method"],)
    widths = tuple(sorted(int(m) for m in c["widths"]))
    return {"results": {m: sweep.fit_widths(key, widths, act=c["act"], method=m, seed=int(c["seed"])) for m in methods}}


def _prompt(c: Settings) -> tuple[tuple[str, ...], str | None]:
    """The prompt page 8 asks about: the chosen fact's form, or the typed words when all are known."""
    fact = next(f for f in corpus.FACTS if f.country == c["country"] and f.relation == c["relation"])
    chosen = {" ".join(p.words): p for p in probes.prompts_of(fact, c["plang"])}[c["form"]]
    words, answer = chosen.words, chosen.answer
    if str(c.get("prompt", "")).strip():
        parsed, unknown = probes.parse(c["prompt"])
        if parsed and not unknown:
            words, answer = parsed, probes.known_answer(parsed)
    return tuple(words), answer


def _gpt(c: Settings) -> dict[str, Any]:
    words, answer = _prompt(c)
    nxt = probes.next_token(words, answer)
    target = answer if answer is not None else nxt.tokens[0]
    return {"next": nxt, "accuracy": probes.accuracy(), "attribution": probes.attribute(words, target)}


def _ablation(c: Settings) -> dict[str, Any]:
    base = probes.base_scores()
    return {"base": base, "after": base if c["target"] == "none" else probes.ablated_scores(c["target"], c["how"])}


PARTS: dict[tuple[str, str], Callable[[Settings], dict[str, Any]]] = {
    ("split", "block"): lambda c: {"split": params.split(c["d"], c["expansion"], c["heads"], c["kv_heads"], c["bias"],
                                                         c["glu"])},
    ("split", "model"): lambda c: {"model": model_counts.catalogue().models[presets.IDS.index(c["model"])]},
    ("position", "experiment"): lambda c: {"res": position.measure(c["n"], c["d"], 4 * c["d"], c["act"], c["heads"],
                                                                   c["causal"], c["perm"], c["seed"])},
    ("position", "block"): lambda c: {"block": position.block_influence(c["n"], c["d"], 4 * c["d"], c["act"],
                                                                        c["heads"], c["causal"], c["seed"])},
    ("collapse", "experiment"): lambda c: {"res": collapse.measure(c["d"], c["m"], c["act"], c["bias"], c["seed"])},
    ("collapse", "stack"): lambda c: {"stack": collapse.stack(c["d"], collapse.hidden_widths(c["d"], c["layers"],
                                                                                             c["narrow"]),
                                                              c["bias"], c["seed"])},
    ("gated", "experiment"): lambda c: {"res": gated.measure(c["d"], c["act"], c["token"], c["seed"])},
    ("gated", "width"): lambda c: {"sweep": gated_sweep.fit(c["target"], tuple(j for j in gated_sweep.JS if j <= c["most"]),
                                                            c["wact"], c["seed"])},
    ("sweep", "experiment"): _sweep,
    ("keyvalue", "experiment"): lambda c: {"res": keyvalue.read_token(
        keyvalue.memorise_pairs(d=c["d"], m=c["m"], n=c["n"], steps=c["steps"], seed=c["seed"]), c["token"])},
    ("sparsity", "experiment"): lambda c: {
        "start": sparsity.at_init(d=c["d"], m=c["m"], n_tokens=SPARSITY_TOKENS, act=c["act"], init=c["init"],
                                  bias=c["bias"], seed=c["seed"]),
        "run": sparsity.train(n=sparsity.N_KEYS, d=c["d"], m=c["m"], steps=c["steps"], task=c["task"], act=c["act"],
                              init=c["init"], bias=c["bias"], seed=c["seed"])},
    ("gpt", "experiment"): _gpt,
    ("gpt", "checkpoint"): lambda c: {"snap": checkpoints.snapshot(int(c["checkpoint"]), *_prompt(c))},
    ("gptsurgery", "ablation"): _ablation,
    ("gptsurgery", "edit"): lambda c: {"edit": probes.edit_fact(c["edit_country"], c["edit_lang"], c["new"],
                                                                int(c["block"]), c["method"])},
    ("moe", "toy"): lambda c: {"res": moe.measure(c["d"], 4 * c["d"], c["experts"], c["k"], c["n"], c["seed"])},
    ("moe", "trained"): lambda c: {"routes": moe_probes.routes(), "cut": moe_probes.ablate(int(c["block"]),
                                                                                           int(c["expert"]))},
}


def results(section: str, part: str, settings: Settings) -> dict[str, Any]:
    """The results page `section`'s part `part` computes at these settings (every control's value)."""
    return PARTS[(section, part)](settings)
