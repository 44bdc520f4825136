"""Train the small GPT from scratch: python -m ffn_core.gpt.train [--out DIR] [--steps N] [--n-layer L] ...

The model's shape and the run's length are the dataclass defaults (GPTConfig, TrainConfig), which are
the shipped model's; every one of them can be overridden on the command line, as nanoGPT's train.py
does (`--help` lists them). With no arguments the run is the shipped one and writes its files again
(the same bytes on the same CPU, config.json's timings and load average apart). A retrained model in
weights/ is what the pages read: their text takes the block count from its config.json.

Next-token cross-entropy on every word of the training sentences, AdamW (the project's hand-written
Adam with decoupled weight decay on the matrices; torch.optim's first step would load sympy and
torch._dynamo for nothing), a warmup then cosine learning rate. Deterministic: one local generator
draws the init and the batches, float32, one thread; a rerun writes the same bytes. About 150 s of
one CPU core, a fifth of it the 14 evaluations that fill the log.

Files written (see weights.py): config.json, log.json, and a safetensors checkpoint per step in
TrainConfig.checkpoints (step 0 excepted: the seed rebuilds it). The final checkpoint is float32.
The earlier ones store each matrix in int8 with one float32 scale per row (its largest |weight| over
127) and the vectors (biases, LayerNorms) in float32: a quarter of the final's bytes, so nine
checkpoints fit in 12 MB. Rounding a weight to 1/254 of its row's range moved no accuracy of the
previous run's checkpoints by more than one prompt in two thousand; the log's numbers at those steps are
measured on the weights as shipped, so what a page recomputes from a checkpoint is what the log says.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from safetensors.torch import save_file
import torch
from torch.nn import functional as F
from tqdm import tqdm

from ffn_core import adam
from ffn_core.gpt import corpus, evaluate, model as gpt_model, vocab as gpt_vocab, weights, writers

THREADS = 1
T = TypeVar("T")


@dataclass(frozen=True)
class Schedule:
    """What the dense and the MoE runs share: the run's length, batches, AdamW and its learning rate."""

    steps: int = 1200
    batch_size: int = 128
    lr: float = 3e-3
    min_lr: float = 3e-4
    warmup: int = 50
    weight_decay: float = 0.1
    seed: int = 0


@dataclass(frozen=True)
class TrainConfig(Schedule):
    # Dense where the facts form (seen-form accuracy goes from a fifth to nine tenths between 200 and 500).
    checkpoints: tuple[int, ...] = (50, 100, 200, 300, 400, 500, 700, 900)
    log_every: int = 100


def lr_at(step: int, tc: Schedule) -> float:
    """Linear warmup to lr, then a cosine down to min_lr at the last step (step counted from 1)."""
    if step <= tc.warmup:
        return tc.lr * step / tc.warmup
    progress = (step - tc.warmup) / max(1, tc.steps - tc.warmup)
    return tc.min_lr + 0.5 * (tc.lr - tc.min_lr) * (1 + math.cos(math.pi * progress))


def training_tensor() -> torch.Tensor:
    """The training sentences as ids, right-padded with <pad> (id 0) to the longest: (n, T)."""
    v = gpt_vocab.vocab()
    sentences = corpus.training_sentences()
    width = max(len(s) for s in sentences)
    ids = torch.zeros(len(sentences), width, dtype=torch.long)
    for i, words in enumerate(sentences):
        ids[i, : len(words)] = torch.tensor(v.encode(words))
    return ids


def batches(n: int, batch_size: int, generator: torch.Generator) -> Iterator[torch.Tensor]:
    """Row indices: epochs of a fresh permutation each, cut into batches."""
    while True:
        order = torch.randperm(n, generator=generator)
        for start in range(0, n - batch_size + 1, batch_size):
            yield order[start : start + batch_size]


class Descent:
    """AdamW on the training sentences from a model's init, the loop both models train with: one local
    generator (seed + 1) draws the batches, weight decay on the matrices only."""

    def __init__(self, model: torch.nn.Module, tc: Schedule) -> None:
        self.model, self.tc = model, tc
        self.data = training_tensor()
        self.params = [p for _, p in model.named_parameters()]
        self.decayed = [p.dim() >= 2 for p in self.params]
        self.state = adam.moments(self.params)
        self.source = batches(self.data.shape[0], tc.batch_size, torch.Generator().manual_seed(tc.seed + 1))

    def batch(self) -> torch.Tensor:
        """The next batch's rows, the model in training mode."""
        self.model.train()
        return self.data[next(self.source)]

    def next_word_loss(self, rows: torch.Tensor) -> torch.Tensor:
        """Cross-entropy of the next word at every position but the padding's."""
        logits = self.model(rows[:, :-1])
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), rows[:, 1:].reshape(-1), ignore_index=0)

    def update(self, step: int, loss: torch.Tensor) -> None:
        """One AdamW step on the loss's gradients, at the schedule's learning rate for `step`."""
        # An MoE expert no token of the batch chose has no gradient this step: zero, so Adam's moments
        # decay as for any other (the dense model uses every parameter).
        grads = [torch.zeros_like(p) if g is None else g
                 for p, g in zip(self.params, torch.autograd.grad(loss, self.params, allow_unused=True))]
        lr = lr_at(step, self.tc)
        with torch.no_grad():
            for p, d in zip(self.params, self.decayed):
                if d:
                    p.mul_(1 - lr * self.tc.weight_decay)
        adam.step(self.params, grads, self.state, step, lr)


