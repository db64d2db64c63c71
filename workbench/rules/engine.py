"""Exact resolution of a rule file, vectorised over stat grids.

1. Each stage's die (:class:`~workbench.rules.die.StageDie`) gives integer
   counts of fail / success / critical over ``die`` (or ``die``\\ ² with a
   re-roll) rolls: exact probabilities.
2. Tokens: each attack starts as one token at the first stage. ``G_i`` is
   the distribution of final successes that one token rolling at stage ``i``
   produces (a short polynomial), built from the last stage backwards:

   * a failed roll gives nothing; a success (or a ``"none"`` critical) goes
     on as one token: ``G_{i+1}``;
   * an ``"extra"`` critical goes on as ``1 + extra`` independent tokens:
     ``G_{i+1}`` to that power;
   * a ``"skip_next"`` critical passes stage ``i + 1`` without a roll and
     rolls at stage ``i + 2``: ``G_{i+2}`` (a final success past the end);
   * a ``"to_end"`` critical is one final success;
   * on a ``passes_on = "fail"`` stage a failed roll goes on and a
     successful one stops the token.

   The final successes of ``count`` attacks are ``G_0`` to the power
   ``count`` (repeated convolution with numpy).
3. Removal, as a distribution over the unit's state: with per-success damage
   and ``spill = false`` a Markov chain over (models removed, wounds left on
   the current model) applies one success at a time (damage beyond the
   current model's wounds, or after the unit is destroyed, is wasted); with
   ``spill = true`` the total damage of the successes is divided by the
   wounds; a pooled ``removed`` formula maps each number of successes to
   models removed. ``models`` caps every count.

Everything works on cells: every stat is a 1-D array of the same length, so
a sweep of a thousand cells is one call. Cells sharing a unit (models,
wounds, damage) share one Markov chain.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from .. import engine as core
from ..errors import InputError
from . import tally
from .die import StageDie
from .expr import Expr, _cells
from .spec import Removal, RuleStage

__all__ = ["stage_dice", "resolve", "check_value", "MAX_ATTACKS", "MAX_SUCCESSES", "MAX_STATES",
           "damage_distribution"]

MAX_ATTACKS = 5_000
MAX_SUCCESSES = 10_000
MAX_STATES = 20_000
#: numbers held by one distribution table (successes x unit states, cells x successes): about 160 MB
MAX_TABLE = 20_000_000
#: a dense transition matrix up to this many unit states, a sparse update beyond
DENSE_STATES = 1_500


def check_value(expr: Expr, env: Mapping[str, Any], field: str, lo: int | None, hi: int | None,
                what: str) -> np.ndarray:
    """Evaluate ``expr`` and check every cell lies in ``[lo, hi]``; the error
    names the field, the allowed range, the value and the stats it came from."""
    x = expr.evaluate(env, field)
    bad = np.zeros(np.shape(x), dtype=bool)
    if lo is not None:
        bad |= x < lo
    if hi is not None:
        bad |= x > hi
    if bad.any():
        value = int(np.asarray(x)[bad].ravel()[0]) if np.ndim(x) else int(x)
        rng = (f"from {lo} to {hi}" if lo is not None and hi is not None else
               f"{lo} or more" if lo is not None else f"{hi} or less")
        origin = _cells(env, expr, bad) if expr.names else ""
        got = f"{value} from '{expr.source}'" + (f" with {origin}" if origin else "")
        raise InputError(field, f"{what} {rng}", got)
    return x


def stage_dice(stages: Sequence[RuleStage], env: Mapping[str, Any]) -> list[StageDie]:
    """The die of every stage for these stat values (targets may be arrays)."""
    out = []
    for i, st in enumerate(stages):
        target = st.target.evaluate(env, f"stages[{i}].target")
        modifier = 0 if st.modifier is None else st.modifier.evaluate(env, f"stages[{i}].modifier")
        critical_on = (True if st.critical_when is None else
                       np.asarray(st.critical_when.evaluate(env, f"stages[{i}].critical_when")) != 0)
        out.append(StageDie(sides=st.die, roll_high=st.roll == "high", target=target, modifier=modifier,
                            always_fail=st.always_fail, always_succeed=st.always_succeed,
                            critical=st.critical, reroll=st.reroll, critical_on=critical_on,
                            long_shot=st.long_shot, near_miss=bool(st.near_miss_tally)))
    return out


def damage_distribution(roll) -> np.ndarray:
    """P(damage = k), k = 0..max, of a :class:`~workbench.rules.spec.DamageRoll` (exact convolution)."""
    one = np.zeros(roll.sides + 1)
    one[1:] = 1.0 / roll.sides
    out = np.ones(1)
    for _ in range(roll.dice):
        out = np.convolve(out, one)
    if roll.plus >= 0:
        return np.concatenate([np.zeros(roll.plus), out])
    return out[-roll.plus:]


# ---------------------------------------------------------------------------
# tokens
# ---------------------------------------------------------------------------
def _pad(a: np.ndarray, width: int) -> np.ndarray:
    if a.shape[-1] >= width:
        return a
    return np.concatenate([a, np.zeros(a.shape[:-1] + (width - a.shape[-1],))], axis=-1)


def _add(*terms: np.ndarray) -> np.ndarray:
    width = max(t.shape[-1] for t in terms)
    out = _pad(terms[0], width).copy()
    for t in terms[1:]:
        out += _pad(t, width)
    return out


def _conv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.shape[0] == 1 and b.shape[0] == 1:
        return np.convolve(a[0], b[0])[None, :]
    if a.shape[-1] > b.shape[-1]:
        a, b = b, a
    return core.convolve(a, b)


def _power(g: np.ndarray, n: int) -> np.ndarray:
    out = np.ones(g.shape[:-1] + (1,))
    base = g
    while n:
        if n & 1:
            out = _conv(out, base)
        n >>= 1
        if n:
            base = _conv(base, base)
    return out


def _trim(a: np.ndarray) -> np.ndarray:
    """Drop trailing counts that no cell reaches."""
    nz = np.flatnonzero(a.reshape(-1, a.shape[-1]).any(axis=0))
    return a[..., : (nz[-1] + 1 if nz.size else 1)]


def per_attack(stages: Sequence[RuleStage], probs: Sequence[np.ndarray]) -> np.ndarray:
    """Distribution (cells, k) of one attack's final successes; ``probs[i]`` is
    (3, cells): P(fail), P(success), P(critical) of stage i's roll."""
    cells = probs[0].shape[1]
    final = np.zeros((cells, 2))
    final[:, 1] = 1.0
    nothing = np.zeros((cells, 1))
    nothing[:, 0] = 1.0
    n = len(stages)
    g: list[np.ndarray | None] = [None] * n + [final, final]
    for i in range(n - 1, -1, -1):
        st, (pf, ps, pc) = stages[i], probs[i]
        nxt = g[i + 1]
        if st.passes_on == "fail":
            g[i] = _add((ps + pc)[:, None] * nothing, pf[:, None] * nxt)
            continue
        if st.on_critical == "extra":
            crit = _power(nxt, 1 + st.extra)
        elif st.on_critical == "skip_next":
            crit = g[i + 2]
        elif st.on_critical == "to_end":
            crit = final
        else:
            crit = nxt
        g[i] = _add(pf[:, None] * nothing, ps[:, None] * nxt, pc[:, None] * crit)
    return g[0]


