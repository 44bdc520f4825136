"""Page 8's training-step and word-in-context sections: the shipped checkpoints, loaded once per server
process, and the cached probes on them.

Every checkpoint is held at most once for the whole server (cache.resource), frozen, float32:
3.7 MB each, nine at most, about 33 MB with the final model the other GPT probes already hold.
The final step reuses that model and its corpus pass rather than loading them twice.
"""
from __future__ import annotations

import functools

from ffn_core.gpt import context, model as gpt_model, neurons, progress, weights
from ui.compute import cache
from ui.gpt import probes


def final_step() -> int:
    return weights.steps()[-1]


@cache.resource
def checkpoint(step: int) -> gpt_model.GPT:
    """The model as shipped at `step` (a shipped step), frozen so no probe can change it."""
    if step == final_step():
        return probes.shipped()
    return weights.load(step).requires_grad_(False)


@cache.resource(lane=cache.LANE_GPT)  # a pass that hooks the model (probes.py says why)
def checkpoint_keys(step: int) -> neurons.Keys:
    """One pass over the corpus prompts on the checkpoint: its predictions and each neuron's top prompts (~0.3 MB)."""
    if step == final_step():
        return probes.corpus_keys()
    return neurons.corpus_keys(checkpoint(step))


@cache.cached(max_entries=256, lane=cache.LANE_GPT)
def snapshot(step: int, words: tuple[str, ...], answer: str | None) -> progress.Snapshot:
    return progress.snapshot(checkpoint(step), step, words, answer, keys=checkpoint_keys(step))


@cache.cached(max_entries=1, lane=cache.LANE_GPT)
def curve() -> progress.Curve:
    return progress.curve(weights.log(), weights.steps())


@cache.cached(max_entries=1, lane=cache.LANE_GPT)
def logged() -> dict[int, dict]:
    """The training log's rows by step (accuracies as the training measured them)."""
    return {int(r["step"]): r for r in weights.log().get("steps", []) if isinstance(r, dict) and "step" in r}


@cache.cached(max_entries=256, lane=cache.LANE_GPT)
def word_similarity(country: str) -> context.Similarity:
    """The country's vector in its answer-first sentence of each relation, both languages, final model."""
    return context.compare(probes.shipped(), context.word_contexts(country))


@cache.cached(max_entries=256, lane=cache.LANE_GPT)
def role_similarity(template: str, country: str, other: str) -> context.Similarity:
    """Two countries in the same sentence form: their own words and the prompt's last word, final model."""
    return context.compare(probes.shipped(), context.role_contexts(template, (country, other)))


@functools.cache
def word_contexts(country: str) -> tuple[context.Context, ...]:
    """context.word_contexts, read once per country: a scan of every corpus sentence (~10 ms) on every rerun otherwise."""
    return context.word_contexts(country)


@cache.cached(max_entries=2, lane=cache.LANE_GPT)
def two_meanings(lang: str) -> context.TwoMeanings:
    """The corpus's one word with two meanings in one sentence of `lang`, final model."""
    return context.two_meanings(probes.shipped(), lang)