def one_thread(run: Callable[[], T]) -> T:
    """run() on one thread, whatever the machine: the result does not depend on how a matrix product is
    split, and on a shared 2-core box a second thread waits more than it works."""
    previous = torch.get_num_threads()
    torch.set_num_threads(THREADS)
    try:
        return run()
    finally:
        torch.set_num_threads(previous)


@dataclass(frozen=True)
class Shape:
    """The model's shape (GPTConfig's defaults unless overridden); vocabulary and context come from the corpus."""

    n_layer: int = gpt_model.GPTConfig.n_layer
    n_head: int = gpt_model.GPTConfig.n_head
    d_model: int = gpt_model.GPTConfig.d_model
    d_ff: int = gpt_model.GPTConfig.d_ff


def model_config(seed: int = 0, shape: Shape = Shape()) -> gpt_model.GPTConfig:
    return gpt_model.GPTConfig(vocab_size=len(gpt_vocab.vocab()), block_size=weights.BLOCK_SIZE, seed=seed,
                               **dataclasses.asdict(shape))


def quantise(model: gpt_model.GPT) -> dict[str, torch.Tensor]:
    """The shipped form of an early checkpoint: each matrix as int8 rows plus a float32 scale per row
    (key + weights.SCALE), each vector in float32. weights.from_state reads it back."""
    out: dict[str, torch.Tensor] = {}
    for k, t in unique_state(model).items():
        t = t.detach().float()
        if t.dim() < 2:
            out[k] = t.clone().contiguous()
            continue
        top = t.abs().amax(dim=1)
        scale = torch.where(top > 0, top / 127, torch.ones_like(top))
        out[k] = torch.round(t / scale[:, None]).clamp(-127, 127).to(torch.int8).contiguous()
        out[k + weights.SCALE] = scale.contiguous()
    return out


def unique_state(model: gpt_model.GPT) -> dict[str, torch.Tensor]:
    """state_dict without the head's weight, which is the token embedding (tied)."""
    return {k: t for k, t in model.state_dict().items() if k != "head.weight"}


@dataclass(frozen=True)
class Result:
    """What a run produced: the final model, the checkpoints as shipped, the log rows."""

    model: gpt_model.GPT
    checkpoints: dict[int, dict[str, torch.Tensor]]
    log: list[dict]
    seconds: float
    cpu_seconds: float


def _row(step: int, loss: float, m: gpt_model.GPT) -> dict:
    e = evaluate.evaluate(m)
    row = {"step": step, "loss": loss, **dataclasses.asdict(e), "active_fraction": list(e.active_fraction)}
    # Which block writes the answer, averaged over each prompt set (writers.py): the curve by step.
    for split in ("seen", "heldout"):
        w = writers.writers(m, corpus.prompts(split))
        row[f"attn_{split}"] = list(w.attn)
        row[f"ffn_{split}"] = list(w.ffn)
        row[f"embedding_{split}"] = w.embedding
        row[f"logit_{split}"] = w.logit
    return row


def train(
    tc: TrainConfig = TrainConfig(),
    until: int | None = None,
    measure: bool = True,
    progress: bool = False,
    shape: Shape = Shape(),
) -> Result:
    """Run training to tc.steps (or stop early at `until`, same schedule), recording checkpoints and the log;
    one thread (one_thread)."""
    return one_thread(lambda: _train(tc, until, measure, progress, shape))


def _train(tc: TrainConfig, until: int | None, measure: bool, progress: bool, shape: Shape) -> Result:
    start, cpu_start = time.perf_counter(), time.process_time()
    config = model_config(tc.seed, shape)
    model = gpt_model.GPT(config)
    descent = Descent(model, tc)
    stop = tc.steps if until is None else until
    log: list[dict] = [_row(0, float("nan"), model.eval())] if measure else []
    checkpoints: dict[int, dict[str, torch.Tensor]] = {}
    bar = None
    if progress:
        bar = tqdm(total=stop, desc="training", unit="step")
    losses: list[float] = []
    for step in range(1, stop + 1):
        loss = descent.next_word_loss(descent.batch())
        descent.update(step, loss)
        losses.append(loss.item())
        if bar is not None:
            bar.update(1)
            bar.set_postfix(loss=f"{losses[-1]:.3f}")
        final = step == tc.steps
        if step in tc.checkpoints or final:
            checkpoints[step] = {k: t.detach().clone() for k, t in unique_state(model).items()} if final else quantise(model)
        if measure and (step in tc.checkpoints or final or step % tc.log_every == 0):
            recent = sum(losses[-tc.log_every :]) / len(losses[-tc.log_every :])
            shipped = model.eval() if final or step not in checkpoints else weights.from_state(config, checkpoints[step])
            log.append(_row(step, recent, shipped))
            if bar is not None:
                bar.set_postfix(loss=f"{losses[-1]:.3f}", facts=f"{log[-1]['fact_accuracy_seen']:.2f}")
    if bar is not None:
        bar.close()
    return Result(model.eval(), checkpoints, log, time.perf_counter() - start, time.process_time() - cpu_start)


