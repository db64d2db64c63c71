"""Antares-style d10: stat tests rolled under, criticals on a 1.

Seed 004 ("DICE AND STATS"): "roll a D10 and if the score is equal to or less
than the value you are testing against the test is a success"; "a D10 dice
roll of a 10 is always deemed a failure"; below 1, "a 1 followed by another 1";
at a value of 2 or greater "any roll of a 1 on the D10 is considered a critical
success". The test is a :class:`~workbench.rules.die.DieRoll` (``_stat_die``),
the die ``rules/antares.toml`` states for its stages. The seed's other tests
are one stat test each: Init (:func:`reaction`), Cou or Com for machines
(:func:`combat_status`), Ag (:func:`movement_test`); docs/rules/antares.md
quotes them.

Shooting and volleys resolve through the system's rule file, ``rules/antares.toml``.
Shooting (RULES.md section 4): each shot hits on an Acc test; each hit makes
the target test Res at Res + armour + cover - the weapon's strike value; a
failed Res test removes a model. A critical hit "affects how casualties are
allocated" (who, not how many); ``critical_ignores_res=True`` (a designer's
what-if, not in the seed) lets it remove a model without a Res test. Every
rule with its seed quotation: docs/rules/antares.md.
"""
from __future__ import annotations

import sys
from fractions import Fraction
from typing import Any

import numpy as np

from .. import validate as v
from ..dice import faces_text
from ..errors import InputError
from ..outcome import Outcome, Stage
from ..rules.die import DieRoll, StageDie
from . import ownfile
from .ownfile import checked, grid_table, keyed, listed, one_roll, resolve
from .records import SHOTS, ProfileField, Profiles, whole_fields

__all__ = ["KEY", "NAME", "SEED", "DIE", "test", "stat_test", "reaction", "combat_status",
           "movement_test", "shooting", "shooting_table", "volley", "TABLES", "STAT_RANGE", "MOD_RANGE",
           "VALUE_RANGE"]

KEY = "antares"
SEED = "004_d2632203ddb2a5c8.txt"
_FILE = ownfile.load(KEY)
NAME, DIE = _FILE.name, _FILE.die

#: a stat (Acc, Res, Ag, Init, Cou, Com): the seed scores them "out of 10 with
#: 1 being the lowest value possible and 10 the highest for this type"; other
#: types may go further, as rules/antares.toml's Acc (0..20)
STAT_RANGE = (_FILE.stat("acc").min, _FILE.stat("acc").max)
#: a modifier (acc_mod, a test's modifier) may lower or raise the value, as the file's Acc modifier
MOD_RANGE = (_FILE.stat("acc_mod").min, _FILE.stat("acc_mod").max)
#: a test value after modifiers: every stat + modifier combination fits; any
#: value below 1 behaves as 0 (1/100) and any value from 9 up as 9 (9/10)
VALUE_RANGE = (-40, 40)


# -- plain words -------------------------------------------------------------------
def _pass_words(value: int) -> str:
    if value < 1:
        return "below 1: needs a 1 then another 1 on a d10"
    if value >= 10:
        return "needs 9 or less on a d10 (a 10 always fails)"
    return f"needs {value} or less on a d10"


def _test_words(stat_name: str, stat: int, modifier: int, p: Fraction, crit: Fraction) -> str:
    """'Init 5 + modifier 1 = 6: needs 6 or less on a d10: 6/10 (a 1 is a critical success: 1/10)': a
    stat test's words, its chance ``p`` and its critical chance ``crit``."""
    value, text = stat + modifier, f"{stat_name} {stat}"
    if modifier:
        signed = value if value >= 0 else f"−{-value}"
        text += f" {'+' if modifier > 0 else '−'} modifier {abs(modifier)} = {signed}"
    crit_text = f" (a 1 is a critical success: {faces_text(crit, 10)})" if value >= 2 else " (no critical possible)"
    return f"{text}: {_pass_words(value)}: {faces_text(p, 10)}{crit_text}"


