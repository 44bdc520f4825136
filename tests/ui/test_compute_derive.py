"""Frames derived from a cached result (cache.derive) and chart specs (chart_spec.cached_spec): built once
per input, each caller handed its own frame, a change of input never answered from another's entry."""
from dataclasses import dataclass

import altair as alt
import pandas as pd
import pytest

from ui.base.i18n import Translator
from ui.compute import cache, chart_spec

pytestmark = pytest.mark.usefixtures("fresh_caches")  # counts what is computed: starts from empty caches


@dataclass(frozen=True)
class Result:
    values: tuple[float, ...]

    def to_frame(self, scale: float = 1.0) -> pd.DataFrame:
        BUILT.append(self.values)
        return pd.DataFrame({"i": range(len(self.values)), "v": [x * scale for x in self.values]})


BUILT: list[tuple[float, ...]] = []


def _experiment():
    @cache.cached(max_entries=4)
    def run(n: int) -> Result:
        return Result(tuple(float(i * i) for i in range(n)))

    return run


def test_a_cached_results_frame_is_built_once_and_each_caller_gets_its_own():
    cache.clear()
    BUILT.clear()
    run = _experiment()
    first = cache.derive(run(3).to_frame)
    first.loc[0, "v"] = -1.0  # a page changing its frame changes no one else's
    again = cache.derive(run(3).to_frame)
    assert again["v"].tolist() == [0.0, 1.0, 4.0]
    assert BUILT == [(0.0, 1.0, 4.0)]


def test_other_inputs_or_other_results_are_built_anew():
    cache.clear()
    BUILT.clear()
    run = _experiment()
    assert cache.derive(run(3).to_frame, 2.0)["v"].tolist() == [0.0, 2.0, 8.0]
    assert cache.derive(run(3).to_frame, 3)["v"].tolist() == [0.0, 3.0, 12.0]
    assert cache.derive(run(2).to_frame, 2.0)["v"].tolist() == [0.0, 2.0]
    assert len(BUILT) == 3


def test_a_result_not_from_the_cache_is_derived_directly():
    BUILT.clear()
    plain = Result((1.0, 2.0))
    cache.derive(plain.to_frame)
    cache.derive(plain.to_frame)
    assert len(BUILT) == 2
    assert cache.derive(lambda r, k: r.to_frame(k), plain, 2.0)["v"].tolist() == [2.0, 4.0]


def _bars(frame: pd.DataFrame, t: Translator, title: str) -> alt.Chart:
    return alt.Chart(frame).mark_bar().encode(x="i:O", y="v:Q").properties(title=t(title) + "!")


def test_a_spec_is_keyed_on_its_frames_contents_and_language():
    chart_spec.clear()
    en, ko = Translator("en"), Translator("ko")
    a = pd.DataFrame({"i": [0, 1], "v": [1.0, 2.0]})
    spec = chart_spec.cached_spec("bars", _bars, a, en, "common.claim")
    assert chart_spec.cached_spec("bars", _bars, a.copy(), en, "common.claim") is spec
    other = chart_spec.cached_spec("bars", _bars, a.assign(v=[1.0, 3.0]), en, "common.claim")
    assert other["datasets"] != spec["datasets"]
    assert chart_spec.cached_spec("bars", _bars, a, ko, "common.claim")["title"] != spec["title"]
