"""Page 7's questions (the trained GPT): who writes the answer's logit, how well it answers prompts it never read,
and what it says at a checkpoint part of the way through training. The same inputs as the page's verdicts."""
from __future__ import annotations

import functools
from collections.abc import Sequence

from ffn_core.gpt import corpus
from ffn_core.gpt.ask import Accuracy
from ui.questions import Asked, Question, at

SECTION = "gpt"
# Attention is the famous part; in this model the FFNs write more of the answer's logit on most prompts.
WRITES = Question("questions.gpt_writes", "choice", options=("attn", "ffn"))
HELDOUT = Question("questions.gpt_heldout", "number", lo=0, hi=100, tolerance=10, unit="questions.unit_pct")
# Part of the way through training: the right fact, a wrong one of the right kind, or no answer at all?
# Students expect "right" or "nonsense"; at step 300 it names another capital.
STEP = Question("questions.gpt_step", "choice", options=("right", "kind", "other"))


def writes(attn: Sequence[float], ffn: Sequence[float]) -> str:
    """"ffn" when the FFNs' terms add up to more of the logit than attention's (the page's verdict's test)."""
    return "ffn" if sum(ffn) > sum(attn) else "attn"


def prompt(words: Sequence[str], answer: str | None, top: str, attn: Sequence[float],
           ffn: Sequence[float]) -> tuple[Asked, ...]:
    """The prompt on screen: which sublayers write the logit of its answer (or of the model's own top word)."""
    target = answer if answer is not None else top
    settings = {"words": " ".join(words), "answer": answer, "target": target}
    return (at(SECTION, settings, WRITES, writes(attn, ffn), {"answer": target, "attn": sum(attn), "ffn": sum(ffn)},
               {"prompt": " ".join(words), "answer": target}),)


def heldout(acc: Accuracy) -> tuple[Asked, ...]:
    """The whole corpus's held-out prompts: the same for every setting of the page."""
    return (at(SECTION, {}, HELDOUT, 100 * acc.heldout, {"n": acc.n_heldout, "seen": acc.seen},
               {"n": acc.n_heldout}),)


@functools.cache
def kind_of(answer: str) -> frozenset[str]:
    """Every answer, in either language, of the relations `answer` answers: the words of its kind."""
    relations = {f.relation for f in corpus.FACTS if answer in (f.answer("en"), f.answer("ko"))}
    return frozenset(w for f in corpus.FACTS if f.relation in relations for w in (f.answer("en"), f.answer("ko")))


def said(top: str, answer: str) -> str:
    """"right", "kind" (another answer of the same relations) or "other" (no answer of that kind)."""
    if top == answer:
        return "right"
    return "kind" if top in kind_of(answer) else "other"


def checkpoint(step: int, words: Sequence[str], answer: str | None, top: str, prob: float) -> tuple[Asked, ...]:
    """The prompt at training step `step`: what the checkpoint puts first. Nothing to ask without a known answer."""
    if answer is None:
        return ()
    settings = {"step": step, "words": " ".join(words), "answer": answer}
    return (at(SECTION, settings, STEP, said(top, answer), {"step": step, "top": top, "prob": prob, "answer": answer},
               {"step": step, "prompt": " ".join(words), "answer": answer}),)