# -- the basic test ------------------------------------------------------------------
def _stat_die(value: int) -> DieRoll:
    """The seed's stat test at ``value``, as ``rules/antares.toml`` states it for
    its stages: a d10 at or under the value succeeds, a 10 always fails, below
    1 a 1 then another 1, and a 1 is a critical when the value is 2 or more."""
    return DieRoll(StageDie(sides=DIE, roll_high=False, target=value, always_fail=(DIE,), long_shot=True,
                            critical=(1,), critical_on=value >= 2))


@v.stat_function
def test(value) -> tuple[Fraction, Fraction]:
    """(P(success), P(critical)) of one stat test against ``value`` (after modifiers).

    P(success) = 1/100 for a value below 1, value/10 from 1 to 9, 9/10 from 9
    up; P(critical) = 1/10 for a value of 2 or more, else 0 (a critical is
    also a success). ``value`` is a whole number from -40 to 40.
    """
    value = v.integer("value", value, *VALUE_RANGE)
    die = _stat_die(value)
    return die.success, die.p("critical")


def _test_outcome(function: str, stat_name: str, stat: int, modifier: int, method: Any, samples: Any,
                  seed: Any, inputs: dict, extra_notes: tuple[str, ...] = ()) -> Outcome:
    """The Outcome of one stat test at ``stat + modifier`` (its arguments checked: ``inputs``), exact or
    sampled."""
    rng: Any  # a Generator for every method but "exact", which rolls nothing
    method, samples, rng = v.method_args(method, samples, seed)
    inputs = dict(inputs, method=method)
    value = stat + modifier
    die = _stat_die(value)
    p, crit = die.success, die.p("critical")
    stage = Stage(f"{stat_name} test", p, _test_words(stat_name, stat, modifier, p, crit), faces=DIE)
    notes = _FILE.notes[:1] + extra_notes  # the rule file's first note, which a shooting shows too

    def one_chunk(n: int) -> dict:
        codes = die.roll(rng, (n,))
        return {"removed": die.is_success(codes).astype(np.int8), "critical": codes == die.labels.index("critical")}

    return one_roll(KEY, function, inputs, (stage,), method, samples, np.array([float(1 - p), float(p)]),
                    {"critical": float(crit)}, one_chunk, die.dice, record_samples=False, attacks=1, notes=notes,
                    label="successes")


@v.stat_function
def stat_test(value, modifier=0, *, name="stat", method="exact", samples=100_000, seed=0) -> Outcome:
    """One stat test at ``value + modifier`` as an Outcome.

    ``pmf = [P(fail), P(success)]`` (label "successes"), one stage with the
    exact probability and the roll needed, ``effects["critical"]`` =
    P(critical success). ``name`` only labels the stage ("Init", "Cou"...).
    """
    value = v.integer("value", value, *STAT_RANGE)
    modifier = v.integer("modifier", modifier, *MOD_RANGE)
    if not isinstance(name, str) or not name:
        raise InputError("name", "a non-empty string", name)
    inputs = {"value": value, "modifier": modifier, "name": name}
    return _test_outcome("stat_test", name, value, modifier, method, samples, seed, inputs)


def _single(function: str, field: str, stat_name: str, stat, modifier, method, samples, seed, note: str) -> Outcome:
    """The Outcome of the single test ``function``: the stat ``field`` (``stat_name`` in words) and its
    modifier checked, then one stat test with its ``note``."""
    inputs = {field: v.integer(field, stat, *STAT_RANGE), "modifier": v.integer("modifier", modifier, *MOD_RANGE)}
    return _test_outcome(function, stat_name, inputs[field], inputs["modifier"], method, samples, seed, inputs,
                         (note,))


