"""Counts beside the final successes, exact: random tokens per attack, criticals switched by the
stats, named tallies and the chances of conditions on them (the keys: docs/rulefiles.md).

* ``attack.tokens_die = N``: one attack is the mixture ``(G + G^2 + ... + G^N) / N`` of the
  one-token distribution ``G``.
* ``on_critical_when`` false: the token rule sees that part of P(critical) as an ordinary
  success (the criticals are still counted).
* One token's counts are a polynomial built from the last stage backwards by the walk of the final
  successes (:mod:`workbench.rules.tokens`): every outcome of a roll multiplies what follows
  by z to the number of counted events it is. Over all attacks: the mixture over the tokens
  die, then the power ``count``.
* ``[[chances]]``: P(condition) summed, cell by cell, over the distribution of the count it
  reads or the joint distribution of the two or three tallies (one dimension per count).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..engine import _binomial_log_space, binomial_pmf, cap
from ..errors import InputError
from . import condition
from .budget import MAX_TABLE
from .spec import Chance, RuleStage
from .tokens import _conv_joint as _conv, _shift, _sum, mixture, power, walk_back

__all__ = ["uses_counts", "tokens", "split_criticals", "per_token", "token_counts",
           "chances", "chance", "CRITICALS"]

#: the tally of every critical roll at every stage (the "criticals" effect)
CRITICALS = "criticals"


def uses_counts(parts: Mapping[str, Any]) -> bool:
    """Does the file use a mechanism this module resolves?"""
    return bool(parts.get("tokens_die") is not None or parts.get("chances")
                or any(st.on_critical_when is not None or st.tally or st.critical_tally or st.near_miss_tally
                       for st in parts["stages"]))


def tokens(parts: Mapping[str, Any], env: Mapping[str, Any], cells: int, checked) -> np.ndarray | None:
    """Faces of each cell's tokens die (None without ``tokens_die``, or where it is 1 in every
    cell: one token per attack)."""
    expr = parts.get("tokens_die")
    if expr is None:
        return None
    n = checked(expr, env, "attack.tokens_die")
    if np.all(np.asarray(n) == 1):
        return None
    return np.broadcast_to(np.asarray(n, dtype=np.int64), (cells,))


def critical_flags(stages: Sequence[RuleStage], env: Mapping[str, Any], cells: int) -> list[np.ndarray]:
    """Per stage, where (1.0) its ``on_critical`` applies."""
    return [np.ones(cells) if st.on_critical_when is None else np.broadcast_to(
        st.on_critical_when.evaluate(env, f"stages[{i}].on_critical_when") != 0, (cells,)).astype(float)
        for i, st in enumerate(stages)]


def split_criticals(probs: Sequence[np.ndarray], flags: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The probabilities the token rule sees: a critical whose rule is off is an ordinary success."""
    return [np.stack([pf, ps + pc * (1.0 - f), pc * f]) for (pf, ps, pc), f in zip(probs, flags)]


def per_token(stages: Sequence[RuleStage], probs: Sequence[np.ndarray], flags: Sequence[np.ndarray],
              passed: Sequence, crits: Sequence, near: Sequence, p_near: Sequence) -> np.ndarray:
    """Distribution (cells, *dims) of one token's counts of events, one dimension per count:
    a token passing stage i adds ``passed[i]`` (a tuple, one 0 or 1 per count), a critical roll
    there ``crits[i]``, a near miss ``near[i]`` (with probability ``p_near[i]``, part of a failure):
    :func:`~workbench.rules.tokens.walk_back` over distributions of counts, each event a shift."""
    n = len(stages)
    zero = (0,) * len(passed[0])
    add = lambda *vs: tuple(map(sum, zip(*vs)))
    moves = {"pass": list(passed) + [zero], "crit": [add(p, c) for p, c in zip(passed, crits)], "near": near,
             "later": [add(zero, *passed[i + 1:]) for i in range(n)]}
    one = np.ones((probs[0].shape[1],) + (1,) * len(zero))
    counted = [p_near[i] if any(near[i]) else None for i in range(n)]
    return walk_back(stages, probs, one, one, one, one, power, _sum,
                     lambda x, i, event: _shift(x, moves[event][i]), flags, counted)


def near_chances(stages: Sequence[RuleStage], dice: Sequence, cells: int) -> list[np.ndarray]:
    """Per stage, each cell's chance of a near miss (0 where the stage counts none)."""
    return [np.broadcast_to(np.divide(*die.near_counts()), (cells,)) if st.near_miss_tally else np.zeros(cells)
            for st, die in zip(stages, dice)]


def _events(stages: Sequence[RuleStage], names: Sequence[str], finals: bool = False) -> tuple[list, list, list]:
    """Per stage, which of the counts ``names`` a pass, a critical and a near miss there add to
    (``finals``: and one count more, the tokens passing the last stage)."""
    end = (0,) if finals else ()
    passed = [tuple(int(st.tally == c and c != "") for c in names) + end for st in stages]
    crits = [tuple(int(c == CRITICALS or (st.critical_tally == c and c != "")) for c in names) + end for st in stages]
    near = [tuple(int(st.near_miss_tally == c and c != "") for c in names) + end for st in stages]
    if finals:
        passed[-1] = passed[-1][:-1] + (1,)
    return passed, crits, near


