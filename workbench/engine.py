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
    "binomial_pmf", "remap", "convolve", "cap", "sample_pmf", "mean_of",
]


@lru_cache(maxsize=512)
def _comb_row(n: int) -> np.ndarray:
    row = np.array([math.comb(n, k) for k in range(n + 1)], dtype=float)
    row.setflags(write=False)
    return row


def binomial_pmf(n, p, width: int | None = None) -> np.ndarray:
    """P(k successes in n independent trials of probability p), k = 0..width-1.

    ``p`` is a float or an array (any shape S); ``n`` an int or an int array
    broadcastable to S. Result shape ``S + (width,)`` with ``width`` defaulting
    to max(n) + 1; entries with k > n are 0.
    """
    p = np.asarray(p, dtype=float)
    n_arr = np.asarray(n)
    n_max = int(n_arr.max()) if n_arr.size else 0
    width = n_max + 1 if width is None else width
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
        out = comb * pk ** k * (1.0 - pk) ** nk
    return out


def remap(pmf: np.ndarray, index, width: int) -> np.ndarray:
    """Move the probability of count k to count ``index[k]`` (summing collisions).

    ``index`` is a 1-D int array with one entry per count of ``pmf``'s last
    axis; entries must lie in ``[0, width)``. Used for "models removed =
    min(models, wounds // W)" and the like.
    """
    index = np.asarray(index, dtype=np.intp)
    onehot = np.zeros((index.size, width))
    onehot[np.arange(index.size), index] = 1.0
    return pmf @ onehot


def cap(pmf: np.ndarray, limit: int | None) -> np.ndarray:
    """Fold every count above ``limit`` into ``limit`` (None: unchanged)."""
    if limit is None or pmf.shape[-1] <= limit + 1:
        return pmf
    out = pmf[..., : limit + 1].copy()
    out[..., limit] += pmf[..., limit + 1 :].sum(axis=-1)
    return out


def convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distribution of the sum of two independent counts (last axes; leading axes broadcast)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    lead = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    out = np.zeros(lead + (a.shape[-1] + b.shape[-1] - 1,))
    for i in range(a.shape[-1]):
        out[..., i : i + b.shape[-1]] += a[..., i : i + 1] * b
    return out


def mean_of(pmf: np.ndarray) -> np.ndarray:
    """Expected count of each distribution (last axis)."""
    return pmf @ np.arange(pmf.shape[-1])


def sample_pmf(counts: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Empirical pmf of integer ``counts`` (one per sample) and its standard errors."""
    counts = np.asarray(counts).ravel()
    n = counts.size
    pmf = np.bincount(counts.astype(np.intp), minlength=width)[:width] / n
    stderr = np.sqrt(pmf * (1.0 - pmf) / n)
    return pmf, stderr
