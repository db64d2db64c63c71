"""A loaded rule file as a system: the same face as a built-in system module.

:class:`RuleSystem` holds the checked parts of one file and resolves attacks
with them: ``attack(**stats)`` returns the workbench's one
:class:`~workbench.outcome.Outcome` (exact or sampled) and
``attack_table(**stats)`` is its vectorised twin for sweeps (integer stats
may be 1-D arrays that broadcast together). Module-like aliases (``KEY``,
``NAME``, ``DIE``, ``SEED``, ``TABLES``) let code written for the built-in
modules take a rule system as it is.
"""
from __future__ import annotations

import dataclasses
import difflib
import inspect
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .. import pipeline
from .. import validate as v
from ..dice import faces_text
from ..errors import InputError, UnknownArgumentError
from ..outcome import Outcome, Stage
from . import engine
from .die import StageDie
from .errors import ForbiddenError
from .loader import MAX_TOKENS_DIE
from .sampled import critical_key, near_key, simulate
from .tally import sampled_chance
from .spec import RuleStage, RuleStat

__all__ = ["RuleSystem"]

_METHOD = ("method", "samples", "seed")
_STAGE_FIELDS = frozenset(f.name for f in dataclasses.fields(Stage))


def _signed(x: int) -> str:
    return f"{int(x):+d}"


def _faces(faces) -> str:
    faces = list(faces)
    if len(faces) == 1:
        return f"a natural {faces[0]}"
    return "a natural " + ", ".join(map(str, faces[:-1])) + f" or {faces[-1]}"


def stage_words(st: RuleStage, die: StageDie, following: str | None, on_critical: bool = True) -> str:
    """What a stage needs, in a player's words: 'needs 4+ on a d6; a natural 1 always fails; ...'."""
    t, m = int(die.target), int(die.modifier)
    dX = f"d{st.die}"
    if st.roll == "high":
        need = t - m
        text = (f"any roll of a {dX} succeeds" if need <= 1 else
                f"needs {need}+ on a {dX}, which no roll reaches" if need > st.die else
                f"needs {need}+ on a {dX}")
    else:
        need = t - m
        text = (f"any roll of a {dX} succeeds" if need >= st.die else
                f"needs {need} or less on a {dX}, which no roll reaches" if need < 1 else
                f"needs {need} or less on a {dX}")
    if m:
        text += f" (target {t}, modifier {_signed(m)})"
    extra = []
    if st.always_fail:
        extra.append(f"{_faces(st.always_fail)} always fails")
    if st.always_succeed:
        extra.append(f"{_faces(st.always_succeed)} always succeeds")
    if st.long_shot:
        best = 1 if st.roll == "low" else st.die
        if (st.roll == "low" and need < 1) or (st.roll == "high" and need > st.die):
            text = f"out of reach on a {dX}: needs a {best} then another {best}"
    if st.critical and not np.all(np.asarray(die.critical_on)):
        extra.append(f"{_faces(st.critical)} is no critical at these values")
    elif st.critical:
        crit = f"{_faces(st.critical)} is a critical success"
        if st.on_critical == "extra":
            crit += f": {st.extra} more token{'s' if st.extra != 1 else ''} " + (
                f"to {following}" if following else "as final successes")
        elif st.on_critical == "skip_next":
            crit += f": passes {following} without a roll" if following else ": a final success"
        elif st.on_critical == "to_end":
            crit += ": skips every remaining stage and counts as a final success"
        if st.on_critical != "none" and st.on_critical_when is not None and not on_critical:
            crit = f"{_faces(st.critical)} is a critical success (an ordinary one here)"
        extra.append(crit)
    if st.reroll == "ones":
        extra.append("a natural 1 is rolled again once")
    elif st.reroll == "failed":
        extra.append("a failed roll is rolled again once")
    if st.passes_on == "fail":
        extra.append("the attack goes on when this roll FAILS")
    return text + ("; " + "; ".join(extra) if extra else "")


