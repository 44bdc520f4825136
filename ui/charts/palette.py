"""Every colour the charts draw with, chosen for a student who sees colours differently or reads a projector.

- Each colour that marks something is at least 3:1 against the page's white (WCAG 2.2's non-text contrast).
  Presenter mode draws on the same white (the app has one light theme), with larger type only.
- The colours one chart tells apart stay at least 23 CIE76 units apart (ten just-noticeable differences)
  with normal vision and under simulated protanopia, deuteranopia and tritanopia (tests/ui/test_palette.py).
  A colour is never a chart's only carrier of meaning: a legend or label names it, and where lines or
  points matter a dash or a shape tells them apart too.
- Blue and orange, the app's attention and FFN, come first; the bluish green is Okabe and Ito's; the
  purple, slate and crimson are dark enough to stay apart from blue, orange and green under every
  simulation (a lighter purple turns into blue, a yellow into orange, for a red-green deficiency).
"""
from __future__ import annotations

BLUE = "#2563eb"  # attention; one's own guess; the first of any set
ORANGE = "#ea580c"  # the FFN; the answer (3.6:1)
GREEN = "#009e73"  # Okabe and Ito's bluish green (3.4:1)
PURPLE = "#86198f"
SLATE = "#1e293b"
CRIMSON = "#991b1b"
RED = "#dc2626"  # what is lost or negative, the measured answer, ReLU; too near orange under tritanopia to share a legend
GREY = "#6b7280"  # a reference drawn beside the data: the target, the template words, the plain network
MUTED = "#868e96"  # the rest, behind what a chart points at: a light grey that keeps 3:1 (3.3:1)
INK = "#111827"  # reference lines and labels, the page's text colour
LABEL = "#374151"  # a reference line's words

# A chart's categories take these in order: every pair of them is at least 23 apart, under every simulation.
CATEGORICAL = (BLUE, ORANGE, GREEN, PURPLE, SLATE, CRIMSON)

# The activations, the same on every page that draws them.
ACTIVATION = {"relu": RED, "gelu": BLUE, "silu": GREEN}

# An ordered quantity as lines (widths): viridis from its dark end up to where it still has 3:1 on white.
_RAMP = ("#440154", "#482475", "#414487", "#355f8d", "#2a788e", "#21918c")

# The influence heatmap: 0 as an empty (white) square up to a dark blue; the values are written in the cells.
HEAT = ("#ffffff", "#08519c")
HEAT_INK = ("#ffffff", LABEL)  # cell text on the dark and on the light half of the scale
HAIRLINE = "#d1d5db"  # the heatmap's cell borders: they only separate squares


def _luminance(colour: str) -> float:
    """WCAG's relative luminance of #rrggbb."""
    linear = [(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
              for c in (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def ink_on(colour: str) -> str:
    """The label colour for words written on a bar of `colour`: white or the page's ink, whichever has the more
    contrast (white on the orange is 3.6:1, under the 4.5:1 small words need; the ink there is 5:1)."""
    lum = _luminance(colour)
    return "#ffffff" if (1.05 / (lum + 0.05)) >= ((lum + 0.05) / (_luminance(INK) + 0.05)) else INK


def ramp(n: int) -> list[str]:
    """n colours from dark to light along _RAMP, evenly spread (one: the darkest)."""
    if n <= 1:
        return list(_RAMP[:n])
    colours = []
    for i in range(n):
        at = i * (len(_RAMP) - 1) / (n - 1)
        low = min(int(at), len(_RAMP) - 2)
        colours.append(_mix(_RAMP[low], _RAMP[low + 1], at - low))
    return colours


def _mix(a: str, b: str, share: float) -> str:
    """The colour `share` of the way from a to b, channel by channel."""
    pa = [int(a[i:i + 2], 16) for i in (1, 3, 5)]
    pb = [int(b[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * share):02x}" for x, y in zip(pa, pb))
