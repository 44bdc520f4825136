"""The mixture-of-experts page's verdicts: still position-wise, total against active weights, how the
router spreads the tokens, the published models counted, and what the trained router learned."""
from __future__ import annotations

from ffn_core import moe, moe_presets
from ffn_core.gpt import moe_model, moe_probes, moe_train
from ui.base.text import Term
from ui.registry import rules
from ui.verdicts import Claim, Verdict

# "Roughly even": the busiest expert gets at most twice the mean load.
EVEN = 2.0
# A published total is rounded to its last digit ("46.7B", "671B"): the count must land within 2 %
# ("37B" active for DeepSeek-V3 is a round figure; our count of every weight one token uses is 37.6B).
PUBLISHED = 0.02
# A router "sorts" a group when most of its prompts (over half) go to one expert that no other group's
# prompts mostly go to.
SORTED = 0.5
# "Few" facts fall when fewer right answers turn wrong than a tenth of the prompts routed to the expert (at
# their last word): whichever prompts fell, more than nine in ten of those it receives lose no right answer.
# A count alone cannot say it: 9 falling is few for an expert that receives 1,000 prompts, all for one that
# receives 9.
FEW_SHARE = 0.1
# The loss is "concentrated" when one (relation, language) group holds at least half the net loss.
CONCENTRATED = 0.5


def judge(res: moe.MoEResult) -> Verdict:
    """Position-wise (measured), total and active weights (arithmetic, stated), the chosen k's balance (measured)."""
    r = res.routing(res.k)
    values = {"experts": res.n_experts, "k": res.k, "n": res.n_tokens, "total": res.total_params,
              "active": r.active_params, "share": r.active_params / res.total_params,
              "expert": res.expert_params, "router": res.router_params,
              "rowwise": res.rowwise_max_abs_diff, "perm": res.permutation_max_abs_diff,
              "off": res.off_diagonal_fraction, "loss": r.balance_loss, "busiest": r.max_over_mean,
              "slots": res.n_tokens * res.k, "most": max(r.tokens_per_expert), "least": min(r.tokens_per_expert)}
    position_wise = rules.position_wise(res) == "yes"
    even = r.max_over_mean <= EVEN
    claims = (
        Claim("moe.claim_position", values, position_wise),
        Claim("moe.fact_params", values, None),  # router + k experts of E: arithmetic
        Claim("moe.claim_even", values, even),
    )
    first = "moe.takeaway_one" if res.n_experts == 1 else "moe.takeaway_active"
    return Verdict(claims, f"{first} {'moe.takeaway_even' if even else 'moe.takeaway_uneven'}", values)


def judge_presets(counts: tuple[moe_presets.MoECount, ...]) -> Verdict:
    """Each published model's total and active weights, counted from its config, against its authors' figures."""
    claims = tuple(
        Claim("moe.claim_preset",
              {"name": c.name, "total": c.total / 1e9, "active": c.active / 1e9, "published": c.published_text,
               "share": c.active_share},
              abs(c.total_gap) <= PUBLISHED and abs(c.active_gap) <= PUBLISHED)
        for c in counts)
    smallest = min(counts, key=lambda c: c.active_share)
    return Verdict(claims, "moe.takeaway_presets", {"name": smallest.name, "share": smallest.active_share})


def judge_routes(res: moe_probes.Routes, block: int) -> Verdict:
    """In one block (from 0): does the router sort the prompts by relation, or by language?

    A group is sorted when most of its prompts (over SORTED) go to one expert and no other group's
    prompts go mostly to that same expert: four relations sent mostly to one expert are not sorted.
    """
    relations = ("capital", "currency", "language", "continent")
    shares = {rel: res.share(block, rel) for rel in relations}
    tops = {rel: res.top_expert(block, rel) + 1 for rel in relations}
    langs = {lang: res.share(block, lang) for lang in ("en", "ko")}
    lang_tops = {lang: res.top_expert(block, lang) + 1 for lang in ("en", "ko")}
    loosest = min(relations, key=lambda rel: shares[rel])
    values = {"block": block + 1, "accuracy": res.accuracy, "prompts": res.prompts, "experts": res.n_experts,
              "loss": res.balance_loss[block],
              **{f"share_{k}": v for k, v in shares.items()}, **{f"top_{k}": v for k, v in tops.items()},
              "share_en": langs["en"], "share_ko": langs["ko"], "top_en": lang_tops["en"], "top_ko": lang_tops["ko"],
              "distinct": len(set(tops.values())), "relations": len(relations),
              "loosest": Term(f"gpt.relation_{loosest}"), "share_loosest": shares[loosest]}
    each_to_one = min(shares.values()) > SORTED
    by_relation = each_to_one and values["distinct"] == len(relations)
    by_language = min(langs.values()) > SORTED and lang_tops["en"] != lang_tops["ko"]
    claims = (Claim("moe.claim_relations", values, by_relation),
              Claim("moe.claim_languages", values, by_language))
    if by_relation:
        key = "moe.takeaway_routes_relations"
    elif by_language:
        key = "moe.takeaway_routes_languages"
    elif each_to_one:
        key = "moe.takeaway_routes_shared"
    else:
        key = "moe.takeaway_routes_mixed"
    return Verdict(claims, key, values)


def judge_ablation(res: moe_probes.Ablation, config: moe_model.MoEGPTConfig | None = None) -> Verdict:
    """One expert zeroed: how many facts fell, against the prompts routed to it, and in which group most.

    config: the model's (its k and E name where the router still sends the words); the shipped one by default.
    """
    config = config or moe_train.config()
    worst = max(((rel, lang) for rel, lang, *_ in res.rows), key=lambda rl: res.lost(*rl))
    net = res.before - res.after
    values = {"block": res.block + 1, "expert": res.expert + 1, "routed": res.routed, "before": res.before,
              "after": res.after, "prompts": res.prompts, "fell": res.fell_total, "rose": res.rose_total,
              "net": net, "groups": len(res.rows), "k": config.k, "experts": config.n_experts,
              "worst_relation": Term(f"gpt.relation_{worst[0]}"), "worst_lang": Term(f"gpt.lang_{worst[1]}"),
              "worst_lost": res.lost(*worst)}
    fell = res.fell_total > 0
    if not fell:
        key = "moe.takeaway_ablation_none"
    elif res.fell_total < FEW_SHARE * res.routed:
        key = "moe.takeaway_ablation_few"
    elif net <= 0:  # as many wrong answers turned right as right ones wrong, or more
        key = "moe.takeaway_ablation_offset"
    elif res.lost(*worst) >= CONCENTRATED * net:
        key = "moe.takeaway_ablation_focused"
    else:
        key = "moe.takeaway_ablation_spread"
    return Verdict((Claim("moe.claim_ablation", values, fell),), key, values)
