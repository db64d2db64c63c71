"""A rule file's ``[volley]``: several profiles (weapons, units) at one target, one resolution.

Each profile makes its own attacks through the file's stages; how their final successes
meet the removal is :class:`~workbench.rules.spec.Volley`'s ``allocation``.

Exact: each profile's distribution of final successes (and of every tally a
chance reads) from the engine, convolved over the profiles, then one removal.
Sampled: every die of every profile rolled with the same per-die rules, the
successes summed per sample, then the removal as the file's sampled path does
it. Both are bounded before they start, by the engine's budgets over all the
profiles' attacks together.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .. import engine as counts_engine
from .. import pipeline
from .. import validate as v
from ..errors import InputError
from ..outcome import Outcome
from . import engine, tally
from .engine import one_cell, one_cell_env
from .budget import MAX_ATTACKS, check_tokens
from .errors import BudgetError, ForbiddenError, RuleFileError
from .expr import parse
from .loader import COUNTS
from .sampled import check_sampled, expected_work, remove, removal_width, roll_tokens, unit_of
from .removal import advance, pooled_removal, remove as remove_exact
from .spec import Removal, Volley
from .tokens import _conv, successes, token_bounds
from .words import said

#: a RuleSystem (rules/system.py): that module calls this one, so it is not imported here
Rules = Any

__all__ = ["resolve", "sampled_tally"]

#: unit states x successes of one profile held by a volley in listed order, exact (memory: a few arrays of it)
MAX_ORDERED = 2_000_000
#: the removal each profile is resolved with before the volley's own: one final success, one count
_IDENTITY = Removal(models=None, wounds=parse("1", frozenset()), damage=parse("1", frozenset()))


def _profiles(rs: Rules, spec: Volley, profiles: Any, shared: Mapping[str, Any]) -> tuple[list, list, dict]:
    """Each profile checked with the shared stats: (inputs, env) per profile, and the shared inputs.
    Every message names the profile (``profiles[1].bs``) or the shared stat."""
    own = spec.profile
    if isinstance(profiles, (str, bytes, Mapping)) or not isinstance(profiles, Sequence) or not profiles:
        raise InputError("profiles", "a non-empty list of dicts of " + ", ".join(own), profiles)
    if len(profiles) > spec.max_profiles:
        raise InputError("profiles", f"at most {spec.max_profiles} profiles", f"{len(profiles)} profiles")
    for k in shared:
        if k in own:
            raise InputError(k, "a stat set in each profile (profiles[i]), not for the whole volley", shared[k],
                             f"put {k} in each profile's dict")
    checked = []
    for i, p in enumerate(profiles):
        where = f"profiles[{i}]"
        if not isinstance(p, Mapping):
            raise InputError(where, "a dict of " + ", ".join(own), p)
        for k in p:
            if k not in own:
                raise InputError(f"{where} key", "one of " + ", ".join(own), k, v.did_you_mean(k, own))
        try:
            inputs, env = rs._check({**shared, **p}, arrays=False)
            rs._forbid(env, scalar=True)
        except ForbiddenError as exc:
            if set(exc.got) & set(own):
                raise ForbiddenError(f"{where}: {exc.field}", str(exc.hint), exc.expected.split("'")[1],
                                     exc.got) from None
            raise
        except InputError as exc:
            if exc.field in own:
                raise InputError(f"{where}.{exc.field}", exc.expected, exc.got, exc.hint) from None
            raise
        checked.append((inputs, env))
    shared_inputs = {k: x for k, x in checked[0][0].items() if k not in own}
    return [c[0] for c in checked], [c[1] for c in checked], shared_inputs


def _budget(rs: Rules, counts: Sequence[int], tokens: Sequence[int | None]) -> None:
    """The engine's budgets over every profile's attacks together, before any work."""
    total = sum(counts)
    if total > MAX_ATTACKS:
        raise BudgetError(rs.path, "attack.count", f"at most {MAX_ATTACKS:,} attacks over all the "
                          "profiles of a volley", f"{total:,} attacks")
    check_tokens(rs.stages, total, rs.path, rs._bounds, max([t or 1 for t in tokens] + [1]))


def resolve(rs: Rules, profiles: Any, method: str, samples: Any, seed: Any, shared: Mapping[str, Any]) -> Outcome:
    """The volley of ``profiles`` (dicts of the profile stats) at the shared stats: one Outcome."""
    spec = rs.volley_spec
    if spec is None:
        raise RuleFileError(rs.path, "volley", "a [volley] table naming the stats each profile sets", "nothing")
    inputs, envs, shared_inputs = _profiles(rs, spec, profiles, shared)
    method, samples, rng = v.method_args(method, samples, seed)
    own = spec.profile
    record = dict(profiles=tuple({k: x for k, x in i.items() if k in own} for i in inputs), **shared_inputs,
                  method=method)
    attacks = [rs._attacks(env) for env in envs]
    counts = [a[0] for a in attacks]
    tokens = [a[1] for a in attacks]
    _budget(rs, counts, tokens)
    plans = [rs._plan(env) for env in envs]
    env0 = envs[0]   # the removal and the chances read only the shared stats: any profile's env says them
    removal = rs._removal(env0)
    models, wounds, damage = rs._unit(env0)
    chances = rs._defined(env0)
    said_stages = [said(p.stages, p.staged, env) for p, env in zip(plans, envs)]
    alike = all(s == said_stages[0] for s in said_stages)       # the outcome's stages are every profile's
    same = alike and all((t or 1) == 1 for t in tokens)           # and so are its attacks
    figures = plans[0].figures if alike else {}                   # one token's, like its stages
    if alike and not same:   # tokens rolled: the stages say what one token does; their number when all alike
        figures = dict(figures, token=rs.view.token, tokens=tokens[0] if len(set(tokens)) == 1 else None)
    words = dict(effect_kinds=dict(rs._effect_kinds, **({spec.not_needed: "expected"} if spec.not_needed else {})),
                 trial=rs.view.trial, system_title=rs.name, effect_labels=rs.effect_labels,
                 label=rs.view.label or "models removed", **figures)
    saved, words["blows_vary"] = rs._save_stage(env0, lambda: sum(
        c * (t or 1) * token_bounds(p.played)[0] for c, t, p in zip(counts, tokens, plans)))
    stages = said_stages[0] + saved if alike else ()
    attacks_n = sum(counts) if same else None
    if method == "exact":
        pmf, effects = _exact(rs, envs, plans, counts, tokens, removal, models, wounds, damage, chances)
        return Outcome(system=rs.key, function="volley", inputs=record, pmf=pmf, stages=stages, effects=effects,
                       attacks=attacks_n, notes=rs.outcome_notes(*envs), **words)
    record["samples"] = samples
    if rng is None:
        raise RuntimeError("no random generator for a sampled resolution")
    out = sampled_tally(rs, rng, samples, envs, plans, counts, tokens, removal, models, wounds, damage, chances,
                        spec)
    return pipeline.tally_outcome(rs.key, "volley", record, out, stages, attacks=attacks_n,
                                  notes=rs.outcome_notes(*envs), **words)


def _ordered(spec, removal: Removal) -> bool:
    """Does the volley remove in listed order, each profile on what the earlier left (a pooled formula or a
    fixed damage; a model-by-model removal or a rolled damage is applied one success at a time either way)?"""
    return spec.allocation == "in_order" and not removal.by_model and removal.damage_roll is None


def _damage_of(rs, env, removal: Removal) -> int:
    return rs._one(env, removal.damage, "removal.damage")


def _in_order_exact(rs, envs, p_ns, removal: Removal, models, wounds):
    """In listed order: each profile's removal made on what the profiles before it left. (pmf of models
    removed (1, width), expected wasted damage (1,), expected profiles not needed)."""
    not_needed = 0.0
    if removal.removed is not None:   # each profile's formula on its own successes; the unit caps the sum
        dist = np.ones((1, 1))
        for i, (env, p_n) in enumerate(zip(envs, p_ns)):
            if i and models is not None:
                not_needed += float(dist[0, models:].sum())
            dist = _conv(dist, pooled_removal(p_n[None], removal.removed, one_cell_env(env), None))
        if models is not None:   # the one fold, then zeros up to the unit
            dist = counts_engine.pad(counts_engine.cap(dist, models), models + 1)
        return dist, np.zeros(1), not_needed
    r, h = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    p: np.ndarray = np.ones(1)
    wasted = 0.0
    for i, (env, p_n) in enumerate(zip(envs, p_ns)):
        if i and models is not None:
            not_needed += float(p[r >= models].sum())
        k = np.flatnonzero(p_n)
        if r.size * k.size > MAX_ORDERED:
            raise BudgetError(rs.path, "removal", f"at most {MAX_ORDERED:,} (unit states x successes) to "
                              "resolve a volley in listed order exactly", f"{r.size:,} x {k.size:,}",
                              "method='sampled' has no such limit")
        r2, h2, w = advance(r[:, None], h[:, None], k[None, :], _damage_of(rs, env, removal), wounds, models,
                            removal.spill)
        q = p[:, None] * p_n[k][None, :]
        wasted += float((q * w).sum())
        key = (r2 * wounds + h2).ravel()
        uniq, inverse = np.unique(key, return_inverse=True)
        p = np.bincount(inverse.ravel(), weights=q.ravel())
        r, h = uniq // wounds, uniq % wounds
    width = models + 1 if models is not None else int(r.max()) + 1
    return np.bincount(r, weights=p, minlength=width)[None, :], np.array([wasted]), not_needed


def _exact(rs, envs, plans, counts, tokens, removal, models, wounds, damage, chances):
    spec = rs.volley_spec
    read = [c for c in chances if c.count not in COUNTS]
    total = np.ones((1, 1))
    dists: dict[Any, np.ndarray] = {}
    effects: dict[str, float] = {}
    each: dict[str, float] = {}
    not_needed = 0.0
    flat0 = one_cell_env(envs[0])
    ordered = _ordered(spec, removal)
    p_ns = []
    for i, (env, plan, count, n_tokens) in enumerate(zip(envs, plans, counts, tokens)):
        if i and spec.not_needed and models is not None and not ordered:   # the earlier profiles removed the unit
            before, _, _ = remove_exact(removal, flat0, total, one_cell(models), one_cell(wounds), one_cell(damage), rs.path)
            not_needed += float(before[0, models:].sum())
        c = np.array([count])
        if not rs._counted:   # the plan's one attack is all there is
            p_n, mine = rs._plain(count, plan)
        else:
            parts, flat, t, pre = rs._prepared(env, plan, n_tokens)
            one = engine.finish(dict(parts, removal=_IDENTITY, chances=()), flat, pre, c, t, None, np.array([1]),
                                np.array([1]))
            mine = {k: float(x[0]) for k, x in one["effects"].items() if k != "wasted_damage"}
            p_n = one["successes"]
        for k, x in mine.items():
            effects[k] = effects.get(k, 0.0) + float(x)
        p_ns.append(p_n[0])
        each[f"{spec.each}[{i}]"] = float(counts_engine.mean_of(p_n[0]))
        total = _conv(total, p_n)
        for ch in read:   # the distribution of each count a chance reads, over the profiles so far
            key = tally.dist_key(ch)
            names = ch.reads
            h = pre["tally"]["one"][names[0]] if len(names) == 1 else pre["tally"]["joint"][names]
            d = tally._all(h, c, " and ".join(names), successes if h.ndim == 2 else None)
            dists[key] = d if i == 0 else _conv(dists[key], d)
    if ordered:
        pmf, wasted, not_needed = _in_order_exact(rs, envs, p_ns, removal, models, wounds)
    else:
        pmf, wasted, _ = remove_exact(removal, flat0, total, one_cell(models), one_cell(wounds), one_cell(damage), rs.path)
    effects["wasted_damage"] = float(wasted[0])
    given = {"removed": pmf, "successes": total}
    for ch in chances:
        dist = given[ch.count] if isinstance(ch.count, str) and ch.count in given else dists[tally.dist_key(ch)]
        effects[ch.name] = float(tally.chance(ch, dist, envs[0])[0])
    effects.update(each)
    if spec.not_needed:
        effects[spec.not_needed] = not_needed
    return pmf[0], effects


def sampled_tally(rs, rng, samples, envs, plans, counts, tokens, removal, models, wounds, damage, chances,
                  spec: Volley | None = None, bounds=None, per_sample=None) -> pipeline.Tally:
    """The running tally of ``samples`` samples of the profiles (one, without ``spec``: one attack
    of the file) at one target, every die rolled (:func:`~workbench.rules.sampled.roll_tokens`):
    models removed, wasted damage, criticals, tokens passing each stage, the stages' tallies and,
    per chance, whether its condition held (the tally's mean is the chance). The budget is checked
    first; chunks hold at most :data:`pipeline.CHUNK_DICE` tokens of one stage, whatever the
    criticals do (``bounds``: :func:`~workbench.rules.tokens.token_bounds` of the stages, the
    file's unless given). ``per_sample``: a function of one chunk's values (name -> per sample)
    giving the values tallied instead (``removed`` among them)."""
    work = sum(expected_work(p.played, p.probs, c, removal, t or 1) for p, c, t in zip(plans, counts, tokens))
    check_sampled(samples, work, rs.path)
    finals, rolling = bounds or rs._bounds
    top = sum(c * (t or 1) * finals for c, t in zip(counts, tokens))
    most = max(1, sum(c * (t or 1) for c, t in zip(counts, tokens)) * max(finals, rolling))
    ordered = spec is not None and _ordered(spec, removal)
    not_needed_name = "" if spec is None else spec.not_needed
    if ordered and removal.removed is not None:   # each profile's formula on its own successes, summed
        width = (sum(removal_width(c * (t or 1) * finals, removal, env, None, wounds, damage) - 1
                     for env, c, t in zip(envs, counts, tokens)) + 1 if models is None else models + 1)
    elif ordered:
        most_damage = max(_damage_of(rs, env, removal) for env in envs)
        width = removal_width(top, removal, envs[0], models, wounds, most_damage)
    else:
        width = removal_width(top, removal, envs[0], models, wounds, damage)
    unit = unit_of(removal, envs[0], models)

    def one_chunk(n: int) -> dict:
        total = np.zeros(n, dtype=np.int64)
        summed: dict[str, np.ndarray] = {}
        out: dict[str, np.ndarray] = {}
        not_needed = np.zeros(n, dtype=np.int64)
        r = np.zeros(n, dtype=np.int64)           # in listed order: the unit as the profiles before left it
        h = np.zeros(n, dtype=np.int64)
        wasted = np.zeros(n, dtype=np.int64)
        for i, (env, plan, count, n_tokens) in enumerate(zip(envs, plans, counts, tokens)):
            if i and not_needed_name and models is not None:
                before = r if ordered else remove(rng, total, removal, envs[0], models, wounds, damage, unit)[0]
                not_needed += before >= models
            got = roll_tokens(rng, plan.played, plan.dice, count, n, n_tokens or 1)
            s = got.pop("finals")
            for k, x in got.items():
                summed[k] = summed[k] + x if k in summed else x
            if spec is not None:
                out[f"{spec.each}[{i}]"] = s
            total = total + s
            if ordered and removal.removed is not None:
                r = r + remove(rng, s, removal, env, None, None, None)[0]   # its formula, uncapped
            elif ordered:
                r, h, w = advance(r, h, s, _damage_of(rs, env, removal), wounds, models, removal.spill)
                wasted = wasted + w
        if ordered:
            removed = r if models is None or removal.removed is None else np.minimum(r, models)
        else:
            removed, wasted = remove(rng, total, removal, envs[0], models, wounds, damage, unit)
        seen = dict(summed, successes=total, removed=removed)
        for c in chances:
            out[c.name] = tally.sampled_chance(c, seen, envs[0]).astype(np.int8)
        if not_needed_name:
            out[not_needed_name] = not_needed
        got = {"removed": removed, "wasted_damage": wasted, **summed, **out}
        return got if per_sample is None else per_sample(got)

    got = pipeline.tally_sampled(samples, most, one_chunk, width)
    return got.trim() if models is None else got   # no unit size: up to the most removed in a sample
