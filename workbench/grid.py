"""A grid of keyword values, from its text to its numbers: as the command line writes it
(:func:`parse_grid`), as a library call gives it (:func:`values_of`, :func:`checked_grid`), and
evaluated (:func:`evaluate`): a system's stat-level function over the cartesian product, through
its vectorised twin (``TABLES``) when it has one (one numpy call per combination of the
non-numeric keywords), else one call per cell with a progress bar. It knows systems only through
their descriptions.
"""
from __future__ import annotations

import inspect
import itertools
import math
import numbers
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from . import systems
from . import validate as v
from .controls import RESERVED
from .engine import pad
from .errors import InputError, UnknownArgumentError
from .progress import bar, quiet
from .systems import SystemDescription

__all__ = ["METHOD_KEYS", "MAX_TABLE_CELLS", "MAX_LOOP_CELLS", "MAX_SWEEP_ROWS", "system_keys", "function_of",
           "is_number", "is_units", "values_of", "checked_grid", "cells_of", "pad", "stack", "evaluate",
           "scalar_text", "values_text", "parse_grid"]

#: keywords a sweep passes through unchanged (they pick the method, not a stat)
METHOD_KEYS = RESERVED
#: the largest sweeps: through a vectorised twin, and with one call per cell
MAX_TABLE_CELLS = 1_000_000
MAX_LOOP_CELLS = 20_000
#: the most values one range of a grid's text gives (a range past it is refused before it is built)
MAX_SWEEP_ROWS = 100_000


# ---------------------------------------------------------------------------
# resolving a system and a function
# ---------------------------------------------------------------------------
def system_keys(chosen: Any, every: Sequence[str]) -> tuple[str, ...]:
    """The keys of the systems ``chosen`` names: a system key or a non-empty list of them (None:
    ``every``); an error names the argument ``systems_``."""
    if chosen is None:
        return tuple(every)
    items = [chosen] if isinstance(chosen, str) else chosen
    if not isinstance(items, (list, tuple)) or not items:
        raise InputError("systems_", "None, a system key or a non-empty list of them: " + ", ".join(every), chosen)
    keys = []
    for k in items:
        try:
            keys.append(systems.get(k).key)
        except InputError as exc:
            raise InputError("systems_", exc.expected, k) from None
    return tuple(keys)


def function_of(desc: SystemDescription, function: Any):
    """``(name, function)``: by name, by the function itself, or (None) the first mode's."""
    if function is None:
        function = desc.modes[0].function
    if callable(function) and getattr(function, "__name__", None) in desc.functions:
        function = function.__name__
    name = v.choice("function", function, desc.functions)
    return name, desc.function(name)


# ---------------------------------------------------------------------------
# the grid
# ---------------------------------------------------------------------------
def is_number(x: Any) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def is_units(x: Any) -> bool:
    """A list of dicts: one value of a keyword such as ``changes.volley``'s ``attackers``."""
    return isinstance(x, (list, tuple)) and len(x) > 0 and all(isinstance(u, Mapping) for u in x)


def values_of(name: str, value: Any) -> list[Any]:
    """A keyword's values: a scalar is one value; a list/tuple/range/1-D array is several.

    A list of dicts (``attackers=[dict(bs=5, s=5, ap=5), ...]``) is ONE value;
    a list of such lists is several (``attackers=[[unit_a], [unit_a, unit_b]]``
    sweeps a volley of one unit and one of two)."""
    if is_units(value):
        return [list(value)]
    if isinstance(value, (list, tuple)) and value and all(is_units(x) for x in value):
        out = []
        for x in value:
            if list(x) not in out:
                out.append(list(x))
        return out
    if isinstance(value, (pd.Series, pd.Index)):
        value = value.to_numpy()
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            raise InputError(name, "a value or a flat (1-D) list of values", value)
        value = value.tolist()
    if isinstance(value, (list, tuple, range)):
        vals = list(value)
        if not vals:
            raise InputError(name, "a value or a non-empty list of values", value)
    elif isinstance(value, (set, frozenset, dict)):
        raise InputError(name, "a value or a list of values (a list, tuple, range or 1-D array)", value)
    else:
        vals = [value]
    out = []
    for x in vals:
        if isinstance(x, (list, tuple, set, dict, np.ndarray)):
            raise InputError(name, "a value or a flat list of values (numbers, strings, True/False, None)",
                             value)
        if isinstance(x, np.generic):
            x = x.item()
        if not any(type(o) is type(x) and o == x for o in out):
            out.append(x)
    return out


