"""The encodings many charts share: a colour legend of named categories, and an axis of shares from 0 to 100 %."""
from __future__ import annotations

from typing import Any

import altair as alt


def colour(field: str, domain: list[Any], colours: list[str], title: str | None = None, orient: str = "top",
           **legend: Any) -> alt.Color:
    """Each category of `field` in its own colour, named in a legend (above the chart unless told)."""
    return alt.Color(field=field, type="nominal", title=title, scale=alt.Scale(domain=domain, range=colours),
                     legend=alt.Legend(orient=orient, **legend))


def share(channel: type[alt.X] | type[alt.Y], field: str, title: str | None, **kwargs: Any) -> alt.X | alt.Y:
    """A quantitative x or y of shares: from 0 to 100 %, ticks in %."""
    return channel(field=field, type="quantitative", title=title, axis=alt.Axis(format="%"),
                   scale=alt.Scale(domain=[0, 1]), **kwargs)
