"""The mixture-of-experts verdicts agree with the numbers they cite: the toy layer over its controls,
the published counts, and the trained model at every block and expert. Each claim's ✓ is checked
against what its sentence says, computed here again from the raw results, not from the verdict's values."""
from dataclasses import dataclass

import pytest
import torch
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ffn_core import moe, moe_presets
from ffn_core.gpt import corpus, moe_probes, moe_train
from tests.lesson_checks import Branches, assert_readable
from ui.registry import catalog
from ui.verdicts import moe as verdicts

RELATIONS = ("capital", "currency", "language", "continent")
SHIPPED = moe_train.config()

TOY = Branches("even", "one")
CONTROLS = {c.key: c for c in catalog.CONTROLS["moe"]}


@st.composite
def toy_settings(draw) -> dict:
    """One setting of the page's toy controls, drawn from the options the page offers (k follows E)."""
    v = {}
    for key in ("experts", "k", "d", "n"):
        v[key] = draw(st.sampled_from(CONTROLS[key].options_for(v)))
    v["seed"] = draw(st.integers(int(CONTROLS["seed"].lo), int(CONTROLS["seed"].hi)))
    return v


def test_the_toy_strategy_spans_the_page_controls():
    assert CONTROLS["d"].options_for({}) == [16, 32, 64, 128] and CONTROLS["n"].options_for({}) == [64, 256, 1024]
    assert CONTROLS["k"].options_for({"experts": 16}) == [1, 2, 4, 8]


@TOY.required
@settings(max_examples=20, deadline=None)  # one thread: the largest setting (d 128, E 16, k 8, n 1024) takes ~1.5 s
@given(v=toy_settings())
@example(v={"experts": 8, "k": 2, "d": 64, "n": 256, "seed": 0})  # the page's default
@example(v={"experts": 1, "k": 1, "d": 16, "n": 64, "seed": 0})
@example(v={"experts": 16, "k": 8, "d": 128, "n": 1024, "seed": 9999})  # every control at its largest
@example(v={"experts": 16, "k": 1, "d": 128, "n": 64, "seed": 1})  # few tokens per expert
def test_toy_verdict_agrees_with_its_numbers(v):
    d, experts, k, n, seed = v["d"], v["experts"], v["k"], v["n"], v["seed"]
    res = moe.measure(d, 4 * d, experts, k, n, seed)
    v = verdicts.judge(res)
    position, params, even = v.claims
    assert position.ok == (max(res.rowwise_max_abs_diff, res.permutation_max_abs_diff) <= 1e-12
                           and res.off_diagonal_fraction == 0)
    assert position.ok  # the router reads one token at a time: measured, and it holds
    assert params.ok is None
    assert params.values["active"] == res.router_params + k * res.expert_params
    assert params.values["total"] == res.router_params + experts * res.expert_params
    r = res.routing(k)
    assert even.ok == (max(r.tokens_per_expert) / (n * k / experts) <= verdicts.EVEN)
    # moe.metric_balance_help: at most E/k, 1 when the slots or the probabilities are even
    assert r.balance_loss <= experts / k + 1e-9
    if even.ok:
        TOY.reach("even")
    if experts == 1:
        TOY.reach("one")
        assert "moe.takeaway_one" in v.takeaway
    else:
        # moe.takeaway_active: "more experts add almost no work per token": the router's E·d multiply
        # against the k experts' own, at most a quarter of one expert's weights (E ≤ 16, each 2·d·4d)
        assert "moe.takeaway_active" in v.takeaway
        assert res.router_params == experts * d and res.router_params <= res.expert_params / 4
    assert_readable(v)


@given(n=st.integers(1, 64), experts=st.sampled_from((2, 4, 8, 16)), k=st.sampled_from((1, 2, 4, 8)),
       seed=st.integers(0, 9999), spread=st.floats(0.0, 30.0))