def token_counts(parts: Mapping[str, Any], probs: Sequence[np.ndarray], flags: Sequence[np.ndarray],
                 n_tokens: np.ndarray | None, dice: Sequence) -> dict:
    """One attack's distribution (cells, *dims) of every named tally and of the criticals (by
    name), and of each group of tallies a chance reads together (by the tuple of their names):
    everything about the counts that does not depend on the number of attacks.

    ``probs`` are the dice's own P(fail, success, critical); ``dice`` their
    :class:`~workbench.rules.die.StageDie` (near misses).
    """
    stages = parts["stages"]
    names = [CRITICALS] + [t for st in stages for t in (st.tally, st.critical_tally, st.near_miss_tally) if t]
    p_near = near_chances(stages, dice, probs[0].shape[1])
    one: dict[str, np.ndarray] = {}
    done: dict[tuple, np.ndarray] = {}  # counts made of the same events share one distribution
    for name in names:
        events = tuple(map(tuple, _events(stages, (name,))))
        h = done.get(events)
        if h is None:
            h = done[events] = _one(stages, probs, flags, p_near, n_tokens, (name,))
        one[name] = h
    joint: dict[tuple, np.ndarray] = {}
    for c in parts.get("chances", ()):
        read = c.reads
        if len(read) > 1 and read not in joint:
            joint[read] = _one(stages, probs, flags, p_near, n_tokens, read)
    return {"names": tuple(names), "one": one, "joint": joint, "p_near": p_near,
            "means": {name: h @ np.arange(h.shape[-1]) for name, h in one.items()}}


def chances(parts: Mapping[str, Any], counts: Mapping[str, Any], count: np.ndarray, all_of,
            env: Mapping[str, Any], given: Mapping[str, np.ndarray]) -> dict:
    """P(condition) per cell of every ``[[chances]]`` entry over ``count`` attacks.

    ``counts``: :func:`token_counts`; ``all_of(g, count)`` is the engine's power of one
    attack's distribution over ``count`` attacks; ``given``: the distributions the engine has
    already (``successes``, ``removed``). Two nested 0-or-1 tallies are read through the runs of
    :mod:`~workbench.rules.condition` where the condition splits into them; otherwise each
    chance sums over the distribution of the count(s) it reads, built once per count or group."""
    dists: dict[Any, np.ndarray] = dict(given)
    out = {}
    for c in parts.get("chances", ()):
        read = c.reads
        key = dist_key(c)
        what = " and ".join(read)
        if key not in dists and set(read) <= set(counts["names"]):   # tallies (the rest is given)
            h = counts["one"][read[0]] if len(read) == 1 else counts["joint"][read]
            if c.up_to is None and len(read) == 2 and _nested(h):
                p = condition.nested_chance(c.when, read, h, count, env, f"chances[{c.index}].when")
                if p is not None:
                    out[c.name] = p
                    continue
            dists[key] = _all(h, count, what, all_of) if c.up_to is None else _all_up_to(h, count, c.up_to, what)
        out[c.name] = chance(c, dists[key] if key in dists else dists[c.count], env)
    return out


def _nested(h: np.ndarray) -> bool:
    """Two 0-or-1 counts where one never happens without the other."""
    return h.shape[1:] == (2, 2) and (not h[:, 0, 1].any() or not h[:, 1, 0].any())


def dist_key(c: Chance):
    """The key of the distribution a chance reads: its count(s), and its ``up_to`` when it has one."""
    return c.count if c.up_to is None else (c.count, c.up_to)


def _fold(a: np.ndarray, up_to: int) -> np.ndarray:
    """``a`` (cells, *dims) with every count above ``up_to`` moved to ``up_to`` (saturated counts):
    the one fold (:func:`workbench.engine.cap`) along each count's axis."""
    for axis in range(1, a.ndim):
        a = np.moveaxis(cap(np.moveaxis(a, axis, -1), up_to), -1, axis)
    return a


def _all_up_to(h: np.ndarray, count: np.ndarray, up_to: int, what: str) -> np.ndarray:
    """The joint distribution of the counts, each saturated at ``up_to``, over each cell's
    ``count`` attacks. Saturating commutes with adding counts (min(x + y, N) = min(min(x, N) +
    min(y, N), N)), so the power is taken by repeated squaring, folding after every product: no
    count is held beyond ``up_to`` and the work grows with the logarithm of the attacks."""
    h = _fold(h, up_to)
    dims = tuple(min(int(count.max()) * (d - 1), up_to) + 1 for d in h.shape[1:])
    _check_size(int(np.prod(dims)) * h.shape[0], what)
    out = np.zeros((h.shape[0],) + dims)
    square, bit = h, 1                       # h to the power 2^j, saturated
    powers: dict[int, np.ndarray] = {}
    for k in np.unique(count):
        k = int(k)
        while bit <= k and bit not in powers:
            powers[bit] = square
            if bit * 2 <= int(count.max()):
                square = _fold(_conv(square, square), up_to)
            bit *= 2
        sel = count == k
        p: np.ndarray = np.ones((int(sel.sum()),) + (1,) * (h.ndim - 1))
        for b, sq in powers.items():
            if k & b:
                p = _fold(_conv(p, sq[sel]), up_to)
        out[(sel,) + tuple(slice(0, w) for w in p.shape[1:])] = p
    return out


