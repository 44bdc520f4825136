"""Active fractions against explicit counts; about half at init; the training record is what it says."""
import pytest
import torch

from ffn_core import ffn, memory_training, sparsity


@pytest.fixture(scope="module")
def init():
    return sparsity.at_init(d=32, m=48, n_tokens=100, seed=3)


def test_active_fraction_against_an_explicit_count(init):
    model = ffn.FFN(32, 48, seed=3)
    x = memory_training.probe_tokens(32, 3, 100)
    w_1, b_1 = model.w_1.weight.tolist(), model.w_1.bias.tolist()
    counts = [0] * 48
    for t, row in enumerate(x.tolist()):
        on = [sum(k * xj for k, xj in zip(w_1[i], row)) + b_1[i] > 0 for i in range(48)]
        assert abs(init.per_token[t] - sum(on) / 48) < 1e-6
        counts = [c + o for c, o in zip(counts, on)]
    assert [c / 100 for c in counts] == pytest.approx(list(init.per_neuron), abs=1e-6)
    assert init.mean_active_fraction == pytest.approx(sum(counts) / (100 * 48), abs=1e-6)


def test_relu_active_is_nonzero_hidden():
    model = ffn.FFN(16, 40, act="relu", seed=0)
    x = memory_training.probe_tokens(16, 0, 50)
    assert torch.equal(sparsity.active(model, x), model.hidden(x) > 0)


def test_dead_and_always_on_counted_from_rates(init):
    assert init.dead == sum(r == 0 for r in init.per_neuron)
    assert init.always_on == sum(r == 1 for r in init.per_neuron)


def test_smooth_activations_share_the_sign_rule_at_init():
    # Same weights, same pre-activations: the activation cannot change which neurons count as active.
    fractions = {act: sparsity.at_init(d=32, m=64, n_tokens=200, act=act).mean_active_fraction
                 for act in ("relu", "gelu", "silu")}
    assert len(set(fractions.values())) == 1


def test_table_has_every_init_with_and_without_bias(init):
    df = init.init_frame()
    assert len(df) == 2 * len(ffn.INITS)
    assert set(df["init"]) == set(ffn.INITS)
    assert df["mean_active_fraction"].between(0.4, 0.6).all()


def test_neuron_frame_is_sorted(init):
    rates = init.neuron_frame()["firing_rate"].tolist()
    assert rates == sorted(rates, reverse=True)


@pytest.mark.parametrize("seed", range(5))
def test_about_half_fire_at_random_init(seed):
    out = sparsity.report(seed)
    assert set(out) == {"d_model", "d_ff", "n_tokens", "mean_active_fraction"}
    assert (out["d_model"], out["d_ff"], out["n_tokens"]) == (64, 256, 1024)
    assert 0.49 <= out["mean_active_fraction"] <= 0.51


@pytest.mark.parametrize("task", memory_training.TASKS)
def test_training_record(task):
    res = sparsity.train(n=64, d=32, m=96, steps=60, task=task, seed=1)
    assert res.loss[-1] < 0.5 * res.loss[0]
    assert res.steps[0] == 0 and res.steps[-1] == 60
    assert len(res.active_train) == len(res.active_fresh) == len(res.steps)
    # Step 0 is the untrained FFN: its fraction on the training keys is an explicit count.
    x, _ = memory_training.make_data(64, 32, task, seed=1)
    assert res.active_train[0] == pytest.approx(sparsity.active(ffn.FFN(32, 96, seed=1), x).float().mean().item())
    assert res.change == pytest.approx(res.active_train[-1] - res.active_train[0])
    df = res.to_frame()
    assert set(df["tokens"]) == {"train", "fresh"}
    assert len(df) == 2 * len(res.steps)


@pytest.mark.parametrize("kwargs", [dict(n_tokens=0), dict(n_tokens=sparsity.MAX_TOKENS + 1), dict(d=2), dict(m=10_000)])
def test_sizes_are_bounded(kwargs):
    with pytest.raises(ValueError):
        sparsity.at_init(**kwargs)