def write_manifest(out: Path, model: torch.nn.Module, train: dict, log: list[dict], seconds: float,
                   cpu_seconds: float, **files: object) -> None:
    """config.json (the model's config, the run's settings, `files`: what else the folder holds, its
    timings) and log.json into `out`."""
    manifest = {
        "model": dataclasses.asdict(model.config),  # type: ignore[call-overload]
        "train": {**train, "threads": THREADS},
        **files,
        "params": sum(p.numel() for p in model.parameters()),
        "seconds": round(seconds, 1),
        "cpu_seconds": round(cpu_seconds, 1),
        # The machine's load when the files were written: the wall time depends on it, the CPU time less.
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    (out / "config.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    (out / "log.json").write_text(json.dumps({"steps": log}) + "\n", encoding="utf-8")


def write(result: Result, tc: TrainConfig, out: Path) -> None:
    """Write the checkpoints, config.json and log.json into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("step_*.safetensors"):
        old.unlink()
    for step, state in result.checkpoints.items():
        save_file(state, str(out / weights.checkpoint_name(step)))
    steps = [0, *sorted(result.checkpoints)]
    write_manifest(out, result.model, {**dataclasses.asdict(tc), "checkpoints": list(tc.checkpoints)}, result.log,
                   result.seconds, result.cpu_seconds, steps=steps,
                   dtype={str(s): ("seed" if s == 0 else "float32" if s == steps[-1] else "int8 rows + float32 scales")
                          for s in steps})


def summary(result: Result) -> str:
    last = result.log[-1]
    first = result.log[0]
    lines = [
        f"params {sum(p.numel() for p in result.model.parameters()):,}   "
        f"time {result.seconds:.1f} s (CPU {result.cpu_seconds:.1f} s, load average {os.getloadavg()[0]:.1f})",
        f"loss {last['loss']:.4f}",
        f"fact accuracy  seen {last['fact_accuracy_seen']:.3f}   held-out {last['fact_accuracy_heldout']:.3f}",
        f"template accuracy {last['template_accuracy']:.3f}",
        "active fraction per layer  init " + " ".join(f"{a:.3f}" for a in first["active_fraction"])
        + "   final " + " ".join(f"{a:.3f}" for a in last["active_fraction"]),
    ]
    return "\n".join(lines)


# Bounds that keep a run on one CPU core in minutes, not hours; the shipped model is 4 × 128 × 512.
MAX_LAYERS = 16
MAX_D_MODEL = 1024
MAX_D_FF = 8192
MAX_STEPS = 100_000


def _bounded(low: int, high: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be in {low}..{high}, not {value}")
        return value

    return parse


def parse_args(argv: list[str] | None = None) -> tuple[TrainConfig, Shape, Path]:
    """The run's settings from the command line: defaults are the shipped model's."""
    parser = argparse.ArgumentParser(prog="python -m ffn_core.gpt.train",
                                     description="Train the small GPT on the facts corpus.")
    parser.add_argument("--out", type=Path, default=weights.WEIGHTS_DIR,
                        help="folder for config.json, log.json and the checkpoints (default: the shipped weights/)")
    parser.add_argument("--steps", type=_bounded(1, MAX_STEPS), default=TrainConfig.steps, help="optimiser steps")
    parser.add_argument("--seed", type=_bounded(0, 2**31 - 1), default=TrainConfig.seed,
                        help="seed of the init and the batches")
    parser.add_argument("--n-layer", type=_bounded(1, MAX_LAYERS), default=Shape.n_layer, help="transformer blocks")
    parser.add_argument("--n-head", type=_bounded(1, MAX_D_MODEL), default=Shape.n_head,
                        help="attention heads (must divide --d-model)")
    parser.add_argument("--d-model", type=_bounded(1, MAX_D_MODEL), default=Shape.d_model, help="residual width d")
    parser.add_argument("--d-ff", type=_bounded(1, MAX_D_FF), default=None,
                        help=f"FFN width m (default {Shape.d_ff // Shape.d_model}·d, as shipped)")
    args = parser.parse_args(argv)
    if args.d_model % args.n_head:
        parser.error(f"--n-head {args.n_head} must divide --d-model {args.d_model}")
    d_ff = args.d_ff if args.d_ff is not None else Shape.d_ff // Shape.d_model * args.d_model
    shape = Shape(n_layer=args.n_layer, n_head=args.n_head, d_model=args.d_model, d_ff=d_ff)
    tc = TrainConfig(steps=args.steps, seed=args.seed,
                     checkpoints=tuple(s for s in TrainConfig.checkpoints if s < args.steps))
    return tc, shape, args.out


def main(argv: list[str] | None = None) -> None:
    tc, shape, out = parse_args(argv)
    result = train(tc, progress=True, shape=shape)
    write(result, tc, out)
    print(summary(result))


if __name__ == "__main__":
    main()
