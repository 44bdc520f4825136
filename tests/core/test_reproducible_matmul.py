"""Fixed-order products: the same bits whatever the thread count, blocking or memory layout."""
import pytest
import torch

from ffn_core import collapse, ffn, keyvalue, reproducible_matmul


def _python_matmul(a: torch.Tensor, b: torch.Tensor) -> list[list[float]]:
    # Python floats are IEEE doubles: adding the terms in index order is the reference order itself.
    rows, inner = a.tolist(), b.tolist()
    out = []
    for row in rows:
        sums = []
        for j in range(len(inner[0])):
            total = 0.0
            for k, x in enumerate(row):
                total += x * inner[k][j]
            sums.append(total)
        out.append(sums)
    return out


@pytest.fixture
def threads():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def test_matmul_is_the_in_order_sum_bit_for_bit():
    g = torch.Generator().manual_seed(3)
    a = torch.randn(9, 37, generator=g, dtype=torch.float64)
    b = torch.randn(37, 5, generator=g, dtype=torch.float64)
    assert reproducible_matmul.matmul(a, b).tolist() == _python_matmul(a, b)


def test_blocking_and_layout_change_no_bit(monkeypatch):
    g = torch.Generator().manual_seed(4)
    a = torch.randn(70, 33, generator=g, dtype=torch.float64)
    b = torch.randn(33, 40, generator=g, dtype=torch.float64)
    whole = reproducible_matmul.matmul(a, b)
    monkeypatch.setattr(reproducible_matmul, "_BLOCK", 80)  # two rows a block
    assert torch.equal(reproducible_matmul.matmul(a, b), whole)
    assert torch.equal(reproducible_matmul.matmul(a.T.contiguous().T, b.T.contiguous().T), whole)
    assert torch.equal(reproducible_matmul.matmul(a[5:6], b), whole[5:6])


@pytest.mark.parametrize("n", [1, 2])
def test_exactness_figures_do_not_follow_the_thread_count(threads, n):
    torch.set_num_threads(1)
    reference = (collapse.report(0)["max_abs_residual"], keyvalue.measure(64, 256, 128, steps=0, seed=0).max_abs_residual)
    torch.set_num_threads(n)
    again = (collapse.report(0)["max_abs_residual"], keyvalue.measure(64, 256, 128, steps=0, seed=0).max_abs_residual)
    assert again == reference
    assert all(0 < r <= 1e-12 for r in reference)


def test_ffn_in_fixed_order_is_the_module_up_to_rounding():
    g = torch.Generator().manual_seed(5)
    x = torch.randn(16, 12, generator=g, dtype=torch.float64)
    for glu in (False, True):
        net = ffn.FFN(12, 30, act="gelu", glu=glu, seed=1, dtype=torch.float64)
        with torch.no_grad():
            assert (reproducible_matmul.ffn(net, x) - net(x)).abs().max() <= 1e-12
