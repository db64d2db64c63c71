"""The chance of a condition over two counts, one inside the other, without their joint table.

A ``[[chances]]`` condition reads each count only through its parts that read
no other count (in ``penetrating_hits >= 1 or hits >= suppression_hits``: the
two comparisons). Each such part takes few values over its count's range 0..N,
so that range falls into runs on which the condition cannot change: for each
count, a new run starts where one of its parts changes value. The condition is
then evaluated once per pair of runs, and only the probability of each pair of
runs is needed.

Two 0-or-1 counts per attack where one never happens without the other (a hit
and a penetrating hit) are nested binomials over ``n`` attacks: the outer count
is Binomial(n, P(outer)) and, given it is h, the inner one Binomial(h,
P(inner | outer)). P(inner >= t | outer = h) grows with h by one binomial term
per step (the h-th outer event is the inner one's t-th: P(inner = t - 1 | h - 1)
x P(inner | outer)), a running sum of positive terms; so each run boundary
costs O(n) and no table of n\\ :sup:`2` numbers is built.

A condition this cannot split (a part of an unknown kind, a part that raises
evaluated alone) returns None: the caller builds the joint table instead.
"""
from __future__ import annotations

import functools
from typing import Any, Mapping, Sequence

import numpy as np

from ..engine import _log_factorials, binomial_pmf
from ..errors import InputError
from .expr import Expr, _eval

__all__ = ["runs", "nested_chance"]


#: node kind -> its sub-expressions (the tuples :func:`~workbench.rules.expr.parse` builds)
_KIDS = {"const": lambda t: (), "name": lambda t: (), "neg": lambda t: t[1:], "not": lambda t: t[1:],
         "bin": lambda t: t[2:], "cmp": lambda t: t[2], "call": lambda t: t[2], "and": lambda t: t[1],
         "or": lambda t: t[1], "if": lambda t: t[1:]}


def _parts(t: tuple, counts: frozenset, out: list) -> frozenset:
    """The counts ``t`` reads; the largest sub-expressions reading exactly one count are
    appended to ``out`` as (sub-expression, count) when ``t`` reads more than one."""
    if t[0] == "name":
        return frozenset((t[1],)) & counts
    kids = tuple(_KIDS[t[0]](t))
    read = [_parts(k, counts, out) for k in kids]
    mine = frozenset().union(*read)
    if len(mine) > 1:
        out.extend((k, next(iter(r))) for k, r in zip(kids, read) if len(r) == 1)
    return mine


@functools.lru_cache(maxsize=256)
def _split(expr: Expr, names: tuple) -> tuple:
    """The largest parts of ``expr`` that read one count of ``names``, with that count; read
    from the tree once per condition."""
    found: list = []
    read = _parts(expr.tree, frozenset(names), found)
    if len(read) == 1:                       # the whole condition reads one count
        return ((expr.tree, next(iter(read))),)
    return tuple(found)


def runs(expr: Expr, names: Sequence[str], top: int, env: Mapping[str, Any]) -> list[np.ndarray] | None:
    """Per count in ``names``, the first values (0 first) of the runs of 0..``top`` over which
    ``expr`` cannot change, for the stats ``env`` (arrays over cells); None when the
    condition cannot be split."""
    found = _split(expr, tuple(names))
    stats = {k: np.asarray(v).reshape(-1, 1) if np.ndim(v) else v for k, v in env.items() if k in expr.names}
    stats.update((n, 0) for n in names)    # a part reads one count: the others only name the cells of an error
    values = np.arange(top + 1)[None, :]
    change = {n: np.zeros(top, dtype=bool) for n in names}
    for sub, name in found:
        try:
            with np.errstate(all="ignore"):
                v = np.asarray(_eval(sub, dict(stats, **{name: values}), np.True_, expr, "chances"))
        except InputError:                   # raised alone, perhaps not where the condition reads it
            return None
        v = v.reshape((-1, v.shape[-1])) if v.ndim else v.reshape(1, 1)
        v = np.broadcast_to(v, (v.shape[0], top + 1))
        change[name] |= (v[:, 1:] != v[:, :-1]).any(axis=0)
    return [np.concatenate([[0], np.flatnonzero(change[n]) + 1]) for n in names]


def _at_least(t: int, n: int, q: float) -> np.ndarray:
    """P(Binomial(h, q) >= t) for h = 0..n."""
    h = np.arange(n + 1)
    if t <= 0:
        return np.ones(n + 1)
    if t > n or q <= 0.0:
        return np.zeros(n + 1)
    if q >= 1.0:
        return (h >= t).astype(float)
    if t == 1:                                       # at least one: 1 - (1 - q)^h
        return -np.expm1(h * np.log1p(-q))
    lf = _log_factorials(n)
    prev = np.arange(t - 1, n)                       # h - 1 = t - 1 .. n - 1
    log_term = lf[prev] - lf[t - 1] - lf[prev - t + 1] + (t - 1) * np.log(q) + (prev - t + 1) * np.log1p(-q)
    out = np.zeros(n + 1)
    out[t:] = q * np.cumsum(np.exp(log_term))
    return np.minimum(out, 1.0)


def _mass(g: np.ndarray, n: int, outer: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """P(outer count in run a, inner count in run b) over ``n`` attacks, for one attack's
    joint distribution ``g`` (2, 2) (outer, inner) with no inner event outside an outer one."""
    p = float(g[1].sum())
    q = float(g[1, 1]) / p if p > 0 else 0.0
    above = np.stack([_at_least(int(t), n, q) for t in inner] + [np.zeros(n + 1)])
    by_outer = (above[:-1] - above[1:]) * binomial_pmf(n, p)        # (inner runs, h)
    starts = outer[outer <= n]
    out = np.zeros((outer.size, inner.size))
    out[: starts.size] = np.add.reduceat(by_outer, starts, axis=1).T
    return out


def nested_chance(expr: Expr, names: Sequence[str], h: np.ndarray, count: np.ndarray,
                  env: Mapping[str, Any], field: str) -> np.ndarray | None:
    """P(``expr``) per cell for two nested 0-or-1 counts ``names`` (one attack's joint
    distribution ``h`` (cells, 2, 2), one count never without the other) over ``count``
    attacks; None when the condition cannot be split into runs."""
    top = int(count.max())
    cut = runs(expr, names, top, env)
    if cut is None:
        return None
    swap = bool(h[:, 0, 1].any())          # the first count is the inner one
    lift = (-1, 1, 1)
    env2 = {k: np.asarray(v).reshape(lift) if np.ndim(v) else v for k, v in env.items() if k in expr.names}
    env2[names[0]] = cut[0].reshape(1, -1, 1)
    env2[names[1]] = cut[1].reshape(1, 1, -1)
    cells = h.shape[0]
    cond = np.broadcast_to(expr.evaluate(env2, field) != 0, (cells, cut[0].size, cut[1].size))
    out = np.zeros(cells)
    for c in range(cells):
        if swap:
            mass = _mass(h[c].T, int(count[c]), cut[1], cut[0]).T
        else:
            mass = _mass(h[c], int(count[c]), cut[0], cut[1])
        out[c] = (mass * cond[c]).sum()
    return np.clip(out, 0.0, 1.0)