def _check_size(size: int, what: str) -> None:
    """Refuse a distribution of ``size`` numbers past :data:`MAX_TABLE`."""
    if size > MAX_TABLE:
        raise InputError("chances", f"at most {MAX_TABLE} numbers for the distribution of a count",
                         f"{size} for {what}")


def _one(stages, probs, flags, p_near, n_tokens, names, finals: bool = False) -> np.ndarray:
    passed, crits, near = _events(stages, names, finals)
    h = per_token(stages, probs, flags, passed, crits, near, p_near)
    return h if n_tokens is None else mixture(h, n_tokens)


def _all(h: np.ndarray, count: np.ndarray, what: str, all_of) -> np.ndarray:
    """One attack's distribution to the power of each cell's ``count``."""
    _check_size(int(np.prod([int(count.max()) * (d - 1) + 1 for d in h.shape[1:]])) * h.shape[0], what)
    if h.ndim == 2 and all_of is not None:
        return all_of(h, count)
    if _nested(h):
        return _nested_power(h, count)
    if int(count.max()) > FFT_FROM:
        return _fft_power(h, count)
    return _all_up_to(h, count, int(count.max()) * (max(h.shape[1:]) - 1), what)   # a bound no count passes


#: attacks from which the joint distribution of several counts is raised to their number by FFT
#: (the repeated convolution costs attacks^(counts + 1))
FFT_FROM = 48


def _nested_power(h: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The joint distribution over ``count`` attacks of two 0-or-1 counts where one never
    happens without the other (a hit and a penetrating hit): the outer count is
    Binomial(n, P(outer)) and, given it, the inner one Binomial(outer, P(inner | outer))."""
    swap = bool(h[:, 0, 1].any())           # the first count is the inner one: work transposed
    g = np.swapaxes(h, 1, 2) if swap else h
    top = int(count.max())
    out = np.zeros((h.shape[0], top + 1, top + 1))
    for c in range(h.shape[0]):
        n = int(count[c])
        outer = float(g[c, 1].sum())
        inner = float(g[c, 1, 1]) / outer if outer > 0 else 0.0
        rows = _binomial_log_space(np.arange(n + 1), np.asarray(inner), n + 1)  # (outer = i, inner = j)
        out[c, : n + 1, : n + 1] = binomial_pmf(n, outer, width=n + 1)[:, None] * rows
    return np.swapaxes(out, 1, 2) if swap else out


def _fft_power(h: np.ndarray, count: np.ndarray) -> np.ndarray:
    """One attack's joint distribution (cells, *dims) to the power of each cell's ``count``,
    through the multi-dimensional FFT: exact to rounding (about 1e-15 per entry)."""
    shape = tuple(int(count.max()) * (w - 1) + 1 for w in h.shape[1:])
    axes = tuple(range(1, h.ndim))
    spectrum = np.fft.rfftn(h, s=shape, axes=axes)
    out = np.zeros((h.shape[0],) + shape)
    for k in np.unique(count):
        sel = count == k
        out[sel] = np.fft.irfftn(spectrum[sel] ** int(k), s=shape, axes=axes)
    return np.clip(out, 0.0, None)


def chance(c: Chance, dist: np.ndarray, env: Mapping[str, Any], names: Sequence[str] | None = None) -> np.ndarray:
    """P(``c.when``) per cell from the distribution (cells, *dims) of the count(s) it reads
    (``names``: the counts along its axes, the chance's order unless given)."""
    names = names or c.reads
    if c.up_to is not None:
        dist = _fold(dist, c.up_to)
    dims = dist.ndim - 1
    lift = (-1,) + (1,) * dims
    env2 = {k: np.asarray(v).reshape(lift) if np.ndim(v) else v for k, v in env.items() if k in c.when.names}
    for d, name in enumerate(names):
        shape = [1] * (dims + 1)
        shape[d + 1] = dist.shape[d + 1]
        env2[name] = np.arange(dist.shape[d + 1]).reshape(shape)
    cond = np.broadcast_to(c.when.evaluate(env2, f"chances[{c.index}].when") != 0, dist.shape)
    return np.clip((dist * cond).reshape(dist.shape[0], -1).sum(axis=1), 0.0, 1.0)


def sampled_chance(c: Chance, counts: Mapping[str, np.ndarray], env: Mapping[str, Any]) -> np.ndarray:
    """Per sample: is ``c.when`` true for the sample's count(s) (``counts``: name -> per sample)."""
    env2 = {k: np.asarray(v) for k, v in env.items()}
    for name in c.reads:
        x = np.asarray(counts[name], dtype=np.int64)
        env2[name] = x if c.up_to is None else np.minimum(x, c.up_to)
    return np.broadcast_to(c.when.evaluate(env2, f"chances[{c.index}].when") != 0, np.shape(counts[c.reads[0]]))
