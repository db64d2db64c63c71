"""The diagnostics page in a playtester's words: a stat by its dashboard label
(:func:`stat_labels`), a figure's titles without argument names, and a
result table as HTML with each column's heading in words.
"""
from __future__ import annotations

import html
import re

import pandas as pd

from .. import systems
from .looks import table_html

__all__ = ["stat_labels"]


def stat_labels(key: str) -> dict[str, str]:
    """Stat name -> its label on the system's dashboard ("bs" -> "BS (roll needed)"): the
    diagnostics name a stat as the system's first mode's controls do."""
    desc = systems.get(key)
    labels = {c.name: c.text for c in desc.modes[0].controls}
    return {s.name: labels.get(s.name, s.name.replace("_", " ")) for s in desc.stats}


def _relabel(text, labels: dict[str, str]):
    """Stat names in a figure's text ("mean by bs and t", "t=2") as their labels."""
    if not isinstance(text, str) or not labels:
        return text
    names = sorted(labels, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w'])(" + "|".join(map(re.escape, names)) + r")(?![\w'])")
    return pattern.sub(lambda m: labels[m.group(1)], text)


#: how the tables' columns read on the page
_HEADINGS = {"stat": "stat", "owner": "helps", "step_text": "one step", "mean": "expected removed",
             "improved_mean": "after the step", "delta": "change", "system": "system",
             "distinct": "different chances", "min_step": "smallest step", "median_step": "median step",
             "max_step": "largest step", "rank": "rank", "setting_text": "setting",
             "tv_distance": "distance (0 = same)", "mean_difference": "difference in expected removed"}


def _table(df: pd.DataFrame, columns: list[str], floats: str = "{:.3f}") -> str:
    """The columns of ``df`` as an HTML table in a playtester's words (systems by
    their names); each cell carries its column's heading, which a phone shows
    beside the value when the table becomes one block per row."""
    def text(column: str, value) -> str:
        if column == "system":
            return systems.get(value).name if value in systems.keys() else str(value)
        return floats.format(value) if df[column].dtype.kind == "f" else str(value)

    return table_html([_HEADINGS.get(c, c.replace("_", " ")) for c in columns],
                      ([html.escape(text(c, v)) for c, v in zip(columns, row)]
                       for row in df[columns].itertuples(index=False)))


_CHANCE = re.compile(r"P\(([^()]*)\)")


def _words(text: str) -> str:
    """"P(exactly N)" -> "chance (exactly N)"; argument names in words."""
    return _CHANCE.sub(r"chance (\1)", text).replace("_", " ")


def _show(fw, figure, labels: dict[str, str] | None = None) -> None:
    """Show ``figure`` in ``fw`` with its titles in a playtester's words
    (``labels``: stat name -> its dashboard label)."""
    labels = labels or {}
    layout = figure.layout
    for part in (layout.title, layout.xaxis.title, layout.yaxis.title, layout.legend.title):
        if part.text:
            part.text = _words(_relabel(part.text, labels))
    for trace in figure.data:
        bar = getattr(trace, "colorbar", None)
        if bar is not None and bar.title.text:
            bar.title.text = _words(bar.title.text)
        if getattr(trace, "name", None):
            trace.name = _words(_relabel(trace.name, labels))
        if getattr(trace, "hovertemplate", None):
            trace.hovertemplate = _relabel(trace.hovertemplate, labels)
    fw.show(figure)
