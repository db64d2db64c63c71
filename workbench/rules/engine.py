"""Exact resolution of a rule file, vectorised over stat grids (the flow, stage dice to tokens to
removal and counts, is mapped in docs/architecture.md).

Everything works on cells: every stat is a 1-D array of the same length, so
a sweep of a thousand cells is one call. The budgets (:mod:`workbench.rules.budget`)
are checked before any table is built. :func:`prepare` is the half of a resolution
that depends neither on the attacks nor on the unit, :func:`finish` the other half.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from . import tally, wounds as by_model
from .budget import MAX_TABLE, check_tokens, checked, token_bounds, unit_values
from .die import StageDie
from .errors import BudgetError
from .removal import given, remove
from .spec import Removal, RuleStage
from .tokens import expected_tokens, mixture, per_attack, successes

__all__ = ["one_cell_env", "one_cell", "stage_dice", "stage_probabilities", "prepare", "resolve", "finish"]


def one_cell_env(env: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Scalar stats as the one cell of the engine's arrays."""
    return {k: np.asarray([x], dtype=np.int64) for k, x in env.items()}


def one_cell(x: int | None) -> np.ndarray | None:
    """One checked scalar value as one cell (None stays None)."""
    return None if x is None else np.array([x])


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


def stage_probabilities(dice: Sequence[StageDie], cells: int) -> tuple[list, list]:
    """(P(fail), P(success), P(critical)) arrays (3, cells) of every stage's die, and the
    integer counts with their denominators they come from."""
    probs, all_counts = [], []
    for die in dice:
        counts, denom = die.counts()
        all_counts.append((counts, denom))
        p = counts / denom
        probs.append(np.broadcast_to(p if p.ndim > 1 else p[:, None], (3, cells)))
    return probs, all_counts


def prepare(parts: Mapping[str, Any], env: Mapping[str, np.ndarray], cells: int,
            n_tokens: np.ndarray | None) -> dict:
    """The half of a resolution that depends neither on the number of attacks nor on the unit:
    the stages' dice and probabilities, one attack's distribution of final successes, the
    expected tokens passing each stage per attack and (files using the mechanisms of
    :mod:`workbench.rules.tally`) one attack's counts, and its joint of tallies and final
    successes for each chance reading ``removed`` beside tallies. A scalar resolution keeps it with the
    stages' dice it was made from (:meth:`~workbench.rules.RuleSystem._plan`)."""
    stages: Sequence[RuleStage] = parts["stages"]
    dice = stage_dice(stages, env)
    probs, all_counts = stage_probabilities(dice, cells)
    counts = flags = None
    dice_probs = probs  # the dice's own P(fail, success, critical), before criticals are split off
    if tally.uses_counts(parts):  # random tokens per attack, criticals switched by the stats, tallies and chances
        flags = tally.critical_flags(stages, env, cells)
        counts = tally.token_counts(parts, probs, flags, n_tokens, dice)
        probs = tally.split_criticals(probs, flags)
    g0 = per_attack(stages, probs)
    if n_tokens is not None:
        g0 = mixture(g0, n_tokens)
    passes, crits = expected_tokens(stages, probs)
    # one attack's joint (cells, *tallies, F) of the tallies and final successes (the loader refuses a last
    # stage whose criticals add tokens) of each chance reading removed beside them, in the chance's order
    joints = {c.name: tally._one(stages, dice_probs, flags, counts["p_near"], n_tokens,
                                 [n for n in c.count if n != "removed"], finals=True)
              for c in parts.get("chances", ()) if counts is not None and by_model.reads_removal(c)}
    return {"dice": dice, "probs": probs, "counts": all_counts, "g0": g0, "passes": passes, "crits": crits,
            "tally": counts, "dice_probs": dice_probs, "flags": flags, "joints": joints}


def resolve(parts: Mapping[str, Any], env: Mapping[str, np.ndarray]) -> dict:
    """Exact pmf (cells, width) and effects (cells,) for stat arrays of one length.

    Files using the mechanisms of :mod:`workbench.rules.tally` (random tokens
    per attack, switched criticals, tallies, chances) add their counts to the
    effects; the budgets count an attack as its most tokens."""
    stages: Sequence[RuleStage] = parts["stages"]
    removal: Removal = parts["removal"]
    path = parts.get("path", "<rule file>")
    count = checked(parts["count"], env, "attack.count")
    cells = max([np.size(v) for v in env.values()] + [1])
    count = np.broadcast_to(count, (cells,))
    counted = tally.uses_counts(parts)
    n_tokens = tally.tokens(parts, env, cells, checked) if counted else None
    per_attack_tokens = 1 if n_tokens is None else int(n_tokens.max())
    bounds = parts.get("bounds") or token_bounds(stages)
    check_tokens(stages, int(count.max()), path, bounds, tokens_die=per_attack_tokens)
    if cells * (int(count.max()) * per_attack_tokens * bounds[0] + 1) > MAX_TABLE:
        raise BudgetError(path, "attack.count", f"at most {MAX_TABLE:,} (cells of a sweep x possible "
                          "final successes) to resolve exactly", f"{cells:,} cells")
    pre = prepare(parts, env, cells, n_tokens)
    models, wounds, damage = unit_values(removal, lambda e, field: np.broadcast_to(checked(e, env, field), (cells,)))
    return finish(parts, env, pre, count, n_tokens, models, wounds, damage)


def finish(parts: Mapping[str, Any], env: Mapping[str, np.ndarray], pre: Mapping[str, Any], count: np.ndarray,
           n_tokens: np.ndarray | None, models: np.ndarray | None, wounds: np.ndarray | None,
           damage: np.ndarray | None) -> dict:
    """The half of :func:`resolve` that depends on the attacks and the unit: the successes of
    ``count`` attacks from :func:`prepare`'s ``pre``, their removal and every effect. ``count``,
    ``models``, ``wounds`` and ``damage`` (cells,) are checked already (``wounds`` and
    ``damage`` are None with a pooled formula, ``damage`` with a rolled damage)."""
    stages: Sequence[RuleStage] = parts["stages"]
    removal: Removal = parts["removal"]
    p_n = successes(pre["g0"], count)
    pmf, wasted, unit = remove(removal, env, p_n, models, wounds, damage, parts.get("path", "<rule file>"))
    effects = {"criticals": count * pre["crits"], "wasted_damage": wasted}
    for st, p in zip(stages, pre["passes"]):
        effects[st.name] = count * p
    if pre["tally"] is not None:
        if n_tokens is not None:
            for st in stages:
                effects[st.name] = effects[st.name] * (n_tokens + 1) / 2
        effects.update({name: count * m for name, m in pre["tally"]["means"].items()})   # every count, expected
        read_removal = [c for c in parts.get("chances", ()) if by_model.reads_removal(c)]
        for c in read_removal:  # removed beside tallies: the attacks stepped one by one
            effects[c.name] = by_model.joint_chance(c, pre["joints"][c.name], count, models,
                                                     given(unit, "a model-by-model removal"), env,
                                                     parts.get("path", "<rule file>"))
        rest = {**parts, "chances": [c for c in parts.get("chances", ()) if c not in read_removal]}
        effects.update(tally.chances(rest, pre["tally"], count, successes, env, {"successes": p_n, "removed": pmf}))
    return {"pmf": pmf, "effects": effects, "dice": pre["dice"], "counts": pre["counts"], "count": count,
            "successes": p_n, "probs": pre["probs"]}
