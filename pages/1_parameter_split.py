"""Parameter split: attention (4d²) against the FFN (8d²), counted from torch modules beside the formula."""
from fractions import Fraction

import pandas as pd
import streamlit as st

from ffn_core import model_counts, params, presets
from ui import widgets
from ui.base import text
from ui.charts import split as charts
from ui.compute import cache
from ui.kit import controls, glossary, lede, shell
from ui.questions import quiz
from ui.questions import split as questions
from ui.verdicts import split as verdicts

page = shell.setup("split")
t = page.t

st.title(t("split.title"))
lede.lesson(page, t("split.lesson"), [
    r"P_{\mathrm{attn}} = \underbrace{2\,d\,(h\,d_h)}_{W_q,\ W_o} + \underbrace{2\,d\,(h_{kv}\,d_h)}_{W_k,\ W_v}"
    r"\qquad P_{\mathrm{FFN}} = 2\,d\,d_{ff}\ \ (\mathrm{GLU}{:}\ 3\,d\,d_{ff})",
    r"h_{kv} = h,\ d_{ff} = 4d:\qquad \frac{P_{\mathrm{FFN}}}{P_{\mathrm{attn}} + P_{\mathrm{FFN}}} = \frac{8d^2}{4d^2 + 8d^2} = \frac{2}{3}",
])
glossary.note(t, "self_attention", "glu", "gqa", "layernorm", "embedding")


@cache.cached(max_entries=64)
def count_block(d: int, expansion: str, n_heads: int, n_kv_heads: int, bias: bool, glu: bool) -> params.Split:
    return params.split(d, expansion, n_heads, n_kv_heads, bias, glu)


@cache.cached(max_entries=1)
def count_models() -> tuple[model_counts.Catalogue, pd.DataFrame, pd.DataFrame]:
    catalogue = model_counts.catalogue()
    return catalogue, catalogue.to_frame(), catalogue.parts_frame()


@cache.cached(max_entries=1)
def count_causes() -> tuple[model_counts.Causes, ...]:
    return tuple(model_counts.causes(i) for i in verdicts.PAST_EIGHTY)


def causes_frame(causes: tuple[model_counts.Causes, ...]) -> pd.DataFrame:
    rows = [(c.name, step, share) for c in causes
            for step, share in (("base", c.base_share), ("gqa", c.gqa_share), ("wide", c.wide_share), ("both", c.share))]
    return pd.DataFrame(rows, columns=["name", "step", "share"])


def formula_text(s: params.Split) -> tuple[str, str]:
    d_q, d_kv = s.n_heads * s.head_dim, s.n_kv_heads * s.head_dim
    attention = f"2·{s.d_model}·{d_q} + 2·{s.d_model}·{d_kv}" + (f" + ({d_q} + 2·{d_kv} + {s.d_model})" if s.bias else "")
    matrices = 3 if s.glu else 2
    feed_forward = f"{matrices}·{s.d_model}·{s.d_ff}" + (f" + ({matrices - 1}·{s.d_ff} + {s.d_model})" if s.bias else "")
    return attention, feed_forward


