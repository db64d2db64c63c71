"""Sampled resolution of a rule file: every die rolled as a player would.

Each sample follows the tokens of all its attacks stage by stage: every token
that must roll rolls its own die through :meth:`StageDie.roll` (the same
per-die rule as the exact path, re-rolls included), criticals add tokens, let
them skip the next stage or send them to the end. Then the final successes
damage the unit one at a time (each ``damage_roll`` rolled with its own
dice), or are totalled and divided (``spill``), or go through the pooled
formula. Nothing is drawn from the exact distribution.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from .. import pipeline
from .die import CRITICAL, FAIL, NEAR
from .spec import DamageRoll, Removal, RuleStage

__all__ = ["simulate", "critical_key", "near_key"]


def critical_key(i: int) -> str:
    """The name under which :func:`simulate` returns stage ``i``'s critical rolls per sample."""
    return f"criticals at stage {i}"


def near_key(i: int) -> str:
    """The name under which :func:`simulate` returns stage ``i``'s near misses per sample."""
    return f"near misses at stage {i}"


def start_tokens(rng: np.random.Generator, count: int, tokens_die: int, n: int) -> np.ndarray:
    """Tokens entering the first stage per sample: ``count`` attacks of 1..``tokens_die`` tokens each."""
    if tokens_die <= 1:
        return np.full(n, count, dtype=np.int64)
    return rng.integers(1, tokens_die + 1, size=(n, count)).sum(axis=1, dtype=np.int64)


def _per_sample(idx: np.ndarray, weights: np.ndarray, n: int) -> np.ndarray:
    return np.bincount(idx, weights=weights, minlength=n).astype(np.int64)


def _group_sums(flags: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Sums of ``flags`` over consecutive groups: group i is ``flags[bounds[i]:bounds[i + 1]]``."""
    cs = np.concatenate([[0], np.cumsum(flags, dtype=np.int64)])
    return cs[bounds[1:]] - cs[bounds[:-1]]


def _damage(rng: np.random.Generator, roll: DamageRoll, n: int) -> np.ndarray:
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    faces = rng.integers(1, roll.sides + 1, size=(n, roll.dice))
    return faces.sum(axis=1) + roll.plus


def _tokens(rng, stages: Sequence[RuleStage], dice, count: int, n: int,
            tokens_die: int = 1) -> dict[str, np.ndarray]:
    rolling = start_tokens(rng, count, tokens_die, n)
    skipping = np.zeros(n, dtype=np.int64)
    to_end = np.zeros(n, dtype=np.int64)
    finals = np.zeros(n, dtype=np.int64)
    crits = np.zeros(n, dtype=np.int64)
    out: dict[str, np.ndarray] = {}
    for i, (st, die) in enumerate(zip(stages, dice)):
        # each sample's tokens roll consecutive dice: sample i owns dice bounds[i]..bounds[i + 1]
        bounds = np.concatenate([[0], np.cumsum(rolling)])
        codes = die.roll(rng, int(bounds[-1]))
        crit = codes == CRITICAL
        if getattr(die, "near_miss", False):  # a near miss is a failure, counted
            near = codes == NEAR
            out[near_key(i)] = _group_sums(near, bounds)
            codes = np.where(near, np.int8(FAIL), codes)
        if st.passes_on == "fail":
            go = codes == FAIL
        else:
            go = codes != FAIL
        n_go = _group_sums(go, bounds)
        n_crit = _group_sums(crit, bounds)
        out[st.name] = n_go + skipping + to_end
        crits += n_crit
        out[critical_key(i)] = n_crit
        nxt_skip = np.zeros(n, dtype=np.int64)
        if st.passes_on == "fail" or st.on_critical == "none":
            nxt = n_go
        elif st.on_critical == "extra":
            nxt = n_go + st.extra * n_crit
        elif st.on_critical == "skip_next":
            nxt = n_go - n_crit
            nxt_skip = n_crit
        else:  # to_end
            nxt = n_go - n_crit
            finals += n_crit
            to_end = to_end + n_crit
        rolling, skipping = nxt + skipping, nxt_skip
    out["finals"] = finals + rolling + skipping
    out["criticals"] = crits
    return out


def _one_at_a_time(rng, successes: np.ndarray, models: int | None, wounds: int, damage: int | None,
                   roll: DamageRoll | None) -> tuple[np.ndarray, np.ndarray]:
    n = successes.size
    removed = np.zeros(n, dtype=np.int64)
    left = np.full(n, wounds, dtype=np.int64)
    wasted = np.zeros(n, dtype=np.int64)
    for j in range(int(successes.max(initial=0))):
        act = np.flatnonzero(successes > j)
        d = _damage(rng, roll, act.size) if roll is not None else np.full(act.size, damage)
        r, w = removed[act], left[act]
        dead = np.zeros(act.size, dtype=bool) if models is None else r >= models
        kill = ~dead & (d >= w)
        wasted[act] += np.where(dead, d, np.where(kill, d - w, 0))
        removed[act] = r + kill
        left[act] = np.where(kill, wounds, np.where(dead, w, w - d))
    return removed, wasted


def _spill(rng, successes: np.ndarray, models: int | None, wounds: int, damage: int | None,
           roll: DamageRoll | None) -> tuple[np.ndarray, np.ndarray]:
    if roll is None:
        total = successes * damage
    else:
        idx = np.repeat(np.arange(successes.size), successes)
        total = _per_sample(idx, _damage(rng, roll, idx.size), successes.size)
    removed = total // wounds
    wasted = np.zeros(successes.size, dtype=np.int64)
    if models is not None:
        removed = np.minimum(removed, models)
        wasted = np.maximum(total - models * wounds, 0)
    return removed, wasted


def simulate(rng: np.random.Generator, samples: int, stages: Sequence[RuleStage], dice, count: int,
             removal: Removal, env: Mapping[str, Any], models: int | None, wounds: int | None,
             damage: int | None, tokens_die: int = 1) -> dict[str, np.ndarray]:
    """One value per sample: models removed, wasted damage, criticals, tokens passing each stage."""
    mult = max(1, tokens_die)
    for st in stages:
        if st.on_critical == "extra":
            mult *= 1 + st.extra
    dice_per_sample = max(1, count * mult * len(stages))

    def one_chunk(n: int) -> dict[str, np.ndarray]:
        got = _tokens(rng, stages, dice, count, n, tokens_die)
        s = got.pop("finals")
        if removal.pooled:
            env2 = {k: np.asarray(v) for k, v in env.items()}
            env2["successes"] = s
            removed = removal.removed.evaluate(env2, "removal.removed")
            if models is not None:
                removed = np.minimum(removed, models)
            wasted = np.zeros(n, dtype=np.int64)
        else:
            fn = _spill if removal.spill else _one_at_a_time
            removed, wasted = fn(rng, s, models, wounds, damage, removal.damage_roll)
        return {"removed": removed, "wasted_damage": wasted,
                "successes": s, **got}

    return pipeline.run_sampled(samples, dice_per_sample, one_chunk)
