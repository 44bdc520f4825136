"""`python -m ffn_core.report`: the JSON contract of DESIGN.md and the seed's figures for seeds 0–4."""
import json
import subprocess
import sys
from fractions import Fraction

import pytest

from ffn_core import report
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
}
PRESET_KEYS = {"id", "name", "d_model", "d_ff", "glu", "n_heads", "n_kv_heads", "bias",
               "attention_params", "ffn_params", "ffn_share"}


@pytest.fixture(scope="module")
def cli_json():
    out = subprocess.run([sys.executable, "-m", "ffn_core.report", "--json", "--seed", "0"],
                         cwd=ROOT, capture_output=True, text=True, check=True, timeout=300)
    return json.loads(out.stdout)


def test_json_has_exactly_the_contract_keys(cli_json):
    assert set(cli_json) == set(CONTRACT) | {"model_presets"}
    for section, keys in CONTRACT.items():
        assert set(cli_json[section]) == keys, section
    for row in cli_json["width_sweep"]["rows"]:
        assert set(row) == {"width", "rmse", "kinks_inside", "best_rmse"}
    for preset in cli_json["model_presets"]:
        assert set(preset) == PRESET_KEYS
    ids = {p["id"] for p in cli_json["model_presets"]}
    assert {"gpt2-small", "bert-base", "llama2-7b", "llama2-70b", "mistral-7b"} <= ids


def test_markdown_table_prints_the_seed_figures():
    out = subprocess.run([sys.executable, "-m", "ffn_core.report", "--seed", "1"],
                         cwd=ROOT, capture_output=True, text=True, check=True, timeout=300).stdout
    assert out.startswith("| figure | seed text | measured |")
    assert "| attention params, d = 512 (4d²) | 1,048,576 | 1,048,576 |" in out
    assert "| FFN params, d = 512 (8d²) | 2,097,152 | 2,097,152 |" in out
    assert "0.6221" in out and "0.5030" in out


def test_bad_seed_is_refused_with_a_message():
    out = subprocess.run([sys.executable, "-m", "ffn_core.report", "--seed", "x"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 2 and "invalid int value" in out.stderr


@pytest.mark.parametrize("seed", range(5))
def test_figures_hold_for_seeds_0_to_4(seed):
    r = report.collect(seed)
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
    rows = r["width_sweep"]["rows"]
    assert [row["width"] for row in rows] == [2, 4, 8, 16, 32]
    for row in rows:
        assert 0 <= row["kinks_inside"] <= row["width"]
        assert row["best_rmse"] <= row["rmse"] + 1e-12
    for preset in r["model_presets"]:
        assert preset["ffn_share"] == pytest.approx(preset["ffn_params"] / (preset["ffn_params"] + preset["attention_params"]))
