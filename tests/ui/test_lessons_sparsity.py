"""The sparsity page's verdict agrees with the numbers it cites, over the page's whole control space."""
from __future__ import annotations

import functools

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from ffn_core import ffn, memory_training, sparsity
from tests.lesson_checks import Branches, assert_readable
from ui.registry import rules
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


SEEDS = Branches("vary", "all_fell", "all_flat", "all_rose")


@SEEDS.required
@settings(max_examples=60)
@given(st.lists(st.floats(-0.05, 0.05, allow_nan=False), min_size=2, max_size=sparsity.SPREAD_SEEDS))
@example([-0.02, -0.03])
@example([0.002, -0.004])
@example([0.02, 0.011])
@example([-0.0142, -0.0041, -0.0063, -0.0099, -0.0025, -0.0098, -0.0051, -0.0118])  # the default's seeds 0-7
def test_the_takeaway_says_what_holds_across_seeds(changes: list[float]) -> None:
    start = _at_init(16, 32, "relu", "default", True, 0)
    run = _train(16, 32, 50, "memorise", "relu", "default", True, 0)
    spread = sparsity.SeedSpread(tuple(range(len(changes))), tuple(changes), tuple(changes))
    v = verdicts.judge(start, run, "relu", spread)
    assert_readable(v)
    keys, values = v.takeaway.split(), v.takeaway_values
    assert "sparsity.takeaway_seeds" in keys
    moves = [rules.direction(c) for c in changes]
    assert (values["seeds_fell"], values["seeds_flat"], values["seeds_rose"]) == (
        moves.count("fell"), moves.count("flat"), moves.count("rose"))
    assert (values["lo"], values["hi"]) == (100 * min(changes), 100 * max(changes))
    assert (values["first"], values["last"], values["runs"]) == (0, len(changes) - 1, len(changes))
    for d in ("fell", "flat", "rose"):
        if f"sparsity.takeaway_seeds_all_{d}" in keys:
            SEEDS.reach(f"all_{d}")
            assert set(moves) == {d}
    if "sparsity.takeaway_seeds_vary" in keys:
        SEEDS.reach("vary")
        assert len(set(moves)) > 1
    # what one seed shows comes first, then what the seeds show: never one seed's result as the rule
    assert keys.index("sparsity.takeaway_seeds") > keys.index(next(k for k in keys if k.startswith("sparsity.takeaway_train_")))


def test_at_the_default_one_seed_falls_and_the_seeds_say_it_varies() -> None:
    spread = sparsity.seed_spread()
    assert spread.seeds == tuple(range(8))
    moves = [rules.direction(c) for c in spread.change_train]
    # Measured at the page's default: seed 0 falls by 1.4 points, most seeds move less than one.
    assert moves[0] == "fell" and moves.count("flat") >= 4
    run = sparsity.train(seed=0)
    assert spread.change_train[0] == run.active_train[-1] - run.active_train[0]  # the same run as the page's
    v = verdicts.judge(sparsity.at_init(seed=0), run, "relu", spread)
    assert "sparsity.takeaway_seeds_vary" in v.takeaway.split()
