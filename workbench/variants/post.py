"""A forum post of a change: the two variants named, the verdict and the
table of the matchups that move most, in Markdown or a stock phpBB board's
BBCode."""
from __future__ import annotations

import pandas as pd

from ..teach.tables import BBCODE, MARKDOWN, Marks
from .heatmap import _axis_words_of
from .movers import MOVER_HEAD, mover_rows, movers
from .sweep import _check_diff, verdict
from .variant import change_words

__all__ = ["to_markdown", "to_bbcode"]


def to_markdown(df: pd.DataFrame, table: pd.DataFrame | None = None) -> str:
    """A Markdown post of a change: the two variants named, the verdict, the table of movers
    (expected models removed before, after and the change) and where the heatmap goes."""
    return _post(df, table, MARKDOWN)


def to_bbcode(df: pd.DataFrame, table: pd.DataFrame | None = None) -> str:
    """The same post in the BBCode of a stock phpBB board (:data:`workbench.teach.PHPBB_TAGS`):
    the table of movers as aligned text in a [code] block."""
    return _post(df, table, BBCODE)


def _post(df: pd.DataFrame, table: pd.DataFrame | None, m: Marks) -> str:
    _check_diff(df)
    a, b = df.attrs["a"], df.attrs["b"]
    table = movers(a, b, df) if table is None else table
    span = "; ".join(f"{_axis_words_of(a, k)} from {v[0]} to {v[-1]}" if len(v) > 1
                     else f"{_axis_words_of(a, k)} {v[0]}" for k, v in df.attrs["grid"].items())
    lines = [f"Before: {a.name}.", f"After: {b.name}.", f"Over {span}: {verdict(df)}"]
    out = [m.bold.format(f"Before and after: {change_words(a, b)}"), *m.gap, *m.items(lines), *m.gap]
    if len(table):
        out += ["The matchups that move most (expected models removed):", *m.gap]
        out += m.table(MOVER_HEAD, mover_rows(table), left=1)
    else:
        out += ["No matchup of the unit profiles moves."]
    return "\n".join(out) + "\n"
