"""The sparsity page's verdict agrees with the numbers it cites, over the page's whole control space."""
from __future__ import annotations

import functools

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from ffn_core import ffn, memory_training, sparsity
from tests.lesson_checks import Branches, assert_readable
from ui.verdicts import sparsity as verdicts

N_KEYS, N_TOKENS = 128, 1024  # the page's fixed sizes

space = st.fixed_dictionaries({
    "act": st.sampled_from(("relu", "gelu", "silu")),
    "init": st.sampled_from(ffn.INITS),
    "bias": st.booleans(),
    "seed": st.integers(0, 9999),
    "d": st.sampled_from(range(16, 129, 16)),
    "m": st.sampled_from((32, 64, 128, 256, 512)),
    "task": st.sampled_from(memory_training.TASKS),
    "steps": st.sampled_from((0, 50, 100, 200, 400, 600, 1000)),
})


@functools.lru_cache(maxsize=None)
def _at_init(d: int, m: int, act: str, init: str, bias: bool, seed: int) -> sparsity.AtInit:
    return sparsity.at_init(d=d, m=m, n_tokens=N_TOKENS, act=act, init=init, bias=bias, seed=seed)


@functools.lru_cache(maxsize=None)
def _train(d: int, m: int, steps: int, task: str, act: str, init: str, bias: bool, seed: int) -> sparsity.Training:
    return sparsity.train(n=N_KEYS, d=d, m=m, steps=steps, task=task, act=act, init=init, bias=bias, seed=seed)


STEPS = Branches("untrained", "trained")


@STEPS.required
@settings(max_examples=3)
@given(space)
@example({"act": "relu", "init": "default", "bias": True, "seed": 0, "d": 16, "m": 32, "task": "memorise", "steps": 0})
@example({"act": "gelu", "init": "default", "bias": True, "seed": 0, "d": 16, "m": 32, "task": "memorise", "steps": 50})
def test_sparsity_verdict_agrees_with_its_numbers(s: dict) -> None:
    assume(N_KEYS * s["d"] * s["m"] * s["steps"] <= memory_training.MAX_WORK)  # the page stops with a message otherwise
    start = _at_init(s["d"], s["m"], s["act"], s["init"], s["bias"], s["seed"])
    run = _train(s["d"], s["m"], s["steps"], s["task"], s["act"], s["init"], s["bias"], s["seed"])
    init_v, v = verdicts.judge_init(start), verdicts.judge(start, run, s["act"])
    assert_readable(init_v)
    assert_readable(v)
    [half] = init_v.claims
    assert half.ok == (0.45 <= start.mean_active_fraction <= 0.55)
    keys = v.takeaway.split()
    values = v.takeaway_values
    assert values["always_on"] == sum(r == 1.0 for r in start.per_neuron)
    assert values["dead"] == sum(r == 0.0 for r in start.per_neuron)
    STEPS.reach("untrained" if s["steps"] == 0 else "trained")
    if s["steps"] == 0:
        assert keys == ["sparsity.takeaway_untrained"]
        return
    for tokens, series, name in (("train", run.active_train, "sparsity.takeaway_train_"),
                                 ("fresh", run.active_fresh, "sparsity.takeaway_fresh_")):
        change = series[-1] - series[0]
        # "sparser" only with a fall of at least a point on the tokens the sentence names
        assert (name + "fell" in keys) == (change <= -0.01), (tokens, change)
        assert (name + "rose" in keys) == (change >= 0.01), (tokens, change)
        assert (name + "flat" in keys) == (abs(change) < 0.01), (tokens, change)
    assert (values["before"], values["after"]) == (run.active_train[0], run.active_train[-1])
    assert (values["fresh0"], values["fresh1"]) == (run.active_fresh[0], run.active_fresh[-1])
    # the published figures are ReLU measurements: cited as such only for ReLU
    assert ("sparsity.takeaway_reference_relu" in keys) == (s["act"] == "relu")
    assert ("sparsity.takeaway_reference_smooth" in keys) == (s["act"] != "relu")