@settings(max_examples=50, deadline=None)
def test_the_balance_loss_is_at_most_e_over_k_and_one_when_either_side_is_even(n, experts, k, seed, spread):
    # moe.metric_balance_help's bounds, on routers from flat to all but one-hot
    k = min(k, experts)
    g = torch.Generator().manual_seed(seed)
    probs = torch.softmax(spread * torch.randn(n, experts, generator=g, dtype=torch.float64), dim=-1)
    chosen = probs.topk(k, dim=-1).indices
    assert float(moe.load_balance_loss(probs, chosen, experts)) <= experts / k + 1e-9
    flat = torch.full((n, experts), 1 / experts, dtype=torch.float64)  # even probabilities: 1 whatever the slots
    assert float(moe.load_balance_loss(flat, chosen, experts)) == pytest.approx(1.0)
    every = torch.arange(experts).repeat(n, 1)  # k = E: every expert gets every token, even slots
    assert float(moe.load_balance_loss(probs, every, experts)) == pytest.approx(1.0)


def test_the_balance_loss_nears_e_over_k_when_k_experts_take_everything():
    experts, k = 8, 2
    logits = torch.full((32, experts), -40.0, dtype=torch.float64)
    logits[:, :k] = 0.0
    probs = torch.softmax(logits, dim=-1)
    chosen = probs.topk(k, dim=-1).indices
    assert float(moe.load_balance_loss(probs, chosen, experts)) == pytest.approx(experts / k, rel=1e-9)