@v.stat_function
def reaction(init, *, modifier=0, method="exact", samples=100_000, seed=0) -> Outcome:
    """An Init test to react to an enemy action ("the key value that we test
    against when a unit reacts to an enemy's action")."""
    return _single("reaction", "init", "Init", init, modifier, method, samples, seed,
                   "A reaction is an Init test (seed: 'the key value that we test against when a "
                   "unit reacts to an enemy's action').")


@v.stat_function
def combat_status(cou=None, machine=False, com=None, *, modifier=0, method="exact", samples=100_000,
                  seed=0) -> Outcome:
    """A Combat Status check: a Cou test, or a Com test for a machine.

    Seed: Courage is tested "when checking Combat Status"; Compute's "principle
    use is for WarDrones and other kinds of sentient machines, where compute is
    generally used instead of courage". ``machine=False`` needs ``cou`` (a
    ``com`` given as well is ignored: a living model's stat line has both);
    ``machine=True`` needs ``com`` (``cou`` is then ignored).
    """
    machine = v.boolean("machine", machine)
    modifier = v.integer("modifier", modifier, *MOD_RANGE)
    field, other = ("com", "cou") if machine else ("cou", "com")
    given = {"cou": cou, "com": com}
    if given[field] is None:
        raise InputError(field, f"a whole number from {STAT_RANGE[0]} to {STAT_RANGE[1]}"
                         + (" when machine=True" if machine else ""), None,
                         "machines test Com instead of Cou" if machine
                         else "pass machine=True and com=... for a machine")
    given = {field: v.integer(field, given[field], *STAT_RANGE),
             other: v.optional_integer(other, given[other], *STAT_RANGE)}
    inputs = {"cou": given["cou"], "machine": machine, "com": given["com"], "modifier": modifier}
    note = ("A machine checks Combat Status on Com ('compute is generally used instead of courage')."
            if machine else "Combat Status is a Cou test ('We test against this value when checking "
            "Combat Status').")
    return _test_outcome("combat_status", field.capitalize(), given[field], modifier, method, samples, seed, inputs,
                         (note,))


@v.stat_function
def movement_test(ag, *, modifier=0, method="exact", samples=100_000, seed=0) -> Outcome:
    """An Ag test for demanding movement ("It is used mostly for movement
    tests in demanding situations")."""
    return _single("movement_test", "ag", "Ag", ag, modifier, method, samples, seed,
                   "Demanding movement is an Ag test (seed: 'used mostly for movement tests in "
                   "demanding situations').")


# -- shooting --------------------------------------------------------------------
def _check(kw: dict, arrays: bool, where: str = "") -> dict:
    """The checked shooting arguments, each whole number in its stat's range in ``rules/antares.toml``;
    ``where`` prefixes the messages (``"weapons[1]."`` in a volley, whose target is checked already)."""
    a = checked(_FILE, kw, _SHOOTING_STATS + ("critical_ignores_res",), arrays, where=where)
    v.broadcastable({k: a[k] for k in _SHOOTING_STATS})
    return a


#: the function's effect names -> the rule file's (rules/antares.toml)
_EFFECTS = {"critical_hits": "critical_hits", "any_critical": "any_critical", "hits": "hits"}
_SHOOTING_STATS = ("acc", "res", "sv", "armour", "cover", "acc_mod", "shots", "models")


@v.stat_function
def shooting_table(*, acc, res, sv=0, armour=0, cover=0, acc_mod=0, shots=1, models=None,
                   critical_ignores_res=False) -> dict:
    """Vectorised twin of :func:`shooting` (exact only).

    ``acc, res, sv, armour, cover, acc_mod, shots, models`` may be numpy
    arrays (broadcast together, shape S). Returns ``{"pmf": array S+(width,),
    "effects": {"critical_hits", "any_critical", "hits": arrays S}}``.
    """
    a = _check(locals(), arrays=True)
    return grid_table(_FILE, a, _SHOOTING_STATS, a["shots"], _EFFECTS, ownfile.width(a["shots"], a["models"]))


