"""The glossary: the terms the pages use, their plain-words definitions (locale keys glossary.<id>.*),
and the one call a page makes where a term is first used.

`note(page, *ids)` draws a short line naming the terms with a "?" whose tooltip holds their plain words;
the glossary page (pages/9_glossary.py) lists them all with the precise note under each.
"""
from __future__ import annotations

import streamlit as st

from ui.base.i18n import Translator

TERMS: tuple[str, ...] = (
    "logit", "residual_stream", "logit_lens", "direct_logit_attribution", "jacobian", "equivariant", "affine",
    "least_squares", "rank", "singular_value", "fan_in", "xavier_kaiming", "full_batch_adam", "cross_entropy",
    "covariance", "outer_product", "c_inv_k", "symlog", "kink", "rmse", "self_attention", "embedding",
    "residual_connection", "layernorm", "relu_gelu", "glu", "gqa", "causal_mask", "active", "ablation", "checkpoint",
    "cosine_similarity", "softmax",
)

# Which terms each page explains, and in which order they first appear there (tests/ui/pages/test_glossary.py
# opens each page and finds each term's plain words in a help tooltip).
PAGE_TERMS: dict[str, tuple[str, ...]] = {
    "split": ("self_attention", "glu", "gqa", "layernorm", "embedding"),
    "position": ("self_attention", "causal_mask", "jacobian", "equivariant"),
    "collapse": ("affine", "least_squares", "rank", "singular_value"),
    "gated": ("glu", "affine", "least_squares", "relu_gelu"),
    "sweep": ("relu_gelu", "kink", "least_squares", "rmse"),
    "keyvalue": ("active", "full_batch_adam"),
    "sparsity": ("active", "relu_gelu", "fan_in", "xavier_kaiming", "full_batch_adam", "cross_entropy"),
    "gpt": ("logit", "softmax", "causal_mask", "embedding", "logit_lens", "residual_stream", "direct_logit_attribution",
            "checkpoint", "cosine_similarity"),
    "gptsurgery": ("ablation", "residual_stream", "outer_product", "rank", "covariance", "c_inv_k", "checkpoint", "active"),
    "moe": ("softmax", "jacobian", "ablation"),
}


def name(t: Translator, term: str) -> str:
    return t(f"glossary.{term}.term")


def definitions(t: Translator, *terms: str) -> str:
    """The tooltip's text: each term in bold with its plain words, one paragraph each."""
    return "\n\n".join(f"**{name(t, term)}**: {t(f'glossary.{term}.plain')}" for term in terms)


def note(t: Translator, *terms: str) -> None:
    """A small line naming the terms, its "?" holding what they mean in plain words."""
    st.caption(t("glossary.note", terms=" · ".join(name(t, term) for term in terms)), help=definitions(t, *terms))
