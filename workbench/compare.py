"""Sweeps (:func:`sweep`, plotted by :func:`heatmap` and :func:`lines`) and design diagnostics
(:func:`value_of_plus_one`, :func:`granularity`, :func:`equivalent`) across the rule systems.

What they know of a system (its functions, its stats and their "+1"
directions, its seed matchup, its granularity and equivalence grids) comes
from its description (:mod:`workbench.systems`). A system is given by key or
by description; a function by name (the system's first dashboard mode's when
not given: ``"shooting"`` for a built-in, ``"attack"`` for a rule file).
"""
from __future__ import annotations

import inspect
import itertools
import statistics
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from . import systems
from . import validate as v
from .errors import InputError
from .grid import METHOD_KEYS as _METHOD_KEYS, evaluate, function_of as _function, pad as _pad, system_keys
from .systems import SystemDescription
from .variants import diff  # variant b against variant a over a grid (the before-and-after page)

__all__ = [
    "sweep", "heatmap", "lines",
    "value_of_plus_one", "value_of_plus_one_figure", "Granularity", "granularity",
    "granularity_table", "granularity_figure", "equivalent", "equivalent_figure", "DISTANCE",
    "evaluate", "diff",
]


#: the distance :func:`equivalent` ranks settings by
DISTANCE = ("total variation distance between the two distributions of models removed, "
            "TV(p, q) = 1/2 x sum over N of |p(N) - q(N)| (0 = identical, 1 = disjoint); "
            "ties broken by |difference of expected removals|, then (same system) by the "
            "fewest stats changed from the input")


def sweep(system: Any, function: Any = None, *, progress: bool = True, client: Any = None,
          **grid: Any) -> pd.DataFrame:
    """Evaluate ``system.function`` over the cartesian grid of ``grid``.

    Each keyword of ``grid`` is one value or a list (tuple, range, 1-D array)
    of values; ``method``/``samples``/``seed`` may be given once. Returns one
    row per cell: the cell's keywords, ``mean`` (expected models removed),
    ``p_at_least_k`` for k = 1 .. the largest count any cell can reach, and one
    column per side effect (NaN in the cells that do not have it, e.g.
    ``wasted_wounds`` without a unit size). ``df.attrs["path"]`` says whether the vectorised
    twin (``"table"``) or a call per cell (``"loop"``, with a progress bar
    after a second) was used.

    Bad grids raise :class:`~workbench.errors.InputError` naming the keyword:
    an unknown keyword, an empty list, a nested value, or a value the function
    rejects.

    With ``method="sampled"`` the cells are sampled in blocks, each with a seed
    spawned from ``seed`` (:func:`workbench.studies.sampled_evaluate`), here or
    on ``client`` (a ``dask.distributed.Client``, ``"local"`` or a scheduler
    address; ``df.attrs["path"]`` is then ``"blocks"``): the same seed gives the
    same DataFrame whatever the client.

    >>> sweep("changes", "shooting", bs=[3, 4, 5], s=5, ap=5, t=2, sv=3)  # doctest: +SKIP
    """
    if grid.get("method") == "sampled" or client is not None:
        from .studies import sampled_evaluate
        cells, pmf, effects, path = sampled_evaluate(system, function, progress=progress, client=client,
                                                     **grid)
    else:
        cells, pmf, effects, path = evaluate(system, function, progress=progress, **grid)
    df = cells.copy()
    df["mean"] = pmf @ np.arange(pmf.shape[-1])
    tail = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]
    for k in range(1, pmf.shape[-1]):
        df[f"p_at_least_{k}"] = np.clip(tail[:, k], 0.0, 1.0)
    for name, arr in effects.items():
        df[name if name not in df.columns else f"effect_{name}"] = arr
    df.attrs["path"] = path
    df.attrs["system"] = systems.get(system).key
    return df


