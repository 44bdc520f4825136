"""Page 8's training-step and word-in-context verdicts: pure functions from measured numbers to claims.

Plain numbers in, so the property tests sweep every checkpoint, prompt, word and block. A claim that
the construction guarantees (the embedding is token + position) is stated as a fact, without a mark.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from ui.base.text import Term
from ui.verdicts import Claim, Verdict, finite

PASS = 0.9  # "learned": accuracy at least this (ffn_core.gpt.progress.PASS)
FORMING = 0.5  # below this share of seen prompts the facts have not formed yet
LAGS = 0.05  # held-out accuracy this far below seen accuracy "lags"
LOG_TOLERANCE = 2e-3  # recomputed vs logged accuracy: argmax counts, equal unless two logits tie to the last bit


def _step_text(step: int | None) -> object:
    return Term("gptmemory.never") if step is None else step


def checkpoint(step: int, answer: str | None, top: str, top_prob: float, seen: float, heldout: float,
               logged: tuple[float, float] | None, attn: Sequence[float], ffn: Sequence[float]) -> Verdict:
    """One checkpoint and one prompt: does it answer, does the log agree, which sublayers write the answer."""
    claims = []
    if answer is not None:
        claims.append(Claim("gptmemory.claim_answers", {"step": step, "answer": answer, "top": top, "prob": top_prob},
                            top == answer))
    if logged is not None:
        gap = max(abs(seen - logged[0]), abs(heldout - logged[1])) if all(map(finite, (seen, heldout, *logged))) \
            else math.inf
        claims.append(Claim("gptmemory.claim_log", {"step": step, "seen": seen, "heldout": heldout,
                                                    "log_seen": logged[0], "log_heldout": logged[1]},
                            gap <= LOG_TOLERANCE))
    attn_total, ffn_total = sum(attn), sum(ffn)
    claims.append(Claim("gptmemory.claim_ffn_more", {"step": step, "ffn": ffn_total, "attn": attn_total},
                        ffn_total > attn_total))
    if not finite(seen) or seen < FORMING:
        phase = "early"
    elif seen < PASS:
        phase = "forming"
    else:
        phase = "known"
    lag = "lags" if finite(heldout) and finite(seen) and heldout < seen - LAGS else "keeps"
    return Verdict(tuple(claims), f"gptmemory.takeaway_{phase} gptmemory.takeaway_heldout_{lag}",
                   {"step": step, "seen": seen, "heldout": heldout})


def curve(seen_90: int | None, heldout_90: int | None, template_90: int | None,
          heldout_at_seen_90: float | None, onsets: Sequence[int | None], final: Sequence[float]) -> Verdict:
    """Across training: is grammar learned before facts, seen forms before held-out forms; when each FFN writes.

    onsets: per block, the first step its FFN writes half its final mean term on the answer (None: never);
    final: each block's FFN's mean term at the last step."""
    grammar_first = template_90 is not None and (seen_90 is None or template_90 < seen_90)
    seen_first = seen_90 is not None and (heldout_90 is None or seen_90 < heldout_90)
    claims = (
        Claim("gptmemory.claim_grammar_first", {"template": _step_text(template_90), "seen": _step_text(seen_90)},
              grammar_first),
        Claim("gptmemory.claim_seen_first", {"seen": seen_90, "heldout": _step_text(heldout_90),
                                             "value": heldout_at_seen_90}, seen_first)
        if seen_90 is not None and heldout_at_seen_90 is not None
        else Claim("gptmemory.claim_seen_never", {}, False),
    )
    writing = [(s, b) for b, s in enumerate(onsets, start=1) if s is not None]
    if writing:
        step, block = min(writing)
        # The block whose FFN writes the most by the end, among those that write the answer at all.
        big = max((b for _, b in writing), key=lambda b: final[b - 1])
        takeaway = "gptmemory.takeaway_onset"
        values = {"block": block, "step": step, "big": big, "final": final[big - 1], "big_step": onsets[big - 1],
                  "onsets": ", ".join(f"{b}: {s}" for b, s in enumerate(onsets, start=1) if s is not None)}
    else:
        takeaway, values = "gptmemory.takeaway_onset_none", {}
    return Verdict(claims, takeaway, values)


def _drops(series: Sequence[float]) -> tuple[float, float, int]:
    """Total |change| at the attention stages, at the FFN stages, and the stage (1-based) of the largest |change|.

    Stage 0 is the embedding; then attn 1, ffn 1, attn 2, ... (odd stages attention, even ones FFN)."""
    changes = [b - a for a, b in zip(series, series[1:])]
    attn = sum(abs(c) for i, c in enumerate(changes) if i % 2 == 0)
    ffn = sum(abs(c) for i, c in enumerate(changes) if i % 2 == 1)
    biggest = max(range(len(changes)), key=lambda i: abs(changes[i])) + 1 if changes else 0
    return attn, ffn, biggest


def _stage_term(stage: int) -> tuple[Term, int]:
    """(kind, block) of a stage index: 0 the embedding, 2k-1 block k's attention, 2k block k's FFN."""
    if stage == 0:
        return Term("gptmemory.kind_embedding"), 0
    return Term("gptmemory.kind_attn" if stage % 2 else "gptmemory.kind_ffn"), (stage + 1) // 2


def contexts(word: str, within: Sequence[float], across: Sequence[float] | None) -> Verdict:
    """within: per stage, the mean cosine of the word's vectors across relations (same language); across: per
    stage, the mean cosine of the two languages' words in the same fact (None when there is no such pair)."""
    claims = [Claim("gptmemory.fact_embedding", {"word": word, "start": within[0] if within else math.nan}, None)]
    if not within:
        return Verdict(tuple(claims), "gptmemory.takeaway_contexts_one", {"word": word})
    attn, ffn, biggest = _drops(within)
    apart = within[-1] < within[0]
    claims.append(Claim("gptmemory.claim_drift", {"word": word, "start": within[0], "end": within[-1]}, apart))
    claims.append(Claim("gptmemory.claim_ffn_moves", {"ffn": ffn, "attn": attn}, ffn > attn))
    if across:
        claims.append(Claim("gptmemory.claim_languages", {"start": across[0], "end": across[-1]},
                            across[-1] > across[0]))
    kind, block = _stage_term(biggest)
    change = within[biggest] - within[biggest - 1] if biggest else 0.0
    direction = "apart" if change < 0 else "together"
    return Verdict(tuple(claims), f"gptmemory.takeaway_contexts_{direction}",
                   {"word": word, "kind": kind, "block": block, "change": abs(change), "end": within[-1]})


