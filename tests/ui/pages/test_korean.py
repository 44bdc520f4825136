"""The Korean pages of home, split, position-wise and collapse carry no English prose: every word
in Latin letters is a name (a model, an author, an activation), a code name or a formula's symbol."""
import re

import pytest

from tests.conftest import open_page

VIEWS = [
    ("dashboard.py", {}),
    ("pages/1_parameter_split.py", {"model": "mistral-7b", "bias": "true", "kv_heads": "2"}),
    ("pages/2_position_wise.py", {"causal": "true", "n": "4"}),
    ("pages/3_linear_collapse.py", {"m": "16"}),
    ("pages/3_linear_collapse.py", {"act": "relu"}),
]
# Names kept as written in Korean text: models and their makers, authors, activations, libraries,
# a paper's title, and the short symbols of the formulas.
NAMES = {
    "FFN", "GLU", "GQA", "SwiGLU", "ReLU", "GELU", "SiLU", "LayerNorm", "RMSNorm", "BERT", "BertModel", "LLaMA",
    "Llama", "Mistral", "OpenAI", "PyTorch", "torch", "autograd", "nanoGPT", "Shazeer", "Jiang", "Touvron",
    "Devlin", "Roy", "Vetterli", "Hugging", "Face", "Lab", "GLU Variants Improve Transformer", "small", "medium",
    "large", "XL", "base", "meta", "perm", "max", "min", "sum", "exp", "mean", "act", "relu", "sin", "batch", "seq",
    "float", "Variants", "Improve", "Transformer", "CSV", "AI", "GPT", "Gemma", "Qwen", "Mixtral", "MoE", "DeepSeek",
}
CODE = re.compile(r"[_./*\-\d]|^[A-Z]_")  # config keys, file names, repository names, W_q


def _texts(at) -> list[str]:
    texts = []
    for kind in ("markdown", "caption", "success", "info", "error", "warning", "subheader", "header", "title"):
        texts += [e.value for e in at.get(kind) if "<style>" not in e.value]
    texts += [m.label for m in at.metric]
    for frame in (d.value for d in at.dataframe):
        texts += [str(c) for c in frame.columns]
        texts += [v for c in frame.columns for v in frame[c] if isinstance(v, str)]
    for widget in ("slider", "select_slider", "selectbox", "toggle", "number_input"):
        texts += [e.label for e in at.get(widget)]
    return texts


def english_words(at, names: set[str]) -> set[str]:
    """The words in Latin letters on a page that are neither names, code nor a formula's symbols."""
    english = set()
    for text in _texts(at):
        text = re.sub(r"\$[^$]*\$|`[^`]*`", " ", text)  # formulas and code spans
        text = re.sub(r"\[[^\]]*\]\([^)]*\)", " ", text)  # a cited source: its title is a name, its address no prose
        for word in re.findall(r"[A-Za-z][A-Za-z_./*\-\d]*", text):
            if len(word) > 1 and not CODE.search(word) and word not in names:
                english.add(word)
    return english


@pytest.mark.parametrize("path, query", VIEWS)
def test_korean_pages_have_no_english_prose(path, query):
    at = open_page(path, "ko", **query)
    assert not at.exception
    assert english_words(at, NAMES) == set()
