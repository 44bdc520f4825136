"""The mixture-of-experts page's questions: the share of weights one token uses, whether the layer still
works token by token, where the trained router sends the capital prompts, how many facts one expert holds."""
from __future__ import annotations

from ffn_core import moe
from ffn_core.gpt import moe_probes
from ui.lessons import moe as lessons
from ui.questions import Asked, Question, at

SECTION = "moe"
ACTIVE = Question("questions.moe_active", "number", lo=0, hi=100, tolerance=5, unit="questions.unit_pct")
POSITION = Question("questions.moe_position", "choice", options=("yes", "no"))


def ask(res: moe.MoEResult) -> tuple[Asked, ...]:
    settings = {"d": res.d_model, "experts": res.n_experts, "k": res.k, "n": res.n_tokens, "seed": res.seed}
    verdict = lessons.judge(res)
    claims = {c.key: c for c in verdict.claims}
    shown = {"experts": res.n_experts, "k": res.k, "d": res.d_model}
    r = res.routing(res.k)
    position = claims["moe.claim_position"]
    return (
        at(SECTION, settings, ACTIVE, 100 * r.active_params / res.total_params, "moe.fact_params",
           claims["moe.fact_params"].values, shown),
        at(SECTION, settings, POSITION, "yes" if position.ok else "no", position.key, position.values, shown),
    )


def top_question(n_experts: int) -> Question:
    return Question("questions.moe_top", "choice", options=tuple(str(e) for e in range(1, n_experts + 1)))


def fell_question(prompts: int) -> Question:
    """Facts that fall: within a tenth of the prompts the model answered (at least 20) counts."""
    return Question("questions.moe_fell", "number", lo=0, hi=prompts, tolerance=max(20, prompts // 10))


def trained(routes: moe_probes.Routes, cut: moe_probes.Ablation) -> tuple[Asked, ...]:
    settings = {"block": cut.block + 1, "expert": cut.expert + 1}
    asked = []
    if 2 <= routes.n_experts <= 4:  # a choice offers two to four options
        verdict = lessons.judge_routes(routes, cut.block)
        claim = verdict.claims[0]
        asked.append(at(SECTION, {"block": cut.block + 1}, top_question(routes.n_experts),
                        str(routes.top_expert(cut.block, "capital") + 1), claim.key, claim.values,
                        {"block": cut.block + 1}))
    verdict = lessons.judge_ablation(cut)
    asked.append(at(SECTION, settings, fell_question(cut.prompts), cut.fell_total, verdict.claims[0].key,
                    verdict.claims[0].values, {"block": cut.block + 1, "expert": cut.expert + 1, "right": cut.before}))
    return tuple(asked)
