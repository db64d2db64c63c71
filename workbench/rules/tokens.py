"""One attack's tokens, exact: the distribution of its final successes and of the tokens passing
each stage, built from the last stage backwards (see :mod:`workbench.rules.engine`).

``G_i`` is the distribution of final successes that one token rolling at stage ``i``
produces, a short polynomial (cells, k): a failed roll gives nothing; a success (or a
``"none"`` critical) goes on as one token, ``G_{i+1}``; an ``"extra"`` critical goes on as
``1 + extra`` independent tokens, ``G_{i+1}`` to that power; a ``"skip_next"`` critical
rolls next at stage ``i + 2``, ``G_{i+2}``; a ``"to_end"`` critical is one final success;
on a ``passes_on = "fail"`` stage a failed roll goes on and a successful one stops the
token. ``count`` attacks score ``G_0`` to the power ``count``: a binomial when one attack
scores at most one success.

Several counts at once (a tally, criticals, near misses) are a polynomial in one variable per
count, a distribution (cells, *dims): the same walk builds it (:func:`walk_back`, each event a
shift), and its arithmetic is here too (:func:`mixture` over a tokens die, :func:`power`).
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from .. import engine as core
from .spec import RuleStage

__all__ = ["mixture", "power", "per_attack", "expected_tokens", "successes", "per_attack_figures", "stage_pass_pmfs", "trim",
           "walk_back", "step_forward", "multiplies", "token_bounds"]


def _grow(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``a`` (cells, *dims) padded with zeros to (cells, *shape)."""
    if a.shape[1:] == tuple(shape):
        return a
    out = np.zeros((a.shape[0],) + tuple(shape))
    out[(slice(None),) + tuple(slice(0, d) for d in a.shape[1:])] = a
    return out


def _shift(a: np.ndarray, ks: tuple[int, ...]) -> np.ndarray:
    """``a`` times z1^k1 z2^k2 ...: every count raised by ``ks``."""
    if not any(ks):
        return a
    out = np.zeros((a.shape[0],) + tuple(d + k for d, k in zip(a.shape[1:], ks)))
    out[(slice(None),) + tuple(slice(k, None) for k in ks)] = a
    return out


