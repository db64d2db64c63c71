"""Vectorised distribution arithmetic shared by the rule systems.

Distributions are float arrays whose last axis is the count (index = number of
successes, wounds, models...); leading axes are stat grids. Nothing here loops
in Python over grid cells.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

__all__ = [
    "binomial_pmf", "remap", "convolve", "cap", "mean_of", "pad",
]


@lru_cache(maxsize=512)
def _comb_row(n: int) -> np.ndarray:
    row = np.array([math.comb(n, k) for k in range(n + 1)], dtype=float)
    row.setflags(write=False)
    return row


#: up to this many trials a scalar binomial is worked out in Python floats (no array set-up)
SMALL_N = 64
#: above this many trials the binomial is computed in log space (C(1030, 515)
#: no longer fits in a float)
LOG_SPACE_ABOVE = 1000

_log_fact = np.zeros(1)


def _log_factorials(n: int) -> np.ndarray:
    """log(k!) for k = 0..n (math.lgamma, cached and grown as needed)."""
    global _log_fact
    if _log_fact.size <= n:
        size = max(n + 1, 2 * _log_fact.size)
        table = np.array([math.lgamma(k + 1.0) for k in range(size)])
        table.setflags(write=False)
        _log_fact = table
    return _log_fact[: n + 1]


def _binomial_log_space(n_arr: np.ndarray, p: np.ndarray, width: int) -> np.ndarray:
    """The binomial pmf as exp(log C(n, k) + k log p + (n - k) log(1 - p)):
    stable for any number of trials, p = 0 and p = 1 included."""
    n_max = int(n_arr.max()) if n_arr.size else 0
    lf = _log_factorials(max(n_max, width))
    k = np.arange(width)
    n_b = n_arr[..., None]
    nk = n_b - k
    valid = nk >= 0
    nk_safe = np.where(valid, nk, 0)
    pk = p[..., None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        log_p = np.log(pk)
        log_q = np.log1p(-pk)
        term_k = np.where(k == 0, 0.0, k * log_p)
        term_nk = np.where(nk_safe == 0, 0.0, nk_safe * log_q)
        log_pmf = lf[np.minimum(n_b, lf.size - 1)] - lf[k] - lf[nk_safe] + term_k + term_nk
        return np.where(valid, np.exp(log_pmf), 0.0)


def binomial_pmf(n, p, width: int | None = None) -> np.ndarray:
    """P(k successes in n independent trials of probability p), k = 0..width-1.

    ``p`` is a float or an array (any shape S); ``n`` an int or an int array
    broadcastable to S. Result shape ``S + (width,)`` with ``width`` defaulting
    to max(n) + 1; entries with k > n are 0. Up to :data:`LOG_SPACE_ABOVE`
    trials the binomial coefficients are exact integers turned into floats;
    above, the whole pmf is computed in log space.
    """
    if isinstance(n, int) and isinstance(p, float) and width is None and 0 <= n <= SMALL_N:
        # one scalar resolution of a few trials: Python floats, the same products in the same order
        q = 1.0 - p
        return np.array([c * p ** k * q ** (n - k) for k, c in enumerate(_comb_row(n))])
    p = np.asarray(p, dtype=float)
    n_arr = np.asarray(n)
    n_max = int(n_arr.max()) if n_arr.size else 0
    width = n_max + 1 if width is None else width
    if n_max > LOG_SPACE_ABOVE:
        if n_arr.ndim:
            n_arr, p = np.broadcast_arrays(n_arr, p)
        return _binomial_log_space(n_arr, p, width)
    k = np.arange(width)
    if n_arr.ndim == 0:
        n0 = int(n_arr)
        comb = np.zeros(width)
        m = min(width, n0 + 1)
        comb[:m] = _comb_row(n0)[:m]
        nk = np.maximum(n0 - k, 0)
    else:
        table = np.zeros((n_max + 1, width))
        for i in range(n_max + 1):
            m = min(width, i + 1)
            table[i, :m] = _comb_row(i)[:m]
        n_b = n_arr[..., None]
        comb = table[n_arr]
        nk = np.maximum(n_b - k, 0)
    pk = p[..., None]
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        return comb * pk ** k * (1.0 - pk) ** nk


def remap(pmf: np.ndarray, index, width: int) -> np.ndarray:
    """Move the probability of count k to count ``index[..., k]`` (summing collisions): the one
    fold of the workbench ("models removed = min(models, wounds // W)" and the like).

    ``index`` is an int array broadcastable to ``pmf``'s shape (one entry per count, the same
    for every cell or one row per cell); entries must lie in ``[0, width)``. One scatter-add,
    no loop over cells."""
    pmf = np.asarray(pmf, dtype=float)
    lead = pmf.shape[:-1]
    cells = int(np.prod(lead, dtype=np.int64))
    index = np.broadcast_to(np.asarray(index, dtype=np.intp), pmf.shape).reshape(cells, -1)
    if cells == 1:
        return np.bincount(index[0], weights=pmf.reshape(-1), minlength=width).reshape(lead + (width,))
    flat = np.arange(cells)[:, None] * width + index
    out = np.bincount(flat.ravel(), weights=pmf.reshape(-1), minlength=cells * width)
    return out.reshape(lead + (width,))


def cap(pmf: np.ndarray, limit) -> np.ndarray:
    """Fold every count above ``limit`` into ``limit`` (None: unchanged). ``limit`` is an int
    or an int array of the leading shape (one unit size per cell)."""
    if limit is None:
        return pmf
    if np.ndim(limit) == 0:
        limit = int(limit)
        if pmf.shape[-1] <= limit + 1:
            return pmf
        out = pmf[..., : limit + 1].copy()
        out[..., limit] += pmf[..., limit + 1 :].sum(axis=-1)
        return out
    limit = np.asarray(limit)
    index = np.minimum(np.arange(pmf.shape[-1]), limit[..., None])
    return remap(pmf, index, pmf.shape[-1])


def convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distribution of the sum of two independent counts (last axes; leading axes broadcast)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.ndim == 1 and b.ndim == 1:
        return np.convolve(a, b)
    if a.shape[-1] > b.shape[-1]:  # loop over the shorter count axis
        a, b = b, a
    lead = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    out = np.zeros(lead + (a.shape[-1] + b.shape[-1] - 1,))
    for i in range(a.shape[-1]):
        out[..., i : i + b.shape[-1]] += a[..., i : i + 1] * b
    return out


def pad(pmf: np.ndarray, width: int) -> np.ndarray:
    """``pmf`` with zero probabilities up to ``width`` counts (itself when it has as many)."""
    if pmf.shape[-1] >= width:
        return pmf
    return np.pad(pmf, [(0, 0)] * (pmf.ndim - 1) + [(0, width - pmf.shape[-1])])


def mean_of(pmf: np.ndarray) -> np.ndarray:
    """Expected count of each distribution (last axis)."""
    return pmf @ np.arange(pmf.shape[-1])