@shell.part
def block_section() -> None:
    headline = lede.headline_slot()  # the measured headline, above the fold on a projector
    asking = st.container()  # the questions, filled once the block they are about is counted

    st.header(t("split.block_heading"))
    st.markdown(t("split.block_lesson"))
    left, right = st.columns(2, gap="large")
    more_left, more_right = lede.less_used(page, 2) if page.phone else (left, right)
    d = controls.draw(page, "d", left)
    expansion = controls.draw(page, "expansion", left)
    bias = controls.draw(page, "bias", more_left)
    glu = controls.draw(page, "glu", more_left)
    n_heads = controls.draw(page, "heads", right)
    n_kv_heads = controls.draw(page, "kv_heads", more_right)  # only divisors of h, so no bad pair can be chosen

    if d % n_heads:  # a hand-typed link can carry a width off the slider's steps
        st.warning(t("split.bad_d", d=d, heads=n_heads))
        st.stop()

    s = count_block(d, expansion, n_heads, n_kv_heads, bias, glu)
    full = count_block(d, expansion, n_heads, n_heads, bias, glu)
    asked = quiz.questions(page, questions.block(s, expansion), asking, measured=("block", {"split": s}))
    lede.headline(page, headline, asked,
                  (t("split.metric_attention"), f"{s.attention_params:,}", t("split.metric_attention_help")),
                  (t("split.metric_ffn"), f"{s.ffn_params:,}", t("split.metric_ffn_help")),
                  (t("split.metric_share"), f"{s.ffn_share:.2%}", t("split.metric_share_help")))
    exact = Fraction(expansion) * d
    st.caption(t("split.d_ff_caption", expansion=expansion, d=d, d_ff=f"{s.d_ff:,}", head_dim=s.head_dim,
                 exact=f"{exact.numerator:,}" if exact.denominator == 1 else f"{float(exact):,.2f}"))
    if quiz.shown(page, asked):
        widgets.chart(page, charts.block_bar, s.to_frame(), t)
        st.caption(t("split.norms_caption", norms=f"{s.norm_params:,}", norm_share=f"{s.norm_params / s.block_params:.2%}"))

        st.subheader(t("split.formula_heading"))
        attention_text, ffn_text = formula_text(s)
        formulas = pd.DataFrame({
            t("split.col_part"): [t("split.part_attention"), t("split.part_ffn")],
            t("split.col_modules"): [s.attention_params, s.ffn_params],
            t("split.col_formula"): [attention_text, ffn_text],
            t("split.col_value"): [s.attention_formula, s.ffn_formula],
        })
        widgets.table(page, formulas, "split_block.csv")
        widgets.verdict(page, verdicts.judge_block(s, expansion, full.attention_params))


block_section()


@shell.part
def models_section() -> None:
    st.header(t("split.models_heading"))
    st.markdown(t("split.models_lesson"))
    catalogue, table, parts = count_models()
    model_id = controls.draw(page, "model")
    m = catalogue.models[presets.IDS.index(model_id)]
    model_asked = quiz.questions(page, (questions.model(m),), measured=("model", {"model": m}))
    if quiz.shown(page, model_asked):
        c1, c2, c3, c4 = st.columns(4)
        c1.metric(t("split.metric_model_block"), f"{m.block.ffn_share:.2%}")
        c2.metric(t("split.metric_model_ffn"), f"{m.ffn_share_of_model:.2%}")
        c3.metric(t("split.metric_model_total"), text.model_size(m.total), help=t("split.metric_model_total_help"))
        c4.metric(t("split.metric_model_published"), m.published_text)
        st.caption(t("split.model_caption", source=f"[{m.config.name}]({m.config.url})",
                     total_source=f"[{m.published.name}]({m.published.url})", gap=f"{m.total_gap:+.2%}"))
        widgets.chart(page, charts.model_bars, parts, t, model_id)
        widgets.chart(page, charts.share_bars, table, t)
        shown = table.rename(columns={
            "name": t("split.col_name"), "d_model": t("split.col_d_model"), "d_ff": t("split.col_d_ff"),
            "n_layers": t("split.col_layers"), "n_heads": t("split.col_heads"), "n_kv_heads": t("split.col_kv_heads"),
            "glu": t("split.col_glu"), "bias": t("split.col_bias"), "attention_params": t("split.col_attention"),
            "ffn_params": t("split.col_ffn"), "ffn_share": t("split.col_share"), "total_params": t("split.col_total"),
            "published_total": t("split.col_published"), "total_gap": t("split.col_gap"), "source": t("split.col_source"),
        })
        widgets.table(page, shown.drop(columns=["id", "source_url"]), "model_presets.csv",
                      first=(t("split.col_share"), t("split.col_total"), t("split.col_published"), t("split.col_gap")))

    st.subheader(t("split.causes_heading"))
    # The causes chart ends on LLaMA-2 70B's and Mistral 7B's shares, and the takeaway names the chosen
    # model's: both answer the model question, so both wait for it.
    if quiz.shown(page, model_asked):
        causes = count_causes()
        widgets.chart(page, charts.cause_bars, causes_frame(causes), t)
        widgets.verdict(page, verdicts.judge_models(catalogue, causes, m))
    widgets.show_code(page, params.block, params.attention_formula, params.ffn_formula, model_counts.model, model_counts.causes)


models_section()