def checked_grid(name: str, params: Mapping[str, Any], grid: Mapping[str, Any]) -> dict[str, list[Any]]:
    """Check ``grid`` against ``params`` (keyword -> default, ``inspect.Parameter.empty`` when required)."""
    names = [p for p in params if p not in METHOD_KEYS]
    out: dict[str, list[Any]] = {}
    for key, value in grid.items():
        if key not in params:
            raise UnknownArgumentError("sweep keyword", f"one of {', '.join(names)} for {name}()", key,
                                       v.did_you_mean(key, names))
        vals = values_of(key, value)
        if key in METHOD_KEYS and len(vals) != 1:
            raise InputError(key, "a single value (it picks the method, it is not swept)", value)
        out[key] = vals
    missing = [p for p, default in params.items() if default is inspect.Parameter.empty and p not in out]
    if missing:
        raise InputError(missing[0], f"a value or a list of values (required by {name}())", "nothing")
    return out


def cells_of(grid: Mapping[str, list[Any]]) -> pd.DataFrame:
    keys = list(grid)
    rows = list(itertools.product(*(grid[k] for k in keys)))
    return pd.DataFrame(rows, columns=keys)


def evaluate(system: Any, function: Any = None, progress: bool = True,
             **grid: Any) -> tuple[pd.DataFrame, np.ndarray, dict[str, np.ndarray], str]:
    """The work behind :func:`sweep`: ``(cells, pmf, effects, path)``.

    ``cells`` has one row per grid cell (its keyword values), ``pmf`` is
    ``(cells, width)`` (P(exactly N removed)), ``effects`` maps each side
    effect to one value per cell, ``path`` is ``"table"`` (vectorised twin) or
    ``"loop"`` (one call per cell).
    """
    desc = systems.get(system)
    name, fn = function_of(desc, function)
    qual = f"{desc.key}.{name}"
    g = checked_grid(qual, desc.arguments(name), grid)
    method = g.get("method", ["exact"])[0]
    table = desc.tables.get(name) if method == "exact" else None
    cells = math.prod(len(vals) for vals in g.values())
    limit, each = (MAX_TABLE_CELLS, "") if table is not None else (MAX_LOOP_CELLS, "one call per cell: ")
    if cells > limit:
        raise InputError("grid", f"at most {limit:,} cells for {qual}() ({each}the product of the list lengths)",
                         f"{cells:,} cells")
    if table is not None:
        return _via_table(table, {k: vals for k, vals in g.items() if k not in METHOD_KEYS}, progress) + ("table",)
    return _via_loop(fn, g, progress, qual) + ("loop",)


def _via_table(table, g: dict[str, list[Any]], progress: bool):
    # numeric keywords with several values go in as arrays; the rest fix a group
    arrays = [k for k, vals in g.items() if len(vals) > 1 and all(is_number(x) for x in vals)]
    while True:
        try:
            return _table_groups(table, g, arrays, progress)
        except InputError as exc:
            if exc.field not in arrays:
                raise
            arrays.remove(exc.field)  # a keyword the twin takes only as a scalar: group by it instead


