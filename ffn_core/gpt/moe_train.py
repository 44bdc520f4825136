"""Train the small MoE GPT: python -m ffn_core.gpt.moe_train [--out DIR] [--steps N] [--experts E] [--k K]

The dense model's training (ffn_core.gpt.train) with each FFN a mixture of experts: the same corpus,
tokenizer, batches, AdamW with decoupled weight decay, warmup and cosine schedule, one thread, one
local generator. The loss adds Switch Transformer's load-balance term, ALPHA·Σ_blocks E·Σ_i f_i·P_i
(Fedus et al. 2021, α = 0.01), so that no expert is left without tokens. Deterministic: a rerun on
the same CPU writes the same bytes. Writes the final float32 weights (model.safetensors), config.json
and log.json into weights_moe/.
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import time
from dataclasses import dataclass
from pathlib import Path

from safetensors.torch import load_file, save_file
import torch

from ffn_core import moe
from ffn_core.gpt import moe_model, train as dense_train, vocab as gpt_vocab, weights

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights_moe"
FILE = "model.safetensors"
ALPHA = 0.01


@dataclass(frozen=True)
class MoETrainConfig(dense_train.Schedule):
    alpha: float = ALPHA


def model_config(seed: int = 0, n_experts: int = 4, k: int = 1) -> moe_model.MoEGPTConfig:
    return moe_model.MoEGPTConfig(vocab_size=len(gpt_vocab.vocab()), block_size=weights.BLOCK_SIZE,
                                  n_experts=n_experts, k=k, seed=seed)


def balance(model: moe_model.MoEGPT, logits: list[torch.Tensor], mask: torch.Tensor) -> torch.Tensor:
    """Σ over blocks of Switch's E·Σ_i f_i·P_i over the real (non-padding) tokens."""
    total = torch.zeros(())
    for block, z in zip(model.blocks, logits):
        probs = torch.softmax(z[mask], dim=-1)
        chosen = probs.topk(block.ffn.k, dim=-1).indices
        total = total + moe.load_balance_loss(probs, chosen, probs.shape[-1])
    return total


@dataclass(frozen=True)
class Result:
    model: moe_model.MoEGPT
    log: list[dict]
    seconds: float
    cpu_seconds: float


def train(tc: MoETrainConfig = MoETrainConfig(), n_experts: int = 4, k: int = 1) -> Result:
    """Train from the seed's init to tc.steps, one thread."""
    return dense_train.one_thread(lambda: _train(tc, n_experts, k))


def _train(tc: MoETrainConfig, n_experts: int, k: int) -> Result:
    start, cpu_start = time.perf_counter(), time.process_time()
    model = moe_model.MoEGPT(model_config(tc.seed, n_experts, k))
    descent = dense_train.Descent(model, tc)
    logits_seen: list[torch.Tensor] = []
    hooks = [b.ffn.router.register_forward_hook(lambda _m, _i, out: logits_seen.append(out)) for b in model.blocks]
    log: list[dict] = []
    try:
        lm_sum = aux_sum = 0.0
        for step in range(1, tc.steps + 1):
            rows = descent.batch()
            logits_seen.clear()
            lm = descent.next_word_loss(rows)
            aux = balance(model, logits_seen, rows[:, :-1] != 0)
            descent.update(step, lm + tc.alpha * aux)
            lm_sum += lm.item()
            aux_sum += aux.item() / len(model.blocks)
            if step % 100 == 0:
                log.append({"step": step, "loss": lm_sum / 100, "balance_loss": aux_sum / 100})
                lm_sum = aux_sum = 0.0
    finally:
        for h in hooks:
            h.remove()
    return Result(model.eval(), log, time.perf_counter() - start, time.process_time() - cpu_start)


def write(result: Result, tc: MoETrainConfig, out: Path) -> None:
    """model.safetensors (float32, the tied head left out), config.json and log.json."""
    out.mkdir(parents=True, exist_ok=True)
    state = {k: t.detach().clone().contiguous() for k, t in dense_train.unique_state(result.model).items()}
    save_file(state, str(out / FILE))
    dense_train.write_manifest(out, result.model, dataclasses.asdict(tc), result.log, result.seconds,
                               result.cpu_seconds)


@functools.cache
def _manifest(directory: Path = WEIGHTS_DIR) -> dict:
    return json.loads((directory / "config.json").read_text(encoding="utf-8"))


def config(directory: Path = WEIGHTS_DIR) -> moe_model.MoEGPTConfig:
    """The shipped MoE GPT's config (its blocks and experts name the page's choices)."""
    return moe_model.MoEGPTConfig(**_manifest(directory)["model"])


def load(directory: Path = WEIGHTS_DIR) -> moe_model.MoEGPT:
    """The shipped MoE GPT, float32, in eval mode."""
    model = moe_model.MoEGPT(config(directory))
    state = load_file(directory / FILE)
    model.load_state_dict({**state, "head.weight": state["wte.weight"]})
    return model.eval()


def log(directory: Path = WEIGHTS_DIR) -> dict:
    return json.loads((directory / "log.json").read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m ffn_core.gpt.moe_train",
                                     description="Train the small MoE GPT on the facts corpus.")
    parser.add_argument("--out", type=Path, default=WEIGHTS_DIR)
    parser.add_argument("--steps", type=int, default=MoETrainConfig.steps, choices=range(1, 20001), metavar="N")
    parser.add_argument("--experts", type=int, default=4, choices=range(1, moe.MAX_EXPERTS + 1), metavar="E")
    parser.add_argument("--k", type=int, default=1, choices=range(1, moe.MAX_EXPERTS + 1), metavar="K")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.k > args.experts:
        parser.error("--k must be at most --experts")
    tc = MoETrainConfig(steps=args.steps, seed=args.seed)
    result = train(tc, args.experts, args.k)
    write(result, tc, args.out)
    print(f"params {sum(p.numel() for p in result.model.parameters()):,}  CPU {result.cpu_seconds:.1f} s  "
          f"loss {result.log[-1]['loss'] if result.log else float('nan'):.4f}")


if __name__ == "__main__":
    main()