@given(d=st.sampled_from(CONTROLS["d"].options_for({})), seed=st.integers(0, 9999))
@settings(max_examples=10, deadline=None)
def test_with_one_expert_the_layer_is_exactly_the_plain_ffn(d, seed):
    # moe.takeaway_one says so: a softmax over one score is exactly 1, so the output is the expert's, bit for bit.
    layer = moe.MoE(d, 4 * d, 1, 1, seed=seed, dtype=torch.float64)
    x = torch.randn(32, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    assert torch.equal(layer(x), layer.experts[0](x))
    assert "moe.takeaway_one" in verdicts.judge(moe.measure(d, 4 * d, 1, 1, 64, seed)).takeaway


def test_published_verdict():
    counts = tuple(moe_presets.count(p) for p in moe_presets.PRESETS)
    v = verdicts.judge_presets(counts)
    # ✓ exactly when both counts land within 2 % of the authors' figures
    assert [c.ok for c in v.claims] == [abs(c.total / c.published_total - 1) <= 0.02
                                        and abs(c.active / c.published_active - 1) <= 0.02 for c in counts]
    assert [c.ok for c in v.claims] == [True, True, True]
    assert v.takeaway_values["name"] == "DeepSeek-V3"  # the smallest active share of the three
    for c in counts:  # "their experts hold most of their FFN weights, and the FFN holds most of the model"
        assert c.experts > c.shared and c.experts + c.shared > (c.total - c.experts - c.shared)
    assert_readable(v)


def _routed(res: moe_probes.Routes, block: int, group: str) -> tuple[int, float]:
    """A group's most used expert (from 0) and the share of its routed prompts it gets, read from the frame."""
    frame = res.to_frame()
    counts = frame[(frame["block"] == block) & (frame["group"] == group)].groupby("expert")["prompts"].sum()
    return int(counts.idxmax()), float(counts.max() / counts.sum())


@pytest.fixture(scope="module")
def shipped_routes(shipped_moe):
    model, base = shipped_moe
    return moe_probes.routes(model, base)


@pytest.mark.parametrize("tops, ok, takeaway", [
    ((0, 0, 0, 0), False, "moe.takeaway_routes_shared"),  # each relation 90 % to expert 1: none sorted from another
    ((0, 0, 1, 2), False, "moe.takeaway_routes_shared"),  # two relations share an expert
    ((0, 1, 2, 3), True, "moe.takeaway_routes_relations"),  # each relation to an expert of its own
])
def test_the_relations_claim_needs_a_different_expert_for_each_relation(tops, ok, takeaway):
    rows = tuple((0, "relation", rel, e, 9 if e == top else 1 if e == (top + 1) % 4 else 0)
                 for rel, top in zip(RELATIONS, tops) for e in range(4)) + tuple(
        (0, "lang", lang, e, 10) for lang in ("en", "ko") for e in range(4))
    res = moe_probes.Routes(1, 4, 1, 40, 1.0, rows, (1.0,), (1.0,))
    v = verdicts.judge_routes(res, 0)
    assert v.claims[0].ok is ok and v.claims[1].ok is False and v.takeaway == takeaway
    assert_readable(v)


@given(block=st.integers(1, SHIPPED.n_layer))  # the page's control, counted from 1
@settings(max_examples=SHIPPED.n_layer * 3, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_each_routes_claim_holds_exactly_when_what_it_says_holds(shipped_routes, block):
    res, b = shipped_routes, block - 1
    v = verdicts.judge_routes(res, b)
    relations, languages = v.claims
    tops = {rel: _routed(res, b, rel) for rel in RELATIONS}
    # "most prompts of each relation go to one expert, a different one for each"
    sorted_by_relation = (all(share > 0.5 for _, share in tops.values())
                          and len({top for top, _ in tops.values()}) == len(RELATIONS))
    assert relations.ok == sorted_by_relation
    (en_top, en_share), (ko_top, ko_share) = _routed(res, b, "en"), _routed(res, b, "ko")
    # "English mostly to expert a, Korean mostly to expert b" (two different experts)
    assert languages.ok == (en_share > 0.5 and ko_share > 0.5 and en_top != ko_top)
    # the numbers the sentences cite are the ones measured
    for rel, (top, share) in tops.items():
        assert relations.values[f"top_{rel}"] == top + 1 and relations.values[f"share_{rel}"] == pytest.approx(share)
    each_to_one = all(share > 0.5 for _, share in tops.values())
    expected = ("moe.takeaway_routes_relations" if sorted_by_relation else "moe.takeaway_routes_languages"
                if languages.ok else "moe.takeaway_routes_shared" if each_to_one else "moe.takeaway_routes_mixed")
    assert v.takeaway == expected
    if expected == "moe.takeaway_routes_shared":  # "the relations share {distinct} experts"
        assert v.takeaway_values["distinct"] == len({top for top, _ in tops.values()}) < len(RELATIONS)
    if expected == "moe.takeaway_routes_mixed":  # "the most spread relation sends only … to its top expert"
        loosest = min(share for _, share in tops.values())
        assert loosest <= 0.5 and v.takeaway_values["share_loosest"] == pytest.approx(loosest)
    assert_readable(v)


@dataclass(frozen=True)
class Cut:
    """One expert of one block taken out: ablate's result, and every prompt through the cut model, counted here."""

    block: int  # from 0
    expert: int
    ablation: moe_probes.Ablation
    fell: torch.Tensor  # (P,) bool: right before, wrong now
    rose: torch.Tensor
    routed: torch.Tensor  # (P,) bool: the prompt's last word goes to the expert in that block
    net: dict[tuple[str, str], int]  # right answers before minus after, per (relation, language)
    same_routing: bool  # that block's router picks what it picked before, at every prompt's last word


@pytest.fixture(scope="module")
def shipped_cuts(shipped_moe) -> list[Cut]:
    # Independently of ablate's shortcut (it reruns only the prompts touched): every prompt through the cut model.
    model, base = shipped_moe
    answers = moe_probes.answers()
    every = corpus.prompts("all")
    right = base.best == answers
    cuts = []
    for block in range(model.config.n_layer):
        for expert in range(model.config.n_experts):
            after = moe_probes.run(model, (block, expert))
            right_after = after.best == answers
            net: dict[tuple[str, str], int] = {}
            for i, p in enumerate(every):
                key = (p.fact.relation, p.lang)
                net[key] = net.get(key, 0) + int(right[i]) - int(right_after[i])
            cuts.append(Cut(block, expert, moe_probes.ablate(model, block, expert, base), right & ~right_after,
                            ~right & right_after, (base.chosen[:, block] == expert).any(dim=-1), net,
                            bool(torch.equal(after.chosen[:, block], base.chosen[:, block]))))
    return cuts


def test_each_ablation_sentence_is_chosen_exactly_when_what_it_says_holds(shipped_cuts, shipped_moe):
    """Every block and expert of the shipped model: the claim and the one takeaway whose sentence holds."""
    model, _ = shipped_moe
    seen = set()
    for c in shipped_cuts:
        v = verdicts.judge_ablation(c.ablation)
        (claim,) = v.claims
        fell, rose, routed = int(c.fell.sum()), int(c.rose.sum()), int(c.routed.sum())
        net = sum(c.net.values())
        worst = max(c.net.values())
        said = v.takeaway_values
        # the numbers the sentences cite are the ones counted here
        assert (said["fell"], said["rose"], said["routed"]) == (fell, rose, routed)
        assert said["net"] == net == said["before"] - said["after"]
        assert said["worst_lost"] == worst and said["groups"] == len(c.net)
        assert claim.ok == (fell > 0)  # "costs facts": some answer right before is wrong now
        # moe.takeaway_ablation_none: "every prompt the model answered right, it still answers right"
        none = fell == 0
        # moe.takeaway_ablation_few: "fewer than one for every ten of the prompts whose last word goes to this
        # expert: more than nine in ten of those prompts lose no right answer"
        few = not none and fell < verdicts.FEW_SHARE * routed
        if few:
            assert routed - int((c.fell & c.routed).sum()) > 0.9 * routed
        # moe.takeaway_ablation_offset: "as many facts right without it, or more"
        offset = not none and not few and net <= 0
        # moe.takeaway_ablation_focused: "{net} fewer right, {worst} fewer in one group alone, at least half of that"
        focused = not (none or few or offset) and worst >= 0.5 * net
        spread = not (none or few or offset or focused)
        expected = {"moe.takeaway_ablation_none": none, "moe.takeaway_ablation_few": few,
                    "moe.takeaway_ablation_offset": offset, "moe.takeaway_ablation_focused": focused,
                    "moe.takeaway_ablation_spread": spread}
        assert [key for key, holds in expected.items() if holds] == [v.takeaway], (c.block, c.expert)
        if focused:
            # "block b's router, left as it was, still sends each word to the same k of its E experts"
            assert c.same_routing
            assert (said["k"], said["experts"]) == (model.config.k, model.config.n_experts)
        if spread:
            # "none of the groups holds half of that": so at least three groups lose answers
            assert worst < 0.5 * net and sum(1 for n in c.net.values() if n > 0) >= 3
        seen.add(v.takeaway)
        assert_readable(v)
    # The shipped model's experts reach several of the sentences: one whose removal costs nothing, a few, many.
    assert {"moe.takeaway_ablation_none", "moe.takeaway_ablation_few", "moe.takeaway_ablation_spread",
            "moe.takeaway_ablation_focused"} <= seen


@pytest.mark.parametrize("routed, fell, rose, rows, takeaway", [
    # 9 prompts routed, all 9 fall: not "few", whatever the count
    (9, 9, 0, (("capital", "en", 50, 50, 41),), "moe.takeaway_ablation_focused"),
    # 100 routed, 9 fall: few
    (100, 9, 0, (("capital", "en", 50, 50, 41),), "moe.takeaway_ablation_few"),
    # 10 of 100: not fewer than one in ten
    (100, 10, 0, (("capital", "en", 50, 50, 45), ("currency", "ko", 50, 50, 45)), "moe.takeaway_ablation_focused"),
    # as many rise as fall
    (20, 5, 5, (("capital", "en", 50, 45, 45),), "moe.takeaway_ablation_offset"),
    # a loss of 9 over three groups of 3: none holds half
    (20, 9, 0, tuple((rel, "en", 50, 50, 47) for rel in ("capital", "currency", "language")),
     "moe.takeaway_ablation_spread"),
])
def test_the_ablation_takeaway_at_its_edges(routed, fell, rose, rows, takeaway):
    res = moe_probes.Ablation(0, 0, routed, rows, (), fell, rose)
    v = verdicts.judge_ablation(res, SHIPPED)
    assert v.takeaway == takeaway
    assert_readable(v)


def test_trained_routes_at_every_block(shipped_moe):
    model, base = shipped_moe
    routes = moe_probes.routes(model, base)
    cfg = model.config
    for block in range(cfg.n_layer):
        v = verdicts.judge_routes(routes, block)
        relations, languages = v.claims
        shares = [routes.share(block, rel) for rel in RELATIONS]
        tops = {routes.top_expert(block, rel) for rel in RELATIONS}
        assert relations.ok == (min(shares) > verdicts.SORTED and len(tops) == 4)
        assert languages.ok == (min(routes.share(block, "en"), routes.share(block, "ko")) > verdicts.SORTED
                                and routes.top_expert(block, "en") != routes.top_expert(block, "ko"))
        # questions.moe_top_why_*: its expert gets the capital prompts "more than any other", not a tie
        counts = sorted((routes.count(block, "capital", e) for e in range(cfg.n_experts)), reverse=True)
        assert counts[0] > counts[1]
        assert_readable(v)
