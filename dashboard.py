"""FFN Lab's home page: what the feed-forward network is, where it sits, and the map of demos.

The same file is the entry `streamlit run dashboard.py` starts the server from: Streamlit reads it for
an `st.App` (an assignment `app = st.App(...)`, found by reading the source, not by running it), then
imports it as the module `dashboard` to serve that App. Each visit of the home page runs the file
again as `__main__`, which draws the page; the import only builds the server (ui/server.py).
"""
import pandas as pd
import streamlit as st

from ffn_core import params
from ffn_core.gpt import weights
from ui import server, widgets
from ui.charts import home as charts
from ui.compute import cache
from ui.kit import lede, shell
from ui.registry import catalog, links
from ui.verdicts import home as verdicts

D_MODEL = 512  # the seed text's worked example


@cache.cached(max_entries=4)
def block_split(d_model: int) -> tuple[params.Split, pd.DataFrame]:
    split = params.split(d_model, "4")
    parts = split.to_frame().groupby("part", as_index=False)["params"].sum()
    parts["share"] = parts["params"] / split.block_params
    return split, parts


def home() -> None:
    """Draw the home page."""
    page = shell.setup("home")
    t = page.t

    st.title(t("home.title"))
    lede.lesson(page, t("home.lesson"), [r"\mathrm{FFN}(x) = W_2\,\mathrm{act}(W_1 x + b_1) + b_2,\qquad W_1 \in \mathbb{R}^{m\times d},\; W_2 \in \mathbb{R}^{d\times m}"])

    split, parts = block_split(D_MODEL)
    st.subheader(t("home.block_heading"))
    # Six boxes in a row shrink to unreadable type on a phone's 390 pixels: there the block reads top down.
    st.graphviz_chart(
        f"""digraph {{
      rankdir={"TB" if page.phone else "LR"}; bgcolor="transparent";
      node [shape=box, style="rounded,filled", fontname="sans-serif", fontsize=13, fillcolor="#f3f4f6"];
      edge [color="#6b7280"];
      x [label="{t('home.node_tokens')}"];
      attn [label="{t('home.node_attention')}", fillcolor="#dbeafe"];
      add1 [label="+", shape=circle, width=0.35];
      ffn [label="{t('home.node_ffn')}", fillcolor="#ffedd5"];
      add2 [label="+", shape=circle, width=0.35];
      out [label="{t('home.node_next')}"];
      x -> attn -> add1 -> ffn -> add2 -> out;
      x -> add1 [style=dashed]; add1 -> add2 [style=dashed];
    }}""",
        width="content" if page.phone else "stretch",  # stretched top-down, six boxes would fill three screens
    )
    st.caption(t("home.block_caption"))

    st.subheader(t("home.numbers_heading", d=D_MODEL))
    attention_metric, ffn_metric, share_metric = st.columns(3)
    attention_metric.metric(t("home.metric_attention"), f"{split.attention_params:,}", help=t("home.metric_attention_help"))
    ffn_metric.metric(t("home.metric_ffn"), f"{split.ffn_params:,}", help=t("home.metric_ffn_help"))
    share_metric.metric(t("home.metric_share"), f"{split.ffn_share:.4f}", help=t("home.metric_share_help"))
    widgets.chart(page, charts.block_bar, parts, t)
    widgets.verdict(page, verdicts.judge(split))

    st.header(t("home.map_heading", n=len(catalog.DEMOS)))
    st.markdown(t("home.map_lesson"))
    demos = catalog.DEMOS
    for index, (section, path, icon) in enumerate(demos):
        if index % 3 == 0:  # a row at a time, so the cards read left to right in lesson order
            columns = st.columns(3, gap="medium")
        with columns[index % 3].container(border=True):
            widgets.page_link(st, path, label=f"**{index + 1}. {t(f'{section}.title')}**", icon=icon,
                              query_params=links.app_link_params(page))
            # The GPT's card cites its depth, read from the shipped config rather than written in the text.
            st.markdown(t(f"{section}.summary", blocks=weights.config().n_layer))

    st.header(t("home.class_heading"))
    st.markdown(t("home.class_lesson"))
    widgets.show_code(page, params.block, params.split)


if __name__ == "__main__":
    home()
else:
    app = st.App(__file__, lifespan=server.lifespan, routes=server.routes())
