"""Page 7's questions (the trained GPT): will it answer this prompt, who writes the answer's logit, how well it
answers prompts it never read. The same inputs as the page's verdicts."""
from __future__ import annotations

from collections.abc import Sequence

from ffn_core.gpt.ask import Accuracy
from ui.questions import Asked, Question, at
from ui.verdicts import gpt as verdicts

SECTION = "gpt"
TOP = Question("questions.gpt_top", "choice", options=("yes", "no"))
# Attention is the famous part; in this model the FFNs write more of the answer's logit.
WRITES = Question("questions.gpt_writes", "choice", options=("attn", "ffn"))
HELDOUT = Question("questions.gpt_heldout", "number", lo=0, hi=100, tolerance=10, unit="questions.unit_pct")


def prompt(words: Sequence[str], answer: str | None, top: str, acc: Accuracy, attn: Sequence[float],
           ffn: Sequence[float]) -> tuple[Asked, ...]:
    """The prompt on screen: does the model's top word match the known answer; which sublayers write its logit."""
    settings = {"words": " ".join(words), "answer": answer}
    shown = {"prompt": " ".join(words), "answer": answer or top}
    asked = []
    if answer is not None:
        claim = next(c for c in verdicts.ask(acc, answer, top).claims if c.key == "gpt.claim_prompt")
        asked.append(at(SECTION, settings, TOP, "yes" if claim.ok else "no", claim.key, claim.values, shown))
    target = answer if answer is not None else top
    layers = verdicts.layers(target, 0.0, 0.0, attn, ffn, None)  # the claim read here cites only the two sums
    writes = next(c for c in layers.claims if c.key == "gpt.claim_ffn_writes")
    asked.append(at(SECTION, {**settings, "target": target}, WRITES, "ffn" if writes.ok else "attn", writes.key,
                    writes.values, {**shown, "answer": target}))
    return tuple(asked)


def heldout(acc: Accuracy) -> tuple[Asked, ...]:
    """The whole corpus's held-out prompts: the same for every setting of the page."""
    claim = next(c for c in verdicts.ask(acc, None, "").claims if c.key == "gpt.claim_heldout")
    return (at(SECTION, {}, HELDOUT, 100 * acc.heldout, claim.key, claim.values, {"n": acc.n_heldout}),)