# ---------------------------------------------------------------------------
# plots of a sweep
# ---------------------------------------------------------------------------
def _select(df: pd.DataFrame, columns: Sequence[str], where: Mapping[str, Any] | None,
            value: str) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise InputError("df", "a DataFrame returned by sweep()", type(df).__name__)
    for role, col in zip(("x", "y/line", "value"), list(columns) + [value]):
        if col not in df.columns:
            raise InputError(role, "a column of the sweep: " + ", ".join(map(str, df.columns)), col)
    where = dict(where or {})
    for col, val in where.items():
        if col not in df.columns:
            raise InputError("where", "column names of the sweep: " + ", ".join(map(str, df.columns)), col)
        df = df[df[col] == val]
    if df.empty:
        raise InputError("where", "values present in the sweep", where)
    # the swept columns come first, up to "mean" and the p_at_least_k columns
    swept = itertools.takewhile(lambda c: c != "mean" and not str(c).startswith("p_at_least_"), df.columns)
    stat_cols = [c for c in swept if c not in columns and c != value]
    varying = [c for c in stat_cols if df[c].nunique(dropna=False) > 1]
    if varying:
        raise InputError("where", f"a value for each other swept column ({', '.join(varying)})", where,
                         "pass where={...} to fix them")
    return df


def _label(col: str) -> str:
    if col == "mean":
        return "expected models removed"
    if col.startswith("p_at_least_"):
        return f"P(at least {col[len('p_at_least_'):]} removed)"
    return col


def heatmap(df: pd.DataFrame, x: str, y: str, value: str = "mean", *,
            where: Mapping[str, Any] | None = None, title: str | None = None):
    """A plotly heatmap of ``value`` over two swept stats ``x`` and ``y``.

    Every other swept stat must be constant (fix it with ``where={...}``).
    """
    import plotly.graph_objects as go

    d = _select(df, [x, y], where, value)
    table = d.pivot_table(index=y, columns=x, values=value, aggfunc="first").sort_index()
    table = table[sorted(table.columns)]
    z = table.to_numpy(dtype=float)
    fig = go.Figure(go.Heatmap(
        z=z, x=[str(c) for c in table.columns], y=[str(i) for i in table.index],
        colorscale="Viridis", colorbar=dict(title=_label(value)),
        text=np.vectorize(lambda q: f"{q:.3g}")(z), texttemplate="%{text}",
        hovertemplate=f"{x}=%{{x}}<br>{y}=%{{y}}<br>{_label(value)}=%{{z:.4f}}<extra></extra>"))
    fig.update_layout(title=title or f"{_label(value)} by {x} and {y}",
                      xaxis_title=x, yaxis_title=y, xaxis_type="category", yaxis_type="category")
    return fig


def lines(df: pd.DataFrame, x: str, line: str, value: str = "mean", *,
          where: Mapping[str, Any] | None = None, title: str | None = None):
    """A plotly line chart of ``value`` against ``x``, one line per value of ``line``."""
    import plotly.graph_objects as go

    d = _select(df, [x, line], where, value)
    fig = go.Figure()
    for key, part in d.groupby(line, sort=True):
        part = part.sort_values(x)
        fig.add_trace(go.Scatter(x=part[x], y=part[value], mode="lines+markers", name=f"{line}={key}"))
    fig.update_layout(title=title or f"{_label(value)} by {x}, one line per {line}",
                      xaxis_title=x, yaxis_title=_label(value), legend_title=line)
    return fig


