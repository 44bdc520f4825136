"""Page 8's questions (the trained GPT): who writes the answer's logit, how well it answers prompts it never read,
and what it says at a checkpoint part of the way through training. The same inputs as the page's verdicts."""
from __future__ import annotations

from collections.abc import Sequence

from ffn_core.gpt.ask import Accuracy
from ui.questions import Asked, Question, at, percent
from ui.registry import rules

SECTION = "gpt"
# Attention is the famous part; in this model the FFNs write more of the answer's logit on most prompts.
WRITES = Question("questions.gpt_writes", "choice", options=("attn", "ffn"), measure="writes")
HELDOUT = percent("questions.gpt_heldout", 10, "heldout")
# Part of the way through training: the right fact, a wrong one of the right kind, or no answer at all?
# Students expect "right" or "nonsense"; at step 300 it names another capital.
STEP = Question("questions.gpt_step", "choice", options=("right", "kind", "other"), measure="step_said")


def prompt(words: Sequence[str], answer: str | None, top: str, attn: Sequence[float],
           ffn: Sequence[float]) -> tuple[Asked, ...]:
    """The prompt on screen: which sublayers write the logit of its answer (or of the model's own top word)."""
    target = answer if answer is not None else top
    settings = {"words": " ".join(words), "answer": answer, "target": target}
    return (at(SECTION, settings, WRITES, rules.writes(attn, ffn), {"answer": target, "attn": sum(attn), "ffn": sum(ffn)},
               {"prompt": " ".join(words), "answer": target}),)


def heldout(acc: Accuracy) -> tuple[Asked, ...]:
    """The whole corpus's held-out prompts: the same for every setting of the page."""
    return (at(SECTION, {}, HELDOUT, 100 * acc.heldout, {"n": acc.n_heldout, "seen": acc.seen},
               {"n": acc.n_heldout}),)


def checkpoint(step: int, words: Sequence[str], answer: str | None, top: str, prob: float) -> tuple[Asked, ...]:
    """The prompt at training step `step`: what the checkpoint puts first. Nothing to ask without a known answer."""
    outcome = rules.said(top, answer)
    if outcome is None or answer is None:
        return ()
    settings = {"step": step, "words": " ".join(words), "answer": answer}
    return (at(SECTION, settings, STEP, outcome, {"step": step, "top": top, "prob": prob, "answer": answer},
               {"step": step, "prompt": " ".join(words), "answer": answer}),)
