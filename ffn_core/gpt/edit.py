"""Edit one memory: a rank-one change to one block's W2 that makes the model give a new answer.

ROME's idea (Meng et al. 2022, "Locating and Editing Factual Associations in GPT") in its simplest
form. Block l's FFN reads a key k (its hidden vector a = act(W1·x + b1)) and writes W2·k. Take
k* = the key at the prompt's last token (averaged over the edit's prompts), find by a few gradient
steps a change δ of the FFN's output at that position that makes the model say the new answer,
then change W2 so that it writes W2·k* + δ for exactly that key:

    plain:       W2 ← W2 + δ·k*ᵀ / (k*ᵀk*)
    covariance:  W2 ← W2 + δ·(C⁻¹k*)ᵀ / (k*ᵀC⁻¹k*),  C = E[k·kᵀ] over the corpus prompts' last tokens

Both are rank one and both give W2·k* + δ at k*; the second (ROME's) moves the keys the layer
usually sees as little as it can. Everything happens on a copy; the model handed in is not changed.
"""
from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from ffn_core import adam
from ffn_core.gpt import corpus, evaluate, forward, neurons, states
from ffn_core.gpt import model as gpt_model
from ffn_core.gpt import vocab as gpt_vocab

METHODS = ("plain", "covariance")
SCOPES = ("template", "language")
STEPS = 40
LR = 0.1
# Keeps δ from growing past what the answer needs; relative to the residual stream's size.
DECAY = 1e-3
# Ridge on C: a ReLU layer has neurons that never fire on the corpus, so C alone is singular.
RIDGE = 1e-2


@dataclass(frozen=True)
class Edit:
    """What a rank-one edit did, measured on the edited copy against the shipped model."""

    country: str
    relation: str
    lang: str
    template: str
    scope: str
    layer: int  # 1-based
    method: str
    old_answer: str
    new_answer: str
    new_answer_other: str  # the new answer in the other language
    edited: tuple[float, float]  # share of the key prompts giving the new answer: (before, after)
    other_templates: tuple[float, float] | None  # same fact and language, prompts not used for the key
    other_lang: tuple[float, float] | None  # same fact, the other language's prompts
    other_prompts_changed: int
    other_prompts: int
    other_facts_changed: int
    other_facts: int
    delta_norm: float  # ‖ΔW2‖ (Frobenius)
    weight_norm: float  # ‖W2‖
    rows: tuple[tuple[str, str, str, str, str, str], ...]  # (group, lang, prompt, target, before, after)

    @property
    def success(self) -> float:
        return self.edited[1]


def key_prompts(fact: corpus.Fact, lang: str, template: str, scope: str) -> tuple[corpus.Prompt, ...]:
    """The prompts whose last-token keys are averaged into k*: the one template, or every seen template of the language."""
    own = [p for p in corpus.prompts("all") if p.fact == fact and p.lang == lang]
    if scope == "template":
        return tuple(p for p in own if p.template == template)
    return tuple(p for p in own if not p.heldout) or tuple(own)


def _find_delta(model: gpt_model.GPT, layer: int, prompts: Sequence[corpus.Prompt], target: int,
                steps: int, lr: float) -> torch.Tensor:
    """δ (d,) added to block `layer`'s FFN output at the last token that makes `target` the next token.

    The model is only read (no hook, no copy): the gradient is taken for δ alone, so no parameter's
    .grad is touched even when the model's weights require one.
    """
    v = gpt_vocab.vocab()
    delta = torch.zeros(model.config.d_model, requires_grad=True)
    batches = {}
    for p in prompts:
        batches.setdefault(len(p.words), []).append(v.encode(list(p.words)))
    # δ enters at block `layer`: the blocks below it give the same states at every step, so run them once.
    with torch.no_grad():
        below = []
        for ids in batches.values():
            x = model.embed(torch.tensor(ids, dtype=torch.long))
            below.append(forward.residual(model, x, stop=layer))
    state = adam.moments([delta])
    for t in range(1, steps + 1):
        loss = torch.zeros(())
        for x in below:
            x = forward.residual(model, x, {layer: forward.Change(shift_last=delta)}, start=layer)
            logits = forward.logits(model, x[:, -1])
            loss = loss + torch.nn.functional.cross_entropy(
                logits, torch.full((x.shape[0],), target), reduction="sum")
        loss = loss / len(prompts) + DECAY * delta.pow(2).sum()
        (grad,) = torch.autograd.grad(loss, [delta])
        adam.step([delta], [grad], state, t, lr)
    return delta.detach()


@torch.no_grad()
def key_covariance(model: gpt_model.GPT, layer: int) -> torch.Tensor:
    """C = E[k·kᵀ] of block `layer`'s (0-based) FFN keys at the last token of every corpus prompt, float64 (d_ff, d_ff)."""
    d_ff = model.config.d_ff
    total, count = torch.zeros(d_ff, d_ff, dtype=torch.float64), 0
    for _, h, _ in neurons.prompt_batches(model, corpus.prompts("all")):
        k = h[:, layer].to(torch.float64)
        total += k.T @ k
        count += k.shape[0]
    return total / count


