"""The mixture-of-experts page's questions: the share of weights one token uses, whether the layer still
works token by token, where the trained router sends the capital prompts, how many facts one expert holds."""
from __future__ import annotations

from ffn_core import moe
from ffn_core.gpt import moe_probes
from ui.questions import Asked, Question, at, percent
from ui.registry import rules

SECTION = "moe"
ACTIVE = percent("questions.moe_active", 5, "active_share")
POSITION = Question("questions.moe_position", "choice", options=("yes", "no"), measure="position_wise")
MAX_OPTIONS = 4
QUESTION_SIZES = tuple(range(2, MAX_OPTIONS + 1))  # the expert counts top_question is asked with


def ask(res: moe.MoEResult) -> tuple[Asked, ...]:
    settings = {"d": res.d_model, "experts": res.n_experts, "k": res.k, "n": res.n_tokens, "seed": res.seed}
    shown = {"experts": res.n_experts, "k": res.k, "d": res.d_model}
    r = res.routing(res.k)
    return (
        at(SECTION, settings, ACTIVE, 100 * r.active_params / res.total_params,
           {"active": r.active_params, "total": res.total_params, "k": res.k, "experts": res.n_experts}, shown),
        at(SECTION, settings, POSITION, rules.position_wise(res),
           {"rowwise": res.rowwise_max_abs_diff, "perm": res.permutation_max_abs_diff, "off": res.off_diagonal_fraction},
           shown),
    )


def top_question(n_experts: int) -> Question:
    return Question("questions.moe_top", "choice", options=tuple(str(e) for e in range(1, n_experts + 1)), measure="capital_expert")


def fell_question(prompts: int) -> Question:
    """Facts that fall, out of the prompts the model answered: within a fifth of the measured count (at least 20)."""
    return Question("questions.moe_fell", "number", lo=0, hi=prompts, tolerance=20, relative=0.2, measure="fell")


def trained(routes: moe_probes.Routes, cut: moe_probes.Ablation) -> tuple[Asked, ...]:
    asked = []
    block, expert = cut.block + 1, cut.expert + 1  # counted from 1, as the page shows them
    if 2 <= routes.n_experts <= MAX_OPTIONS:  # a choice offers two to four options
        top = routes.top_expert(cut.block, "capital")
        asked.append(at(SECTION, {"block": block}, top_question(routes.n_experts), str(top + 1),
                        {"block": block, "share": routes.share(cut.block, "capital")}, {"block": block}))
    asked.append(at(SECTION, {"block": block, "expert": expert}, fell_question(cut.prompts), cut.fell_total,
                    {"rose": cut.rose_total, "before": cut.before, "after": cut.after, "routed": cut.routed},
                    {"block": block, "expert": expert, "right": cut.before}))
    return tuple(asked)
