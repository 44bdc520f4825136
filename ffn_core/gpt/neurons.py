"""The trained FFN as key-value memory: which neurons write the answer, what they write, what wakes them.

Block l's FFN output at the last position is Σ_i a_i·v_i + b_2 (a_i = act(k_i·x + b_i), v_i = column i
of W2). Through the final norm with its scale frozen (trace.py), neuron i adds a_i·(u·v_i) to the
answer's logit. Its value vector v_i, read through the final norm and the head, is a list of tokens
it pushes up wherever it fires (Geva et al. 2021 read values the same way); its key is read by the
corpus prompts that switch it on hardest.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import pandas as pd
import torch

from ffn_core.gpt import corpus, forward, trace
from ffn_core.gpt import model as gpt_model
from ffn_core.gpt import vocab as gpt_vocab

N_NEURONS = 8
N_TOKENS = 5
N_PROMPTS = 5


@dataclass(frozen=True)
class Neuron:
    layer: int  # 1-based block
    index: int
    coefficient: float  # a_i at the prompt's last position
    value_on_answer: float  # u·v_i: what one unit of a_i adds to the answer's logit
    contribution: float  # a_i·(u·v_i)
    promotes: tuple[str, ...]  # the tokens v_i raises most, read through the final norm and head
    top_prompts: tuple[str, ...]  # corpus prompts (joined words) with the largest a_i at their last position
    top_activations: tuple[float, ...]


@dataclass(frozen=True)
class Neurons:
    """The neurons adding most to the answer's logit, over every block, for one prompt."""

    words: tuple[str, ...]
    answer: str
    ffn_total: tuple[float, ...]  # per block, the whole FFN's term on the answer's logit (b_2 included)
    active: tuple[int, ...]  # per block, neurons with a_i > 0 at the last position
    d_ff: int
    neurons: tuple[Neuron, ...]  # largest contribution first
    max_abs_residual: float  # per block, |Σ_i a_i·(u·v_i) + u·b_2 − FFN term|, worst block

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([
            {"layer": n.layer, "neuron": n.index, "label": f"L{n.layer}·#{n.index}", "coefficient": n.coefficient,
             "value_on_answer": n.value_on_answer, "contribution": n.contribution,
             "promotes": " ".join(n.promotes), "top_prompts": " | ".join(n.top_prompts)}
            for n in self.neurons
        ])


Batch = tuple[list[int], torch.Tensor, list[int]]  # prompt indices, FFN coefficients (b, n_layers, d_ff), argmax


@torch.no_grad()
def prompt_batches(model: gpt_model.GPT, prompts: Sequence[corpus.Prompt]) -> Iterator[Batch]:
    """One forward pass over the prompts, one batch per prompt length (no padding): for each batch, every
    block's FFN coefficients at each prompt's last token and the argmax next token (evaluate.predictions' rule).

    Batch by batch, so a caller that keeps a summary never holds every prompt's coefficients at once.
    """
    v = gpt_vocab.vocab()
    by_length: dict[int, list[int]] = {}
    for i, p in enumerate(prompts):
        by_length.setdefault(len(p.words), []).append(i)
    for members in by_length.values():
        idx = torch.tensor([v.encode(list(prompts[i].words)) for i in members], dtype=torch.long)
        x = model.embed(idx)
        captured = []
        for s in forward.steps(model, x):
            x = s.output
            captured.append(s.hidden[:, -1])
        best = forward.logits(model, x)[:, -1].argmax(dim=-1).tolist()
        yield members, torch.stack(captured, dim=1), best


def batched_last_hidden(model: gpt_model.GPT, prompts: Sequence[corpus.Prompt]) -> torch.Tensor:
    """Every block's FFN coefficients at each prompt's last token: (n_prompts, n_layers, d_ff). For a few prompts."""
    hidden = torch.empty(len(prompts), len(model.blocks), model.config.d_ff)
    for members, h, _ in prompt_batches(model, prompts):
        hidden[members] = h.to(hidden.dtype)
    return hidden


