"""The trained-GPT pages' verdicts: pure functions from measured numbers to claims (✓/✗) and a takeaway.

Inputs are the core's results (or plain numbers and words drawn from them), so the property tests can
sweep the pages' whole control space.
"""
from __future__ import annotations

from collections.abc import Sequence

from ffn_core.gpt.ablation import Scores
from ffn_core.gpt.ask import Accuracy
from ffn_core.gpt.edit import Edit
from ffn_core.gpt.split import Split
from ui.base.text import Term, pct
from ui.registry import rules
from ui.verdicts import Claim, Verdict, finite

SUM_TOLERANCE = 1e-9  # float64 rounding of a sum of ~10 terms of size ~10 stays near 1e-14
KNOWS = 0.9  # "the model knows the facts it read": seen accuracy at least this
GENERALISES = 0.5  # held-out prompts answered at least this often
FEW_NEURONS = 0.5  # the top neurons carry at least this share of the FFNs' push
FEW_DIRECTIONS = 0.25  # a block's hidden vectors "use few directions": participation ratio at most this share of its width
TWO_THIRDS_SLACK = 0.01  # the biases move a block's FFN share off 2/3 by less than this
LOG_TOLERANCE = 1e-3  # recomputed vs logged active fraction (float32 sums, maybe another thread count)
LOCAL = 0.01  # an edit is local if it changes at most this share of the other facts' prompts
SEVERE, NOTICEABLE = 0.5, 0.1  # relative drop of accuracy: most lost / some lost / little lost


def ask(acc: Accuracy, answer: str | None, top: str) -> Verdict:
    """Does the model know what it read (seen), and what it never read in that form (held-out)? And this prompt?"""
    seen, heldout, n_seen, n_heldout = acc.seen, acc.heldout, acc.n_seen, acc.n_heldout
    knows = finite(seen) and seen >= KNOWS
    generalises = finite(heldout) and heldout >= GENERALISES
    claims = [Claim("gpt.claim_seen", {"value": seen, "n": n_seen}, knows),
              Claim("gpt.claim_heldout", {"value": heldout, "n": n_heldout}, generalises)]
    if answer is not None:
        claims.append(Claim("gpt.claim_prompt", {"answer": answer, "top": top}, top == answer))
    if knows and generalises:
        takeaway = "gpt.takeaway_ask_generalises"
    elif knows:
        takeaway = "gpt.takeaway_ask_memorised"
    else:
        takeaway = "gpt.takeaway_ask_weak"
    return Verdict(tuple(claims), takeaway, {"seen": seen, "heldout": heldout})


def layers(answer: str, residual: float, embedding: float, attn: Sequence[float], ffn: Sequence[float],
           first_top: int | None) -> Verdict:
    """The attribution adds up; which kind of sublayer wrote more of the answer's logit; where it peaks."""
    attn_total, ffn_total = sum(attn), sum(ffn)
    adds_up = finite(residual) and residual <= SUM_TOLERANCE
    ffn_more = rules.writes(attn, ffn) == "ffn"
    parts = [(value, "attn", i) for i, value in enumerate(attn, start=1)]
    parts += [(value, "ffn", i) for i, value in enumerate(ffn, start=1)]
    best, kind, block = max(parts) if parts else (embedding, "embedding", 0)
    claims = (Claim("gpt.claim_sum", {"residual": residual}, adds_up),
              Claim("gpt.claim_ffn_writes", {"ffn": ffn_total, "attn": attn_total}, ffn_more))
    first = "—" if first_top is None else first_top
    takeaway = "gpt.takeaway_layers_ffn" if ffn_more else "gpt.takeaway_layers_attn"
    takeaway += " gpt.takeaway_first_never" if first_top is None else " gpt.takeaway_first_block"
    return Verdict(claims, takeaway, {"answer": answer, "ffn": ffn_total, "attn": attn_total,
                                      "part": Term(f"gpt.kind_{kind}"), "block": block, "best": best, "first": first})


def neurons(answer: str, top: Sequence[float], ffn_total: float, m: int, lead: str, promotes: str) -> Verdict:
    """top: the chosen neurons' terms on the answer's logit; ffn_total: every FFN's term (biases included)."""
    top_sum = sum(top)
    few = ffn_total > 0 and top_sum >= FEW_NEURONS * ffn_total
    share = top_sum / ffn_total if ffn_total > 0 else float("nan")
    claims = (Claim("gpt.claim_few", {"n": len(top), "m": m, "top": top_sum, "total": ffn_total}, few),)
    takeaway = "gpt.takeaway_neurons_few" if few else "gpt.takeaway_neurons_spread"
    return Verdict(claims, takeaway, {"n": len(top), "share": share, "neuron": lead, "promotes": promotes,
                                      "answer": answer})