def expected_tokens(stages: Sequence[RuleStage], probs: Sequence[np.ndarray]) -> tuple[list, np.ndarray]:
    """Per attack: expected tokens passing each stage, and expected critical successes.

    A token passes a stage when its roll lets it go on, when it passes the
    stage without a roll after a ``"skip_next"`` critical, or when a
    ``"to_end"`` critical earlier sent it past every remaining stage.
    """
    cells = probs[0].shape[1]
    rolling = np.ones(cells)       # tokens that roll at this stage
    skipping = np.zeros(cells)     # tokens that pass it without a roll
    to_end = np.zeros(cells)       # tokens sent to the end by an earlier stage
    passes, crits = [], np.zeros(cells)
    for st, (pf, ps, pc) in zip(stages, probs):
        go = pf if st.passes_on == "fail" else ps + pc
        passes.append(rolling * go + skipping + to_end)
        crits = crits + rolling * pc
        if st.passes_on == "fail":
            nxt = rolling * pf
        else:
            mult = {"none": 1, "extra": 1 + st.extra, "skip_next": 0, "to_end": 0}[st.on_critical]
            nxt = rolling * (ps + pc * mult)
        nxt_skip = rolling * pc if st.on_critical == "skip_next" else np.zeros(cells)
        if st.on_critical == "to_end":
            to_end = to_end + rolling * pc
        rolling, skipping = nxt + skipping, nxt_skip
    return passes, crits