# ---------------------------------------------------------------------------
# value of +1
# ---------------------------------------------------------------------------
def value_of_plus_one(system: Any, stat: str | Sequence[str] | None = None, **matchup: Any) -> pd.DataFrame:
    """How much one step of a stat ("+1" for its owner) changes expected removals.

    For each value ``x`` of the stat's range (the description's ``stats``)
    whose improved value ``x + step`` is also in the range: ``delta = mean(x
    + step) - mean(x)``, all other stats as in ``matchup`` (the description's
    ``seed_matchup`` fills the rest). An attacker's +1 gives a delta
    >= 0, a defender's +1 a delta <= 0. ``stat=None`` does every stat of the
    system. Columns: ``stat, owner, step_text, value, improved, mean,
    improved_mean, delta``.
    """
    desc = systems.get(system)
    key = desc.key
    if not desc.stats:
        raise InputError("system", "a system whose description lists diagnostics stats", key)
    names = [s.name for s in desc.stats] if stat is None else ([stat] if isinstance(stat, str) else list(stat))
    base = {**desc.seed_matchup, **matchup}
    rows = []
    for name in names:
        info = desc.stat(name)
        df = sweep(key, None, progress=False, **{**base, name: list(info.values)})
        means = dict(zip(df[name].tolist(), df["mean"].tolist()))
        for x in info.values:
            y = x + info.step
            if y in means:
                rows.append(dict(stat=name, owner=info.owner,
                                 step_text=f"{name} {x} -> {y}", value=x, improved=y,
                                 mean=means[x], improved_mean=means[y], delta=float(_clean(means[y] - means[x]))))
    out = pd.DataFrame(rows)
    out.attrs["system"] = key
    out.attrs["matchup"] = base
    return out


def _clean(x):
    """Float noise of equal results (|x| < 1e-12) shown as 0 (a number or an array)."""
    return np.where(np.abs(x) < 1e-12, 0.0, x)


def value_of_plus_one_figure(df: pd.DataFrame, title: str | None = None):
    """Lines of ``delta`` (change of expected removals) against the starting value, one per stat."""
    import plotly.graph_objects as go

    if not isinstance(df, pd.DataFrame) or not {"stat", "value", "delta", "owner", "step_text"} <= set(df.columns):
        raise InputError("df", "a DataFrame returned by value_of_plus_one()", type(df).__name__)
    if title is not None and not isinstance(title, str):
        raise InputError("title", "None or a string", title)
    fig = go.Figure()
    for name, part in df.groupby("stat", sort=False):
        fig.add_trace(go.Scatter(x=part["value"], y=part["delta"], mode="lines+markers",
                                 name=f"{name} ({part['owner'].iloc[0]})",
                                 customdata=part[["step_text"]],
                                 hovertemplate="%{customdata[0]}: %{y:+.4f}<extra></extra>"))
    fig.add_hline(y=0, line_color="grey", line_width=1)
    sys_key = df.attrs.get("system", "")
    fig.update_layout(title=title or f"{sys_key}: value of +1 (change of expected models removed)",
                      xaxis_title="stat value before the step", yaxis_title="Δ expected removals")
    return fig


# ---------------------------------------------------------------------------
# granularity
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Granularity:
    """The distinct per-attack probabilities of a system and the steps between them."""

    system: str
    values: tuple[Fraction, ...]
    steps: tuple[Fraction, ...]
    grid: Mapping[str, Any]

    @property
    def summary(self) -> dict[str, Any]:
        steps = self.steps
        return dict(system=self.system, distinct=len(self.values),
                    min_step=min(steps) if steps else None,
                    median_step=statistics.median(steps) if steps else None,
                    max_step=max(steps) if steps else None)


#: id(description) -> (the description, its granularity): each is worked out once per process
_GRANULARITY: dict[int, tuple[SystemDescription, Granularity]] = {}


