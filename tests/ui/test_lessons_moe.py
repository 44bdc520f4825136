"""The mixture-of-experts verdicts agree with the numbers they cite: the toy layer over its controls,
the published counts, and the trained model at every block and expert."""
from hypothesis import example, given
from hypothesis import strategies as st

from ffn_core import moe, moe_presets
from ffn_core.gpt import moe_probes
from tests.lesson_checks import Branches, assert_readable
from ui.verdicts import moe as verdicts

TOY = Branches("even", "one")


@TOY.required
@given(d=st.sampled_from((16, 32, 64)), experts=st.sampled_from((1, 2, 4, 8, 16)), k=st.sampled_from((1, 2, 4, 8)),
       n=st.sampled_from((64, 256)), seed=st.integers(0, 9999))
@example(d=64, experts=8, k=2, n=256, seed=0)  # the page's default
@example(d=16, experts=1, k=1, n=64, seed=0)
def test_toy_verdict_agrees_with_its_numbers(d, experts, k, n, seed):
    k = min(k, experts)
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
    if even.ok:
        TOY.reach("even")
    if experts == 1:
        TOY.reach("one")
        assert "moe.takeaway_one" in v.takeaway
    assert_readable(v)


def test_published_verdict():
    counts = tuple(moe_presets.count(p) for p in moe_presets.PRESETS)
    v = verdicts.judge_presets(counts)
    assert [c.ok for c in v.claims] == [True, True, True]
    assert v.takeaway_values["name"] == "DeepSeek-V3"  # the smallest active share of the three
    assert_readable(v)


def test_trained_verdicts_at_every_block_and_expert(shipped_moe):
    model, base = shipped_moe
    routes = moe_probes.routes(model, base)
    cfg = model.config
    seen = set()
    for block in range(cfg.n_layer):
        v = verdicts.judge_routes(routes, block)
        relations, languages = v.claims
        shares = [routes.share(block, rel) for rel in ("capital", "currency", "language", "continent")]
        assert relations.ok == (min(shares) > verdicts.SORTED)
        assert languages.ok == (min(routes.share(block, "en"), routes.share(block, "ko")) > verdicts.SORTED
                                and routes.top_expert(block, "en") != routes.top_expert(block, "ko"))
        assert_readable(v)
        for expert in range(cfg.n_experts):
            cut = moe_probes.ablate(model, block, expert, base)
            a = verdicts.judge_ablation(cut)
            (claim,) = a.claims
            assert claim.ok == (cut.fell_total > 0)
            assert claim.values["before"] - claim.values["after"] == cut.fell_total - cut.rose_total
            seen.add(a.takeaway)
            assert_readable(a)
    # The shipped model has experts that hold many facts and some whose removal costs a few or none.
    assert len(seen) >= 2 and "moe.takeaway_ablation_few" in seen | {"moe.takeaway_ablation_none"}
