"""The model across training: the curve read from the training log, checked against the log's own rows
and against what the shipped checkpoints give when measured again."""
import json
import statistics

import pytest

from ffn_core.gpt import ask, attribution, corpus, neurons, progress, report, weights, writers


def raw_rows():
    return json.loads((weights.WEIGHTS_DIR / "log.json").read_text(encoding="utf-8"))["steps"]


@pytest.fixture(scope="module")
def curve():
    return progress.curve(weights.log(), weights.steps())


def test_curve_is_the_logs_rows(curve):
    rows = raw_rows()
    assert list(curve.steps) == [r["step"] for r in rows] and curve.steps == tuple(sorted(curve.steps))
    assert list(curve.seen) == [r["fact_accuracy_seen"] for r in rows]
    assert list(curve.heldout) == [r["fact_accuracy_heldout"] for r in rows]
    assert list(curve.template) == [r["template_accuracy"] for r in rows]
    assert [list(x) for x in curve.ffn] == [r["ffn_seen"] for r in rows]
    frame = curve.to_frame()
    assert len(frame) == 3 * len(rows) and set(frame["measure"]) == {"seen", "heldout", "template"}
    assert set(frame.loc[frame["shipped"], "step"]) == set(weights.steps())
    assert len(curve.writers_frame()) == 2 * len(rows) * 4


def test_first_step_past_90_percent_by_hand(curve):
    for measure, key in (("seen", "fact_accuracy_seen"), ("heldout", "fact_accuracy_heldout"),
                         ("template", "template_accuracy")):
        want = None
        for r in raw_rows():
            if r[key] >= 0.9:
                want = r["step"]
                break
        assert curve.first_at_least(measure) == want
    # The story the page tells holds for the shipped run: grammar, then seen forms, then held-out forms.
    assert curve.first_at_least("template") < curve.first_at_least("seen")
    heldout_90 = curve.first_at_least("heldout")
    assert heldout_90 is None or curve.first_at_least("seen") < heldout_90


def test_report_gives_the_logs_seen_90_step():
    measured = report._measure()
    rows = raw_rows()
    first = next(r for r in rows if r["fact_accuracy_seen"] >= 0.9)
    assert measured["seen_90_step"] == first["step"]
    assert measured["heldout_at_seen_90"] == first["fact_accuracy_heldout"]


def test_ffn_onset_by_hand(curve):
    rows = raw_rows()
    for block, onset in enumerate(curve.ffn_onset()):
        final = rows[-1]["ffn_seen"][block]
        if final <= 0:
            assert onset is None
            continue
        assert onset == next(r["step"] for r in rows if r["ffn_seen"][block] >= 0.5 * final)


def test_writers_are_the_attributions_averaged():
    model = weights.load(400)
    prompts = corpus.prompts("seen")[::150]
    w = writers.writers(model, prompts)
    parts = [attribution.attribute(model, p.words, p.answer) for p in prompts]
    assert w.count == len(prompts)
    for block in range(4):
        assert w.ffn[block] == pytest.approx(statistics.fmean(a.ffn[block] for a in parts), abs=1e-12)
        assert w.attn[block] == pytest.approx(statistics.fmean(a.attn[block] for a in parts), abs=1e-12)
    assert w.embedding == pytest.approx(statistics.fmean(a.embedding for a in parts), abs=1e-12)
    assert w.logit == pytest.approx(statistics.fmean(a.logit for a in parts), abs=1e-9)
    assert w.embedding + sum(w.attn) + sum(w.ffn) + w.constant == pytest.approx(w.logit, abs=1e-9)


@pytest.mark.parametrize("step", [400, None])
def test_the_logs_writer_terms_are_what_the_checkpoint_gives(step):
    step = weights.steps()[-1] if step is None else step
    row = next(r for r in raw_rows() if r["step"] == step)
    w = writers.writers(weights.load(step), corpus.prompts("seen"))
    assert list(w.ffn) == pytest.approx(row["ffn_seen"], abs=1e-4)
    assert list(w.attn) == pytest.approx(row["attn_seen"], abs=1e-4)


def test_the_logs_accuracies_are_what_every_shipped_checkpoint_gives():
    rows = {r["step"]: r for r in raw_rows()}
    for step in weights.steps():
        acc = ask.accuracy(weights.load(step))
        assert acc.seen == pytest.approx(rows[step]["fact_accuracy_seen"], abs=2e-3), step
        assert acc.heldout == pytest.approx(rows[step]["fact_accuracy_heldout"], abs=5e-3), step


def test_snapshot_is_the_pages_probes_on_the_checkpoint():
    model = weights.load(300)
    p = next(q for q in corpus.prompts("seen") if q.fact.country == "France" and q.fact.relation == "capital")
    keys = neurons.corpus_keys(model)
    snap = progress.snapshot(model, 300, p.words, p.answer, keys=keys)
    assert snap.step == 300 and snap.target == p.answer
    assert snap.next == ask.next_token(model, p.words, p.answer)
    assert snap.accuracy == ask.accuracy(model)
    assert snap.attribution == attribution.attribute(model, p.words, p.answer)
    assert snap.neurons == neurons.top_neurons(model, p.words, p.answer, keys=keys)
    # Without a known answer the attribution follows the model's own top word.
    free = progress.snapshot(model, 300, ("The", "capital", "of"), None, keys=keys)
    assert free.target == free.next.tokens[0]
