"""A GPT in nanoGPT's shape (Karpathy): token and position embeddings, pre-LayerNorm blocks of
causal self-attention and the project's FFN, a final LayerNorm and an output head.

The output head shares its matrix with the token embedding, as in GPT-2 and nanoGPT: a word is one
vector whether it is read or predicted, which saves vocab_size × d_model parameters (an eighth of
the model) and lets nine checkpoints ship in 12 MB.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

from ffn_core import ffn


@dataclass(frozen=True)
class GPTConfig:
    vocab_size: int
    block_size: int
    n_layer: int = 4
    n_head: int = 4
    d_model: int = 128
    d_ff: int = 512
    act: ffn.Activation = "relu"
    bias: bool = True
    seed: int = 0


class Embedding(nn.Embedding):
    """nn.Embedding whose table starts empty; GPT fills it from its own generator (see ffn.Linear)."""

    def reset_parameters(self) -> None:
        pass


class CausalSelfAttention(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.n_head = config.n_head
        self.c_attn = ffn.Linear(config.d_model, 3 * config.d_model, bias=config.bias)
        self.c_proj = ffn.Linear(config.d_model, config.d_model, bias=config.bias)

    def mix(self, qkv: torch.Tensor) -> torch.Tensor:
        """The heads' causal attention from c_attn's output (B, T, 3C): (B, T, C), before c_proj."""
        B, T, C3 = qkv.shape
        C = C3 // 3
        q, k, v = qkv.split(C, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return y.transpose(1, 2).reshape(B, T, C)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c_proj(self.mix(self.c_attn(x)))


class Block(nn.Module):
    def __init__(self, config: GPTConfig, ffn_layer: nn.Module | None = None) -> None:
        """ffn_layer: what stands in the FFN's place (the MoE model's mixture); the dense FFN by default."""
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.d_model)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.d_model)
        self.ffn = ffn.FFN(config.d_model, config.d_ff, act=config.act, bias=config.bias) if ffn_layer is None else ffn_layer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        x = x + self.ffn(self.ln_2(x))
        return x


class GPT(nn.Module):
    # Drawn N(0, 0.02) like the embeddings; a subclass adds its own (the MoE model's routers).
    INPUT_PROJECTIONS: tuple[str, ...] = ("c_attn.weight", "w_1.weight")

    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.config = config
        self.wte = Embedding(config.vocab_size, config.d_model)
        self.wpe = Embedding(config.block_size, config.d_model)
        self.blocks = nn.ModuleList(self.block(config) for _ in range(config.n_layer))
        self.ln_f = nn.LayerNorm(config.d_model)
        self.head = ffn.Linear(config.d_model, config.vocab_size, bias=False)
        self.head.weight = self.wte.weight
        self.init_weights(torch.Generator().manual_seed(config.seed))

    def block(self, config: GPTConfig) -> nn.Module:
        """One of the n_layer blocks, as __init__ builds them."""
        return Block(config)

    def init_weights(self, generator: torch.Generator) -> None:
        """GPT-2's init from a local generator: N(0, 0.02), residual projections scaled by 1/√(2·n_layer)."""
        std_residual = 0.02 / math.sqrt(2 * self.config.n_layer)
        with torch.no_grad():
            for name, p in self.named_parameters():
                if name.startswith(("wte", "wpe")) or name.endswith(self.INPUT_PROJECTIONS):
                    p.normal_(0.0, 0.02, generator=generator)
                elif name.endswith(("c_proj.weight", "w_2.weight")):
                    p.normal_(0.0, std_residual, generator=generator)
                elif ".ln_" in name or name.startswith("ln_f"):
                    p.fill_(1.0 if name.endswith("weight") else 0.0)
                else:
                    p.zero_()

    def embed(self, idx: torch.Tensor) -> torch.Tensor:
        """Token plus position embedding of ids (..., T): (..., T, d)."""
        return self.wte(idx) + self.wpe(torch.arange(idx.shape[-1], device=idx.device))

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = self.embed(idx)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))