def granularity(system: Any) -> Granularity:
    """Distinct per-attack probabilities a system can produce over its stat ranges.

    Per attack = the chance one attack removes a model (the product of the
    stage probabilities of one shot where no critical adds or skips). The
    grid is the description's ``granularity_grid`` (one attack; a rule file's
    is read from its stats, see :mod:`workbench.systems.grids`); it is
    evaluated through the system's vectorised twin, and each distinct value is
    then taken exactly, as a Fraction, from ``Outcome.per_attack_any`` (or
    ``per_attack``) of one cell that produces it. ``steps``: the differences between neighbours.
    """
    desc = systems.get(system)
    if desc.granularity_grid is None:
        raise InputError("system", "a system with a granularity grid: "
                         + ", ".join(_with("granularity_grid")), desc.key)
    known = _GRANULARITY.get(id(desc))
    if known is not None and known[0] is desc:
        return known[1]
    grid = dict(desc.granularity_grid)
    name, fn = _function(desc, None)
    cells, pmf, _eff, _path = evaluate(desc, name, progress=False, **grid)
    p = 1.0 - pmf[:, 0]
    _, first = np.unique(np.round(p, 12), return_index=True)
    records = cells.to_dict("records")
    values = set()
    for i in first:
        out = fn(**records[int(i)])
        exact = out.per_attack_any if out.per_attack_any is not None else out.per_attack
        if exact is None or abs(float(exact) - p[i]) > 1e-9:
            exact = Fraction(float(p[i])).limit_denominator(10 ** 6)
        values.add(exact)
    vals = tuple(sorted(values))
    steps = tuple(b - a for a, b in zip(vals, vals[1:]))
    out = Granularity(desc.key, vals, steps, grid)
    _GRANULARITY[id(desc)] = (desc, out)
    return out


def _with(field: str) -> list[str]:
    """The systems whose description has ``field`` (a granularity grid, an equivalence search)."""
    return [k for k in systems.keys() if getattr(systems.get(k), field) is not None]


def granularity_table(systems_: Iterable[str] | None = None) -> pd.DataFrame:
    """One summary row per system: distinct values, min/median/max step (Fractions and %)."""
    rows = []
    for key in system_keys(systems_, _with("granularity_grid")):
        s = granularity(key).summary
        for k in ("min_step", "median_step", "max_step"):
            s[k + "_pct"] = None if s[k] is None else 100 * float(s[k])
        rows.append(s)
    return pd.DataFrame(rows)


