"""The shipped GPT, loaded once per server process, and the cached probes both GPT pages call.

The model is shared by every session and never changed: each probe that alters it (ablation, edit)
works on a copy it throws away, and only the small result is cached. Some probes hook the shared
model while they read it (ffn_core.gpt.neurons.prompt_batches), so every probe of it runs in one lane
(cache.LANE_GPT), one at a time, while the other pages' experiments use the other cores. The probes
are keyed on plain values (words, names, numbers); what they share (the model, the prompts' pass, a
block's key covariance) is built once in cache.resource, which never waits for the experiments' turn.
"""
from __future__ import annotations

import functools

import torch

import ffn_core.gpt.model
from ffn_core.gpt import (ablation, ask, attribution, corpus, edit, evaluate, neurons, sparsity_curve, split, states,
                          superposition, vocab, weights)
from ui.compute import cache


@cache.resource  # out of reach of a client's "clear cache", which would make the server reload it
def shipped() -> ffn_core.gpt.model.GPT:
    """The final checkpoint; frozen so no probe can train it by accident."""
    return weights.load().requires_grad_(False)


@cache.resource(lane=cache.LANE_GPT)  # a pass that hooks the shared model: never beside another probe
def corpus_keys() -> neurons.Keys:
    """Every neuron's strongest corpus prompts and the model's predictions: one pass over the corpus prompts, kept (~0.3 MB)."""
    return neurons.corpus_keys(shipped())


def parse(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(tokens, unknown words) of a typed prompt; at most the model's block size, the last words kept."""
    words = corpus.tokenize(text[:300])
    unknown = tuple(dict.fromkeys(vocab.vocab().unknown(words)))
    return tuple(words[-weights.config().block_size:]), unknown


@functools.cache
def _prompts_by_fact() -> dict[tuple[corpus.Fact, str], tuple[corpus.Prompt, ...]]:
    out: dict[tuple[corpus.Fact, str], list[corpus.Prompt]] = {}
    for p in corpus.prompts("all"):
        out.setdefault((p.fact, p.lang), []).append(p)
    return {key: tuple(ps) for key, ps in out.items()}


def prompts_of(fact: corpus.Fact, lang: str) -> tuple[corpus.Prompt, ...]:
    """The corpus prompts of one fact in one language, in corpus order (a scan of 2,552 prompts was ~10 ms a rerun)."""
    return _prompts_by_fact().get((fact, lang), ())


def known_answer(words: tuple[str, ...]) -> str | None:
    """The answer of the corpus prompt with exactly these words, if there is one."""
    for p in corpus.prompts("all"):
        if p.words == words:
            return p.answer
    return None


@cache.cached(max_entries=256, lane=cache.LANE_GPT)
def next_token(words: tuple[str, ...], answer: str | None) -> ask.NextToken:
    return ask.next_token(shipped(), words, answer)


@cache.cached(max_entries=1, lane=cache.LANE_GPT)
def accuracy() -> ask.Accuracy:
    return ask.accuracy(shipped(), corpus_keys().predictions)


@cache.cached(max_entries=256, lane=cache.LANE_GPT)
def attribute(words: tuple[str, ...], answer: str) -> attribution.Attribution:
    return attribution.attribute(shipped(), words, answer)


@cache.cached(max_entries=256, lane=cache.LANE_GPT)
def top_neurons(words: tuple[str, ...], answer: str) -> neurons.Neurons:
    return neurons.top_neurons(shipped(), words, answer, keys=corpus_keys())


@cache.cached(max_entries=1, lane=cache.LANE_GPT)
def parameter_split() -> split.Split:
    return split.split(shipped())


@cache.resource(lane=cache.LANE_GPT)  # a pass that hooks the shared model: never beside another probe
def corpus_states() -> states.States:
    """The shipped model's pass over every corpus sentence, each block's input kept (~62 MB): an ablation
    or an edit reruns only the blocks from the changed one up, over the whole corpus all the same."""
    return states.corpus_states(shipped())


@cache.cached(max_entries=1, lane=cache.LANE_GPT)
def base_scores() -> ablation.Scores:
    return ablation.kept_scores(corpus_states())


# Every target and kind fits: the warm-up computes every target zeroed, so choosing one never waits.
@cache.cached(max_entries=2 + 3 * 8, lane=cache.LANE_GPT)
def ablated_scores(target: str, how: str = "zero") -> ablation.Scores:
    return ablation.scores_from(shipped(), corpus_states(), target, how)


@cache.resource(lane=cache.LANE_GPT)  # one per block of the shipped model, each built when first edited
def key_covariance(layer: int) -> torch.Tensor:
    """One block's key covariance for ROME's update (1 MB a block), kept once computed; never changed."""
    return states.key_covariance(shipped(), corpus_states(), layer - 1).to(torch.float32)


@cache.cached(max_entries=64, lane=cache.LANE_GPT)
def edit_fact(country: str, lang: str, new_answer: str, layer: int, method: str) -> edit.Edit:
    template = corpus.template_id("capital", lang, 0)
    covariance = key_covariance(layer) if method == "covariance" else None
    return edit.edit(shipped(), country, "capital", lang, template, new_answer, layer, method,
                     covariance=covariance, kept=corpus_states())


@cache.cached(max_entries=16, lane=cache.LANE_GPT)
def active_at(step: int) -> tuple[float, ...]:
    """Each block's active fraction at one shipped checkpoint, loaded for the measurement and dropped."""
    return tuple(evaluate.active_fraction(weights.load(step)))


@cache.resource  # the training log's numbers, read once
def logged_curve() -> tuple[tuple[int, ...], tuple[tuple[float, ...], ...]]:
    return sparsity_curve.logged_curve()


@cache.resource
def _shipped_file() -> dict[str, torch.Tensor]:
    """The checkpoint as read from disk, apart from the shared model: what shipped_unchanged compares against."""
    return weights.load().state_dict()


def shipped_unchanged() -> bool:
    """The shared model still holds exactly the shipped file's weights (no session's edit reached it).

    Compared with a copy read once per process: reading the file on every rerun cost the page ~0.1 s of CPU.
    """
    fresh = _shipped_file()
    return all(torch.equal(tensor, fresh[name]) for name, tensor in shipped().state_dict().items())


@cache.resource
def prompt_hidden() -> torch.Tensor:
    """Every block's FFN hidden vector at every corpus prompt's last word (~20 MB), one pass, kept: what page 8
    reads one neuron and each block's directions from."""
    return superposition.prompt_hidden(shipped())


@cache.cached(max_entries=64)
def polysemantic(layer: int, index: int, answer: str) -> superposition.Polysemantic:
    return superposition.neuron(shipped(), layer, index, answer, prompt_hidden())


@cache.cached(max_entries=1)
def directions() -> superposition.Directions:
    return superposition.directions(shipped(), prompt_hidden())