def successes(g0: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Distribution (cells, N) of the final successes of ``count[c]`` attacks in each cell."""
    g0 = _trim(g0)
    if np.all(count == count[0]):
        return _power(g0, int(count[0]))
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


# ---------------------------------------------------------------------------
# removal
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class _Unit:
    models: int | None
    wounds: int
    damage: tuple[tuple[int, float], ...]   # (damage, probability) pairs


def _chain(unit: _Unit, n_max: int) -> tuple[np.ndarray, np.ndarray]:
    """Successes applied one at a time: P(models removed | n successes) for
    n = 0..n_max, and the expected damage wasted by n successes."""
    W, M = unit.wounds, unit.models
    rows = n_max + 1 if M is None else M          # models that can still be hit
    n_states = rows * W + (0 if M is None else 1)
    if n_states > MAX_STATES:
        raise InputError("removal", f"a unit of at most {MAX_STATES} model-wound states "
                         "(models x wounds)", f"{rows} models x {W} wounds")
    r = np.repeat(np.arange(rows), W)
    w = np.tile(np.arange(W, 0, -1), rows)        # wounds left: W, W-1, ..., 1
    removed = r
    if M is not None:
        r = np.append(r, M)
        w = np.append(w, 0)
        removed = r
    dead = (w == 0)
    moves = []
    wexp = np.zeros(n_states)
    for d, q in unit.damage:
        kill = (d >= w) & ~dead
        nr = np.where(kill, r + 1, r)
        nw = np.where(kill, W, np.where(dead, 0, w - d))
        if M is not None:
            nw = np.where(nr >= M, 0, nw)
            nr = np.minimum(nr, M)
        else:
            nr = np.minimum(nr, rows - 1)
        dest = np.where(nw == 0, nr * W if M is None else M * W, nr * W + (W - nw))
        if M is not None:
            dest = np.where(nr >= M, M * W, dest)
        waste = np.where(dead, d, np.where(kill, d - w, 0))
        moves.append((dest, q))
        wexp += q * waste
    if (n_max + 1) * n_states > MAX_TABLE:
        raise InputError("removal", f"at most {MAX_TABLE} (successes x model-wound states) to resolve "
                         "exactly (method='sampled' has no such limit)",
                         f"{n_max} successes x {n_states} states")
    start = np.zeros(n_states)
    start[M * W if M == 0 else 0] = 1.0
    if n_states <= DENSE_STATES:
        T = np.zeros((n_states, n_states))
        rows_idx = np.arange(n_states)
        for dest, q in moves:
            T[rows_idx, dest] += q       # one destination per state and damage value
        # V[n] = start T^n for n = 0..n_max by doubling: [V; V T^k] with k = len(V)
        V = start[None, :]
        power = T
        while V.shape[0] < n_max + 1:
            V = np.concatenate([V, V @ power])
            if V.shape[0] < n_max + 1:
                power = power @ power
        V = V[: n_max + 1]
    else:
        V = np.empty((n_max + 1, n_states))
        v = start
        for n in range(n_max + 1):
            V[n] = v
            if n < n_max:
                v = sum(q * np.bincount(dest, weights=v, minlength=n_states) for dest, q in moves)
    cw = np.concatenate([[0.0], np.cumsum(V[:-1] @ wexp)])
    width = int(removed.max()) + 1
    onehot = np.zeros((n_states, width))
    onehot[np.arange(n_states), removed] = 1.0
    return V @ onehot, cw


def _spill(unit: _Unit, n_max: int) -> tuple[np.ndarray, np.ndarray]:
    """Total damage of n successes // wounds models removed; damage beyond the
    whole unit (models x wounds) is wasted."""
    dmax = max(d for d, _ in unit.damage)
    if (n_max + 1) * (n_max * dmax + 1) > MAX_TABLE:
        raise InputError("removal", f"at most {MAX_TABLE} (successes x total damage) to resolve exactly "
                         "(method='sampled' has no such limit)", f"{n_max} successes x {n_max * dmax} damage")
    one = np.zeros(dmax + 1)
    for d, q in unit.damage:
        one[d] += q
    S = np.zeros((n_max + 1, n_max * dmax + 1))
    s = np.ones(1)
    for n in range(n_max + 1):
        S[n, : s.size] = s
        if n < n_max:
            s = np.convolve(s, one)
    t = np.arange(S.shape[1])
    removed = t // unit.wounds
    wasted = np.zeros(t.size)
    if unit.models is not None:
        removed = np.minimum(removed, unit.models)
        wasted = np.maximum(t - unit.models * unit.wounds, 0).astype(float)
    onehot = np.zeros((t.size, int(removed.max()) + 1))
    onehot[t, removed] = 1.0
    return S @ onehot, S @ wasted


def per_success_removal(p_n: np.ndarray, models: np.ndarray | None, wounds: np.ndarray,
                        damage: np.ndarray | None, roll_dist: np.ndarray | None,
                        spill: bool) -> tuple[np.ndarray, np.ndarray]:
    """pmf (cells, width) of models removed and expected wasted damage (cells,)."""
    cells, width_n = p_n.shape
    last = width_n - 1 - np.argmax(p_n[:, ::-1] > 0, axis=1)
    cols = [(-1 if models is None else models), wounds, (0 if damage is None else damage)]
    keys = np.stack([np.broadcast_to(np.asarray(c, dtype=np.int64), (cells,)) for c in cols], axis=1)
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    parts, wasted = [], np.zeros(cells)
    for gi, (m, w, d) in enumerate(uniq):
        sel = inverse == gi
        if roll_dist is not None:
            dmg = tuple((k, float(q)) for k, q in enumerate(roll_dist) if q > 0)
        else:
            dmg = ((int(d), 1.0),)
        unit = _Unit(None if m < 0 else int(m), int(w), dmg)
        n_max = int(last[sel].max())
        mat, cw = (_spill if spill else _chain)(unit, n_max)
        pn = p_n[sel, : n_max + 1]
        parts.append((sel, pn @ mat))
        wasted[sel] = pn @ cw
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
    index = np.minimum(index, width - 1)
    flat = (np.arange(cells)[:, None] * width + index).ravel()
    out = np.bincount(flat, weights=p_n.ravel(), minlength=cells * width)
    return out.reshape(cells, width)


# ---------------------------------------------------------------------------
# the whole resolution
# ---------------------------------------------------------------------------
def resolve(parts: Mapping[str, Any], env: Mapping[str, np.ndarray]) -> dict:
    """Exact pmf (cells, width) and effects (cells,) for stat arrays of one length."""
    stages: Sequence[RuleStage] = parts["stages"]
    removal: Removal = parts["removal"]
    count = check_value(parts["count"], env, "attack.count", 0, MAX_ATTACKS, "a number of attacks")
    cells = max([np.size(v) for v in env.values()] + [1])
    count = np.broadcast_to(count, (cells,))
    dice = stage_dice(stages, env)
    probs, all_counts = [], []
    for die in dice:
        counts, denom = die.counts()
        all_counts.append((counts, denom))
        probs.append(np.broadcast_to(counts / denom, (3,) + (cells,)) if counts.ndim > 1
                     else np.broadcast_to((counts / denom)[:, None], (3, cells)))
    counted = tally.uses_counts(parts)
    if counted:  # random tokens per attack, criticals switched by the stats, tallies and chances
        dice_probs = probs
        n_tokens = tally.tokens(parts, env, cells, check_value)
        flags = tally.critical_flags(stages, env, cells)
        probs = tally.split_criticals(probs, flags)
    g0 = per_attack(stages, probs)
    if counted and n_tokens is not None:
        g0 = tally.mixture(g0, n_tokens)
    width_n = int(count.max()) * (_trim(g0).shape[-1] - 1) + 1
    if width_n > MAX_SUCCESSES or width_n * cells > MAX_TABLE:
        raise InputError("attack.count", f"at most {MAX_SUCCESSES} possible final successes in all "
                         f"(and {MAX_TABLE} over all cells of a sweep) to resolve exactly",
                         f"{width_n - 1} ({int(count.max())} attacks, {cells} cells)")
    p_n = successes(g0, count)
    models = None
    if removal.models is not None:
        models = np.broadcast_to(check_value(removal.models, env, "removal.models", 0, MAX_STATES,
                                             "a number of models"), (cells,))
    if removal.pooled:
        pmf = pooled_removal(p_n, removal.removed, env, models)
        wasted = np.zeros(cells)
    else:
        wounds = np.broadcast_to(check_value(removal.wounds, env, "removal.wounds", 1, MAX_STATES,
                                             "wounds per model"), (cells,))
        damage, roll = None, None
        if removal.damage_roll is not None:
            roll = damage_distribution(removal.damage_roll)
        else:
            damage = np.broadcast_to(check_value(removal.damage, env, "removal.damage", 0, MAX_STATES,
                                                 "damage per success"), (cells,))
        pmf, wasted = per_success_removal(p_n, models, wounds, damage, roll, removal.spill)
    if models is not None:  # with a unit size the pmf runs 0..models, as the built-in systems' do
        pmf = _pad(pmf, int(models.max()) + 1)
    passes, crits = expected_tokens(stages, probs)
    effects = {"criticals": count * crits, "wasted_damage": wasted}
    for st, p in zip(stages, passes):
        effects[st.name] = count * p
    if counted:
        per, dists = tally.count_effects(parts, dice_probs, flags, count, n_tokens, successes,
                                           dice=dice)
        if n_tokens is not None:
            for st in stages:
                effects[st.name] = effects[st.name] * (n_tokens + 1) / 2
        effects.update(per)
        dists.update(successes=p_n, removed=pmf)
        for c in parts.get("chances", ()):
            effects[c.name] = tally.chance(c, dists[c.count], env)
    return {"pmf": pmf, "effects": effects, "dice": dice, "counts": all_counts, "count": count,
            "successes": p_n}
