"""FFN(x) = Σ relu(k_i·x + b_i)·v_i + b_2, checked against a plain Python loop and the module's output."""
import pickle

import pytest
import torch

from ffn_core import ffn, keyvalue, memory_training


@pytest.fixture(scope="module")
def res():
    return keyvalue.measure(d=32, m=64, n=48, steps=120, token=5, seed=2)


def test_python_loop_over_neurons_equals_the_ffn():
    model = ffn.FFN(8, 12, seed=0, dtype=torch.float64)
    x, _ = memory_training.make_data(3, 8, "memorise", seed=0)
    x = x.double()
    w_1, b_1 = model.w_1.weight.tolist(), model.w_1.bias.tolist()
    w_2, b_2 = model.w_2.weight.tolist(), model.w_2.bias.tolist()
    for row, y in zip(x.tolist(), model(x).tolist()):
        total = list(b_2)
        for i in range(12):
            a_i = max(0.0, sum(k * xj for k, xj in zip(w_1[i], row)) + b_1[i])
            total = [t + a_i * w_2[j][i] for j, t in enumerate(total)]
        assert max(abs(t - yj) for t, yj in zip(total, y)) < 1e-12


def test_explicit_sum_matches_module_in_float64():
    model = ffn.FFN(16, 40, seed=1, dtype=torch.float64)
    x = torch.randn(20, 16, generator=torch.Generator().manual_seed(5), dtype=torch.float64)
    assert (keyvalue.explicit_sum(model, x) - model(x)).abs().max() < 1e-13


def test_contributions_sum_to_the_output(res):
    model = ffn.FFN(32, 64, seed=2).double()  # built as measure() builds it: float32 init, then float64
    x, _ = memory_training.make_data(48, 32, "memorise", seed=2)
    y = model(x.double()[5])
    s = res.untrained
    coefficient = torch.tensor(s.coefficient, dtype=torch.float64)
    assert torch.allclose(coefficient, model.hidden(x.double()[5]), atol=1e-12)
    # Σ_i (a_i v_i)·ŷ + b_2·ŷ = ‖y‖
    assert abs(sum(s.projection) + s.bias_projection - y.norm().item()) < 1e-12
    assert abs(s.output_norm - y.norm().item()) < 1e-12
    assert s.active == int((coefficient > 0).sum())


@pytest.mark.parametrize("state", ["untrained", "trained"])
def test_residual_is_rounding_only(res, state):
    assert getattr(res, state).max_abs_residual < 1e-12


def test_counts_monotone_bounded_and_minimal(res):
    for s in (res.untrained, res.trained):
        assert s.n_for_50 is not None and s.n_for_90 is not None
        assert 1 <= s.n_for_50 <= s.n_for_90 <= res.d_ff
        ranked = sorted(s.projection, reverse=True)
        need = 0.9 * s.output_norm
        assert sum(ranked[: s.n_for_90]) >= need > sum(ranked[: s.n_for_90 - 1])
        assert s.mean_n_for_50 <= s.mean_n_for_90


def test_neurons_for_handles_unreachable_rows():
    projection = torch.tensor([[0.6, 0.3, 0.1], [0.1, 0.1, -0.5]])
    norms = torch.tensor([1.0, 1.0])
    assert keyvalue.neurons_for(projection, norms, 0.5).tolist() == [1, 0]
    assert keyvalue.neurons_for(projection, norms, 0.9).tolist() == [2, 0]


def test_training_stores_the_pairs(res):
    assert res.trained.loss < 0.01 * res.untrained.loss
    assert res.trained.recall == 1.0


def test_frame_has_cumulative_share_ending_near_one(res):
    df = res.to_frame()
    last = df[df["rank"] == res.d_ff].set_index("state")["cumulative_share"]
    for name in ("untrained", "trained"):
        s = getattr(res, name)
        assert abs(last[name] - (1 - s.bias_projection / s.output_norm)) < 1e-9


def test_token_out_of_range_refused():
    with pytest.raises(ValueError):
        keyvalue.measure(n=16, token=16)


@pytest.mark.parametrize("seed", range(5))
def test_report_residual_for_seeds(seed):
    out = keyvalue.report(seed)
    assert set(out) == {"d_model", "d_ff", "max_abs_residual"}
    assert (out["d_model"], out["d_ff"]) == (64, 256)
    assert out["max_abs_residual"] <= 1e-12


def test_one_training_read_for_each_key_equals_training_per_key():
    # The page trains once per setting and reads each key from that (through a pickle, as
    # st.cache_data stores it); a fresh training per key must give the same numbers.
    memory = pickle.loads(pickle.dumps(keyvalue.memorise_pairs(d=16, m=32, n=8, steps=20, seed=3)))
    for token in (0, 5, 7):
        once = keyvalue.read_token(pickle.loads(pickle.dumps(memory)), token)
        fresh = keyvalue.measure(d=16, m=32, n=8, steps=20, token=token, seed=3)
        assert once == fresh


def test_read_token_refuses_a_key_that_was_not_stored():
    memory = keyvalue.memorise_pairs(d=16, m=32, n=8, steps=0, seed=0)
    with pytest.raises(ValueError):
        keyvalue.read_token(memory, 8)


def test_concentration_compares_the_same_keys_before_and_after():
    res = keyvalue.measure(d=16, m=32, n=64, steps=200, seed=3)
    for share, before, after in ((0.5, res.untrained.counts_50, res.trained.counts_50),
                                 (0.9, res.untrained.counts_90, res.trained.counts_90)):
        conc = res.concentration(share)
        common = [k for k in range(64) if before[k] > 0 and after[k] > 0]
        assert conc.keys == len(common)
        assert conc.mean_before == pytest.approx(sum(before[k] for k in common) / len(common))
        assert conc.mean_after == pytest.approx(sum(after[k] for k in common) / len(common))
        assert conc.never_before == before.count(0) and conc.never_after == after.count(0)
    # the per-key counts agree with the chosen key's own count
    assert (res.trained.n_for_90 or 0) == res.trained.counts_90[res.token]
    with pytest.raises(ValueError):
        res.concentration(0.7)