def granularity_figure(systems_: Iterable[str] | None = None):
    """A strip of the distinct per-attack probabilities of each system."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for key in system_keys(systems_, _with("granularity_grid")):
        g = granularity(key)
        name = systems.get(key).name
        fig.add_trace(go.Scatter(x=[float(x) for x in g.values], y=[name] * len(g.values), mode="markers",
                                 marker=dict(symbol="line-ns-open", size=14), name=name,
                                 text=[str(x) for x in g.values],
                                 hovertemplate="%{text} (%{x:.2%})<extra>" + name + "</extra>"))
    fig.update_layout(title="Distinct per-attack probabilities (granularity)",
                      xaxis_title="chance one attack removes a model", xaxis_tickformat=".0%")
    return fig


# ---------------------------------------------------------------------------
# equivalence
# ---------------------------------------------------------------------------
def equivalent(system: Any, matchup: Mapping[str, Any], target_systems: Iterable[str] | None = None, *,
               best: int = 1, function: str | None = None) -> pd.DataFrame:
    """Settings in other systems closest to a matchup's distribution of models removed.

    The distance and its ties are :data:`DISTANCE` (below 1e-12, float noise, it is reported as 0).
    Each target system is searched over its description's ``equivalence_search`` with the
    matchup's ``shots`` and ``models`` (through its first mode's function); in the input's own
    system the search also holds the input's values and keeps its other keywords, so the input
    itself is found at distance 0.
    ``target_systems`` defaults to every other system with an equivalence search.

    Returns ``best`` rows per target system: ``system, rank, setting`` (a
    dict), ``setting_text, tv_distance, mean, mean_difference`` (target mean
    minus input mean), ``input_mean``.
    """
    desc = systems.get(system)
    key = desc.key
    name = _function(desc, function)[0]
    searchable = _with("equivalence_search")
    if not isinstance(matchup, Mapping):
        raise InputError("matchup", f"a dict of {key}.{name}() keywords", matchup)
    best = v.integer("best", best, 1, 1000)
    matchup = {k: val for k, val in matchup.items() if k not in _METHOD_KEYS}
    for k, val in matchup.items():
        if isinstance(val, (list, tuple, range, np.ndarray)):
            raise InputError(k, "a single value in a matchup (use sweep() for grids)", val)
    _c, src_pmf, _e, _p = evaluate(desc, name, progress=False, **matchup)
    src = src_pmf[0]
    src_mean = float(src @ np.arange(src.size))
    if target_systems is None:
        targets = [k for k in searchable if k != key]
    else:
        if isinstance(target_systems, str):
            target_systems = [target_systems]
        targets = [v.choice("target_systems", t, searchable) for t in target_systems]
    shared = {k: matchup[k] for k in ("shots", "models") if k in matchup}
    # the input's own values, its defaults filling what the matchup leaves out
    full = {**{k: d for k, d in desc.arguments(name).items() if d is not inspect.Parameter.empty}, **matchup}
    rows = []
    for tkey in targets:
        tdesc, own = systems.get(tkey), tkey == key
        tname = _function(tdesc, name if own else None)[0]
        search = {k: list(vals) for k, vals in (tdesc.equivalence_search or {}).items()}
        if own:
            grid = dict(matchup)
            for k, vals in search.items():
                grid[k] = sorted(set(vals) | ({full[k]} if full.get(k) is not None else set()))
        else:
            grid = {**search, **{k: val for k, val in shared.items() if k in tdesc.arguments(tname)}}
        cells, pmf, _eff, _path = evaluate(tdesc, tname, progress=False, **grid)
        width = max(pmf.shape[1], src.size)
        q = _pad(pmf, width)
        tv = _clean(0.5 * np.abs(q - _pad(src, width)).sum(axis=1))
        means = q @ np.arange(width)
        dmean = _clean(means - src_mean)
        changed = (sum((cells[k].to_numpy() != full.get(k)).astype(int) for k in search) if own
                   else np.zeros(len(cells), dtype=int))
        order = np.lexsort((changed, np.round(np.abs(dmean), 12), np.round(tv, 12)))[:best]
        shown = grid if own else [k for k in grid if k in search or k in shared]
        records = cells.to_dict("records")  # Python values, not numpy scalars
        for rank, i in enumerate(order, 1):
            setting = {k: records[int(i)][k] for k in shown}
            rows.append(dict(system=tkey, rank=rank, setting=setting,
                             setting_text=", ".join(f"{k}={val}" for k, val in setting.items()),
                             tv_distance=float(tv[i]), mean=float(means[i]),
                             mean_difference=float(dmean[i]), input_mean=src_mean))
    out = pd.DataFrame(rows)
    out.attrs["distance"] = DISTANCE
    out.attrs["system"] = key
    out.attrs["matchup"] = dict(matchup)
    return out


def equivalent_figure(system: Any, matchup: Mapping[str, Any], result: pd.DataFrame):
    """Bars of P(exactly N): the input matchup and the best setting found in each system."""
    import plotly.graph_objects as go

    key = systems.get(system).key
    if not isinstance(matchup, Mapping):
        raise InputError("matchup", f"a dict of {key}.shooting() keywords", matchup)
    if not isinstance(result, pd.DataFrame) or not {"rank", "system", "setting"} <= set(result.columns):
        raise InputError("result", "a DataFrame returned by equivalent()", type(result).__name__)
    fig = go.Figure()
    _c, pmf, _e, _p = evaluate(key, None, progress=False,
                               **{k: val for k, val in matchup.items() if k not in _METHOD_KEYS})
    fig.add_trace(go.Bar(x=list(range(pmf.shape[1])), y=pmf[0], name=f"{key} (input)"))
    for _, row in result[result["rank"] == 1].iterrows():
        _c, q, _e, _p = evaluate(row["system"], None, progress=False, **row["setting"])
        fig.add_trace(go.Bar(x=list(range(q.shape[1])), y=q[0],
                             name=f"{row['system']}: {row['setting_text']} (TV {row['tv_distance']:.3f})"))
    fig.update_layout(barmode="group", title="Closest settings (total variation distance)",
                      xaxis_title="models removed (N)", yaxis_title="P(exactly N)", yaxis_tickformat=".0%")
    return fig
