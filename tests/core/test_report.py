"""`python -m ffn_core.report`: the JSON contract of DESIGN.md and the seed's figures for seeds 0–4."""
import json
import subprocess
import sys
from fractions import Fraction

import pytest

from ffn_core import collapse, keyvalue, model_counts, params, position, report, sparsity
from ffn_core.sweep import lesson
from tests.conftest import ROOT

CONTRACT = {
    "parameter_split": {"d_model", "expansion", "attention_params", "ffn_params", "ffn_share", "seconds"},
    "linear_collapse": {"d_model", "d_ff", "rank", "two_layer_params", "single_matrix_params", "max_abs_residual", "seconds"},
    "position_wise": {"n_tokens", "d_model", "rowwise_max_abs_diff", "permutation_max_abs_diff", "seconds"},
    "width_sweep": {"target", "x_range", "points", "seconds", "rows"},
    "key_value": {"d_model", "d_ff", "max_abs_residual", "seconds"},
    "activation_sparsity": {"d_model", "d_ff", "n_tokens", "mean_active_fraction", "seconds"},
    "trained_gpt": {"d_model", "d_ff", "n_layers", "params", "ffn_share", "facts", "fact_accuracy", "heldout_accuracy",
                    "fact_accuracy_no_ffn", "template_accuracy", "template_accuracy_no_ffn", "active_fraction_init",
                    "active_fraction_final", "edit_success", "edit_other_facts_changed", "seen_90_step",
                    "heldout_at_seen_90", "seconds"},
    "gated_ffn": {"d_model", "d_ff", "bilinear_fit_error", "plain_collapse_residual", "silu_fit_error", "gated_params",
                  "plain_params", "gated_4d_params", "ffn_share", "relu_active_fraction", "gates", "seconds"},
    "moe": {"d_model", "d_ff", "n_experts", "k", "total_params", "active_params", "rowwise_max_abs_diff",
            "permutation_max_abs_diff", "off_diagonal_fraction", "routing", "presets", "trained", "seconds"},
}
PRESET_KEYS = {"id", "name", "d_model", "d_ff", "glu", "n_heads", "n_kv_heads", "bias",
               "attention_params", "ffn_params", "ffn_share"}


def test_json_has_exactly_the_contract_keys(report_run):
    cli_json = report_run.json
    assert [row["width"] for row in cli_json["width_sweep"]["rows"]] == [2, 4, 8, 16, 32]
    for row in cli_json["width_sweep"]["rows"]:
        assert 0 <= row["kinks_inside"] <= row["width"]
        assert row["best_rmse"] <= row["rmse"] + 1e-12
    assert set(cli_json) == set(CONTRACT) | {"model_presets"}
    for section, keys in CONTRACT.items():
        assert set(cli_json[section]) == keys, section
    for row in cli_json["width_sweep"]["rows"]:
        assert set(row) == {"width", "rmse", "kinks_inside", "best_rmse"}
    for preset in cli_json["model_presets"]:
        assert set(preset) == PRESET_KEYS
    ids = {p["id"] for p in cli_json["model_presets"]}
    assert {"gpt2-small", "bert-base", "llama2-7b", "llama2-70b", "mistral-7b"} <= ids


def _table(markdown: str) -> dict[str, tuple[str, str]]:
    """The figures table as {figure: (seed text, measured)}."""
    rows = {}
    for line in markdown.split("\n\n")[0].splitlines()[2:]:
        figure, seed_text, measured = (cell.strip() for cell in line.strip("|").split(" | "))
        rows[figure] = (seed_text, measured)
    return rows


def test_markdown_prints_what_was_measured_beside_the_seed(report_run):
    r, out = report_run.json, report_run.markdown
    assert report_run.stdout == out  # the printed table is the written one
    assert out.startswith("| figure | seed text | measured |")
    rows = _table(out)
    assert rows["attention params, d = 512 (4d²)"] == ("1,048,576", "1,048,576")
    assert rows["FFN params, d = 512 (8d²)"] == ("2,097,152", "2,097,152")
    # The measured column carries this run's numbers, not the seed's (which the seed column prints).
    for row in r["width_sweep"]["rows"]:
        figure = next(f for f in rows if f.endswith(f"m = {row['width']}: RMSE (best found)"))
        seed_text, measured = rows[figure]
        assert measured == f"{row['rmse']:.4f} ({row['best_rmse']:.4f})"
        assert seed_text == f"{lesson.SEED_RMSE[row['width']]:.4f}"
        assert rows[f"m = {row['width']}: kinks inside the range"][1] == str(row["kinks_inside"])
    # The width-2 net's RMSE is measured, and a trained two-kink fit is not the seed's 0.6221 to 4 digits.
    assert 0.3 < r["width_sweep"]["rows"][0]["rmse"] < 0.7
    active = r["activation_sparsity"]
    figure = f"active neurons per token at init ({active['n_tokens']} tokens)"
    assert rows[figure] == (f"{report.SEED_ACTIVE:.4f}", f"{active['mean_active_fraction']:.4f}")
    assert abs(float(rows[figure][1]) - 0.5) < 0.01  # half the ReLUs fire at init, measured
    for figure, section in (("one-matrix replacement, max abs residual", "linear_collapse"),
                            ("key-value sum vs FFN(x), max abs residual", "key_value")):
        assert rows[figure][1] == f"{r[section]['max_abs_residual']:.1e}"
        assert float(rows[figure][1]) <= 1e-12
    g = r["trained_gpt"]
    figure = "trained GPT: fact accuracy, every FFN zeroed"
    assert rows[figure][1] == f"{g['fact_accuracy_no_ffn']:.3f}"
    total = sum(section["seconds"] for section in r.values() if isinstance(section, dict))
    assert out.rstrip().endswith(f"Measured in {total:.2f} s.")


