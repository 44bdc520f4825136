"""The activations beside their slopes: ReLU a hard switch, GELU and SiLU smooth gates (width sweep, sparsity)."""
from __future__ import annotations

import math

import altair as alt
import pandas as pd

from ui.i18n import Translator

ACTS = ("relu", "gelu", "silu")
COLORS = {"relu": "#dc2626", "gelu": "#2563eb", "silu": "#16a34a"}


def _phi(z: float) -> float:
    return math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)


def _cdf(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


# act(z) and d act/dz: ReLU's slope jumps from 0 to 1 at z = 0 (a kink); GELU's Φ(z) + z·φ(z) and
# SiLU's σ(z)·(1 + z·(1 − σ(z))) pass smoothly through 1/2 there, and both dip below 0 for negative z.
FUNCTIONS = {
    "relu": (lambda z: max(z, 0.0), lambda z: 1.0 if z > 0 else 0.0),
    "gelu": (lambda z: z * _cdf(z), lambda z: _cdf(z) + z * _phi(z)),
    "silu": (lambda z: z * _sigmoid(z), lambda z: _sigmoid(z) * (1.0 + z * (1.0 - _sigmoid(z)))),
}


def frame(acts: tuple[str, ...] = ACTS, lo: float = -4.0, hi: float = 4.0, points: int = 161) -> pd.DataFrame:
    """Long rows: act, kind ("value" or "slope"), z, y."""
    zs = [lo + (hi - lo) * i / (points - 1) for i in range(points)]
    return pd.DataFrame([
        {"act": a, "kind": kind, "z": z, "y": f(z)}
        for a in acts for kind, f in zip(("value", "slope"), FUNCTIONS[a]) for z in zs
    ])


def activations(chosen: str, t: Translator, acts: tuple[str, ...] = ACTS) -> alt.FacetChart:
    """Two panels, act(z) and its slope; the chosen activation drawn bold, the others faint."""
    labels = {a: t(f"activations.{a}") for a in acts}
    data = frame(acts).assign(
        label=lambda d: d["act"].map(labels),
        panel=lambda d: d["kind"].map({"value": t("activations.panel_value"), "slope": t("activations.panel_slope")}),
        chosen=lambda d: d["act"] == chosen,
    )
    scale = alt.Scale(domain=[labels[a] for a in acts], range=[COLORS[a] for a in acts])
    line = alt.Chart().mark_line().encode(
        x=alt.X(field="z", type="quantitative", title="z"),
        y=alt.Y(field="y", type="quantitative", title=None),
        color=alt.Color(field="label", type="nominal", title=t("activations.legend"), scale=scale,
                        legend=alt.Legend(orient="bottom")),
        strokeWidth=alt.StrokeWidth(field="chosen", type="nominal", legend=None,
                                    scale=alt.Scale(domain=[True, False], range=[3.5, 1.2])),
        opacity=alt.Opacity(field="chosen", type="nominal", legend=None,
                            scale=alt.Scale(domain=[True, False], range=[1.0, 0.35])),
        tooltip=[alt.Tooltip(field="label", type="nominal", title=t("activations.legend")),
                 alt.Tooltip(field="z", type="quantitative", format=".2f"),
                 alt.Tooltip(field="y", type="quantitative", format=".3f")],
    )
    return alt.layer(line, width=260, height=180).facet(
        column=alt.Column(field="panel", type="nominal", title=None,
                          sort=[t("activations.panel_value"), t("activations.panel_slope")]),
        data=data,
    ).resolve_scale(y="independent")
