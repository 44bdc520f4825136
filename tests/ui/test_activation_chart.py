"""The activations chart draws the FFN's own modules: its slopes match the sweep's hand-written derivatives."""
import math

import pytest
import torch

from ffn_core import ffn
from ffn_core.sweep import net1d
from ui.base import i18n
from ui.charts import activations


def _panel(frame, act, kind):
    rows = frame[(frame["act"] == act) & (frame["kind"] == kind)]
    return torch.tensor(rows["z"].to_numpy()), torch.tensor(rows["y"].to_numpy())


@pytest.mark.parametrize("act", net1d.ACTS)
def test_values_and_slopes_match_the_sweeps_network(act):
    frame = activations.frame()
    z, value = _panel(frame, act, "value")
    _, slope = _panel(frame, act, "slope")
    assert torch.allclose(value, net1d.act_fn(act, z), atol=1e-12)
    assert torch.allclose(slope, net1d.act_grad(act, z), atol=1e-12)


def test_silu_slope_is_the_closed_form():
    z, slope = _panel(activations.frame(), "silu", "slope")
    expected = [1 / (1 + math.exp(-x)) * (1 + x * (1 - 1 / (1 + math.exp(-x)))) for x in z.tolist()]
    assert torch.allclose(slope, torch.tensor(expected, dtype=torch.float64), atol=1e-12)


def test_every_nonlinear_activation_of_the_ffn_is_drawn_in_both_languages():
    assert set(activations.frame()["act"]) == set(ffn.NONLINEAR) == set(ffn.ACTIVATIONS) - {"none"}
    for lang in i18n.LANGS:
        spec = activations.activations("gelu", i18n.Translator(lang)).to_dict()
        assert spec["facet"]["column"]["field"] == "panel"
