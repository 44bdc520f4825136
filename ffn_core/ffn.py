"""The position-wise feed-forward network, FFN(x) = W2·act(W1·x + b1) + b2, and its gated variant."""
from __future__ import annotations

import math
from typing import Literal

import torch
from torch import nn

Activation = Literal["none", "relu", "gelu", "silu"]
Init = Literal["default", "xavier", "normal", "kaiming"]
ACTIVATIONS: tuple[Activation, ...] = ("none", "relu", "gelu", "silu")
NONLINEAR: tuple[Activation, ...] = tuple(a for a in ACTIVATIONS if a != "none")
INITS: tuple[Init, ...] = ("default", "xavier", "normal", "kaiming")


def activation(name: Activation) -> nn.Module:
    """The activation module for a name; "none" is the identity (the linear-collapse case)."""
    modules: dict[str, type[nn.Module]] = {"none": nn.Identity, "relu": nn.ReLU, "gelu": nn.GELU, "silu": nn.SiLU}
    if name not in modules:
        raise ValueError(f"unknown activation {name!r}; expected one of {ACTIVATIONS}")
    return modules[name]()


def init_linear(layer: nn.Linear, scheme: Init, generator: torch.Generator) -> None:
    """Fill a linear layer's weights from a local generator, never the global one."""
    fan_out, fan_in = layer.weight.shape
    with torch.no_grad():
        if scheme == "default":
            # nn.Linear's own reset_parameters: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias.
            bound = 1.0 / math.sqrt(fan_in)
            layer.weight.uniform_(-bound, bound, generator=generator)
        elif scheme == "xavier":
            bound = math.sqrt(6.0 / (fan_in + fan_out))
            layer.weight.uniform_(-bound, bound, generator=generator)
        elif scheme == "normal":
            # GPT-2's initializer_range.
            layer.weight.normal_(0.0, 0.02, generator=generator)
        elif scheme == "kaiming":
            layer.weight.normal_(0.0, math.sqrt(2.0 / fan_in), generator=generator)
        else:
            raise ValueError(f"unknown init {scheme!r}; expected one of {INITS}")
        if layer.bias is not None:
            if scheme == "default":
                bound = 1.0 / math.sqrt(fan_in)
                layer.bias.uniform_(-bound, bound, generator=generator)
            else:
                layer.bias.zero_()


class Linear(nn.Linear):
    """nn.Linear whose weights start empty, for init_linear to fill from a local generator.

    nn.Linear would first draw them from the global generator, which every session's thread shares.
    nn.utils.skip_init avoids that by building on the meta device, but its first call imports
    sympy: ~0.7 s that the first experiment of a fresh process would pay.
    """

    def reset_parameters(self) -> None:
        pass


def _linear(d_in: int, d_out: int, bias: bool, dtype: torch.dtype) -> nn.Linear:
    return Linear(d_in, d_out, bias=bias, dtype=dtype)


class FFN(nn.Module):
    """FFN(x) = W2·act(W1·x + b1) + b2; with glu, W2·(act(W1·x) ⊙ W3·x) as in LLaMA's SwiGLU."""

    def __init__(
        self,
        d_model: int,
        d_ff: int,
        act: Activation = "relu",
        bias: bool = True,
        glu: bool = False,
        init: Init = "default",
        seed: int = 0,
        dtype: torch.dtype = torch.float32,
    ) -> None:
        super().__init__()
        generator = torch.Generator().manual_seed(seed)
        self.w_1 = _linear(d_model, d_ff, bias, dtype)
        self.act = activation(act)
        self.w_3 = _linear(d_model, d_ff, bias, dtype) if glu else None
        self.w_2 = _linear(d_ff, d_model, bias, dtype)
        for layer in (self.w_1, self.w_3, self.w_2):
            if layer is not None:
                init_linear(layer, init, generator)

    def pre_activation(self, x: torch.Tensor) -> torch.Tensor:
        """W1·x + b1 for every token: (..., d_model) -> (..., d_ff)."""
        return self.w_1(x)

    def hidden(self, x: torch.Tensor) -> torch.Tensor:
        """The d_ff coefficients that weight the columns of W2 (the 'values')."""
        h = self.act(self.w_1(x))
        if self.w_3 is not None:
            h = h * self.w_3(x)
        return h

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w_2(self.hidden(x))
