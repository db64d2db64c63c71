"""Sampled resolution of a rule file: every die rolled as a player would.

Each sample follows the tokens of all its attacks stage by stage: every token
that must roll rolls its own die through :meth:`StageDie.roll` (the same
per-die rule as the exact path, re-rolls included), criticals add tokens, let
them skip the next stage or send them to the end. Then each sample's final
successes remove models by the closed forms of a fixed damage, or damage the
unit one at a time (each ``damage_roll`` rolled with its own dice), or are
totalled and divided (``spill``), or go through the pooled formula. Nothing is
drawn from the exact distribution.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from .die import CRITICAL, FAIL, NEAR
from .budget import MAX_SUCCESSES, check_value
from .engine import one_cell, one_cell_env
from .errors import BudgetError
from .removal import advance, given
from .spec import DamageRoll, Removal, RuleStage
from .tokens import step_forward
from . import wounds as by_model

__all__ = ["roll_tokens", "expected_work", "check_sampled", "MAX_SAMPLED_WORK"]

#: dice rolled and successes applied by one sampled call (samples x their expected number per
#: sample): a couple of seconds on one core
MAX_SAMPLED_WORK = 60_000_000


def _group_sums(flags: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Sums of ``flags`` over consecutive groups: group i is ``flags[bounds[i]:bounds[i + 1]]``."""
    cs = np.concatenate([[0], np.cumsum(flags, dtype=np.int64)])
    return cs[bounds[1:]] - cs[bounds[:-1]]


def _damage(rng: np.random.Generator, roll: DamageRoll, n: int) -> np.ndarray:
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    faces = rng.integers(1, roll.sides + 1, size=(n, roll.dice))
    return faces.sum(axis=1) + roll.plus


def roll_tokens(rng, stages: Sequence[RuleStage], dice, count: int, n: int,
                tokens_die: int = 1) -> dict[str, np.ndarray]:
    """``n`` samples of ``count`` attacks, every die rolled: per sample the tokens passing each
    stage (by its name), all the critical rolls ("criticals"), the final successes ("finals") and
    the stages' tallies (by their names)."""
    rolling = (np.full(n, count, dtype=np.int64) if tokens_die <= 1 else   # 1..tokens_die tokens an attack
               rng.integers(1, tokens_die + 1, size=(n, count)).sum(axis=1, dtype=np.int64))
    skipping = np.zeros(n, dtype=np.int64)
    to_end = np.zeros(n, dtype=np.int64)
    crits = np.zeros(n, dtype=np.int64)
    out: dict[str, np.ndarray] = {}
    tallies: dict[str, np.ndarray] = {}
    for st, die in zip(stages, dice):
        # each sample's tokens roll consecutive dice: sample i owns dice bounds[i]..bounds[i + 1]
        bounds = np.concatenate([[0], np.cumsum(rolling)])
        codes = die.roll(rng, int(bounds[-1]))
        crit = codes == CRITICAL
        near = None
        if die.near_miss:  # a near miss is a failure, counted
            near = _group_sums(codes == NEAR, bounds)
            codes = np.where(codes == NEAR, np.int8(FAIL), codes)
        go = codes == FAIL if st.passes_on == "fail" else codes != FAIL
        n_crit = _group_sums(crit, bounds)
        crits += n_crit
        out[st.name], rolling, skipping, to_end = step_forward(st, _group_sums(go, bounds), n_crit, skipping,
                                                               to_end)
        counted: dict[str, Any] = {st.tally: out[st.name], st.critical_tally: n_crit, st.near_miss_tally: near}
        tallies.update((name, x) for name, x in counted.items() if name)
    return {**out, "finals": to_end + rolling + skipping, "criticals": crits, **tallies}


def _one_at_a_time(rng, successes: np.ndarray, models: int | None, wounds: int,
                   roll: DamageRoll) -> tuple[np.ndarray, np.ndarray]:
    """A rolled damage without spill: each success's damage rolled and dealt to the model in front."""
    n = successes.size
    removed = np.zeros(n, dtype=np.int64)
    left = np.full(n, wounds, dtype=np.int64)
    wasted = np.zeros(n, dtype=np.int64)
    for j in range(int(successes.max(initial=0))):
        act = np.flatnonzero(successes > j)
        d = _damage(rng, roll, act.size)
        r, w = removed[act], left[act]
        dead = np.zeros(act.size, dtype=bool) if models is None else r >= models
        kill = ~dead & (d >= w)
        wasted[act] += np.where(dead, d, np.where(kill, d - w, 0))
        removed[act] = r + kill
        left[act] = np.where(kill, wounds, np.where(dead, w, w - d))
    return removed, wasted