def superposition(neuron: str, answer: str, distinct: tuple[int, int, int], firing: int, rank: int, vocab: int,
                  participation: Sequence[float], k90: Sequence[int], width: int, facts: int) -> Verdict:
    """The lead neuron read over the corpus (distinct answers, relations, languages among its `firing` strongest
    prompts; the answer's rank among the words its value pushes up) and each block's hidden directions."""
    answers, relations, langs = distinct
    widest = max(range(len(participation)), key=participation.__getitem__) if participation else 0
    most = participation[widest] if participation else float("nan")
    claims = (
        Claim("gpt.claim_poly_fires", {"neuron": neuron, "n": firing, "answers": answers, "relations": relations,
                                       "langs": langs}, answers > 1),
        Claim("gpt.claim_poly_writes", {"neuron": neuron, "answer": answer, "rank": rank, "vocab": vocab}, rank > 1),
        Claim("gpt.claim_directions", {"most": most, "block": widest + 1, "width": width,
                                       "k90": " / ".join(str(k) for k in k90)},
              finite(most) and most <= FEW_DIRECTIONS * width),
    )
    poly = answers > 1 and rank > 1
    takeaway = "gpt.takeaway_poly" if poly else "gpt.takeaway_mono"
    return Verdict(claims, takeaway, {"neuron": neuron, "answer": answer, "answers": answers, "rank": rank,
                                      "facts": facts, "width": width, "most": most})


def parameter_split(parts: Split) -> Verdict:
    """Inside each block the FFN holds about 2/3 of the parameters, as page 1 counts."""
    ffn, attention, embeddings, total = parts.count("ffn"), parts.count("attention"), parts.count("embeddings"), parts.total
    blocks = ffn / (ffn + attention) if ffn + attention else float("nan")
    near = finite(blocks) and abs(blocks - 2 / 3) <= TWO_THIRDS_SLACK
    keys = ["gpt.takeaway_split"]
    if near:
        keys.append("gpt.takeaway_split_blocks")
    if ffn > max(attention, embeddings, total - ffn - attention - embeddings):  # "the largest single part"
        keys.append("gpt.takeaway_split_largest")
    return Verdict((Claim("gpt.claim_two_thirds", {"value": blocks}, near),), " ".join(keys),
                   {"ffn": ffn, "total": total, "share": ffn / total if total else float("nan"),
                    "embed": embeddings / total if total else float("nan")})


def _severity(before: float, after: float) -> str:
    """"most", "some" or "little" of the accuracy lost, "none" where the page's one-decimal figures do not
    move, "rose" where the accuracy went up."""
    if not (finite(before) and finite(after)):
        return "little"
    if pct(before, 1) == pct(after, 1):
        return "none"
    if after > before:
        return "rose"
    if before <= 0:
        return "little"
    drop = (before - after) / before
    return "most" if drop >= SEVERE else "some" if drop >= NOTICEABLE else "little"


def ablation(target: str, label: str, shipped: Scores, ablated: Scores, how: str = "zero") -> Verdict:
    """The shipped model's scores against the ablated one's. Did the facts fall, and did the grammar hold better?

    how: "zero" (the part writes nothing) or "mean" (an FFN writes its corpus mean); the takeaway says which."""
    seen, template = (shipped.seen, ablated.seen), (shipped.template, ablated.template)
    values = {"target": label, "before": seen[0], "after": seen[1], "t_before": template[0], "t_after": template[1]}
    if target == "none":
        return Verdict((), "gptsurgery.takeaway_none", values)
    part = "attn" if target.startswith("attn") else "ffn"
    kind = "mean" if how == "mean" and part == "ffn" else "zero"
    fact_drop = seen[0] - seen[1]
    grammar_drop = template[0] - template[1]
    claims = (
        Claim("gptsurgery.claim_facts_fall", {"before": seen[0], "after": seen[1]},
              seen[0] > 0 and fact_drop >= SEVERE * seen[0]),
        Claim("gptsurgery.claim_grammar_holds",
              {"before": template[0], "after": template[1], "facts": 100 * fact_drop, "grammar": 100 * grammar_drop},
              grammar_drop < fact_drop),
    )
    if pct(template[0], 1) == pct(template[1], 1):
        grammar = "same"
    elif grammar_drop < 0:
        grammar = "rose"
    elif grammar_drop > fact_drop:
        grammar = "fell" if fact_drop > 0 else "fell_alone"
    elif grammar_drop < NOTICEABLE * template[0]:
        grammar = "intact"
    else:
        grammar = "held"
    takeaway = (f"gptsurgery.takeaway_how_{kind} gptsurgery.takeaway_{part}_{_severity(*seen)} "
                f"gptsurgery.takeaway_grammar_{grammar}")
    return Verdict(claims, takeaway, values)


