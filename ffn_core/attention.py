"""One self-attention layer, softmax(Q·Kᵀ/√d_h)·V·Wo, to set beside the FFN: it mixes tokens, the FFN does not."""
from __future__ import annotations

import math

import torch
from torch import nn

from ffn_core import ffn


def _linear(d_in: int, d_out: int, dtype: torch.dtype) -> nn.Linear:
    # Empty weights: ffn.init_linear fills them from the layer's own generator.
    return ffn.Linear(d_in, d_out, bias=False, dtype=dtype)


class SelfAttention(nn.Module):
    """Multi-head self-attention over one sequence (n, d); weights drawn from a local generator."""

    def __init__(
        self,
        d_model: int,
        n_heads: int = 1,
        causal: bool = False,
        seed: int = 0,
        dtype: torch.dtype = torch.float32,
    ) -> None:
        super().__init__()
        if n_heads < 1 or d_model % n_heads:
            raise ValueError("n_heads must divide d_model")
        generator = torch.Generator().manual_seed(seed)
        self.n_heads = n_heads
        self.causal = causal
        self.w_q = _linear(d_model, d_model, dtype)
        self.w_k = _linear(d_model, d_model, dtype)
        self.w_v = _linear(d_model, d_model, dtype)
        self.w_o = _linear(d_model, d_model, dtype)
        for layer in (self.w_q, self.w_k, self.w_v, self.w_o):
            ffn.init_linear(layer, "default", generator)

    def _heads(self, t: torch.Tensor) -> torch.Tensor:
        """(..., n, d) → (..., h, n, d_h): each head's slice of the features."""
        *batch, n, d = t.shape
        return t.view(*batch, n, self.n_heads, d // self.n_heads).transpose(-3, -2)

    def weights(self, x: torch.Tensor) -> torch.Tensor:
        """Attention weights A (n_heads, n, n): row i says how much token i reads from each token j.

        x is one sequence (n, d), or a batch of them (..., n, d): each sequence attends only to itself.
        """
        n, d = x.shape[-2:]
        q, k = self._heads(self.w_q(x)), self._heads(self.w_k(x))  # (..., h, n, d_h)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // self.n_heads)  # (..., h, n, n)
        if self.causal:
            future = torch.ones(n, n, dtype=torch.bool).triu(1)
            scores = scores.masked_fill(future, float("-inf"))
        return scores.softmax(dim=-1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.weights(x) @ self._heads(self.w_v(x))  # (..., h, n, d_h)
        return self.w_o(y.transpose(-3, -2).reshape(x.shape))