def _spill(rng, successes: np.ndarray, models: int | None, wounds: int,
           roll: DamageRoll) -> tuple[np.ndarray, np.ndarray]:
    """A rolled damage with spill: the successes' rolled damage totalled, then divided."""
    idx = np.repeat(np.arange(successes.size), successes)
    total = np.bincount(idx, weights=_damage(rng, roll, idx.size), minlength=successes.size).astype(np.int64)
    removed, _, wasted = advance(0, 0, total, 1, wounds, models, True)
    return removed, wasted


def expected_work(stages: Sequence[RuleStage], probs: Sequence[np.ndarray], count: int,
                  removal: Removal, tokens_die: int = 1) -> float:
    """Expected dice rolled and successes applied by one sample (an upper bound: every
    re-roll counted as if it always happened); an attack of a ``tokens_die`` enters as
    (1 + tokens_die) / 2 tokens on average."""
    rolling, skipping, to_end, dice = count * (1 + max(1, tokens_die)) / 2, 0.0, 0.0, 0.0
    for st, p in zip(stages, probs):
        pf, ps, pc = (float(np.ravel(x)[0]) for x in p)
        dice += rolling * (1 if st.reroll == "none" else 2)
        go = rolling * (pf if st.passes_on == "fail" else ps + pc)
        _, rolling, skipping, to_end = step_forward(st, go, rolling * pc, skipping, to_end)
    per_success = 1 + (removal.damage_roll.dice if removal.damage_roll is not None else 0)
    return dice + (to_end + rolling + skipping) * per_success


def check_sampled(samples: int, work: float, path) -> None:
    """Refuse, before any die is rolled, a sampled call past :data:`MAX_SAMPLED_WORK`."""
    if samples * work > MAX_SAMPLED_WORK:
        most = max(1, int(MAX_SAMPLED_WORK // max(work, 1.0)))
        raise BudgetError(path, "samples", f"at most {most:,} samples for these stats (a sampled call rolls "
                          f"and applies at most {MAX_SAMPLED_WORK:,} dice and successes; this one "
                          f"{work:,.0f} a sample)", samples, "use fewer samples, or method='exact'")


def unit_of(removal: Removal, env: Mapping[str, Any], models: int | None):
    """The unit of a model-by-model removal (:func:`workbench.rules.wounds.unit`) for one cell, else None."""
    if not removal.by_model:
        return None
    return by_model.unit(removal, one_cell_env(env), 1, one_cell(models))


def remove(rng: np.random.Generator, s: np.ndarray, removal: Removal, env: Mapping[str, Any],
           models: int | None, wounds: int | None, damage: int | None, unit=None) -> tuple[np.ndarray, np.ndarray]:
    """The file's removal of each sample's final successes ``s``: (models removed, wasted damage)
    per sample; ``unit``: :func:`unit_of` for a model-by-model removal."""
    if removal.removed is not None:  # a pooled formula
        env2 = {k: np.asarray(v) for k, v in env.items()}
        env2["successes"] = s
        removed = removal.removed.evaluate(env2, "removal.removed")
        if models is not None:
            removed = np.minimum(removed, models)
        return removed, np.zeros(s.size, dtype=np.int64)
    if unit is not None:  # removal.by_model
        return by_model.sampled(rng, s, models, unit)
    if removal.damage_roll is None:   # a fixed damage: the closed forms of the exact removal
        removed, _, wasted = advance(0, 0, s, given(damage, "damage per success"), given(wounds, "wounds per model"),
                                     models, removal.spill)
        return removed, wasted
    fn = _spill if removal.spill else _one_at_a_time
    return fn(rng, s, models, given(wounds, "wounds per model"), removal.damage_roll)


def removal_width(top: int, removal: Removal, env: Mapping[str, Any], models: int | None, wounds: int | None,
                  damage: int | None) -> int:
    """Counts of models removed a sampled pmf runs over, for at most ``top`` final successes a sample
    (a pooled formula is checked over every count that can occur)."""
    if removal.removed is not None:
        env2 = {k: np.asarray(v)[None] for k, v in env.items()}
        env2["successes"] = np.arange(top + 1)
        most = int(check_value(removal.removed, env2, "removal.removed", 0, MAX_SUCCESSES,
                               "a number of models").max()) + 1
        return most if models is None else models + 1
    if models is not None:
        return models + 1
    if removal.spill:
        dmax = (removal.damage_roll.high if removal.damage_roll is not None
                else int(given(damage, "damage per success")))
        return top * dmax // int(given(wounds, "wounds per model")) + 1
    return top + 1