def update(model: gpt_model.GPT, layer: int, prompts: Sequence[corpus.Prompt], new_answer: str,
           method: str = "plain", steps: int = STEPS, lr: float = LR,
           covariance: torch.Tensor | None = None) -> torch.Tensor:
    """ΔW2 (d, d_ff) in float64 for block `layer` (0-based): the rank-one change rank_one applies."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    target = gpt_vocab.vocab().encode([new_answer])[0]
    hidden = neurons.batched_last_hidden(model, prompts)[:, layer].to(torch.float64)
    k = hidden.mean(dim=0)  # (d_ff,): k*
    delta = _find_delta(model, layer, prompts, target, steps, lr).to(torch.float64)  # (d,)
    if method == "plain":
        direction = k / (k @ k)
    else:
        c = (key_covariance(model, layer) if covariance is None else covariance).to(torch.float64)
        c = c + RIDGE * c.diagonal().mean() * torch.eye(c.shape[0], dtype=torch.float64)
        c_inv_k = torch.linalg.solve(c, k)
        direction = c_inv_k / (k @ c_inv_k)
    return torch.outer(delta, direction)  # (d, d_ff), rank one


def edited_weight(model: gpt_model.GPT, layer: int, change: torch.Tensor) -> torch.Tensor:
    """Block `layer`'s W2 with the change added (in float64, stored in the weight's own dtype)."""
    w = model.blocks[layer].ffn.w_2.weight.detach()
    return (w.to(torch.float64) + change).to(w.dtype)


def rank_one(model: gpt_model.GPT, layer: int, prompts: Sequence[corpus.Prompt], new_answer: str,
             method: str = "plain", steps: int = STEPS, lr: float = LR,
             covariance: torch.Tensor | None = None) -> tuple[gpt_model.GPT, torch.Tensor]:
    """(edited copy, ΔW2 in float64): the model itself is left as it was."""
    change = update(model, layer, prompts, new_answer, method, steps, lr, covariance)
    edited = copy.deepcopy(model).eval()
    with torch.no_grad():
        edited.blocks[layer].ffn.w_2.weight.copy_(edited_weight(model, layer, change))
    return edited, change


def edit(model: gpt_model.GPT, country: str, relation: str, lang: str, template: str, new_answer: str,
         layer: int, method: str = "plain", scope: str = "template", steps: int = STEPS,
         covariance: torch.Tensor | None = None, before: Sequence[int] | None = None,
         kept: states.States | None = None) -> Edit:
    """Edit one fact on a copy (block `layer`, 1-based) and measure what changed; only numbers are kept.

    covariance (key_covariance of the edited block, for the ROME update) and before (evaluate.predictions
    of the model on every prompt) may be passed when the caller keeps them. With kept (the model's corpus
    pass, states.corpus_states), the edited W2 is measured by rerunning the prompts from the edited
    block's FFN up on the kept states, and the predictions before are the kept ones.
    """
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {SCOPES}, not {scope!r}")
    fact = next(f for f in corpus.FACTS if f.country == country and f.relation == relation)
    other = "ko" if lang == "en" else "en"
    new_fact = next(f for f in corpus.FACTS if f.relation == relation and f.answer(lang) == new_answer)
    new_other = new_fact.answer(other)
    chosen = key_prompts(fact, lang, template, scope)
    prompts = corpus.prompts("all")
    v = gpt_vocab.vocab()
    if kept is None:
        edited, change = rank_one(model, layer - 1, chosen, new_answer, method, steps, covariance=covariance)
        before = evaluate.predictions(model, prompts) if before is None else before
        after = evaluate.predictions(edited, prompts)
        del edited
    else:
        if covariance is None and method == "covariance":
            covariance = states.key_covariance(model, kept, layer - 1)
        change = update(model, layer - 1, chosen, new_answer, method, steps, covariance=covariance)
        before = kept.predictions
        after = states.prompt_predictions(model, kept, layer - 1, edited_weight(model, layer - 1, change))
    key_set = set(chosen)
    groups: dict[str, list[tuple[int, int, int]]] = {"edited": [], "other_templates": [], "other_lang": []}
    rows = []
    changed_prompts, changed_facts, other_prompts, other_facts = 0, set(), 0, set()
    for p, b, a in zip(prompts, before, after):
        if p.fact != fact:
            other_prompts += 1
            other_facts.add(p.fact)
            if a != b:
                changed_prompts += 1
                changed_facts.add(p.fact)
            continue
        group = "edited" if p in key_set else ("other_templates" if p.lang == lang else "other_lang")
        target = new_answer if p.lang == lang else new_other
        groups[group].append((v.encode([target])[0], b, a))
        rows.append((group, p.lang, " ".join(p.words), target, *v.decode([b, a])))

    def share(items: list[tuple[int, int, int]]) -> tuple[float, float] | None:
        if not items:
            return None
        return (sum(b == t for t, b, _ in items) / len(items), sum(a == t for t, _, a in items) / len(items))

    w = model.blocks[layer - 1].ffn.w_2.weight.detach()
    return Edit(
        country=country, relation=relation, lang=lang, template=template, scope=scope, layer=layer,
        method=method, old_answer=fact.answer(lang), new_answer=new_answer, new_answer_other=new_other,
        edited=share(groups["edited"]), other_templates=share(groups["other_templates"]),
        other_lang=share(groups["other_lang"]), other_prompts_changed=changed_prompts,
        other_prompts=other_prompts, other_facts_changed=len(changed_facts), other_facts=len(other_facts),
        delta_norm=float(torch.linalg.norm(change.detach())), weight_norm=float(torch.linalg.norm(w.to(torch.float64))),
        rows=tuple(rows),
    )