class RuleSystem:
    """One rule file, resolved like a built-in system (see docs/rulefiles.md).

    Attributes: ``key``, ``name``, ``die``, ``notes``, ``path``, ``source``
    (the TOML text), ``stats`` (:class:`RuleStat` records in file order),
    ``stages`` (:class:`RuleStage` records), ``count`` (the attacks
    expression), ``removal``, ``forbids``. Immutable.
    """

    def __init__(self, parts: Mapping[str, Any], path: str | Path, source: str):
        d = self.__dict__
        d["key"] = parts["key"]
        d["name"] = parts["name"]
        d["die"] = parts["die"]
        d["notes"] = tuple(parts["notes"])
        d["path"] = Path(path)
        d["source"] = source
        d["stats"] = tuple(parts["stats"])
        d["stages"] = tuple(parts["stages"])
        d["count"] = parts["count"]
        d["removal"] = parts["removal"]
        d["forbids"] = tuple(parts["forbids"])
        d["tokens_die"] = parts.get("tokens_die")
        d["chances"] = tuple(parts.get("chances", ()))
        d["_by_name"] = {s.name: s for s in self.stats}
        d["KEY"], d["NAME"], d["DIE"], d["SEED"] = self.key, self.name, self.die, None
        params = [inspect.Parameter(s.name, inspect.Parameter.KEYWORD_ONLY, default=s.default)
                  for s in self.stats]
        run = [inspect.Parameter("method", inspect.Parameter.KEYWORD_ONLY, default="exact"),
               inspect.Parameter("samples", inspect.Parameter.KEYWORD_ONLY, default=100_000),
               inspect.Parameter("seed", inspect.Parameter.KEYWORD_ONLY, default=0)]

        def attack(*args, method="exact", samples=100_000, seed=0, **stats) -> Outcome:
            self._keywords_only(args)
            return self._attack(method, samples, seed, stats)

        def attack_table(*args, **stats) -> dict:
            self._keywords_only(args)
            return self._table(stats)

        attack.__signature__ = inspect.Signature(params + run, return_annotation=Outcome)
        attack.__doc__ = (f"{self.name}: one resolution of the rule file's attack "
                          "(missing stats take their defaults).")
        attack.__qualname__ = f"{self.key}.attack"
        attack_table.__signature__ = inspect.Signature(params)
        attack_table.__doc__ = f"{self.name}: vectorised exact twin of attack() (integer stats may be arrays)."
        attack_table.__qualname__ = f"{self.key}.attack_table"
        d["attack"] = attack
        d["attack_table"] = attack_table
        d["TABLES"] = {"attack": attack_table}
        d["__all__"] = ("attack", "attack_table")

    def __setattr__(self, name, value):
        raise AttributeError(f"a RuleSystem is immutable (cannot set {name!r})")

    def __delattr__(self, name):
        raise AttributeError(f"a RuleSystem is immutable (cannot delete {name!r})")

    def __repr__(self) -> str:
        return f"RuleSystem({self.key!r}, {self.name!r}, {str(self.path)!r})"

    def __reduce__(self):
        # pickled as its text (for worker processes): loading it again gives the same system
        from . import loads
        return (loads, (self.source, str(self.path)))

    def _keywords_only(self, args: tuple) -> None:
        if args:
            raise UnknownArgumentError("arguments", f"stats as keywords for {self.key}.attack(), e.g. "
                                       f"{self.stats[0].name if self.stats else 'method'}=...", args)

    def outcome_notes(self) -> tuple[str, ...]:
        """The file's notes, then what the engine adds: a reminder when criticals change the token count."""
        notes = self.notes
        if any(st.critical and st.on_critical != "none" for st in self.stages):
            notes += ("With criticals that add, skip or end tokens, the product of the stage chances is not "
                      "one attack's chance of getting through; the distribution counts every critical "
                      "exactly.",)
        return notes

    # -- stats ---------------------------------------------------------------
    def stat(self, name: str) -> RuleStat:
        return self._by_name[name]

    def defaults(self) -> dict[str, Any]:
        return {s.name: s.default for s in self.stats}

    def _check(self, given: Mapping[str, Any], arrays: bool) -> tuple[dict, dict]:
        """(inputs as checked, env of integers for expressions)."""
        for k in given:
            if k not in self._by_name:
                names = [s.name for s in self.stats]
                close = difflib.get_close_matches(k, names, n=1)
                raise UnknownArgumentError(
                    "argument name", f"one of {', '.join(names + list(_METHOD))} for {self.key}.attack()",
                    k, f"did you mean {close[0]!r}?" if close else None)
        inputs, env = {}, {}
        for s in self.stats:
            value = given.get(s.name, s.default)
            if s.kind == "int" and s.optional and value is None:
                inputs[s.name] = None
                continue
            if s.kind == "int":
                if arrays and (isinstance(value, (list, tuple)) or
                               (isinstance(value, np.ndarray) and value.ndim > 0)):
                    if np.ndim(value) != 1:
                        raise InputError(s.name, f"a whole number from {s.min} to {s.max} or a 1-D array",
                                         value)
                    value = v.integers(s.name, value, s.min, s.max)
                else:
                    if isinstance(value, np.ndarray) and value.ndim == 0:
                        value = value.item()
                    value = v.integer(s.name, value, s.min, s.max)
            elif s.kind == "bool":
                value = v.boolean(s.name, value)
            else:
                value = v.choice(s.name, value, [o for o, _ in s.options])
            inputs[s.name] = value
            env[s.name] = s.value_of(value)
        return inputs, env

    def _forbid(self, env: Mapping[str, Any]) -> None:
        for f in self.forbids:
            hit = np.asarray(f.when.evaluate(env, f"forbid[{f.index}].when")) != 0
            if hit.any():
                shown = {}
                for name in sorted(f.when.names):
                    val = np.asarray(env[name])
                    if val.ndim:
                        val = np.broadcast_to(val, hit.shape)[hit][0]
                    stat = self._by_name[name]
                    val = int(val)
                    if stat.kind == "bool":
                        val = bool(val)
                    elif stat.kind == "choice":
                        val = next(o for o, x in stat.options if x == val)
                    shown[name] = val
                raise ForbiddenError(", ".join(sorted(f.when.names)) or f"forbid[{f.index}]", f.message,
                                     f.when.source, shown)

    # -- exact -----------------------------------------------------------------
    def _resolve(self, env: Mapping[str, Any]) -> tuple[dict, tuple]:
        shape = np.broadcast_shapes(*[np.shape(x) for x in env.values()]) if env else ()
        flat = {k: np.broadcast_to(np.asarray(x, dtype=np.int64), shape).reshape(-1) for k, x in env.items()}
        if not flat:
            flat = {}
        out = engine.resolve(self._parts(env), flat)
        return out, shape

    def _parts(self, env: Mapping[str, Any] | None = None) -> dict:
        return dict(stages=self.stages, removal=self._removal(env or {}), count=self.count,
                    tokens_die=self.tokens_die, chances=self.chances)

    def _removal(self, env: Mapping[str, Any]):
        """The removal for these stats: an optional stat left "none" as ``models`` is a unit without a size."""
        r = self.removal
        if r.models is not None and r.models.names and not r.models.names <= set(env):
            return dataclasses.replace(r, models=None)
        return r

    def _table(self, given: Mapping[str, Any]) -> dict:
        inputs, env = self._check(given, arrays=True)
        self._forbid(env)
        out, shape = self._resolve(env)
        pmf = out["pmf"].reshape(shape + (out["pmf"].shape[-1],))
        effects = {k: np.asarray(x, dtype=float).reshape(shape) for k, x in out["effects"].items()}
        return {"pmf": pmf, "effects": effects}

    @staticmethod
    def _on_critical(st: RuleStage, env: Mapping[str, Any]) -> bool:
        """Does the stage's ``on_critical`` apply for these (scalar) stats?"""
        return st.on_critical_when is None or bool(st.on_critical_when.scalar(env))

    def _stages(self, dice, counts=None, dice_env: Mapping[str, Any] | None = None) -> tuple[Stage, ...]:
        """The outcome's stages: each one's chance that a token rolling there goes on, as a
        Fraction of the die's face counts, with the rule in words."""
        out = []
        for i, (st, die) in enumerate(zip(self.stages, dice)):
            scalar = dataclasses.replace(die, target=int(np.asarray(die.target).ravel()[0]),
                                         modifier=int(np.asarray(die.modifier).ravel()[0]),
                                         critical_on=bool(np.asarray(die.critical_on).ravel()[0]))
            if counts is None:
                pf, ps, pc = scalar.fractions()
            else:
                c, denom = counts[i]
                pf, ps, pc = (Fraction(int(np.ravel(x)[0]), denom) for x in c)
            p = pf if st.passes_on == "fail" else ps + pc
            following = self.stages[i + 1].name if i + 1 < len(self.stages) else None
            words = stage_words(st, scalar, following, self._on_critical(st, dice_env))
            # the die's faces go with the stage where the outcome type records them
            faces = {"faces": st.die} if "faces" in _STAGE_FIELDS else {}
            out.append(Stage(st.name, p, f"{words}: goes on {faces_text(p, st.die)}", **faces))
        return tuple(out)

    def _kinds(self, outcome: Outcome) -> Outcome:
        """The file's chances are probabilities, whether or not the file is in the registry."""
        if not self.chances:
            return outcome
        kinds = dict(outcome.effect_kinds, **{c.name: "probability" for c in self.chances})
        return outcome.replace(effect_kinds=kinds)

    def _attack(self, method, samples, seed, given) -> Outcome:
        inputs, env = self._check(given, arrays=False)
        self._forbid(env)
        method, samples, rng = v.method_args(method, samples, seed)
        record = dict(inputs, method=method)
        if method == "exact":
            out, _ = self._resolve(env)
            count = int(out["count"][0])
            stages = self._stages(out["dice"], out["counts"], env)
            effects = {k: float(x[0]) for k, x in out["effects"].items()}
            return self._kinds(pipeline.exact_outcome(self.key, "attack", record, out["pmf"][0], stages,
                                                      effects, attacks=count, notes=self.outcome_notes()))
        record["samples"] = samples
        flat = {k: np.asarray([x], dtype=np.int64) for k, x in env.items()}

        def one(expr, field, lo, hi, what) -> int:
            return int(np.ravel(engine.check_value(expr, flat, field, lo, hi, what))[0])

        count = one(self.count, "attack.count", 0, engine.MAX_ATTACKS, "a number of attacks")
        dice = engine.stage_dice(self.stages, {k: int(x) for k, x in env.items()})
        stages = self._stages(dice, dice_env=env)
        r = self._removal(env)
        models = wounds = damage = None
        if r.models is not None:
            models = one(r.models, "removal.models", 0, engine.MAX_STATES, "a number of models")
        if not r.pooled:
            wounds = one(r.wounds, "removal.wounds", 1, engine.MAX_STATES, "wounds per model")
            if r.damage is not None:
                damage = one(r.damage, "removal.damage", 0, engine.MAX_STATES, "damage per success")
        n_tokens = 1 if self.tokens_die is None else one(self.tokens_die, "attack.tokens_die", 1,
                                                         MAX_TOKENS_DIE, "faces of the tokens die")
        played = tuple(st if self._on_critical(st, env) else dataclasses.replace(st, on_critical="none")
                       for st in self.stages)
        got = simulate(rng, samples, played, dice, count, r, env, models, wounds, damage, tokens_die=n_tokens)
        removed = got["removed"]
        width = (models if models is not None else int(removed.max(initial=0))) + 1
        effects = {"criticals": got["criticals"], "wasted_damage": got["wasted_damage"],
                   **{st.name: got[st.name] for st in self.stages}}
        for i, st in enumerate(self.stages):
            if st.tally:
                effects[st.tally] = got[st.name]
            if st.critical_tally:
                effects[st.critical_tally] = got[critical_key(i)]
            if st.near_miss_tally:
                effects[st.near_miss_tally] = got[near_key(i)]
        counts = dict(effects, successes=got["successes"], removed=removed)
        for c in self.chances:
            effects[c.name] = sampled_chance(c, counts, env)
        return self._kinds(pipeline.sampled_outcome(self.key, "attack", record, removed, width, stages,
                                                    effects, attacks=count, notes=self.outcome_notes()))
