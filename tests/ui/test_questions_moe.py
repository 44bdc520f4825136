"""The mixture-of-experts page's questions: each answer is what the page measures and shows."""
from hypothesis import given
from hypothesis import strategies as st

from ffn_core import moe
from ffn_core.gpt import moe_probes, moe_train
from tests.question_checks import assert_sound, korean_is_korean
from ui.questions import moe as questions
from ui.verdicts import moe as verdicts


@given(d=st.sampled_from((16, 32, 64)), experts=st.sampled_from((1, 2, 4, 8, 16)), k=st.sampled_from((1, 2, 4, 8)),
       seed=st.integers(0, 9999))
def test_toy_questions_are_answered_by_the_page(d, experts, k, seed):
    k = min(k, experts)
    res = moe.measure(d, 4 * d, experts, k, 64, seed)
    asked = questions.ask(res)
    by_key = assert_sound(asked, "moe", [verdicts.judge(res)])
    share = by_key["questions.moe_active"].answer
    assert abs(share - 100 * (res.router_params + k * res.expert_params) / res.total_params) < 1e-9
    assert by_key["questions.moe_position"].answer == "yes"
    korean_is_korean(asked)


def test_trained_questions_at_every_block_and_expert():
    model = moe_train.load()
    base = moe_probes.run(model)
    routes = moe_probes.routes(model, base)
    for block in range(model.config.n_layer):
        for expert in range(model.config.n_experts):
            cut = moe_probes.ablate(model, block, expert, base)
            asked = questions.trained(routes, cut)
            by_key = assert_sound(asked, "moe", [verdicts.judge_routes(routes, block), verdicts.judge_ablation(cut)])
            assert by_key["questions.moe_top"].answer == str(routes.top_expert(block, "capital") + 1)
            counts = [routes.count(block, "capital", e) for e in range(model.config.n_experts)]
            assert counts[int(by_key["questions.moe_top"].answer) - 1] == max(counts)
            assert by_key["questions.moe_fell"].answer == cut.fell_total
            korean_is_korean(asked)
