"""The shipped model: checkpoints written by `python -m ffn_core.gpt.train`, read back as GPT modules.

Files in WEIGHTS_DIR: config.json (the model config, the training settings and the checkpoint list),
log.json (the training log), step_NNNNN.safetensors (one per checkpoint). Step 0 is not shipped: it
is the seed's initial state, rebuilt exactly by GPT(config). An early checkpoint stores a matrix as
int8 rows beside `name + SCALE`, one float32 scale per row (train.quantise); from_state multiplies
them back. The final checkpoint is plain float32.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

import torch
from safetensors.torch import load_file

from ffn_core.gpt import model as gpt_model, vocab as gpt_vocab

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
BLOCK_SIZE = 16
SCALE = ".scale"


def checkpoint_name(step: int) -> str:
    return f"step_{step:05d}.safetensors"


@functools.cache
def _manifest(directory: Path = WEIGHTS_DIR) -> dict:
    path = directory / "config.json"
    if not path.exists():
        # No training run yet: the seed's untrained model stands in.
        cfg = gpt_model.GPTConfig(vocab_size=len(gpt_vocab.vocab()), block_size=BLOCK_SIZE)
        return {"model": cfg.__dict__, "steps": [0]}
    return json.loads(path.read_text(encoding="utf-8"))


def config(directory: Path = WEIGHTS_DIR) -> gpt_model.GPTConfig:
    """The shipped model's config."""
    return gpt_model.GPTConfig(**_manifest(directory)["model"])


def steps(directory: Path = WEIGHTS_DIR) -> tuple[int, ...]:
    """The checkpoint steps, ascending; the last is the final model."""
    return tuple(_manifest(directory)["steps"])


def _state(step: int, directory: Path) -> dict[str, torch.Tensor]:
    # Not cached: a caller that walks every checkpoint would keep them all resident; reading one is ms.
    return load_file(directory / checkpoint_name(step))


def from_state(config: gpt_model.GPTConfig, state: dict[str, torch.Tensor]) -> gpt_model.GPT:
    """A float32 GPT in eval mode from saved tensors (the head is tied to wte, so it is not saved)."""
    model = gpt_model.GPT(config)
    full = {
        k: t.float() * state[k + SCALE].float()[:, None] if k + SCALE in state else t.float()
        for k, t in state.items() if not k.endswith(SCALE)
    }
    model.load_state_dict({**full, "head.weight": full["wte.weight"]})
    return model.eval()


def load(step: int | None = None, directory: Path = WEIGHTS_DIR) -> gpt_model.GPT:
    """A fresh float32 GPT in eval mode holding the checkpoint of `step` (None: the final one)."""
    shipped = steps(directory)
    step = shipped[-1] if step is None else step
    if step not in shipped:
        raise ValueError(f"no checkpoint at step {step}; shipped: {shipped}")
    if step == 0:
        return gpt_model.GPT(config(directory)).eval()
    return from_state(config(directory), _state(step, directory))


def log(directory: Path = WEIGHTS_DIR) -> dict:
    """The training log: loss, fact accuracy and per-layer active fraction at each logged step."""
    path = directory / "log.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"steps": []}