def edit(res: Edit, prompt: str, shipped_unchanged: bool) -> Verdict:
    """Did the edit take on its prompt (shown as `prompt`), stay local, cross to the other language, spare the shared model?"""
    layer, new, other = res.layer, res.new_answer, res.new_answer_other
    edited = res.edited[1]
    other_lang = None if res.other_lang is None else res.other_lang[1]
    changed_prompts, other_prompts = res.other_prompts_changed, res.other_prompts
    took = finite(edited) and edited >= 0.5
    share = changed_prompts / other_prompts if other_prompts else 0.0
    local = share <= LOCAL
    claims = [
        # The update is an outer product: rank one by construction (the tests measure it).
        Claim("gptsurgery.claim_rank", {"layer": layer}, None),
        # Rank one is not small: the change can outweigh the matrix it is added to. Stated with the measured
        # norms; what keeps the other facts is the direction it acts along, not its size.
        Claim("gptsurgery.fact_norm_larger" if res.delta_norm > res.weight_norm else "gptsurgery.fact_norm_smaller",
              {"delta": res.delta_norm, "weight": res.weight_norm, "layer": layer,
               "ratio": res.delta_norm / res.weight_norm if res.weight_norm > 0 else float("inf"),
               "direction": Term("gptsurgery.key_" + res.method)}, None),
        Claim("gptsurgery.claim_took", {"prompt": prompt, "new": new, "value": edited}, took),
        Claim("gptsurgery.claim_local", {"changed": changed_prompts, "total": other_prompts, "share": share}, local),
    ]
    crosses = rules.crosses(res) == "yes"
    if other_lang is not None:
        claims.append(Claim("gptsurgery.claim_other_lang", {"answer": other, "value": other_lang}, crosses))
    claims.append(Claim("gptsurgery.claim_unchanged", {}, shipped_unchanged))
    if not took:
        takeaway = "gptsurgery.takeaway_edit_failed"
    elif not local:
        takeaway = "gptsurgery.takeaway_edit_spill"
    elif crosses:
        takeaway = "gptsurgery.takeaway_edit_crosses"
    else:
        takeaway = "gptsurgery.takeaway_edit_stays"
    return Verdict(tuple(claims), takeaway, {"new": new, "other": other, "changed": res.other_facts_changed,
                                             "facts": res.other_facts, "layer": layer})


def sparsity(step: int, start: Sequence[float], now: Sequence[float], log_gap: float | None) -> Verdict:
    """start, now: per-block active fraction at the start of training and at checkpoint `step`."""
    claims = []
    if log_gap is not None:
        claims.append(Claim("gptsurgery.claim_log", {"gap": log_gap, "step": step},
                            finite(log_gap) and log_gap <= LOG_TOLERANCE))
    fell = [b < a for a, b in zip(start, now)]
    everywhere = bool(fell) and all(fell)
    claims.append(Claim("gptsurgery.claim_sparser",
                        {"start": " / ".join(f"{a:.2f}" for a in start), "now": " / ".join(f"{b:.2f}" for b in now),
                         "step": step}, everywhere))
    if everywhere:
        takeaway = "gptsurgery.takeaway_sparse_all"
    elif any(fell):
        takeaway = "gptsurgery.takeaway_sparse_some"
    else:
        takeaway = "gptsurgery.takeaway_sparse_none"
    low = min(range(len(now)), key=now.__getitem__) if now else 0
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
    return Verdict(tuple(claims), takeaway, {"step": step, "start": mean(start), "now": mean(now), "block": low + 1,
                                             "low": now[low] if now else float("nan")})