TABLES = {"shooting": shooting_table}


@v.stat_function
def shooting(*, acc, res, sv=0, armour=0, cover=0, acc_mod=0, shots=1, models=None,
             critical_ignores_res=False, method="exact", samples=100_000, seed=0) -> Outcome:
    """One unit's shots at one target unit.

    Per shot: an Acc test at ``acc + acc_mod`` to hit; each hit makes the
    target test Res at ``res + armour + cover - sv``; each failed Res test
    removes one model (capped at ``models`` when given). ``shots`` may be a
    blast weapon's random number of shots, "D3" ... "D12" (:data:`BLAST_DICE`),
    each count equally likely: the result is the mixture over the count.

    ``effects``: ``critical_hits`` = expected number of critical hits (a 1 on
    the hit roll at a value of 2 or more: who is removed, not how many),
    ``any_critical`` = P(at least one critical hit), ``hits`` = expected
    hits. The numbers, the stages and their words come from the system's rule file,
    ``rules/antares.toml``.
    """
    shots, blast = _blast("shots", shots)
    a = _check(locals(), arrays=False)
    method = v.method_args(method, samples, seed)[0]
    stats = dict({k: a[k] for k in _SHOOTING_STATS}, blast=blast or "none",
                 critical_ignores_res=a["critical_ignores_res"])
    o = _FILE.attack(**stats, method=method, samples=samples, seed=seed)
    inputs = dict(a, method=method) if blast is None else dict(a, method=method, shots=blast)
    return _as_function(o, "shooting", inputs, _EFFECTS, ownfile.width(a["shots"], a["models"]),
                        _FILE.notes_at(**stats))


def _as_function(o: Outcome, function: str, inputs: dict, effects: dict, width: int, notes) -> Outcome:
    """The engine's outcome ``o`` as the built-in ``function``'s, with the engine's stages, attacks and
    per-shot figures: what a copy of the rule file shows."""
    out = ownfile.outcome(o, system=KEY, function=function, inputs=inputs, effects=effects, width=width,
                          attacks=o.attacks, notes=notes)
    return out.replace(per_attack_mean=o.per_attack_mean, per_attack_any=o.per_attack_any,
                       success_label=o.success_label)


#: blast weapons' random number of hits ("D4s, D6s, D8s and D12s are also used to generate random values, most
#: commonly for weapons with blast effects"): name -> (largest count, how it is rolled), rules/antares.toml's
BLAST_DICE = {name: (count, dict(_FILE.view.words["blast"])[name]) for name, count in _FILE.stat("blast").options
              if count}


def _blast(field: str, shots):
    """(the shots, the blast die or None): a blast die's name stands for its largest count."""
    if not isinstance(shots, str):
        return shots, None
    blast = v.choice(field, shots, tuple(BLAST_DICE))
    return BLAST_DICE[blast][0], blast


# -- a volley of mixed weapons at one target ------------------------------------------
#: the keys of one weapon of a volley
WEAPON_KEYS = ("acc", "sv", "acc_mod", "shots", "name")
#: weapons in one volley at most: the profiles of the rule file's [volley]
MAX_WEAPONS = _FILE.volley_spec.max_profiles

VOLLEY_NOTE = (
    "Mixed weapons at one target: 'distinctly coloured dice ... helps greatly with hit allocation from weapons "
    "with different strike qualities, for example where a unit shoots plasma carbines and a plasma cannon at "
    "the same target': each weapon's dice are told apart, so each hit makes the target test Res against its "
    "own weapon's SV.")
VOLLEY_ALLOCATION_NOTE = (
    "Reading: a failed Res test removes a model whichever model the hit was given to ('In the case of "
    "shooting it affects how casualties are allocated': casualties, not hits, are allocated), so the removals "
    "of all weapons are added, then capped at the unit size; who is removed is the allocation, not how many.")


