"""The charts' colours stay apart for a student with a colour-vision deficiency, and stand out from the page.

Every group of colours one chart tells apart (its categories), taken from the chart modules' constants:
- each pair at least MIN_DELTA_E apart (CIE76, in CIELAB under D65) with normal vision and under simulated
  protanopia, deuteranopia and tritanopia: Machado, Oliveira and Fernandes (2009), "A Physiologically-based
  Model for Simulation of Color Vision Deficiency", IEEE TVCG 15(6), their matrices at severity 1.0 (a
  dichromat), applied to linear RGB;
- each colour at least 3:1 against the page's background (WCAG 2.2, 1.4.11 non-text contrast), drawn at the
  opacity the chart gives it.
The sources are read too, so that no chart falls back to Vega's or Streamlit's own colours, and no mark is
faded by a number this file does not check.
"""
from __future__ import annotations

import ast
import itertools
import tomllib
from pathlib import Path

import numpy as np
import pytest

from ui.charts import (activations, collapse, gated, gpt, gpt_checkpoints, home, keyvalue, moe, palette, sparsity,
                       split, sweep)
from ui.questions import chart as questions_chart
from ui.room import chart as room_chart

ROOT = Path(__file__).resolve().parents[2]
THEME = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))["theme"]

# ΔE76 ≈ 2.3 is a just-noticeable difference between two large patches side by side. A chart's marks are
# thin lines and small points, apart from each other and matched against a legend: ten of those. The pairs
# the audit found too close fail it (test_the_check_rejects_the_pairs_the_audit_found).
MIN_DELTA_E = 23.0
MIN_CONTRAST = 3.0

# Machado et al. (2009), table of simulation matrices, severity 1.0.
MACHADO = {
    "protanopia": np.array([[0.152286, 1.052583, -0.204868],
                            [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968],
                              [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779],
                            [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}
VISIONS = ("normal", *MACHADO)
# Linear sRGB to CIE XYZ (D65), IEC 61966-2-1.
SRGB_TO_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375],
                        [0.2126729, 0.7151522, 0.0721750],
                        [0.0193339, 0.1191920, 0.9503041]])
D65 = SRGB_TO_XYZ @ np.ones(3)


def _channels(colour: str) -> np.ndarray:
    assert colour.startswith("#") and len(colour) == 7, colour
    return np.array([int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])


def _linear(colour: str) -> np.ndarray:
    c = _channels(colour)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _lab(rgb: np.ndarray) -> np.ndarray:
    xyz = SRGB_TO_XYZ @ rgb / D65
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def seen(colour: str, vision: str) -> np.ndarray:
    """The colour in CIELAB as a viewer with `vision` sees it (the simulation clipped to the displayable)."""
    rgb = _linear(colour)
    if vision != "normal":
        rgb = np.clip(MACHADO[vision] @ rgb, 0, 1)
    return _lab(rgb)


def delta_e(a: str, b: str, vision: str = "normal") -> float:
    return float(np.linalg.norm(seen(a, vision) - seen(b, vision)))


def luminance(colour: str) -> float:
    return float(np.array([0.2126, 0.7152, 0.0722]) @ _linear(colour))


def contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio."""
    low, high = sorted((luminance(a), luminance(b)))
    return (high + 0.05) / (low + 0.05)


def over(colour: str, opacity: float, background: str) -> str:
    """The colour a mark drawn at `opacity` shows on the background (a browser blends the encoded values)."""
    mixed = opacity * _channels(colour) + (1 - opacity) * _channels(background)
    return "#" + "".join(f"{round(v * 255):02x}" for v in mixed)


BACKGROUND = THEME["backgroundColor"].lower()

# Every group of colours a chart tells apart.
PALETTES: dict[str, tuple[str, ...]] = {name: tuple(colours) for name, colours in {
    "categorical: blocks, experts, k, accuracy groups": palette.CATEGORICAL,
    "activations: ReLU, GELU, SiLU (and the gated FFN's gates)": activations.COLORS.values(),
    "gated: the gates": gated.GATE_COLORS.values(),
    "gated: plain, gated, target": gated.KIND_COLORS.values(),
    "gated: turned down, leak, active": gated.MEASURE_COLORS.values(),
    "collapse: counted, numerical zero": (collapse.COUNTED, collapse.ZERO),
    "home: attention, FFN": home.PART_COLOURS.values(),
    "split: a model's parts": split.PART_COLOURS.values(),
    "gpt: the parameter split": gpt.SPLIT_COLOURS.values(),
    "gpt: attribution's parts": gpt.PART_COLOURS.values(),
    "gpt: shipped, ablated": gpt.STATE_COLOURS.values(),
    "gpt: the answer, other tokens": (gpt.ANSWER, gpt.OTHER),
    "gpt: blocks": gpt.LAYER_COLOURS,
    "gpt: accuracy's language and templates": gpt.GROUP_COLOURS,
    "gpt memory: seen, held-out, template": gpt_checkpoints.MEASURE_COLOURS.values(),
    "gpt memory: the two roles": gpt_checkpoints.ROLE_COLOURS,
    "key-value: untrained, trained": keyvalue.STATE_COLOURS.values(),
    "key-value: adds, takes away": keyvalue.SIGN_COLOURS.values(),
    "moe: k": moe.K_COLORS,
    "moe: experts": moe.EXPERT_COLORS,
    "moe: active, idle": moe.PART_COLORS.values(),
    "moe: before, after the expert is zeroed": moe.WHEN_COLORS.values(),
    "sparsity: training, fresh tokens": sparsity.TOKEN_COLOURS.values(),
    "sweep: the target and each method's fit": (sweep.TARGET, *sweep.METHOD_COLORS.values()),
    "sweep: RMSE's series": sweep.SERIES_COLORS.values(),
    "room: the class, measured, one's own": (room_chart.GUESSES, room_chart.MEASURED, room_chart.MINE),
    "questions: the class, one's own, measured": (questions_chart.CLASS, questions_chart.OWN,
                                                  questions_chart.MEASURED),
    "theme: a chart without colours of its own": THEME["chartCategoricalColors"],
}.items()}

# Marks drawn at less than full opacity: (their colours, the opacity).
FADED = {
    "activations: an activation not chosen": (tuple(activations.COLORS.values()), activations.FADED),
    "split: a preset not chosen": (tuple(split.PART_COLOURS.values()), split.FADED),
    "collapse: one dot of the fit": ((collapse.COUNTED,), collapse.FIT_OPACITY),
}
# Marks in one colour that carry meaning: reference lines, the kinks, the heatmap's strongest cell.
SINGLE = (palette.GREY, palette.INK, sweep.KINK, palette.HEAT[1])

CHART_SOURCES = sorted([p for p in (ROOT / "ui" / "charts").glob("*.py") if p.name not in ("text.py", "palette.py")]
                       + [ROOT / "ui" / "room" / "chart.py", ROOT / "ui" / "questions" / "chart.py"])
SIMULATED = tuple(MACHADO)


# --- the check itself ----------------------------------------------------------------------------------


def test_the_contrast_ratio_is_wcags():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)  # WCAG's lightest AA grey
    assert contrast(over("#000000", 0.5, "#ffffff"), "#ffffff") < contrast("#000000", "#ffffff")


def test_the_simulations_keep_greys_and_lose_what_each_deficiency_loses():
    for vision in SIMULATED:
        for grey in ("#ffffff", "#767676", "#000000"):
            assert delta_e(grey, grey, "normal") == 0
            assert np.allclose(seen(grey, vision), seen(grey, "normal"), atol=0.5), (vision, grey)
    red, green, blue, yellow = "#ff0000", "#00ff00", "#0000ff", "#ffff00"
    # Red against green collapses for the red-green deficiencies, not for tritanopia; blue against yellow keeps apart.
    for vision in ("protanopia", "deuteranopia"):
        assert delta_e(red, green, vision) < delta_e(red, green, "tritanopia") / 2, vision
        assert delta_e(blue, yellow, vision) > 80, vision
    assert delta_e("#0000ff", "#00ff00", "tritanopia") < delta_e("#0000ff", "#00ff00", "protanopia")


@pytest.mark.parametrize("vision, a, b", [
    ("deuteranopia", "#ea580c", "#ca8a04"),  # the blocks' orange and ochre
    ("deuteranopia", "#dc2626", "#16a34a"),  # the activations' red and green
    ("deuteranopia", "#2563eb", "#9333ea"),  # the sweep's blue and purple
])
def test_the_check_rejects_the_pairs_the_audit_found(vision, a, b):
    """Apart with normal vision, too close for a deuteranope (the commonest deficiency)."""
    assert delta_e(a, b, "normal") > MIN_DELTA_E
    assert delta_e(a, b, vision) < MIN_DELTA_E


def test_the_check_rejects_the_faint_marks_the_audit_found():
    for colour in ("#9ca3af", "#94a3b8", "#facc15", "#d1d5db"):  # grey class bars, yellow norms, pale pooler
        assert contrast(colour, "#ffffff") < MIN_CONTRAST, colour


# --- the app's colours ---------------------------------------------------------------------------------


def _closest(colours: tuple[str, ...], vision: str) -> tuple[float, str, str]:
    return min((delta_e(a, b, vision), a, b) for a, b in itertools.combinations(colours, 2))


@pytest.mark.parametrize("name", PALETTES)
def test_a_charts_colours_stay_apart_in_every_vision(name):
    colours = PALETTES[name]
    assert len(set(colours)) == len(colours), f"{name}: a colour used twice: {colours}"
    close = {vision: _closest(colours, vision) for vision in VISIONS}
    assert all(d >= MIN_DELTA_E for d, _, _ in close.values()), (
        f"{name}: pairs closer than ΔE {MIN_DELTA_E}: "
        + "; ".join(f"{v}: {a}/{b} {d:.1f}" for v, (d, a, b) in close.items() if d < MIN_DELTA_E))


@pytest.mark.parametrize("name", PALETTES)
def test_a_charts_colours_have_3_to_1_on_the_page(name):
    low = {c: round(contrast(c, BACKGROUND), 2) for c in PALETTES[name] if contrast(c, BACKGROUND) < MIN_CONTRAST}
    assert not low, f"{name}: below {MIN_CONTRAST}:1 on {BACKGROUND}: {low}"


@pytest.mark.parametrize("name", FADED)
def test_a_faded_mark_keeps_3_to_1_on_the_page(name):
    colours, opacity = FADED[name]
    assert 0 < opacity < 1
    low = {c: round(contrast(over(c, opacity, BACKGROUND), BACKGROUND), 2) for c in colours
           if contrast(over(c, opacity, BACKGROUND), BACKGROUND) < MIN_CONTRAST}
    assert not low, f"{name}: at opacity {opacity}, below {MIN_CONTRAST}:1: {low}"


def test_single_colour_marks_and_the_widths_ramp_have_3_to_1_and_the_ramp_reads_in_order():
    for colour in SINGLE:
        assert contrast(colour, BACKGROUND) >= MIN_CONTRAST, colour
    for n in range(1, 9):  # the sweep draws up to eight widths (ffn_core.sweep.sweep.MAX_WIDTHS)
        ramp = palette.ramp(n)
        assert len(ramp) == n and len(set(ramp)) == n
        assert all(contrast(c, BACKGROUND) >= MIN_CONTRAST for c in ramp), ramp
        # Dark to light: the order of the widths survives any deficiency, and greyscale.
        assert all(luminance(a) < luminance(b) for a, b in zip(ramp, ramp[1:])), ramp


def test_the_app_has_one_light_theme_which_presenter_mode_keeps():
    """The contrast above is against this one background: a dark theme would need checking too."""
    assert THEME["base"] == "light" and BACKGROUND == "#ffffff"
    assert not any(isinstance(v, dict) for v in THEME.values()), "a [theme.*] section: check its background too"
    assert tuple(c.lower() for c in THEME["chartCategoricalColors"]) == palette.CATEGORICAL


# --- the chart modules' sources ------------------------------------------------------------------------


def _calls(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            yield node, node.func.attr, {k.arg: k.value for k in node.keywords}


@pytest.mark.parametrize("path", CHART_SOURCES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_chart_module_takes_its_colours_from_the_palette(path):
    literals = [n.value for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.startswith("#")
                and len(n.value) in (4, 7) and all(c in "0123456789abcdefABCDEF" for c in n.value[1:])]
    assert not literals, f"colours written outside ui/charts/palette.py: {literals}"


@pytest.mark.parametrize("path", CHART_SOURCES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_colour_encoding_names_its_scale_and_every_point_its_opacity(path):
    """A colour channel without a scale gets Vega's or Streamlit's default colours, which this file never saw;
    Vega-Lite draws a point, circle or square at 0.7 opacity unless told; a fade is a named constant checked above."""
    for call, name, keywords in _calls(path):
        where = f"{path.name}:{call.lineno}"
        if name in ("Color", "Fill", "Stroke") and isinstance(call.func.value, ast.Name) and call.func.value.id == "alt":
            assert "scale" in keywords, f"{where}: alt.{name} without a scale"
            scale = keywords["scale"]
            if isinstance(scale, ast.Call) and getattr(scale.func, "attr", None) == "Scale":
                given = {k.arg for k in scale.keywords}
                assert given & {"range", "scheme"}, f"{where}: alt.{name}'s scale names no colours"
        if name in ("mark_point", "mark_circle", "mark_square"):
            assert "opacity" in keywords, f"{where}: {name} without an opacity is drawn at 0.7"
        if name.startswith("mark_") and isinstance(keywords.get("opacity"), ast.Constant):
            assert keywords["opacity"].value == 1, f"{where}: a fade by a number; name it and check it in FADED"


@pytest.mark.parametrize("colour", sorted(set(split.PART_COLOURS.values()) | set(home.PART_COLOURS.values())))
def test_words_written_on_a_bar_meet_the_small_text_contrast(colour):
    # Counts and matrix names written inside the split's and home's bars are small text: 4.5:1 (WCAG 1.4.3).
    assert contrast(palette.ink_on(colour), colour) >= 4.5, (colour, palette.ink_on(colour))
