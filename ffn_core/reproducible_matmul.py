"""Products whose rounding is the same everywhere, for the residuals the exactness demos show.

A residual such as "two layers against one matrix: 1.8e-15" is rounding and nothing else, so its
last digits are decided by the order in which a matrix product adds its terms. BLAS (MKL here)
picks that order at run time: by thread count, by kernel, by what else the process is running.
The same seed then showed 1.4e-15 in one process and 1.8e-15 in another, and two students with
the same settings could see different digits.

Here every output sums its terms in ascending index order, one IEEE multiply and one IEEE add per
term, each a separate elementwise kernel. An elementwise operation is correctly rounded element by
element, so neither threads nor SIMD width nor memory layout can change a bit of the result.
"""
from __future__ import annotations

import torch
from torch import nn

# Rows at a time, so that each elementwise step stays under torch's parallel grain (32,768
# elements): it runs on the calling thread (thousands of small OpenMP regions on a server whose
# cores are busy cost seconds) and its two blocks stay in cache. The blocking never changes a
# result: every output element still adds its terms in the same order.
_BLOCK = 1 << 15


@torch.no_grad()  # measurements only: nothing is trained through these
def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a @ b for (n, k) @ (k, m), each output's k terms added in order k = 0, 1, …"""
    n, k = a.shape
    m = b.shape[1]
    out = torch.empty(n, m, dtype=torch.promote_types(a.dtype, b.dtype))
    step = max(1, _BLOCK // max(1, m))
    for start in range(0, n, step):
        columns = a[start:start + step].T.contiguous()  # (k, rows): column j of a as one row
        acc = out[start:start + step].zero_()
        term = torch.empty_like(acc)
        for j in range(k):
            torch.mul(columns[j].unsqueeze(1), b[j], out=term)  # (rows, 1) * (m,)
            acc.add_(term)
    return out


def linear(x: torch.Tensor, layer: nn.Linear) -> torch.Tensor:
    """layer(x) = x·Wᵀ + b for x (n, d_in), in the fixed order."""
    y = matmul(x, layer.weight.T)
    return y if layer.bias is None else y + layer.bias


def hidden(net: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """An ffn.FFN's hidden coefficients act(W1·x + b1) (⊙ W3·x with a gate), in the fixed order."""
    h = net.act(linear(x, net.w_1))
    return h if net.w_3 is None else h * linear(x, net.w_3)


def ffn(net: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """An ffn.FFN's output for x (n, d), layer by layer as its forward does, in the fixed order."""
    return linear(hidden(net, x), net.w_2)
