"""Removal, exact: the distribution of models removed by a distribution of final successes.

A fixed damage per success has closed forms: without spill each model takes
``ceil(wounds / damage)`` successes, so ``k`` successes remove
``min(models, k // ceil(wounds / damage))``; with spill ``min(models, k * damage // wounds)``.
Only a rolled damage without spill needs a Markov chain over (models removed, wounds left on
the current model), applied one success at a time (damage beyond the current model's wounds,
or after the unit is destroyed, is wasted); a rolled damage with spill totals the successes'
damage and divides it. A pooled ``removed`` formula maps each number of successes to models
removed, and a removal model by model is :mod:`workbench.rules.wounds`'s. ``models`` caps every
count (:func:`workbench.engine.remap`, the one fold).

Cells sharing a unit (models, wounds) share one Markov chain.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence, TypeVar

import numpy as np

from .. import engine as core
from . import wounds as by_model
from .budget import MAX_STATES, MAX_SUCCESSES, check_value, check_work
from .errors import BudgetError
from .expr import Expr
from .spec import DamageRoll, Removal

__all__ = ["given", "advance", "remove", "damage_distribution", "fixed_damage_removal", "per_success_removal", "pooled_removal"]


_T = TypeVar("_T")


def given(value: _T | None, what: str) -> _T:
    """A value the caller has made sure is there: wounds or damage, which the loader always
    gives a removal without a pooled formula or a model-by-model save."""
    if value is None:
        raise RuntimeError(f"no {what}")
    return value


def damage_distribution(roll: DamageRoll) -> np.ndarray:
    """P(damage = k), k = 0..max, of a :class:`~workbench.rules.spec.DamageRoll` (exact convolution)."""
    one = np.zeros(roll.sides + 1)
    one[1:] = 1.0 / roll.sides
    out = np.ones(1)
    for _ in range(roll.dice):
        out = np.convolve(out, one)
    if roll.plus >= 0:
        return np.concatenate([np.zeros(roll.plus), out])
    return out[-roll.plus:]


def _fixed_index(k: np.ndarray, models, wounds, damage, spill: bool) -> tuple[np.ndarray, np.ndarray]:
    """Models removed and damage wasted by ``k`` successes of a fixed ``damage`` (closed forms;
    every argument broadcasts, ``models`` None: no unit size)."""
    if isinstance(damage, int) and isinstance(wounds, int) and not spill:   # one cell: Python integers
        if damage <= 0:
            return np.zeros(np.shape(k), dtype=np.int64), np.zeros(np.shape(k))
        each = -(-wounds // damage)  # successes per model
        removed = k // each
        if models is None:
            return removed, removed * (each * damage - wounds)
        removed = np.minimum(removed, models)
        return removed, removed * (each * damage - wounds) + np.maximum(k - models * each, 0) * damage
    removed, _, wasted = advance(0, 0, k, damage, wounds, models, spill)
    return removed, wasted


def advance(r, h, k, damage, wounds, models, spill: bool):
    """The unit after ``k`` successes of a fixed ``damage``, from ``r`` models removed and ``h`` damage
    on the model in front (every argument broadcasts; ``models`` None: no unit size): (r, h, damage
    wasted). Without spill each success goes to the model in front and what passes its last wound is
    wasted; with spill the damage adds up. With a unit size nothing is removed past it and the damage
    after it is wasted. A damage of 0 or less changes nothing."""
    r, h, k = np.asarray(r, dtype=np.int64), np.asarray(h, dtype=np.int64), np.asarray(k, dtype=np.int64)
    hits = np.asarray(damage) > 0
    damage = np.maximum(damage, 1)
    if spill:
        t = h + k * damage
        r2, h2 = r + t // wounds, t % wounds
    else:
        first = -(-(wounds - h) // damage)          # successes that remove the model in front
        per = -(-wounds // damage)                  # successes per fresh model
        later = np.maximum(k - first, 0)
        r2 = np.where(k < first, r, r + 1 + later // per)
        h2 = np.where(k < first, h + k * damage, (later % per) * damage)
    if models is not None:
        full = r2 >= models
        r2, h2 = np.where(full, models, r2), np.where(full, 0, h2)
    r2, h2 = np.where(hits, r2, r), np.where(hits, h2, h)
    return r2, h2, np.where(hits, k * damage - ((r2 - r) * wounds + h2 - h), 0)


def fixed_damage_removal(p: np.ndarray, models: int | None, wounds: int, damage: int,
                         spill: bool) -> tuple[np.ndarray, float]:
    """One cell of :func:`per_success_removal` with a fixed damage: the pmf of models removed
    for ``p[k]`` = P(k successes), and the expected damage wasted (the closed forms of
    :func:`_fixed_index` with Python integers)."""
    k = np.arange(p.size)
    removed, waste = _fixed_index(k, models, wounds, damage, spill)
    if models is not None and not spill and damage >= wounds:   # each success removes a model: the fold
        pmf = core.cap(p, models)
        return core.pad(pmf, models + 1), float(p @ waste)
    width = models + 1 if models is not None else int(removed[np.flatnonzero(p).max(initial=0)]) + 1
    return core.remap(p, np.minimum(removed, width - 1), width), float(p @ waste)


def _chain(p_n: np.ndarray, models: int | None, wounds: int, damage: Sequence[tuple[int, float]],
           path: Any) -> tuple[np.ndarray, np.ndarray]:
    """A rolled damage without spill: the unit's state after each success, one at a time.

    States: (models removed r, wounds left w on the current model), plus one
    "destroyed" state with a unit size. Returns the pmf (cells, width) of
    models removed and the expected damage wasted (cells,)."""
    W, M = wounds, models
    cells, width_n = p_n.shape
    n_max = width_n - 1
    rows = n_max + 1 if M is None else M          # models that can still be hit
    n_states = rows * W + (0 if M is None else 1)
    if n_states > MAX_STATES:
        raise BudgetError(path, "removal", f"a unit of at most {MAX_STATES:,} model-wound states "
                          "(models x wounds)", f"{rows:,} models x {W:,} wounds")
    check_work(path, n_max, n_states, len(damage) + cells, "model-wound states")
    r = np.repeat(np.arange(rows), W)
    w = np.tile(np.arange(W, 0, -1), rows)        # wounds left: W, W-1, ..., 1
    if M is not None:
        r, w = np.append(r, M), np.append(w, 0)
    dead = w == 0
    dests = []
    wexp = np.zeros(n_states)
    for d, q in damage:
        kill = (d >= w) & ~dead
        nr = np.where(kill, r + 1, r)
        nw = np.where(kill, W, w - d)
        if M is None:
            nr = np.minimum(nr, rows - 1)
            dest = nr * W + (W - nw)
        else:
            dest = np.where(dead | (nr >= M), M * W, np.minimum(nr, M - 1) * W + (W - nw))
        dests.append(dest)
        wexp += q * np.where(dead, d, np.where(kill, d - w, 0))
    dest = np.concatenate(dests)
    q_all = np.repeat([q for _, q in damage], n_states)
    V = np.empty((n_max + 1, n_states))
    v = np.zeros(n_states)
    v[M * W if M == 0 else 0] = 1.0
    for n in range(n_max + 1):
        V[n] = v
        if n < n_max:
            v = np.bincount(dest, weights=q_all * np.tile(v, len(damage)), minlength=n_states)
    removed = r if M is None else np.append(np.repeat(np.arange(M), W), M)
    by_removed = np.zeros((n_states, int(removed.max()) + 1))
    by_removed[np.arange(n_states), removed] = 1.0
    # the n-th success wastes V[n-1] @ wexp on average; k successes waste the sum up to k
    wasted_after = np.concatenate([[0.0], np.cumsum(V[:-1] @ wexp)])
    return p_n @ (V @ by_removed), p_n @ wasted_after


def _spill_roll(p_n: np.ndarray, models: int | None, wounds: int, roll: np.ndarray,
                path: Any) -> tuple[np.ndarray, np.ndarray]:
    """A rolled damage with spill: the total damage of the successes (their
    distribution mixed over the number of successes), divided by the wounds."""
    cells, width_n = p_n.shape
    n_max = width_n - 1
    dmax = roll.size - 1
    check_work(path, n_max, n_max * dmax + 1, roll.size + cells, "total damage")
    total = np.zeros((cells, n_max * dmax + 1))
    s = np.ones(1)
    for n in range(n_max + 1):                      # P(total = t) = sum_n P(n successes) P(t | n)
        total[:, : s.size] += p_n[:, n, None] * s
        if n < n_max:
            s = np.convolve(s, roll)
    t = np.arange(total.shape[1])
    removed, wasted = _fixed_index(t, models, wounds, 1, True)
    return core.remap(total, removed, int(removed.max()) + 1), total @ wasted


def per_success_removal(p_n: np.ndarray, models: np.ndarray | None, wounds: np.ndarray,
                        damage: np.ndarray | None, roll_dist: np.ndarray | None,
                        spill: bool, path: Any = "<rule file>") -> tuple[np.ndarray, np.ndarray]:
    """pmf (cells, width) of models removed and expected wasted damage (cells,)."""
    cells, width_n = p_n.shape
    if roll_dist is None:                          # closed forms, every cell at once
        k = np.arange(width_n)[None, :]
        m = None if models is None else np.asarray(models)[:, None]
        removed, waste = _fixed_index(k, m, np.asarray(wounds)[:, None], np.asarray(damage)[:, None], spill)
        removed = np.broadcast_to(removed, p_n.shape)
        width = int(np.where(p_n > 0, removed, 0).max()) + 1
        return core.remap(p_n, np.minimum(removed, width - 1), width), (p_n * waste).sum(axis=-1)
    last = width_n - 1 - np.argmax(p_n[:, ::-1] > 0, axis=1)
    cols = [(-1 if models is None else models), wounds]
    keys = np.stack([np.broadcast_to(np.asarray(c, dtype=np.int64), (cells,)) for c in cols], axis=1)
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    dmg = tuple((k, float(q)) for k, q in enumerate(roll_dist) if q > 0)
    parts, wasted = [], np.zeros(cells)
    for gi, (m, w) in enumerate(uniq):
        sel = inverse == gi
        unit = None if m < 0 else int(m)
        pn = p_n[sel, : int(last[sel].max()) + 1]
        pmf, waste = (_spill_roll(pn, unit, int(w), roll_dist, path) if spill
                      else _chain(pn, unit, int(w), dmg, path))
        parts.append((sel, pmf))
        wasted[sel] = waste
    width = max(p.shape[-1] for _, p in parts)
    pmf = np.zeros((cells, width))
    for sel, p in parts:
        pmf[sel, : p.shape[-1]] = p
    return pmf, wasted


def pooled_removal(p_n: np.ndarray, removed: Expr, env: Mapping[str, Any],
                   models: np.ndarray | None) -> np.ndarray:
    """pmf (cells, width) of models removed by the pooled formula of the successes."""
    cells, width_n = p_n.shape
    env2 = {k: np.asarray(v)[:, None] for k, v in env.items()}
    env2["successes"] = np.arange(width_n)[None, :]
    index = check_value(removed, env2, "removal.removed", 0, MAX_SUCCESSES, "a number of models")
    index = np.broadcast_to(index, (cells, width_n))
    if models is not None:
        index = np.minimum(index, np.asarray(models)[:, None])
    # only counts that can happen decide the width
    width = int(np.where(p_n > 0, index, 0).max()) + 1
    return core.remap(p_n, np.minimum(index, width - 1), width)


def remove(removal: Removal, env: Mapping[str, np.ndarray], p_n: np.ndarray, models: np.ndarray | None,
           wounds: np.ndarray | None, damage: np.ndarray | None, path: Any = "<rule file>") -> tuple:
    """The file's removal of the final successes ``p_n`` (cells, successes): (the pmf of models
    removed (cells, width), the expected wasted damage (cells,), the unit of a model-by-model
    removal or None). With a unit size the pmf runs 0..models, as the built-in systems' do."""
    cells = p_n.shape[0]
    unit = None  # a model-by-model removal's saves, tough models and wounded models
    if removal.removed is not None:  # a pooled formula
        pmf = pooled_removal(p_n, removal.removed, env, models)
        wasted = np.zeros(cells)
    elif removal.by_model:  # a save reading wounded, tough models, models that start wounded
        unit = by_model.unit(removal, env, cells, models)
        pmf, wasted = by_model.exact(p_n, models, unit, path)
    elif cells == 1 and removal.damage_roll is None:  # one cell of a fixed damage: Python integers
        one, waste = fixed_damage_removal(p_n[0], None if models is None else int(models[0]),
                                          int(given(wounds, "wounds")[0]), int(given(damage, "damage")[0]),
                                          removal.spill)
        pmf, wasted = one[None, :], np.array([waste])
    else:
        roll = None if removal.damage_roll is None else damage_distribution(removal.damage_roll)
        pmf, wasted = per_success_removal(p_n, models, given(wounds, "wounds"), damage, roll, removal.spill, path)
    if models is not None:   # zeros up to the largest unit
        pmf = core.pad(pmf, int(models.max()) + 1)
    return pmf, wasted, unit

