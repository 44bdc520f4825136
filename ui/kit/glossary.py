"""The glossary: the terms the pages use, their plain-words definitions (locale keys glossary.<id>.*),
and the one call a page makes where a term is first used.

`note(t, *ids)` draws a short line naming the terms with a "?" whose tooltip holds their plain words;
the glossary page (pages/11_glossary.py) lists them all with the precise note under each.
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


def name(t: Translator, term: str) -> str:
    return t(f"glossary.{term}.term")


def definitions(t: Translator, *terms: str) -> str:
    """The tooltip's text: each term in bold with its plain words, one paragraph each."""
    return "\n\n".join(f"**{name(t, term)}**: {t(f'glossary.{term}.plain')}" for term in terms)


def note(t: Translator, *terms: str) -> None:
    """A small line naming the terms, its "?" holding what they mean in plain words."""
    st.caption(t("glossary.note", terms=" · ".join(name(t, term) for term in terms)), help=definitions(t, *terms))
