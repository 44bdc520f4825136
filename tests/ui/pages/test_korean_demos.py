"""The Korean pages of the width sweep, key-value memory and activation sparsity carry no English prose:
every word in Latin letters is a name (a model, an author, a paper, an activation), code or a formula's symbol."""
import pytest

from tests.conftest import open_page
from tests.ui.pages.test_korean import NAMES, english_words

VIEWS = [
    ("pages/5_width_sweep.py", {}),
    ("pages/5_width_sweep.py", {"target": "|x|", "method": "both", "expansion": "true"}),
    ("pages/5_width_sweep.py", {"act": "gelu", "target": "step(x)"}),
    ("pages/5_width_sweep.py", {"target": "custom", "expr": "x-x"}),
    ("pages/6_key_value.py", {}),
    ("pages/6_key_value.py", {"d": "16", "m": "32", "n": "256", "steps": "400"}),
    ("pages/6_key_value.py", {"steps": "0"}),
    ("pages/7_activation_sparsity.py", {}),
    ("pages/7_activation_sparsity.py", {"act": "silu", "task": "random_labels", "steps": "0"}),
]
# Beyond the names the other pages keep: the papers cited here and their venues, the models measured,
# the optimiser, the initialisations, the target functions' notation.
DEMO_NAMES = NAMES | {
    "Geva", "et", "al", "Are", "Key", "Value", "Memories", "Feed", "Forward", "Layers", "EMNLP", "Li", "Lazy",
    "Neuron", "Phenomenon", "ICLR", "Base", "ViT", "B", "Adam", "RMSE", "MSE", "Xavier", "Kaiming", "U", "fan_in",
    "The", "sawtooth", "step", "abs", "cos", "tan", "tanh", "log", "sqrt", "pi", "x", "f", "gelu", "silu", "z", "d", "m",
    "dz",  # the slope panel's label, d act / dz, now also a value in the chart's table
}


@pytest.mark.parametrize("path, query", VIEWS)
def test_korean_demo_pages_have_no_english_prose(path, query):
    at = open_page(path, "ko", **query)
    assert not at.exception
    english = english_words(at, DEMO_NAMES)
    assert english == set(), sorted(english)
