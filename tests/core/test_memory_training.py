"""The memorisation task: deterministic, bounded, and training really stores the pairs."""
import math

import pytest
import torch

from ffn_core import adam, ffn, memory_training


@pytest.mark.parametrize("task", memory_training.TASKS)
def test_training_stores_every_pair(task):
    run = memory_training.train_module(n=64, d=32, m=128, steps=150, task=task, seed=1)
    assert run.loss[-1] < 0.01 * run.loss[0]
    with torch.no_grad():
        assert memory_training.recall(run.model(run.x), run.target, task) == 1.0
        untrained = ffn.FFN(32, 128, seed=1)
        assert memory_training.recall(untrained(run.x), run.target, task) < 0.5


def test_initial_losses_match_their_chance_level():
    # Unit-variance random values: MSE of a small untrained output ≈ 1; ten random classes: CE ≈ ln 10.
    values = memory_training.train_module(steps=0, task="memorise", seed=0)
    labels = memory_training.train_module(steps=0, task="random_labels", seed=0)
    assert 0.9 < values.loss[0] < 1.3
    assert abs(labels.loss[0] - math.log(memory_training.N_CLASSES)) < 0.2


def test_same_seed_same_run_and_other_seed_another():
    a = memory_training.train_module(n=32, d=16, m=32, steps=20, seed=3)
    b = memory_training.train_module(n=32, d=16, m=32, steps=20, seed=3)
    c = memory_training.train_module(n=32, d=16, m=32, steps=20, seed=4)
    assert a.loss == b.loss and a.active_probe == b.active_probe
    assert all(torch.equal(p, q) for p, q in zip(a.model.parameters(), b.model.parameters()))
    assert a.loss != c.loss


def test_data_stream_is_not_the_weights_stream():
    # Same-seeded generators would hand W1 and x the same underlying draws.
    x, _ = memory_training.make_data(8, 16, "memorise", seed=0)
    w = torch.empty(8, 16).normal_(generator=torch.Generator().manual_seed(0))
    assert not torch.allclose(x, w)


def test_hand_written_adam_matches_torch_optim():
    model_a = ffn.FFN(8, 16, seed=0)
    model_b = ffn.FFN(8, 16, seed=0)
    x, y = memory_training.make_data(10, 8, "memorise", seed=0)
    params = list(model_a.parameters())
    moments = adam.moments(params)
    opt = torch.optim.Adam(model_b.parameters(), lr=1e-2)
    for t in range(1, 6):
        grads = torch.autograd.grad(((model_a(x) - y) ** 2).mean(), params)
        adam.step(params, grads, moments, t, 1e-2)
        opt.zero_grad()
        ((model_b(x) - y) ** 2).mean().backward()
        opt.step()
    for p, q in zip(model_a.parameters(), model_b.parameters()):
        assert torch.allclose(p, q, atol=1e-6)


def test_labels_are_classes_in_range():
    _, labels = memory_training.make_data(200, 16, "random_labels", seed=0)
    assert labels.dtype == torch.int64
    assert set(labels.tolist()) == set(range(memory_training.N_CLASSES))


@pytest.mark.parametrize(
    "kwargs",
    [dict(n=0), dict(n=memory_training.MAX_N + 1), dict(d=4), dict(m=memory_training.MAX_M + 1), dict(steps=-1),
     dict(n=512, d=128, m=512, steps=1000)],
)
def test_sizes_are_bounded(kwargs):
    with pytest.raises(ValueError):
        memory_training.train_module(**kwargs)


def test_unknown_task_and_no_activation_refused():
    with pytest.raises(ValueError):
        memory_training.train_module(task="nope")
    with pytest.raises(ValueError):
        memory_training.train_module(act="none")


def test_curves_are_recorded_at_every_step_of_a_short_run():
    run = memory_training.train_module(n=16, d=16, m=16, steps=3)
    assert run.steps == [0, 1, 2, 3]
    assert all(isinstance(v, float) for v in run.loss + run.active_train + run.active_probe)