def _sum(*terms: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Sum of weight (cells,) x distribution (cells, *dims)."""
    shape = tuple(max(t.shape[d] for _, t in terms) for d in range(1, terms[0][1].ndim))
    out = np.zeros((terms[0][0].shape[0],) + shape)
    for w, t in terms:
        out += w.reshape((-1,) + (1,) * len(shape)) * _grow(t, shape)
    return out


def _conv_joint(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The joint distribution of the sums of two independent groups of counts (cells, *dims)."""
    shape = tuple(x + y - 1 for x, y in zip(a.shape[1:], b.shape[1:]))
    out = np.zeros((a.shape[0],) + shape)
    for idx in np.ndindex(*b.shape[1:]):
        w = b[(slice(None),) + idx]
        if not w.any():
            continue
        sl = (slice(None),) + tuple(slice(i, i + n) for i, n in zip(idx, a.shape[1:]))
        out[sl] += a * w.reshape((-1,) + (1,) * (a.ndim - 1))
    return out


def mixture(g: np.ndarray, n: np.ndarray) -> np.ndarray:
    """(G + G^2 + ... + G^n) / n for each cell's n: 1..n tokens, equally likely."""
    top = int(n.max())
    total = np.zeros((g.shape[0],) + (1,) * (g.ndim - 1))
    p = np.ones_like(total)
    lift = (-1,) + (1,) * (g.ndim - 1)
    for j in range(1, top + 1):
        p = _conv_joint(p, g)
        total = _grow(total, p.shape[1:]) + np.where((j <= n).reshape(lift), p, 0.0)
    return total / n.reshape(lift)


def _conv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The distribution of the sum of two independent counts, cell by cell (several counts, a
    joint (cells, *dims): :func:`_conv_joint`)."""
    if a.ndim > 2:
        return _conv_joint(a, b)
    if a.shape[0] == 1 and b.shape[0] == 1:
        return np.convolve(a[0], b[0])[None, :]
    return core.convolve(a, b)   # (which loops over the shorter count axis)


def power(g: np.ndarray, n: int) -> np.ndarray:
    """The sum of ``n`` independent counts of distribution ``g`` (cells, *dims), by repeated squaring."""
    out = np.ones((g.shape[0],) + (1,) * (g.ndim - 1))
    base = g
    while n:
        if n & 1:
            out = _conv(out, base)
        n >>= 1
        if n:
            base = _conv(base, base)
    return out


def trim(a: np.ndarray) -> np.ndarray:
    """Drop trailing counts that no cell reaches."""
    nz = np.flatnonzero(a.reshape(-1, a.shape[-1]).any(axis=0))
    return a[..., : (nz[-1] + 1 if nz.size else 1)]


def _point(cells: int, k: int) -> np.ndarray:
    """Every cell's distribution certain of ``k``."""
    out = np.zeros((cells, k + 1))
    out[:, k] = 1.0
    return out


def walk_back(stages: Sequence[RuleStage], probs: Sequence, at_end, past_end, nothing, final, power, mix,
              mark=None, flags=None, near=None):
    """The token rule read from the last stage back, in any arithmetic: the value of one token
    rolling at the first stage, given ``at_end`` (a token reaching the end of ``stages``),
    ``past_end`` (one sent beyond it by a ``"skip_next"`` critical at the last stage), ``nothing``
    (a token stopped), ``final`` (one final success, a ``"to_end"`` critical), ``power(x, k)`` (``k``
    independent tokens of value x) and ``mix((p, x), ...)`` (x with chance p). ``probs[i]``:
    P(fail), P(success), P(critical) of stage i's roll. A failed roll stops a token and a success
    (or a ``"none"`` critical) goes on; on a ``passes_on = "fail"`` stage the other way round.

    Counting events as well (:func:`~workbench.rules.tally.per_token`): ``mark(x, i, event)`` is x
    with what the event at stage i counts ("pass": the token passes stage i, where i may be the
    number of stages: a skip past the last stage counts nothing; "crit": it passes with a critical
    roll; "near": a near miss; "later": it passes every stage after i); ``flags[i]``: where stage i's ``on_critical`` applies (elsewhere
    its critical goes on as an ordinary success, still counted); ``near[i]``: P(near miss), a
    part of P(fail) (None: no near miss counted there)."""
    n = len(stages)
    mark = mark or (lambda x, i, event: x)
    h = [None] * n + [at_end, past_end]
    for i in range(n - 1, -1, -1):
        st, (pf, ps, pc), nxt = stages[i], probs[i], h[i + 1]
        if st.passes_on == "fail":
            h[i] = mix((ps + pc, nothing), (pf, mark(nxt, i, "pass")))
            continue
        how = st.on_critical if st.critical else "none"
        crit = (power(nxt, 1 + st.extra) if how == "extra" else mark(h[i + 2], i + 1, "pass") if how == "skip_next"
                else mark(final, i, "later") if how == "to_end" else nxt)
        p_near = None if near is None else near[i]
        terms = [(pf, nothing)] if p_near is None else [(pf - p_near, nothing), (p_near, mark(nothing, i, "near"))]
        terms.append((ps, mark(nxt, i, "pass")))
        if flags is not None:
            terms.append((pc * (1.0 - flags[i]), mark(nxt, i, "crit")))
        terms.append((pc if flags is None else pc * flags[i], mark(crit, i, "crit")))
        h[i] = mix(*terms)
    return h[0]


def multiplies(st: RuleStage) -> bool:
    """Does the stage's critical make more tokens than it takes (``on_critical = "extra"``)?"""
    return bool(st.critical) and st.passes_on != "fail" and st.on_critical == "extra" and st.extra > 0


def token_bounds(stages: Sequence[RuleStage]) -> tuple[int, int]:
    """(the most final successes one attack can score, the most tokens of one attack that can
    roll at any one stage), counted from the file alone (Python integers: no overflow)."""
    finals = walk_back(stages, [(0, 0, 0)] * len(stages), 1, 1, 0, 1, lambda x, k: k * x,
                       lambda *terms: max(x for _, x in terms))
    return finals, _multiplier(stages)


def _multiplier(stages: Sequence[RuleStage]) -> int:
    """The most tokens one token can become (the "extra" criticals' product): the most that roll at
    any one stage, the last's."""
    return math.prod(1 + st.extra for st in stages if multiplies(st))


def _backward(stages: Sequence[RuleStage], probs: Sequence[np.ndarray], at_end: np.ndarray,
              past_end: np.ndarray) -> np.ndarray:
    """:func:`walk_back` over distributions (cells, k) of final successes."""
    cells = at_end.shape[0]
    return walk_back(stages, probs, at_end, past_end, _point(cells, 0), _point(cells, 1), power, _sum)


def per_attack(stages: Sequence[RuleStage], probs: Sequence[np.ndarray]) -> np.ndarray:
    """Distribution (cells, k) of one attack's final successes; ``probs[i]`` is
    (3, cells): P(fail), P(success), P(critical) of stage i's roll."""
    final = _point(probs[0].shape[1], 1)
    return _backward(stages, probs, final, final)


def step_forward(st: RuleStage, go, crit, skipping, to_end) -> tuple:
    """One stage of the token rule read forward, exact or sampled: ``go`` the tokens whose roll
    lets them go on, ``crit`` their critical rolls, ``skipping`` the tokens passing the stage
    without a roll after a ``"skip_next"`` critical and ``to_end`` those an earlier ``"to_end"``
    critical sent past every remaining stage -> (tokens passing the stage, rolling at the next,
    skipping it, sent to the end so far). After the last stage the final successes are the
    sum of the last three."""
    how = "none" if st.passes_on == "fail" or not st.critical else st.on_critical
    nxt = go + st.extra * crit if how == "extra" else go if how == "none" else go - crit
    return (go + skipping + to_end, nxt + skipping, crit if how == "skip_next" else crit * 0,
            to_end + crit if how == "to_end" else to_end)


def expected_tokens(stages: Sequence[RuleStage], probs: Sequence[np.ndarray]) -> tuple[list, np.ndarray]:
    """Per attack: expected tokens passing each stage (:func:`step_forward`), and expected
    critical successes."""
    cells = probs[0].shape[1]
    rolling, skipping, to_end = np.ones(cells), np.zeros(cells), np.zeros(cells)
    passes, crits = [], np.zeros(cells)
    for st, (pf, ps, pc) in zip(stages, probs):
        crits = crits + rolling * pc
        go = rolling * (pf if st.passes_on == "fail" else ps + pc)
        passing, rolling, skipping, to_end = step_forward(st, go, rolling * pc, skipping, to_end)
        passes.append(passing)
    return passes, crits


def successes(g0: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Distribution (cells, N) of the final successes of ``count[c]`` attacks in each cell.

    One attack scoring at most one success: the binomial (closed form);
    otherwise ``G_0`` to the power ``count`` by repeated squaring."""
    g0 = trim(g0)
    uniform = bool(np.all(count == count[0]))
    if g0.shape[-1] <= 2:
        p = g0[:, 1] if g0.shape[-1] == 2 else np.zeros(g0.shape[0])
        n = int(count[0]) if uniform else count
        return core.binomial_pmf(n, p, width=int(count.max()) + 1)
    if uniform:
        return power(g0, int(count[0]))
    n_max = int(count.max())
    out = np.zeros((g0.shape[0], n_max * (g0.shape[-1] - 1) + 1))
    p = np.ones((g0.shape[0], 1))
    for n in range(n_max + 1):
        sel = count == n
        if sel.any():
            out[sel, : p.shape[-1]] = p[sel]
        if n < n_max:
            p = core.convolve(g0, p)
    return out


def per_attack_figures(stages: Sequence[RuleStage], fractions: Sequence[tuple]) -> tuple:
    """(expected final successes of one attack, P(one attack scores at least one)), exact from
    each stage's (P(fail), P(success), P(critical)) Fractions.

    :func:`walk_back` over only the mean ``m`` and the chance of nothing ``z`` of a token
    (an ``"extra"`` critical's ``1 + extra`` tokens: ``(1 + extra) m`` and ``z ** (1 + extra)``).
    When the criticals multiply tokens more than 64 times the Fractions would
    grow without bound, and floats are returned."""
    conv = (lambda x: x) if _multiplier(stages) <= 64 else float
    probs = [tuple(conv(x) for x in f) for f in fractions]
    m, z = walk_back(stages, probs, (1, 0), (1, 0), (0, 1), (1, 0), lambda x, k: (k * x[0], x[1] ** k),
                     lambda *terms: tuple(sum(p * x[j] for p, x in terms) for j in (0, 1)))
    return m, 1 - z


def stage_pass_pmfs(stages: Sequence[RuleStage], probs: Sequence[np.ndarray],
                    count: np.ndarray, n_tokens: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """For each stage, the distribution (cells, k) of how many tokens pass it over all
    ``count`` attacks (a token passes a stage when its roll lets it go on, when it passes the
    stage without a roll after a ``"skip_next"`` critical, or after an earlier ``"to_end"``
    critical): the recursion of :func:`per_attack` stopped at that stage, each token passing
    it counted as one. ``n_tokens``: each cell's tokens die (an attack enters as 1..n tokens,
    :func:`mixture`)."""
    one = _point(probs[0].shape[1], 1)
    out = {}
    for s, st in enumerate(stages):
        pf, ps, pc = probs[s]
        go = pf if st.passes_on == "fail" else ps + pc
        at_s = np.stack([1 - go, go], axis=-1)   # a token rolling at stage s passes it or not
        h0 = _backward(stages[:s], probs[:s], at_s, one)
        out[st.name] = successes(h0 if n_tokens is None else mixture(h0, n_tokens), count)
    return out
