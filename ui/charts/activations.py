"""The activations beside their slopes: ReLU a hard switch, GELU and SiLU smooth gates (width sweep, sparsity)."""
from __future__ import annotations

import altair as alt
import pandas as pd
import torch

from ffn_core import ffn
from ui.base.i18n import Translator
from ui.charts import encode, palette

COLORS = palette.ACTIVATION
# The activations not chosen recede by a dash, a thinner line and this little fade, no more: every colour
# of COLORS keeps 3:1 on white at it (tests/ui/test_palette.py).
FADED = 0.9


def frame(acts: tuple[str, ...] = ffn.NONLINEAR, lo: float = -4.0, hi: float = 4.0, points: int = 161) -> pd.DataFrame:
    """Long rows: act, kind ("value" or "slope"), z, y.

    The values and slopes are those of the very modules the FFN runs (ffn.activation), the slopes by
    autograd: ReLU's jumps from 0 to 1 at z = 0 (a kink); GELU's and SiLU's pass smoothly through 1/2
    there and dip below 0 for negative z.
    """
    z = torch.linspace(lo, hi, points, dtype=torch.float64, requires_grad=True)
    rows = []
    for a in acts:
        value = ffn.activation(a)(z)
        (slope,) = torch.autograd.grad(value.sum(), z)
        for kind, ys in (("value", value.detach()), ("slope", slope)):
            rows.append(pd.DataFrame({"act": a, "kind": kind, "z": z.detach().numpy(), "y": ys.numpy()}))
    return pd.concat(rows, ignore_index=True)


def activations(chosen: str, t: Translator, acts: tuple[str, ...] = ffn.NONLINEAR) -> alt.FacetChart:
    """Two panels, act(z) and its slope; the chosen activation bold, the others thin, dashed, slightly faded."""
    labels = {a: t(f"activations.{a}") for a in acts}
    data = frame(acts).assign(
        label=lambda d: d["act"].map(labels),
        panel=lambda d: d["kind"].map({"value": t("activations.panel_value"), "slope": t("activations.panel_slope")}),
        chosen=lambda d: d["act"] == chosen,
    )
    line = alt.Chart().mark_line().encode(
        x=alt.X(field="z", type="quantitative", title="z"),
        y=alt.Y(field="y", type="quantitative", title=None),
        color=encode.colour("label", [labels[a] for a in acts], [COLORS[a] for a in acts], t("activations.legend"),
                            orient="bottom"),
        strokeWidth=alt.StrokeWidth(field="chosen", type="nominal", legend=None, title=t("activations.chosen"),
                                    scale=alt.Scale(domain=[True, False], range=[3.5, 1.6])),
        opacity=alt.Opacity(field="chosen", type="nominal", legend=None, title=t("activations.chosen"),
                            scale=alt.Scale(domain=[True, False], range=[1.0, FADED])),
        strokeDash=alt.StrokeDash(field="chosen", type="nominal", legend=None, title=t("activations.chosen"),
                                  scale=alt.Scale(domain=[True, False], range=[[1, 0], [5, 3]])),
        tooltip=[alt.Tooltip(field="label", type="nominal", title=t("activations.legend")),
                 alt.Tooltip(field="z", type="quantitative", format=".2f"),
                 alt.Tooltip(field="y", type="quantitative", format=".3f")],
    )
    return alt.layer(line, width=260, height=180).facet(
        # The header's title stays off the picture; the field's title names the column in the chart's table.
        column=alt.Column(field="panel", type="nominal", title=t("activations.panel"), header=alt.Header(title=None),
                          sort=[t("activations.panel_value"), t("activations.panel_slope")]),
        data=data,
    ).resolve_scale(y="independent")
