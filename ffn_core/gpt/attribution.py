"""Where the answer comes from: each block's attention and FFN outputs on the answer's logit, and the logit lens.

Direct logit attribution: the residual stream at the last position is the sum of the embedding and
every block's attention and FFN outputs; through the final LayerNorm with its scale frozen at the
real forward pass's value (see trace.py), each part's term u·part adds up, with the constant
w·β + b, to the model's logit for the answer. We measure that sum against the logit in float64.

The logit lens (nostalgebraist 2020): the residual after each block, put through the final norm
(with its own scale) and the head, as if the model stopped there.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import torch

from ffn_core.gpt import model as gpt_model
from ffn_core.gpt import trace, vocab as gpt_vocab


@dataclass(frozen=True)
class Lens:
    """What the model would predict if it stopped after block `layer` (0 = the embedding alone)."""

    layer: int
    top_token: str
    top_prob: float
    answer_prob: float
    answer_rank: int  # 1 = the top prediction


@dataclass(frozen=True)
class Attribution:
    """The answer's logit split into embedding, per-block attention and FFN, and the constant."""

    words: tuple[str, ...]
    answer: str
    logit: float  # the model's own logit for the answer (float64 copy)
    embedding: float
    attn: tuple[float, ...]
    ffn: tuple[float, ...]
    constant: float  # w·β + b: the final norm's shift and the head's bias
    max_abs_residual: float  # |sum of the parts − logit|
    lens: tuple[Lens, ...]

    @property
    def total(self) -> float:
        return self.embedding + sum(self.attn) + sum(self.ffn) + self.constant

    @property
    def ffn_share(self) -> float:
        """The FFNs' part of what the blocks add (attention + FFN), signed; nan when the blocks add nothing."""
        blocks = sum(self.attn) + sum(self.ffn)
        return sum(self.ffn) / blocks if blocks else float("nan")

    def to_frame(self) -> pd.DataFrame:
        """Long rows: part ("embedding", "attn", "ffn", "constant"), layer (1-based; 0 for the others), contribution."""
        rows = [{"part": "embedding", "layer": 0, "contribution": self.embedding}]
        for i, (a, f) in enumerate(zip(self.attn, self.ffn), start=1):
            rows += [{"part": "attn", "layer": i, "contribution": a}, {"part": "ffn", "layer": i, "contribution": f}]
        rows.append({"part": "constant", "layer": 0, "contribution": self.constant})
        return pd.DataFrame(rows)

    def lens_frame(self) -> pd.DataFrame:
        return pd.DataFrame([vars(lens) for lens in self.lens])


@torch.no_grad()
def attribute(model: gpt_model.GPT, words: Sequence[str], answer: str) -> Attribution:
    """Direct logit attribution and the logit lens for the next token after `words`, on a float64 copy."""
    m64 = trace.float64(model)
    v = gpt_vocab.vocab()
    token = v.encode([answer])[0]
    tr = trace.run(m64, trace.encode(words))
    x_last = tr.residual[-1][-1]
    u, c = trace.readout(m64, x_last, token)
    logit = float(tr.logits[-1, token])
    embedding = float(u @ tr.embedding[-1])
    attn = tuple(float(u @ a[-1]) for a in tr.attn)
    ffn = tuple(float(u @ f[-1]) for f in tr.ffn)
    total = embedding + sum(attn) + sum(ffn) + c
    lens = []
    with torch.no_grad():
        for layer, x in enumerate(tr.residual):
            probs = torch.softmax(m64.head(m64.ln_f(x[-1])), dim=-1)
            top = int(probs.argmax())
            rank = int((probs > probs[token]).sum()) + 1
            lens.append(Lens(layer, v.decode([top])[0], float(probs[top]), float(probs[token]), rank))
    return Attribution(
        words=tuple(words), answer=answer, logit=logit, embedding=embedding, attn=attn, ffn=ffn,
        constant=c, max_abs_residual=abs(total - logit), lens=tuple(lens),
    )
