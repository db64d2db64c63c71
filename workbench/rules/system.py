"""A loaded rule file as a system: the same face as a built-in system module (:class:`RuleSystem`)."""
from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from collections.abc import Mapping
from typing import Any, Callable

import numpy as np

from .. import pipeline
from ..engine import binomial_pmf
from ..errors import InputError
from ..outcome import Outcome, Stage
from .frozen import Immutable, remember
from . import engine, tally
from .engine import one_cell, one_cell_env
from .budget import RANGES, check_tokens, check_value, checked, token_bounds, unit_values
from .expr import Expr
from .loader import COUNTS, MAX_DIE, unit_size_stat
from .plan import Plan, StagePmfs, make_plan
from .words import said, save_stage
from .volley import resolve as resolve_volley, sampled_tally
from .sampled import unit_of
from .removal import fixed_damage_removal, remove
from .spec import Chance, Removal, RuleStage, Volley
from .stats import StatChecks
from .tokens import successes

# StatChecks is read from here by the file of a named mechanism too
__all__ = ["RuleSystem", "StatChecks"]


class RuleSystem(StatChecks, Immutable):
    """One rule file, resolved like a built-in system (see docs/rulefiles.md): ``attack(**stats)``
    returns the workbench's one :class:`~workbench.outcome.Outcome` (exact or sampled) and
    ``attack_table(**stats)`` is its vectorised twin for sweeps (integer stats may be 1-D arrays
    that broadcast together); module-like aliases (``KEY``, ``NAME``, ``DIE``, ``SEED``, ``TABLES``)
    let code written for the built-in modules take it as it is.

    Attributes: ``key``, ``name``, ``die``, ``notes``, ``path``, ``source`` (the TOML text),
    ``stats`` (:class:`RuleStat` records in file order), ``stages`` (:class:`RuleStage` records),
    ``count`` (the attacks expression), ``removal``, ``forbids``. Immutable.
    """

    # the attributes __init__ writes into __dict__ and others read by name (declared only, for the type checker)
    stages: tuple[RuleStage, ...]
    count: Expr
    removal: Removal
    tokens_die: Expr | None
    chances: tuple[Chance, ...]
    volley_spec: Volley | None
    _bounds: tuple[int, int]
    _counted: bool
    _effect_kinds: dict[str, str]

    def __init__(self, parts: Mapping[str, Any], path: str | Path, source: str):
        self._read_parts(parts, path, source)
        d = self.__dict__
        d["stages"] = tuple(parts["stages"])
        d["count"] = parts["count"]
        d["removal"] = parts["removal"]
        d["tokens_die"] = parts.get("tokens_die")
        d["chances"] = tuple(parts.get("chances", ()))
        #: the file's ``[volley]`` (None: the file says no volley)
        d["volley_spec"] = parts.get("volley")
        d["_optional"] = any(s.optional for s in self.stats)
        d["_plans"] = {}   # the stages' dice -> their Plan (see _plan)
        d["_values"] = {}  # (expression, values of the stats it reads) -> its value
        d["_staged_by"] = {}  # the dice the stats choose -> the stages as rolled (see _staged)
        d["_bounds"] = token_bounds(self.stages)
        #: the stages whose die the stats choose (``die = "an expression"``)
        d["_die_switched"] = any(st.die_expr is not None for st in self.stages)
        #: the file uses a mechanism only engine.resolve knows (tokens die, tallies, chances on tallies)
        d["_counted"] = tally.uses_counts(dict(self._parts(), chances=tuple(
            c for c in self.chances if c.count not in COUNTS)))
        #: the optional stat that is the unit size, which a chance may read (see _defined)
        d["_size"] = unit_size_stat(self.removal, {s.name for s in self.stats if s.optional})
        #: the stages whose criticals or their rule the stats switch on and off
        d["_switched"] = tuple(i for i, st in enumerate(self.stages)
                               if st.critical_when is not None or st.on_critical_when is not None)
        #: what the side effects are: expected counts, and the file's chances probabilities
        d["_effect_kinds"] = {"criticals": "expected", "wasted_damage": "expected",
                              **{c.name: "probability" for c in self.chances}}
        d["KEY"], d["NAME"], d["DIE"], d["SEED"] = self.key, self.name, self.die, None
        d["attack"] = self._entry("attack", f"{self.name}: one resolution of the rule file's attack (missing stats "
                                  "take their defaults).")
        d["attack_table"] = attack_table = self._entry(
            "attack_table", f"{self.name}: vectorised exact twin of attack() (integer stats may be arrays).",
            lambda **stats: self._table(stats))
        d["TABLES"] = {"attack": attack_table}
        d["__all__"] = ("attack", "attack_table")

    def __repr__(self) -> str:
        return f"RuleSystem({self.key!r}, {self.name!r}, {str(self.path)!r})"

    def volley(self, profiles, *, method="exact", samples=100_000, seed=0, **stats) -> Outcome:
        """Several profiles at one target, resolved as the file's ``[volley]`` says: ``profiles``
        is a list of dicts of the stats ``[volley] profile`` names (missing ones take their
        defaults), ``stats`` the shared stats (the target's, the rules'). The effects: the
        attack's (stage passes, tallies, criticals, summed over the profiles), the removal's
        (``wasted_damage``), the chances over the total, ``EACH[i]`` (the expected final
        successes of profile i) and, when the file names it, the profiles not needed.
        See "Several profiles at one target" in docs/rulefiles.md."""
        return resolve_volley(self, profiles, method, samples, seed, stats)

    def outcome_notes(self, *envs: Mapping[str, Any]) -> tuple[str, ...]:
        """The file's notes for the scalar stats ``envs`` (:meth:`notes_for`), then what the engine
        adds: a reminder when criticals change the token count."""
        notes = self.notes_for(*envs)
        if any(st.critical and st.on_critical != "none" for st in self.stages):
            notes += ("Where criticals add successes or skip stages, the product of the stage chances is "
                      "neither one attack's expected successes nor its chance of one: both are given per "
                      "attack, and the distribution counts every critical exactly.",)
        return notes

    # -- exact -----------------------------------------------------------------
    def _staged(self, env: Mapping[str, Any]) -> tuple[RuleStage, ...]:
        """The stages as rolled for these stats: a stage's ``die`` expression gives its faces
        (one number for the whole grid: a stage's die cannot change from cell to cell)."""
        if not self.__dict__["_die_switched"]:
            return self.stages
        if all(isinstance(x, (int, np.integer)) for x in env.values()):   # remembered by the dice the stats choose
            chosen = tuple(None if st.die_expr is None else self._value(st.die_expr, env, f"stages[{i}].die")
                           for i, st in enumerate(self.stages))
            return remember(self.__dict__["_staged_by"], chosen, lambda: self._rolled(env), 64)
        return self._rolled(env)

    def _rolled(self, env: Mapping[str, Any]) -> tuple[RuleStage, ...]:
        """The stages with each ``die`` expression's faces, checked (see :meth:`_staged`)."""
        out = []
        for i, st in enumerate(self.stages):
            if st.die_expr is None:
                out.append(st)
                continue
            field = f"stages[{i}].die"
            sides = np.unique(check_value(st.die_expr, env, field, 2, MAX_DIE, "faces of a die"))
            if sides.size > 1:
                raise InputError(sorted(st.die_expr.names)[0], "one value for the whole grid (it picks "
                                 f"the die of stage {st.name!r})", f"{sides.size} values")
            faces = st.always_fail + st.always_succeed + st.critical
            if faces and max(faces) > int(sides[0]):
                raise InputError(field, f"a die with face {max(faces)} (named by the stage's always_fail, "
                                 "always_succeed or critical)", f"a d{int(sides[0])} from '{st.die_expr.source}'")
            out.append(dataclasses.replace(st, die=int(sides[0])))
        return tuple(out)

    def _parts(self, env: Mapping[str, Any] | None = None) -> dict:
        return dict(stages=self.stages if env is None else self._staged(env), removal=self._removal(env or {}), count=self.count, path=self.path,
                    tokens_die=self.tokens_die, chances=self.chances if env is None else self._defined(env),
                    bounds=self.__dict__.get("_bounds"))

    def _defined(self, env: Mapping[str, Any]) -> tuple[Chance, ...]:
        """The chances defined for these stats: one reading the unit size is left out where the
        unit has no size (its optional stat is none)."""
        size = self.__dict__["_size"]
        if size is None or size in env:
            return self.chances
        return tuple(c for c in self.chances if size not in c.when.names)

    def _removal_chances(self, env: Mapping[str, Any], pmf: np.ndarray, p_n: np.ndarray) -> dict[str, float]:
        """:func:`~workbench.rules.tally.chance` for one cell of scalar stats, without its arrays:
        each chance's condition over the counts is remembered by the values of the stats it reads
        (a dashboard's slider move resolves one cell again and again)."""
        def condition(c: Chance, size: int) -> np.ndarray:   # at each count k (at most up_to when it says so)
            k = np.arange(size)
            read = dict(env, **{str(c.count): k if c.up_to is None else np.minimum(k, c.up_to)})
            return np.broadcast_to(c.when.evaluate(read, f"chances[{c.index}].when") != 0, k.shape).astype(float)

        out = {}
        for c in self._defined(env):
            dist = pmf if c.count == "removed" else p_n[0]
            key = ("chance", c.index, dist.size, *(env[n] for n in sorted(c.when.names - {c.count})))
            cond = remember(self.__dict__["_values"], key, functools.partial(condition, c, dist.size))
            out[c.name] = float(np.clip(dist @ cond, 0.0, 1.0))
        return out

    def _removal(self, env: Mapping[str, Any]):
        """The removal for these stats: an optional stat left "none" as ``models`` is a unit without a size."""
        r = self.removal
        if self.__dict__["_optional"] and r.models is not None and not r.models.names <= env.keys():
            return dataclasses.replace(r, models=None)
        return r

    def _table(self, given: Mapping[str, Any]) -> dict:
        inputs, env = self._check(given, arrays=True)
        self._forbid(env)
        shape = np.broadcast_shapes(*[np.shape(x) for x in env.values()]) if env else ()
        flat = {k: np.broadcast_to(np.asarray(x, dtype=np.int64), shape).reshape(-1) for k, x in env.items()}
        out = engine.resolve(self._parts(env), flat)
        pmf = out["pmf"].reshape(shape + (out["pmf"].shape[-1],))
        effects = {k: np.asarray(x, dtype=float).reshape(shape) for k, x in out["effects"].items()}
        return {"pmf": pmf, "effects": effects}

    def _plan(self, env: Mapping[str, Any]) -> Plan:
        """Everything one scalar resolution needs from the stages' dice (:class:`~workbench.rules.plan.Plan`),
        cached by the dice: each stage's target, modifier and die and, where the file switches them,
        whether its criticals are criticals and whether its ``on_critical`` applies."""
        stages = self._staged(env)
        key: tuple[object, ...] = tuple((self._value(st.target, env, f"stages[{i}].target"),
                     0 if st.modifier is None else self._value(st.modifier, env, f"stages[{i}].modifier"),
                     st.die)
                    for i, st in enumerate(stages))
        switched = self.__dict__["_switched"]
        if switched:    # files whose criticals the stats switch: that too picks the plan
            ons = tuple(st.on_critical_when is None or self._value(st.on_critical_when, env,
                                                                    f"stages[{i}].on_critical_when") != 0
                        for i, st in enumerate(self.stages))
            key += ons + tuple(self._value(self.stages[i].critical_when, env, f"stages[{i}].critical_when") != 0
                               for i in switched if self.stages[i].critical_when is not None)
        else:
            ons = (True,) * len(self.stages)
        return remember(self.__dict__["_plans"], key, lambda: make_plan(stages, ons, env), 256)

    def stages_at(self, **stats) -> tuple[Stage, ...]:
        """The stages of one attack at these (scalar) stats, as an outcome shows them: each one's
        chance and the engine's words after the stage's ``says`` (missing stats take their defaults);
        for a caller that lists several profiles' stages apart (a volley's units in its notes)."""
        return self.shown_at(**stats)["stages"]

    def shown_at(self, **stats) -> dict[str, Any]:
        """What an outcome of :meth:`attack` at these (scalar) stats shows of one attack: ``stages``
        (the file's, then a model-by-model removal's save where every blow has one chance of it) and
        ``blows_vary`` (no such chance); for a built-in that samples its own way."""
        _, env = self._check(stats, arrays=False)
        count, n_tokens = self._attacks(env)
        return self._shown(env, self._plan(env), count, n_tokens)

    def _shown(self, env, plan: Plan, count: int, n_tokens: int | None) -> dict[str, Any]:
        saved, blows_vary = self._save_stage(env, lambda: count * (n_tokens or 1) * token_bounds(plan.played)[0])
        return {"stages": said(plan.stages, plan.staged, env) + saved, "blows_vary": blows_vary,
                "save": saved[0] if saved else None}

    def sample_tally(self, rng: np.random.Generator, samples: int, per_sample, **stats) -> pipeline.Tally:
        """``samples`` sampled resolutions at these (scalar) stats, tallied as ``per_sample`` maps
        each chunk's values (per sample: the tokens passing each stage, the tallies, ``finals``,
        ``removed``, ``wasted_damage`` and each chance's 0 or 1) to the values kept, ``removed``
        among them: for code that reads the samples its own way (a built-in's own effects)."""
        _, env = self._check(stats, arrays=False)
        self._forbid(env)
        count, n_tokens = self._checked_attacks(env)
        return self._simulate(rng, samples, env, self._plan(env), count, n_tokens, self.chances, per_sample)

    def _simulate(self, rng, samples, env, plan: Plan, count: int, n_tokens: int | None, chances,
                  per_sample=None) -> pipeline.Tally:
        models, wounds, damage = self._unit(env)
        return sampled_tally(self, rng, samples, [env], [plan], [count], [n_tokens], self._removal(env), models,
                             wounds, damage, chances, bounds=token_bounds(plan.played), per_sample=per_sample)

    def _save_stage(self, env, blows: Callable[[], int]) -> tuple[tuple[Stage, ...], bool]:
        """:func:`~workbench.rules.words.save_stage` of a removal model by model at these stats, whose
        attacks (a volley's: all its profiles') make at most ``blows()`` blows (worked out only then)."""
        removal = self._removal(env)
        if not removal.by_model:
            return (), False
        models, most = self._unit(env)[0], blows()
        return save_stage(removal, env, unit_of(removal, env, models), most if models is None else min(models, most))

    def _value(self, expr, env, field) -> int:
        """One expression's value for scalar stats, remembered by the values of the stats it reads."""
        key = (id(expr), *(env[n] for n in expr.order))
        return remember(self.__dict__["_values"], key, lambda: int(expr.evaluate(env, field)))

    def _attacks(self, env) -> tuple[int, int | None]:
        """The attacks of one scalar resolution, checked: (count, faces of the tokens die or None)."""
        count = self._one(env, self.count, "attack.count")
        return count, None if self.tokens_die is None else self._one(env, self.tokens_die, "attack.tokens_die")

    def _checked_attacks(self, env) -> tuple[int, int | None]:
        """:meth:`_attacks`, with the tokens they can make refused past the budget."""
        count, n_tokens = self._attacks(env)
        check_tokens(self.stages, count, self.path, self._bounds, n_tokens or 1)
        return count, n_tokens

    def _one(self, env, expr, field) -> int:
        """One value of :data:`~workbench.rules.budget.RANGES` for scalar stats, checked."""
        value = self._value(expr, env, field)
        lo, hi, _ = RANGES[field]
        if not lo <= value <= hi:
            checked(expr, env, field)   # raises, naming the stats
        return value

    def _unit(self, env) -> tuple:
        return unit_values(self._removal(env), lambda expr, field: self._one(env, expr, field))

    def _plain(self, count: int, plan: Plan) -> tuple[np.ndarray, dict]:
        """``count`` attacks of a file using none of :mod:`workbench.rules.tally`'s mechanisms, from
        the plan's one attack: the distribution (1, width) of final successes (a binomial when an
        attack scores at most one) and the expected criticals and tokens passing each stage."""
        if plan.g0.shape[-1] == 2:
            p_n = binomial_pmf(count, float(plan.g0[0, 1]))[None, :]
        else:
            p_n = successes(plan.g0, np.array([count]))
        return p_n, {"criticals": count * plan.crits, **{st.name: count * x for st, x in zip(self.stages, plan.passes)}}

    def _prepared(self, env, plan: Plan, n_tokens: int | None) -> tuple[dict, dict, np.ndarray | None, dict]:
        """What :func:`engine.finish` reads for these stats: the parts, the one cell, the tokens die
        as a cell (None: one token an attack) and :func:`engine.prepare`'s half, kept with the plan by
        the tokens die (made with every chance: it serves stats that leave one out too)."""
        parts = dict(self._parts(env), stages=plan.staged)
        flat = one_cell_env(env)
        tokens = None if (n_tokens or 1) == 1 else np.array([n_tokens])
        pre = remember(plan.prepared, None if tokens is None else n_tokens,
                       lambda: engine.prepare(dict(parts, chances=self.chances), flat, 1, tokens), 16)
        return parts, flat, tokens, pre

    def _exact(self, env, count: int, plan: Plan) -> tuple[np.ndarray, dict]:
        """One cell of a file using none of :mod:`workbench.rules.tally`'s mechanisms: the pmf of
        models removed and the effects."""
        models, wounds, damage = self._unit(env)
        p_n, effects = self._plain(count, plan)
        r = self._removal(env)
        if r.removed is None and not r.by_model and r.damage_roll is None:   # a fixed damage: Python integers
            pmf, wasted = fixed_damage_removal(p_n[0], models, wounds, damage, r.spill)
        else:
            pmfs, waste, _ = remove(r, one_cell_env(env), p_n, one_cell(models), one_cell(wounds), None, self.path)
            pmf, wasted = pmfs[0], float(waste[0])
        effects["wasted_damage"] = wasted
        if self.chances:   # only chances over removed or successes come this way
            effects.update(self._removal_chances(env, pmf, p_n))
        return pmf, effects

    def _general(self, env, plan: Plan, count: int, n_tokens: int | None) -> tuple[np.ndarray, dict]:
        """One cell of :func:`engine.finish`: files with random tokens per attack, tallies or
        chances (the fast path of :meth:`_exact` knows none of them); the count and the unit are
        the ones :meth:`_attack` has checked."""
        parts, flat, tokens, pre = self._prepared(env, plan, n_tokens)
        models, wounds, damage = self._unit(env)
        out = engine.finish(parts, flat, pre, np.array([count]), tokens, one_cell(models), one_cell(wounds),
                            one_cell(damage))
        return out["pmf"][0], {k: float(x[0]) for k, x in out["effects"].items()}

    def _attack(self, method, samples, seed, given) -> Outcome:
        env, method, rng, record = self._begin(given, method, samples, seed, scalar=True)
        count, n_tokens = self._checked_attacks(env)
        plan = self._plan(env)
        per_attack = dict(plan.figures)
        if (n_tokens or 1) > 1:   # an attack of 1..n_tokens tokens: their number and the file's word for one
            per_attack.update(tokens=n_tokens, token=self.view.token)
        words = dict(effect_kinds=self._effect_kinds, trial=self.view.trial, system_title=self.name,
                     effect_labels=self.effect_labels, label=self.view.label or "models removed", **per_attack)
        shown = self._shown(env, plan, count, n_tokens)
        stages, words["blows_vary"] = shown["stages"], shown["blows_vary"]
        if method == "exact":
            if self._counted:
                pmf, effects = self._general(env, plan, count, n_tokens)
            else:
                pmf, effects = self._exact(env, count, plan)
            pmfs = StagePmfs(plan.played, plan.probs, count, n_tokens, shown["save"])
            return Outcome(system=self.key, function="attack", inputs=record, pmf=pmf, stages=stages,
                           effects=effects, attacks=count, notes=self.outcome_notes(env), stage_pmfs=pmfs,
                           **words)
        sampled = self._simulate(rng, record["samples"], env, plan, count, n_tokens, self._defined(env))
        return pipeline.tally_outcome(self.key, "attack", record, sampled, stages, attacks=count,
                                      notes=self.outcome_notes(env), **words)
