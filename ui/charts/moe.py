"""The mixture-of-experts page's charts: tokens per expert, total against active weights, the trained routes."""
from __future__ import annotations

import altair as alt
import pandas as pd

from ui.base.i18n import Translator
from ui.charts import encode, palette

K_COLORS = list(palette.CATEGORICAL)
EXPERT_COLORS = list(palette.CATEGORICAL)
# The idle weights are the larger part of a bar: a grey that still has 3:1 on white, behind the active blue.
PART_COLORS = {"active": palette.BLUE, "idle": palette.MUTED}
WHEN_COLORS = {"before": palette.MUTED, "after": palette.RED}


def _share_bars(data: pd.DataFrame, rows: str, share: str, title: str, part: str, parts: list[str],
                colors: list[str], tips: list[alt.Tooltip], **encoding) -> alt.Chart:
    """Horizontal bars of a share of a whole (0 to 100 %), a row per `rows` in the frame's order, coloured by `part`;
    the tooltip names the row and the part, then `tips`, then the share."""
    tooltip = [alt.Tooltip(field=rows, type="nominal"), alt.Tooltip(field=part, type="nominal"), *tips,
               alt.Tooltip(field=share, type="quantitative", format=".1%")]
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            y=alt.Y(field=rows, type="nominal", title=None, sort=None),
            x=encode.share(alt.X, share, title),
            color=encode.colour(part, parts, colors),
            tooltip=tooltip,
            **encoding,
        )
    )


def tokens_per_expert(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """Slots routed to each expert, one bar group per k; the even share is each k's n·k / E."""
    data = frame.assign(k_label=frame["k"].map(lambda k: t("moe.k_label", k=k)),
                        expert_label=frame["expert"].map(lambda e: str(e + 1)))
    ks = [t("moe.k_label", k=k) for k in sorted(frame["k"].unique())]
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X(field="expert_label", type="ordinal", title=t("moe.axis_expert"), sort=None),
            xOffset=alt.XOffset(field="k_label", type="nominal"),
            y=alt.Y(field="tokens", type="quantitative", title=t("moe.axis_tokens")),
            color=encode.colour("k_label", ks, K_COLORS[: len(ks)]),
            tooltip=[alt.Tooltip(field="k_label", type="nominal", title="k"),
                     alt.Tooltip(field="expert_label", type="ordinal", title=t("moe.axis_expert")),
                     alt.Tooltip(field="tokens", type="quantitative", title=t("moe.axis_tokens")),
                     alt.Tooltip(field="mean_prob", type="quantitative", title=t("moe.col_mean_prob"), format=".3f")],
        )
        .properties(height=300)
    )


def total_active(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """Per model, the weights one token uses beside those it does not, as shares of the total."""
    rows = []
    for row in frame.itertuples():
        rows += [{"name": row.name, "part": t("moe.part_active"), "share": row.active_share,
                  "params": row.active / 1e9},
                 {"name": row.name, "part": t("moe.part_idle"), "share": 1 - row.active_share,
                  "params": (row.total - row.active) / 1e9}]
    return _share_bars(
        pd.DataFrame(rows), "name", "share", t("moe.axis_share"), "part",
        [t("moe.part_active"), t("moe.part_idle")], list(PART_COLORS.values()),
        [alt.Tooltip(field="params", type="quantitative", title=t("moe.col_billions"), format=".2f")],
        order=alt.Order(field="part", sort="ascending"),
    ).properties(height=200)


def routes(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """For one block: each group's prompts split over the experts (share of the group), a row per group."""
    data = frame.copy()
    totals = data.groupby("group")["prompts"].transform("sum")
    data["share"] = data["prompts"] / totals.where(totals > 0, 1)
    data["expert_label"] = data["expert"].map(lambda e: t("moe.expert_label", e=e + 1))
    data["group_label"] = data.apply(
        lambda r: t(f"gpt.relation_{r['group']}") if r["group_kind"] == "relation" else t(f"gpt.lang_{r['group']}"),
        axis=1)
    experts = [t("moe.expert_label", e=e + 1) for e in sorted(data["expert"].unique())]
    return _share_bars(
        data, "group_label", "share", t("moe.axis_route_share"), "expert_label", experts,
        EXPERT_COLORS[: len(experts)],
        [alt.Tooltip(field="prompts", type="quantitative", title=t("moe.col_prompts"))],
        order=alt.Order(field="expert", sort="ascending"),
    ).properties(height=260)


def ablation(frame: pd.DataFrame, t: Translator) -> alt.Chart:
    """Fact accuracy per relation and language, before and with the expert zeroed."""
    rows = []
    for row in frame.itertuples():
        label = f"{t(f'gpt.relation_{row.relation}')} · {t(f'gpt.lang_{row.lang}')}"
        rows += [{"group": label, "when": t("moe.when_before"), "accuracy": row.before / row.prompts},
                 {"group": label, "when": t("moe.when_after"), "accuracy": row.after / row.prompts}]
    return _share_bars(
        pd.DataFrame(rows), "group", "accuracy", t("moe.axis_accuracy"), "when",
        [t(f"moe.when_{w}") for w in WHEN_COLORS], list(WHEN_COLORS.values()),
        [],
        yOffset=alt.YOffset(field="when", type="nominal"),
    ).properties(height=340)