@dataclass(frozen=True)
class Keys:
    """What every neuron's key responds to across the corpus prompts (at their last token), per block."""

    prompts: tuple[corpus.Prompt, ...]
    top_index: torch.Tensor  # (n_layers, d_ff, N_PROMPTS): the prompts with the largest a_i, largest first
    top_value: torch.Tensor  # (n_layers, d_ff, N_PROMPTS): those a_i
    predictions: tuple[int, ...]  # the model's argmax next token after each prompt, from the same pass


@torch.no_grad()
def corpus_keys(model: gpt_model.GPT, prompts: Sequence[corpus.Prompt] | None = None) -> Keys:
    """One pass over the corpus prompts; what is kept is small (each neuron's top prompts, the predictions)."""
    prompts = tuple(corpus.prompts("all") if prompts is None else prompts)
    k = min(N_PROMPTS, len(prompts))
    layers, d_ff = len(model.blocks), model.config.d_ff
    values = torch.full((0, layers, d_ff), float("-inf"))
    index = torch.zeros((0, layers, d_ff), dtype=torch.long)
    predictions = [0] * len(prompts)
    for members, h, best in prompt_batches(model, prompts):
        # The running top k merged with this batch: never more than one batch of coefficients held.
        values = torch.cat([values, h.to(values.dtype)])
        index = torch.cat([index, torch.tensor(members).view(-1, 1, 1).expand(-1, layers, d_ff)])
        top = values.topk(min(k, values.shape[0]), dim=0)
        values, index = top.values, index.gather(0, top.indices)
        for i, b in zip(members, best):
            predictions[i] = b
    return Keys(prompts, index.permute(1, 2, 0).contiguous(), values.permute(1, 2, 0).contiguous(), tuple(predictions))


@torch.no_grad()
def top_neurons(model: gpt_model.GPT, words: Sequence[str], answer: str, keys: Keys | None = None,
                n: int = N_NEURONS) -> Neurons:
    """The n neurons (any block) adding most to the answer's logit after `words`, with their values and keys.

    keys: corpus_keys(model), when the caller keeps it; computed here otherwise.
    """
    m64 = trace.float64(model)
    v = gpt_vocab.vocab()
    token = v.encode([answer])[0]
    tr = trace.run(m64, trace.encode(words))
    u, _ = trace.readout(m64, tr.residual[-1][-1], token)
    per_block, totals, active, residual = [], [], [], 0.0
    for layer, block in enumerate(m64.blocks):
        a = tr.ffn_hidden[layer][-1]  # (d_ff,)
        on_answer = u @ block.ffn.w_2.weight  # (d_ff,): u·v_i
        contributions = a * on_answer
        bias = float(u @ block.ffn.w_2.bias) if block.ffn.w_2.bias is not None else 0.0
        total = float(u @ tr.ffn[layer][-1])
        residual = max(residual, abs(float(contributions.sum()) + bias - total))
        totals.append(total)
        active.append(int((a > 0).sum()))
        per_block.append((a, on_answer, contributions))
    flat = torch.cat([c for _, _, c in per_block])
    d_ff = m64.config.d_ff
    chosen = flat.topk(min(n, flat.numel())).indices.tolist()
    keys = corpus_keys(model) if keys is None else keys
    values = torch.stack([m64.blocks[i // d_ff].ffn.w_2.weight[:, i % d_ff] for i in chosen])
    promoted = trace.value_logits(m64, values).topk(N_TOKENS, dim=-1).indices
    neurons = []
    for row, i in enumerate(chosen):
        layer, index = divmod(i, d_ff)
        a, on_answer, contributions = per_block[layer]
        neurons.append(Neuron(
            layer=layer + 1, index=index, coefficient=float(a[index]), value_on_answer=float(on_answer[index]),
            contribution=float(contributions[index]), promotes=tuple(v.decode(promoted[row].tolist())),
            top_prompts=tuple(" ".join(keys.prompts[j].words) for j in keys.top_index[layer, index].tolist()),
            top_activations=tuple(float(x) for x in keys.top_value[layer, index]),
        ))
    return Neurons(tuple(words), answer, tuple(totals), tuple(active), d_ff, tuple(neurons), residual)