def test_nothing_the_app_runs_loads_sympy_or_the_ui(report_run):
    # torch loads sympy (with torch.fx) for vmap, meta-device modules, autograd's grad_outputs and
    # torch.optim's first step: 0.7-2 s on the first such experiment a fresh server runs, and ~40 MB
    # it keeps for good. The report runs every experiment at the lesson's settings, and the width
    # sweep's other method and activation run too (tests/core/conftest.py); none of them needs it.
    assert report_run.modules == []


def test_bad_seed_is_refused_with_a_message():
    out = subprocess.run([sys.executable, "-m", "ffn_core.report", "--seed", "x"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 2 and "invalid int value" in out.stderr


def _seeded_sections(seed: int) -> dict:
    # The sections whose figures this test checks at every seed. The width sweep's rows (its default
    # sweep at seeds 0-4: tests/core/test_sweep.py) and the trained GPT's (the slowest section) are
    # checked on the session's run at seed 0.
    return {
        "parameter_split": params.report(seed),
        "linear_collapse": collapse.report(seed),
        "position_wise": position.report(seed),
        "key_value": keyvalue.report(seed),
        "activation_sparsity": sparsity.report(seed),
        "model_presets": model_counts.report(),
    }


@pytest.mark.parametrize("seed", range(5))
def test_figures_hold_for_seeds_0_to_4(seed, report_run):
    r = report_run.json if seed == 0 else _seeded_sections(seed)
    split = r["parameter_split"]
    assert (split["d_model"], split["attention_params"], split["ffn_params"]) == (512, 1_048_576, 2_097_152)
    assert Fraction(split["ffn_params"], split["attention_params"] + split["ffn_params"]) == Fraction(2, 3)
    lin = r["linear_collapse"]
    assert (lin["rank"], lin["two_layer_params"], lin["single_matrix_params"]) == (64, 32_768, 4_096)
    assert lin["max_abs_residual"] <= 1e-12
    pos = r["position_wise"]
    assert pos["rowwise_max_abs_diff"] <= 1e-12 and pos["permutation_max_abs_diff"] <= 1e-12
    assert r["key_value"]["max_abs_residual"] <= 1e-12
    assert 0.49 <= r["activation_sparsity"]["mean_active_fraction"] <= 0.51
    for preset in r["model_presets"]:
        assert preset["ffn_share"] == pytest.approx(preset["ffn_params"] / (preset["ffn_params"] + preset["attention_params"]))


def test_gated_ffn_section(report_run):
    g = report_run.json["gated_ffn"]
    d = g["d_model"]
    assert g["d_ff"] * 3 == 8 * d
    assert g["gated_params"] == g["plain_params"] == 8 * d * d and g["gated_4d_params"] == 12 * d * d
    assert g["ffn_share"] == pytest.approx(2 / 3)
    # No collapse without the activation: the best affine map explains nothing; the plain linear FFN is one matrix.
    assert g["bilinear_fit_error"] > 0.9 and g["plain_collapse_residual"] < 1e-13
    assert set(g["gates"]) == {"silu", "gelu", "relu"} and g["gates"]["relu"]["leak"] == 0.0
    assert g["relu_active_fraction"] + g["gates"]["relu"]["turned_down"] == pytest.approx(1.0)
    rows = _table(report_run.markdown)
    assert rows["gated FFN's share of the block"] == ("8/12", "0.6667")


def test_moe_section(report_run):
    m = report_run.json["moe"]
    assert m["rowwise_max_abs_diff"] < 1e-14 and m["permutation_max_abs_diff"] < 1e-14 and m["off_diagonal_fraction"] == 0
    for r in m["routing"]:
        assert sum(r["tokens_per_expert"]) == 256 * r["k"]
    published = {p["id"]: p for p in m["presets"]}
    assert set(published) == {"mixtral-8x7b", "deepseek-v3", "qwen3-235b-a22b"}
    assert round(published["mixtral-8x7b"]["total"] / 1e9, 1) == 46.7
    assert round(published["mixtral-8x7b"]["active"] / 1e9, 1) == 12.9
    assert round(published["deepseek-v3"]["total"] / 1e9) == 671
    assert round(published["qwen3-235b-a22b"]["total"] / 1e9) == 235
    assert round(published["qwen3-235b-a22b"]["active"] / 1e9) == 22
    t = m["trained"]
    assert t["fact_accuracy"] > 0.95
    assert t["block1_costliest_expert"]["facts_fallen"] > 0
    assert len(t["balance_loss"]) == t["n_layers"] and all(b > 0 for b in t["balance_loss"])
