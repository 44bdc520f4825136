"""A choice in a link works whichever way it is written: its id, or its label in either language."""
import pytest

from tests.conftest import open_page
from ui.base import i18n

CASES = [
    ("pages/2_position_wise.py", "act", "gelu", "position.act_gelu"),
    ("pages/2_position_wise.py", "perm", "reverse", "position.perm_reverse"),
    ("pages/3_linear_collapse.py", "act", "relu", "collapse.act_relu"),
    ("pages/5_width_sweep.py", "method", "naive", "sweep.method_naive"),
    ("pages/7_activation_sparsity.py", "init", "xavier", "sparsity.init_xavier"),
    ("pages/7_activation_sparsity.py", "task", "random_labels", "sparsity.task_random_labels"),
]


@pytest.mark.parametrize(("path", "key", "option", "label_key"), CASES)
@pytest.mark.parametrize("lang", i18n.LANGS)
def test_a_choice_by_id_or_by_either_languages_label(path, key, option, label_key, lang):
    other = "en" if lang == "ko" else "ko"
    for written in (option, i18n.Translator(other)(label_key), i18n.Translator(lang)(label_key)):
        at = open_page(path, lang, **{key: written})
        assert not at.exception
        widget = at.selectbox(key=key) if key not in ("method", "task") else at.radio(key=key)
        assert widget.value == option, (written, widget.value)


def test_an_unknown_choice_still_falls_back_to_the_default():
    at = open_page("pages/3_linear_collapse.py", "en", act="tanh")
    assert not at.exception
    assert at.selectbox(key="act").value == "none"
