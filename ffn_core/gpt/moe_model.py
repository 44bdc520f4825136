"""The small GPT with a mixture of experts in place of each block's FFN (ffn_core.moe.MoE).

Everything else is the dense model's (ffn_core.gpt.model): embeddings, attention, norms, the tied head,
GPT-2's init. Each block's MoE has E experts of width d_ff and a router; a token goes to its top k.
With E = 4 experts of width 128 the experts hold the dense model's 4 × 128 = 512 units, and a token uses
a quarter of them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from ffn_core import moe
from ffn_core.gpt import model as gpt_model


@dataclass(frozen=True)
class MoEGPTConfig:
    vocab_size: int
    block_size: int
    n_layer: int = 4
    n_head: int = 4
    d_model: int = 128
    d_ff: int = 128  # each expert's width
    n_experts: int = 4
    k: int = 1
    act: str = "relu"
    bias: bool = True
    seed: int = 0

    def attention_config(self) -> gpt_model.GPTConfig:
        return gpt_model.GPTConfig(vocab_size=self.vocab_size, block_size=self.block_size, n_layer=self.n_layer,
                                   n_head=self.n_head, d_model=self.d_model, d_ff=self.d_ff, bias=self.bias,
                                   seed=self.seed)


class MoEBlock(nn.Module):
    def __init__(self, config: MoEGPTConfig) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.d_model)
        self.attn = gpt_model.CausalSelfAttention(config.attention_config())
        self.ln_2 = nn.LayerNorm(config.d_model)
        self.ffn = moe.MoE(config.d_model, config.d_ff, config.n_experts, config.k, act=config.act,  # type: ignore[arg-type]
                           bias=config.bias)

    def forward(self, x: torch.Tensor, drop: int | None = None) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        x = x + self.ffn(self.ln_2(x), drop)
        return x


class MoEGPT(nn.Module):
    def __init__(self, config: MoEGPTConfig) -> None:
        super().__init__()
        self.config = config
        self.wte = gpt_model.Embedding(config.vocab_size, config.d_model)
        self.wpe = gpt_model.Embedding(config.block_size, config.d_model)
        self.blocks = nn.ModuleList(MoEBlock(config) for _ in range(config.n_layer))
        self.ln_f = nn.LayerNorm(config.d_model)
        self.head = gpt_model.ffn.Linear(config.d_model, config.vocab_size, bias=False)
        self.head.weight = self.wte.weight
        self.init_weights(torch.Generator().manual_seed(config.seed))

    def init_weights(self, generator: torch.Generator) -> None:
        """The dense model's GPT-2 init; the routers N(0, 0.02) like every other input projection."""
        std_residual = 0.02 / math.sqrt(2 * self.config.n_layer)
        with torch.no_grad():
            for name, p in self.named_parameters():
                if name.startswith(("wte", "wpe")) or name.endswith(("c_attn.weight", "w_1.weight", "router.weight")):
                    p.normal_(0.0, 0.02, generator=generator)
                elif name.endswith(("c_proj.weight", "w_2.weight")):
                    p.normal_(0.0, std_residual, generator=generator)
                elif ".ln_" in name or name.startswith("ln_f"):
                    p.fill_(1.0 if name.endswith("weight") else 0.0)
                else:
                    p.zero_()

    def final_states(self, idx: torch.Tensor, drop: tuple[int, int] | None = None) -> torch.Tensor:
        """(B, T, d_model) after ln_f; drop = (block, expert) zeroes that one expert."""
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for layer, block in enumerate(self.blocks):
            x = block(x, drop[1] if drop is not None and drop[0] == layer else None)
        return self.ln_f(x)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.head(self.final_states(idx))