def _weapon(i: int, w, res, armour, cover, critical_ignores_res) -> dict:
    """One weapon of a volley, checked; every message names ``weapons[i]`` and the field."""
    where = f"weapons[{i}]"
    keyed(where, w, WEAPON_KEYS, "a dict with keys acc (required), sv, acc_mod, shots, name",
          {"acc": f"a whole number from {STAT_RANGE[0]} to {STAT_RANGE[1]}"})
    name = w.get("name")
    if name is not None and (not isinstance(name, str) or not name.strip() or len(name) > 40):
        raise InputError(f"{where}.name", "a short text naming the weapon (1 to 40 characters)", name)
    shots, blast = _blast(f"{where}.shots", w.get("shots", 1))
    a = _check(dict(acc=w["acc"], res=res, sv=w.get("sv", 0), armour=armour, cover=cover, acc_mod=w.get("acc_mod", 0),
                    shots=shots, models=None, critical_ignores_res=critical_ignores_res), False, f"{where}.")
    return dict(a, blast=blast, name=name.strip() if name else f"weapon {i + 1}")


@v.stat_function
def volley(weapons, *, res, armour=0, cover=0, models=None, critical_ignores_res=False,
           method="exact", samples=100_000, seed=0) -> Outcome:
    """One unit's mixed weapons fired together at one target unit.

    ``weapons``: a list of dicts, one per weapon (or group of identical
    weapons): ``acc`` (required), ``sv`` (0), ``acc_mod`` (0), ``shots`` (1,
    or a blast die as in :func:`shooting`) and ``name`` (a label). The
    target's ``res``, ``armour``, ``cover`` and ``models`` are as in
    :func:`shooting`. Each hit makes the target test Res against its own
    weapon's SV (:data:`VOLLEY_NOTE`); the failed tests of all weapons are
    added, then capped at ``models`` (:data:`VOLLEY_ALLOCATION_NOTE`). The
    numbers come from the ``[volley]`` of ``rules/antares.toml``, each weapon
    a profile.

    Stages: the per-shot steps when every weapon's are the same (in the rule
    file's words too), else none (each weapon's steps are in the notes). Effects: ``hits``,
    ``critical_hits`` (expected), ``any_critical`` (P(at least one)),
    ``overkill`` (expected failed Res tests beyond the unit size, 0 without
    ``models``), and ``failed_res[i]`` (expected failed Res tests from weapon i).
    """
    groups, notes, inputs, total_shots = _volley_setup(weapons, res, armour, cover, models, critical_ignores_res)
    models = inputs["models"]
    method, samples, rng = v.method_args(method, samples, seed)
    inputs["method"] = method
    shared = {k: inputs[k] for k in ("res", "armour", "cover", "models", "critical_ignores_res")}
    o = resolve(_FILE.volley, shared, method, samples, rng, [_volley_profile(g) for g in groups])[0]
    names = dict(_VOLLEY_EFFECTS, **{f"failed_res[{i}]": f"failed_res[{i}]" for i in range(len(groups))})
    return _as_function(o, "volley", inputs, names, ownfile.width(total_shots, models), notes).replace(trial="shot")


#: the volley's effect names -> the rule file's (rules/antares.toml: its tallies, [[chances]] and [volley])
_VOLLEY_EFFECTS = {"hits": "hits", "critical_hits": "critical_hits", "any_critical": "any_critical",
                   "overkill": "wasted_damage"}


def _volley_profile(g: dict) -> dict:
    """One weapon of a volley as a profile of the rule file's [volley]."""
    return dict({k: g[k] for k in ("acc", "sv", "acc_mod", "shots")}, blast=g["blast"] or "none")