def _table_groups(table, g: dict[str, list[Any]], arrays: list[str], progress: bool):
    keys = list(g)
    group_keys = [k for k in keys if k not in arrays]
    groups = list(itertools.product(*(g[k] for k in group_keys)))
    mesh = np.meshgrid(*(np.asarray(g[k]) for k in arrays), indexing="ij") if arrays else []
    flat = [m.ravel() for m in mesh]
    n = flat[0].size if flat else 1
    pmfs, effects = [], []
    for combo in bar(groups, total=len(groups), desc="sweep", unit="group", enabled=progress and len(groups) > 1):
        kwargs = dict(zip(group_keys, combo))
        kwargs.update(zip(arrays, flat))
        out = table(**kwargs)
        pmf = np.asarray(out["pmf"], dtype=float)
        pmfs.append(np.broadcast_to(pmf, (n, pmf.shape[-1])) if pmf.ndim == 1 else pmf.reshape(n, -1))
        effects.append({name: np.reshape(arr, n) if np.ndim(arr) else arr
                        for name, arr in out.get("effects", {}).items()})
    # an effect some groups do not have (wasted_wounds without a unit size) is NaN there
    pmf, eff = stack(pmfs, effects)
    cells = cells_of({k: g[k] for k in group_keys + arrays})[keys]  # groups outer, as the tables ran
    return cells, pmf, eff


def _via_loop(fn, g: dict[str, list[Any]], progress: bool, qual: str):
    cells = cells_of(g)
    records = cells.to_dict("records")
    pmfs, effects, stderr = [], [], []
    for kwargs in bar(records, total=len(records), desc=f"sweep {qual}", unit="cell", enabled=progress):
        with quiet():  # the sweep's bar is the one shown, not one per sampled cell
            out = fn(**kwargs)
        pmfs.append(np.asarray(out.pmf))
        effects.append(dict(out.effects))
        stderr.append(out.mean_stderr)
    pmf, eff = stack(pmfs, effects)
    if any(s is not None for s in stderr):
        eff["mean_stderr"] = np.array([np.nan if s is None else s for s in stderr], dtype=float)
    return cells, pmf, eff


def stack(pmfs: Sequence[np.ndarray], effects: Sequence[Mapping[str, Any]]) -> tuple[np.ndarray, dict]:
    """The cells' pmfs padded to one width (cells, width), and each side effect's value per cell
    (NaN in the cells that do not have it). A pmf may be a block of cells, one per row, its effects
    then a value per row or one for them all."""
    blocks = [np.atleast_2d(p) for p in pmfs]
    width = max(b.shape[-1] for b in blocks)
    names = list(dict.fromkeys(k for e in effects for k in e))
    return (np.concatenate([pad(b, width) for b in blocks]),
            {k: np.concatenate([np.broadcast_to(np.asarray(e.get(k, np.nan), dtype=float), len(b))
                                for b, e in zip(blocks, effects)]) for k in names})


# ---------------------------------------------------------------------------
# a grid as the command line writes it
# ---------------------------------------------------------------------------
_WORDS = {"true": True, "false": False, "none": None}


def scalar_text(text: str) -> Any:
    low = text.strip().lower()
    if low in _WORDS:
        return _WORDS[low]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip()


def values_text(name: str, text: str) -> Any:
    if ".." in text:
        lo, _, hi = text.partition("..")
        try:
            a, b = int(lo), int(hi)
        except ValueError:
            raise InputError(name, "a range of whole numbers like 1..6", text) from None
        if a > b:
            raise InputError(name, "a range from low to high like 1..6", text)
        if b - a + 1 > MAX_SWEEP_ROWS:  # refused before a list of a billion numbers is built
            raise InputError(name, f"a range of at most {MAX_SWEEP_ROWS:,} values", text,
                             "narrow the range, or sweep it in parts")
        return list(range(a, b + 1))
    if "," in text:
        return [scalar_text(x) for x in text.split(",") if x.strip()]
    return scalar_text(text)


def parse_grid(items: Sequence[str]) -> dict[str, Any]:
    """``["bs=3..5", "s=5", "action=snap,aimed"]`` -> ``{"bs": [3, 4, 5], "s": 5, "action": ["snap", "aimed"]}``.

    A value is a whole number, a number, ``true``/``false``, ``none`` or a
    word; ``a..b`` is every whole number from a to b; ``x,y,z`` a list.
    """
    grid: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name.strip() or not text.strip():
            raise InputError("sweep argument", "STAT=VALUES, e.g. bs=1..6 or action=snap,aimed", item)
        name = name.strip()
        if name in grid:
            raise InputError(name, "the stat given once", item)
        grid[name] = values_text(name, text.strip())
    return grid
