"""A change over a grid of stats: two variants swept side by side
(:func:`diff`) and what the change does, in one line (:func:`verdict`).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from ..controls import RESERVED
from ..errors import InputError
from ..grid import cells_of, evaluate, values_of, values_text
from .variant import Variant, _as_variant, change_words, stat_words

__all__ = ["diff", "verdict", "parse_range", "VALUE_COLUMNS"]

#: the columns :func:`diff` adds after the grid's stats
VALUE_COLUMNS = ("mean_a", "mean_b", "mean_diff", "p_at_least_1_a", "p_at_least_1_b", "p_at_least_1_diff")
#: a change smaller than this is float noise of equal results
NOISE = 1e-12


def parse_range(name: str, text: str) -> list[Any]:
    """``"1..12"`` (both ends included), ``"3,4,5"`` or one value, as the command line writes a grid."""
    values = values_text(name, text)
    return values if isinstance(values, list) else [values]


def _grid_lists(grid: Mapping[str, Any]) -> dict[str, list[Any]]:
    if not isinstance(grid, Mapping) or not grid:
        raise InputError("grid", "a dict of one or two stats to their values, e.g. {'bs': range(1, 13), "
                         "'t': range(-2, 5)}", grid)
    if len(grid) > 2:
        raise InputError("grid", "one or two stats (the rest are fixed by the matchup)", ", ".join(grid))
    return {k: values_of(k, v) for k, v in grid.items()}


def _keywords(v: Variant, grid: Mapping[str, list[Any]], matchup: Mapping[str, Any]) -> dict[str, Any]:
    """The sweep keywords of one variant: its seed matchup, the shared matchup, its settings, the grid."""
    accepted = v.arguments()
    fixed = dict(v.settings)
    for k in grid:
        if k in fixed:
            raise InputError("grid", f"stats the variant {v.name!r} does not fix", k,
                             f"{v.name} sets {k} to {fixed[k]!r}; sweep another stat")
    base = {k: val for k, val in v.description.seed_matchup.items() if k in accepted}
    return {**base, **{k: val for k, val in matchup.items() if k in accepted}, **fixed, **grid}


def _common(a: Variant, b: Variant) -> list[str]:
    names_b = set(b.arguments())
    return [k for k in a.arguments() if k in names_b and k not in RESERVED]


def _sweep(v: Variant, keywords: Mapping[str, Any], grid: Mapping[str, list[Any]]) -> tuple[np.ndarray, np.ndarray]:
    """(mean, P(at least 1)) of ``v`` per cell of ``grid``, in the order of ``itertools.product``."""
    cells, pmf, _effects, _path = evaluate(v.description, v.function, progress=False, **keywords)
    keys = list(grid)
    order = pd.MultiIndex.from_frame(cells[keys]).get_indexer(pd.MultiIndex.from_product(list(grid.values())))
    pmf = pmf[order]
    return pmf @ np.arange(pmf.shape[1]), np.clip(1.0 - pmf[:, 0], 0.0, 1.0)


def diff(a: Any, b: Any, grid: Mapping[str, Any], matchup: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """Variant ``b`` against ``a`` over ``grid`` (one or two stats both take -> values).

    Every other argument is at ``matchup`` (given or not, each variant's
    seed matchup fills the rest and each variant's settings stay fixed).
    Returns one row per grid cell (in the order of ``itertools.product``):
    the grid's stats, then :data:`VALUE_COLUMNS`: expected models removed
    before (``mean_a``), after (``mean_b``) and the signed change
    ``mean_diff = mean_b - mean_a``; the same for the chance of at least
    one (``p_at_least_1_*``). A change below 1e-12 is float noise and shown
    as 0. ``attrs``: ``a``, ``b`` (the variants), ``grid``, ``matchup``.
    """
    a, b = _as_variant(a, "a"), _as_variant(b, "b")
    g = _grid_lists(grid)
    matchup = dict(matchup or {})
    common = _common(a, b)
    for k in list(g) + list(matchup):
        if k not in common:
            raise InputError("grid" if k in g else "matchup", f"a stat both variants take: {', '.join(common)}", k)
    for k, val in matchup.items():
        if isinstance(val, (list, tuple, range, np.ndarray)):
            raise InputError(k, "a single value in the matchup (the grid holds the swept stats)", val)
    mean_a, p_a = _sweep(a, _keywords(a, g, matchup), g)
    mean_b, p_b = _sweep(b, _keywords(b, g, matchup), g)
    df = cells_of(g)
    for name, before, after in (("mean", mean_a, mean_b), ("p_at_least_1", p_a, p_b)):
        change = after - before
        df[f"{name}_a"], df[f"{name}_b"] = before, after
        df[f"{name}_diff"] = np.where(np.abs(change) < NOISE, 0.0, change)
    df.attrs.update(a=a, b=b, grid=g, matchup=matchup)
    return df


def _all_cell_words(df: pd.DataFrame, rows: Sequence[int] | None = None) -> list[str]:
    """Each cell's stats in words ("BS 6+, T +2"), each stat's value put in words once."""
    a = df.attrs["a"]
    rows = range(len(df)) if rows is None else rows
    columns = []
    for k, values in df.attrs["grid"].items():
        words = {v: stat_words(a.description, a.function, k, v) for v in values}
        col = df[k].tolist()
        columns.append([words.get(col[i]) or stat_words(a.description, a.function, k, col[i]) for i in rows])
    return [", ".join(parts) for parts in zip(*columns)]


def _context(df: pd.DataFrame) -> str:
    """The fixed count of dice, when the matchup (or the seed matchup) names it: " at 10 shots"."""
    a = df.attrs["a"]
    args = {**a.description.seed_matchup, **df.attrs["matchup"]}
    for k in ("shots", "attacks"):
        if k in args and k not in df.attrs["grid"]:
            return " at " + stat_words(a.description, a.function, k, args[k])
    return ""


def verdict(df: pd.DataFrame) -> str:
    """One line in a designer's words: whom the change helps, by how much at most, whom it hurts.

    "heavy weapon in a SHOT action: flat 4 helps most at BS 9+, T -2, by
    +2.60 models removed at 10 shots (everywhere on the grid), hurts none."
    """
    _check_diff(df)
    a, b = df.attrs["a"], df.attrs["b"]
    d = df["mean_diff"].to_numpy()
    up, down = d > 0, d < 0
    ctx = _context(df)
    if not up.any() and not down.any():
        return f"{change_words(a, b)} changes nothing on this grid{ctx}."
    n = len(d)
    parts = []
    for moved, most, verb, unit, of in ((up, np.argmax, "helps", f" models removed{ctx}", " of the grid"),
                                        (down, np.argmin, "hurts", "", "")):
        if not moved.any():
            parts.append(f"{verb} none")
            continue
        i = int(most(d))
        where = "everywhere on the grid" if moved.all() else f"at {int(moved.sum())} of {n} points{of}"
        parts.append(f"{verb} most at {_all_cell_words(df, [i])[0]}, by {d[i]:+.2f}{unit} ({where})")
    return f"{change_words(a, b)} " + ", ".join(parts) + "."


def _check_diff(df: Any) -> None:
    if not isinstance(df, pd.DataFrame) or not set(VALUE_COLUMNS) <= set(df.columns) or "a" not in df.attrs:
        raise InputError("df", "a DataFrame returned by workbench.compare.diff()", type(df).__name__)