def roles(word: str, other: str, own: Sequence[float], last: Sequence[float]) -> Verdict:
    """own: per stage, the cosine of the two countries' own vectors; last: of the prompt's last word's vectors."""
    claims = [Claim("gptmemory.fact_same_last", {"start": last[0] if last else math.nan}, None)]
    if not own or not last:
        return Verdict(tuple(claims), "gptmemory.takeaway_roles_missing", {"word": word, "other": other})
    alike = own[-1] > own[0]
    claims.append(Claim("gptmemory.claim_roles_alike", {"word": word, "other": other, "start": own[0], "end": own[-1]},
                        alike))
    claims.append(Claim("gptmemory.claim_roles_last", {"own": own[-1], "last": last[-1]}, last[-1] < own[-1]))
    attn, ffn, biggest = _drops(last)
    kind, block = _stage_term(biggest)
    return Verdict(tuple(claims), "gptmemory.takeaway_roles", {"word": word, "other": other, "end": last[-1],
                                                              "kind": kind, "block": block})


def two_meanings(word: str, capital: str, country: str, cosine: Sequence[float], like_country: Sequence[float],
                 like_city: Sequence[float], lens_country: Sequence[str], lens_city: Sequence[str]) -> Verdict:
    """The one word with two meanings (context.two_meanings): cosine, the same places in the reference
    sentence (country: the reference's country, capital: its capital) and the logit lens, per stage."""
    if not cosine:
        return Verdict((), "gptmemory.takeaway_two_missing", {"word": word})
    start, end = cosine[0], cosine[-1]
    claims = (
        # One token: the embedding stage differs only by the two places' position rows; a fact, not a finding.
        Claim("gptmemory.fact_two_embedding", {"word": word, "start": start}, None),
        Claim("gptmemory.claim_two_apart", {"word": word, "start": start, "end": end}, end < start),
        Claim("gptmemory.claim_two_roles", {"word": word, "capital": capital, "city": like_city[-1], "end": end,
                                            "country": country, "nation": like_country[-1]},
              like_city[-1] > end and like_country[-1] > end),
        Claim("gptmemory.claim_two_lens", {"word": word, "first": lens_country[-1], "second": lens_city[-1]},
              lens_country[-1] != lens_city[-1]),
    )
    _, _, biggest = _drops(cosine)
    kind, block = _stage_term(biggest)
    change = cosine[biggest] - cosine[biggest - 1] if biggest else 0.0
    # The first stage at which the two places' lenses name different next words.
    split = next((i for i, (a, b) in enumerate(zip(lens_country, lens_city)) if a != b), None)
    split_kind, split_block = _stage_term(split) if split is not None else (Term("gptmemory.kind_embedding"), 0)
    apart = end < start
    takeaway = "gptmemory.takeaway_two_apart" if apart else "gptmemory.takeaway_two_together"
    takeaway += " gptmemory.takeaway_two_lens" if split is not None else " gptmemory.takeaway_two_lens_never"
    return Verdict(claims, takeaway, {"word": word, "kind": kind, "block": block, "change": abs(change), "end": end,
                                      "capital": capital, "city": like_city[-1], "split_kind": split_kind,
                                      "split_block": split_block})