def _volley_setup(weapons, res, armour, cover, models, critical_ignores_res):
    """Check a volley's arguments: (the weapons, the notes, the inputs (without the method), the shots
    in all)."""
    listed("weapons", weapons, "a non-empty list of dicts with keys acc, sv, acc_mod, shots, name")
    if len(weapons) > MAX_WEAPONS:
        raise InputError("weapons", f"at most {MAX_WEAPONS} weapons", len(weapons), "weapons given")
    target = checked(_FILE, locals(), ("res", "armour", "cover", "models", "critical_ignores_res"))
    res, armour, cover, models, critical_ignores_res = target.values()
    groups = [_weapon(i, w, res, armour, cover, critical_ignores_res) for i, w in enumerate(weapons)]
    total_shots = sum(g["shots"] for g in groups)
    if total_shots > _FILE.stat("shots").max:
        raise InputError("weapons", f"{_FILE.stat('shots').max:,} shots or fewer in all", total_shots,
                         "shots of all weapons; a blast die counts as its largest number")
    blast = next((g["blast"] for g in groups if g["blast"]), "none")   # the variant's and a blast weapon's notes
    variant = [n for n in _FILE.notes_at(critical_ignores_res=critical_ignores_res, blast=blast)
               if n not in _FILE.notes]
    notes = list(_FILE.notes) + [VOLLEY_NOTE, VOLLEY_ALLOCATION_NOTE]
    for i, g in enumerate(groups):
        count = (f"{g['blast']} shots ({BLAST_DICE[g['blast']][1]})" if g["blast"]
                 else f"{g['shots']} " + ("shot" if g["shots"] == 1 else "shots"))
        # one shot of the weapon, as the file resolves and words it
        shot = _FILE.attack(**dict(_volley_profile(g), shots=1, blast="none"), res=res, armour=armour, cover=cover,
                            critical_ignores_res=critical_ignores_res)
        per = shot.per_attack if shot.per_attack_mean is None else Fraction(shot.per_attack_mean)
        notes.append(f"weapons[{i}] ({g['name']}, SV {g['sv']}): {count}; "
                     + "; ".join(f"{x.name}: {x.detail}" for x in shot.stages)
                     + f"; per shot {per.numerator}/{per.denominator}")
    notes += variant
    inputs = dict(weapons=tuple({k: (g["blast"] or g["shots"]) if k == "shots" else g[k]
                                 for k in ("name", "acc", "acc_mod", "sv", "shots")} for g in groups),
                  res=res, armour=armour, cover=cover, models=models,
                  critical_ignores_res=critical_ignores_res)
    return groups, tuple(notes), inputs, total_shots


# -- the system's description: dashboards, diagnostics, compare page, profiles and forum posts read it --
def profile_kwargs(attacker, weapon, target, situation) -> tuple[str, dict]:
    """``("shooting", keyword arguments of :func:`shooting`)`` for ``attacker``
    firing ``weapon`` at ``target``."""
    return "shooting", dict(acc=attacker["acc"], res=target["res"], sv=weapon["sv"], armour=target["armour"],
                            shots=weapon["shots"])


#: the rule file's (its stats and [view]), with what only this Python says: the effect of
#: :func:`test`, the one stat :func:`shooting` does not take, the unit profiles' fields with the
#: function that reads them
SYSTEM = ownfile.describe(
    KEY, sys.modules[__name__], title="Antares", colour="#C44E52", names=_EFFECTS, seed=SEED,
    effects={"critical": "probability"}, effect_words={"critical": "the test is a critical success"},
    # shooting takes no blast: a blast weapon is the volley's, each weapon its own
    modes=ownfile.own_controls({"blast": None}),
    profiles=Profiles(
        unit={**whole_fields(0, 10, "; out of 10", ag="Agility", acc="Accuracy", res="Resist", str="Strength",
                             init="Initiative", cou="Courage", tech="Technology", com="Compute"),
              "armour": ProfileField("int", 0, 10, default=0, doc="armour bonus to Res")},
        weapon={"sv": ProfileField("int", 0, 10, doc="strike value, subtracted from Res"), "shots": SHOTS},
        basic=("rever", "Carbine", "rever"),
        to_kwargs=profile_kwargs),
)
