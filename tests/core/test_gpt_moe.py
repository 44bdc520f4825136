"""The trained MoE GPT: its weights load to what training writes, and its probes against plain references."""
import json

import pytest
import torch

from ffn_core import moe
from ffn_core.gpt import corpus, moe_model, moe_probes, moe_train, vocab


def test_shipped_config_and_size(shipped_moe):
    model, _ = shipped_moe
    manifest = json.loads((moe_train.WEIGHTS_DIR / "config.json").read_text())
    assert manifest["params"] == sum(p.numel() for p in model.parameters())
    cfg = model.config
    # The experts hold the dense model's FFN units: 4 experts of 128 = 512.
    assert cfg.n_experts * cfg.d_ff == 512 and cfg.k == 1
    expert = model.blocks[0].ffn.experts[0]
    assert sum(p.numel() for p in model.blocks[0].ffn.parameters()) == (
        cfg.n_experts * sum(p.numel() for p in expert.parameters()) + cfg.n_experts * cfg.d_model)


def test_the_model_knows_its_facts(shipped_moe):
    _, base = shipped_moe
    assert float((base.best == moe_probes.answers()).double().mean()) > 0.95


def test_forward_matches_the_probe_pass(shipped_moe):
    model, base = shipped_moe
    prompts = corpus.prompts("all")[:40]
    v = vocab.vocab()
    with torch.no_grad():
        for i, p in enumerate(prompts):
            logits = model(torch.tensor([v.encode(p.words)]))
            assert int(logits[0, -1].argmax()) == int(base.best[i])


def test_routes_count_by_hand(shipped_moe):
    model, base = shipped_moe
    r = moe_probes.routes(model, base)
    every = corpus.prompts("all")
    v = vocab.vocab()
    # Block 1's expert for the first prompts, recomputed token by token from the layer's own router.
    with torch.no_grad():
        for i in range(0, len(every), 97):
            ids = torch.tensor([v.encode(every[i].words)])
            x = model.wte(ids) + model.wpe(torch.arange(ids.shape[1]))
            block = model.blocks[0]
            h = block.ln_2(x + block.attn(block.ln_1(x)))[0, -1]
            assert int(torch.softmax(block.ffn.router(h), -1).argmax()) == int(base.chosen[i, 0, 0])
    for block in range(model.config.n_layer):
        for rel in corpus.RELATIONS:
            n = sum(1 for p in every if p.fact.relation == rel)
            assert sum(r.count(block, rel, e) for e in range(model.config.n_experts)) == n
        assert sum(r.count(block, "en", e) + r.count(block, "ko", e) for e in range(4)) == len(every)


@pytest.mark.parametrize("block,expert", [(0, 0), (0, 1), (2, 3)])
def test_ablation_equals_a_full_rerun_with_the_expert_zeroed(shipped_moe, block, expert):
    model, base = shipped_moe
    cut = moe_probes.ablate(model, block, expert, base)
    # The reference: zero the expert's weights in a copy and run every prompt.
    import copy
    zeroed = copy.deepcopy(model)
    with torch.no_grad():
        for p in zeroed.blocks[block].ffn.experts[expert].parameters():
            p.zero_()
    full = moe_probes.run(zeroed).best
    right = full == moe_probes.answers()
    assert cut.after == int(right.sum())
    assert cut.fell_total == int(((base.best == moe_probes.answers()) & ~right).sum())


def test_training_is_deterministic_and_short():
    a = moe_train.train(moe_train.MoETrainConfig(steps=3))
    b = moe_train.train(moe_train.MoETrainConfig(steps=3))
    for (k, x), (_, y) in zip(a.model.state_dict().items(), b.model.state_dict().items()):
        assert torch.equal(x, y), k
    assert isinstance(a.model, moe_model.MoEGPT) and isinstance(a.model.blocks[0].ffn, moe.MoE)


def test_write_and_load_round_trip(tmp_path):
    res = moe_train.train(moe_train.MoETrainConfig(steps=2))
    moe_train.write(res, moe_train.MoETrainConfig(steps=2), tmp_path)
    moe_train._manifest.cache_clear()
    try:
        loaded = moe_train.load(tmp_path)
    finally:
        moe_train._manifest.cache_clear()
    for (k, x), (_, y) in zip(res.model.state_dict().items(), loaded.state_dict().items()):
        assert torch.equal(x, y), k


def test_the_pages_default_expert_is_block_1s_costliest():
    from ui.registry import catalog
    block = next(c for c in catalog.MOE if c.key == "block")
    expert = next(c for c in catalog.MOE if c.key == "expert")
    costliest = moe_probes.report()["block1_costliest_expert"]
    assert (block.default, expert.default) == (costliest["block"], costliest["expert"])
