"""40k Changes' volley: several units declared at one target and resolved together (the seed's
"you have to decide who's shooting at a guy before you know if some other guy will not take him
down at the same time"). It resolves through the ``[volley]`` of ``rules/changes/shooting.toml``: each
unit a profile, its unsaved wounds added before the one fold into models removed.
:func:`volley` is re-exported by :mod:`workbench.systems.changes`.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any

from .. import validate as v
from ..controls import Control
from ..dice import percent
from ..errors import InputError
from ..outcome import Outcome
from . import ownfile
from .records import Mode, Sides
from .ownfile import keyed, listed, resolve
from .changes_rules import KEY, MAX_DICE, MAX_UNITS, ROLL_STAT, _checked, _int

__all__ = ["volley", "volley_mode", "volley_call", "ATTACKER_KEYS", "ATTACKER_REQUIRED", "VOLLEY_UNITS"]

#: one attacker's keys: a profile of the ``[volley]`` of rules/changes/shooting.toml
ATTACKER_KEYS = ownfile.load(KEY).volley_spec.profile
ATTACKER_REQUIRED = ("bs", "s", "ap")
#: one attacker's defaults (its keys are checked as rules/changes/shooting.toml states them)
_ATTACKER_DEFAULTS = dict(shots=1, weapon="light", action="aimed", firer_gone_to_ground=False, firer_cover=0)
#: the target's arguments, checked in this order (the unit's size is required)
_TARGET_CHECKS = ("t", "sv", "inv", "cover", "models", "wounds", "go_to_ground", "evading",
                  "natural_12_always_succeeds", "natural_1_always_fails", "firer_cover_rule", "heavy_shot")
#: the note only a volley relies on (the others are the shooting file's, for the stats of each unit)
NOTE_SIMULTANEOUS = ("Simultaneous allocation: every attacking unit is declared before any die is "
                     "rolled and casualties are removed only at step 8 of the phase, so wounds "
                     "beyond those needed to destroy the unit are wasted and the target returns "
                     "fire with all its models (effects['return_fire_models']).")


#: what a unit's action must be where the shooting file's first three [[forbid]] refuse it (the fourth, one
#: status marker, is the target's: :func:`_volley_setup`)
_ACTION_EXPECTED = ("'shot' or 'aimed' for a heavy weapon", "'snap' at an EVADING target (evading=True)",
                    "'snap' for a firer gone to ground (firer_gone_to_ground=True)")


def _check_action(stats: dict, field: str):
    """A unit's action refused where the shooting file's [[forbid]] refuse it, with its message, in the words
    of a volley's unit."""
    rs = ownfile.load(KEY)
    for forbid, expected in zip(rs.forbids, _ACTION_EXPECTED):
        if forbid.when.scalar({k: rs.stat(k).value_of(stats[k]) for k in forbid.when.names}):
            raise InputError(field, expected, stats["action"], forbid.message)


def _attacker(i: int, a: Any, target: dict) -> dict:
    """Attacker ``i`` checked, its action refused where the shooting file refuses it."""
    where = f"attackers[{i}]"
    keyed(where, a, ATTACKER_KEYS, "a dict with keys bs, s, ap (and optionally shots, weapon, action)",
          dict.fromkeys(ATTACKER_REQUIRED, "a whole number from {} to {}".format(*ROLL_STAT)), any_case=True)
    out = _checked({**_ATTACKER_DEFAULTS, **a}, ATTACKER_KEYS, where=f"{where}.", whole=_int)
    _check_action(dict(target, **out), f"{where}.action")
    return out


def _volley_setup(attackers, given: dict):
    """Check a volley's ``attackers`` and the target's arguments of ``given``: (the units, each unit's
    stages in a note (the shooting file's, as :meth:`~workbench.rules.RuleSystem.stages_at` says them), the
    shots in all, the inputs (without the method))."""
    target = _checked(given, _TARGET_CHECKS, optional=(), whole=_int)
    if target["go_to_ground"] and target["evading"]:
        raise InputError("go_to_ground", "False with evading=True", target["go_to_ground"],
                         "Every unit may only have one status marker: a target cannot both have gone to ground "
                         "and be EVADING")
    listed("attackers", attackers, "a non-empty list of dicts with keys bs, s, ap, shots, weapon, action")
    if len(attackers) > MAX_UNITS:
        raise InputError("attackers", f"at most {MAX_UNITS} units", f"{len(attackers)} units")
    units = [_attacker(i, a, target) for i, a in enumerate(attackers)]
    notes = []
    for i, unit in enumerate(units):
        st = ownfile.load(KEY).stages_at(**target, **unit)
        per = st[0].probability * st[1].probability * st[2].probability
        notes.append(f"attackers[{i}]: {unit['shots']} shots; " + "; ".join(f"{s.name} {s.detail}" for s in st) +
                     f"; per shot {per} ({percent(per)})")
    total_shots = sum(u["shots"] for u in units)
    if total_shots > MAX_DICE:
        raise InputError("attackers", f"{MAX_DICE:,} shots or fewer in all", f"{total_shots:,} shots",
                         "the documented limit of dice per resolution")
    inputs = dict(attackers=tuple(dict(u) for u in units), **target)
    return units, tuple(notes), total_shots, inputs


@v.stat_function
def volley(attackers, *, t=0, sv=0, inv=0, cover=0, models, wounds=1, go_to_ground=False,
           evading=False, natural_12_always_succeeds=False, natural_1_always_fails=False,
           firer_cover_rule="same", heavy_shot="bs_plus_4",
           method="exact", samples=100_000, seed=0) -> Outcome:
    """Several units declared at one target and resolved together.

    ``attackers``: a sequence of dicts with keys ``bs``, ``s``, ``ap``
    (required) and ``shots`` (1), ``weapon`` ("light"), ``action`` ("aimed"),
    ``firer_gone_to_ground`` (False), ``firer_cover`` (0). The wounds of all
    units are summed, then turned into models removed (casualties go at step 8).
    Effects (docs/rules/changes.md, section 5): ``unsaved_wounds``,
    ``wasted_wounds``, ``destroyed``, ``return_fire_models``, ``surviving_models``,
    ``units_not_needed`` and ``unsaved_wounds[i]`` per unit.

    ``firer_cover_rule`` and ``heavy_shot`` apply to every attacker as in
    :func:`shooting`; ``go_to_ground`` with ``evading`` is refused ("Every
    unit may only have one status marker"). The numbers come from the
    ``[volley]`` of ``rules/changes/shooting.toml`` (each unit a profile, the target's stats shared).
    """
    units, unit_notes, total_shots, inputs = _volley_setup(attackers, locals())
    models = inputs["models"]
    method, samples, rng = v.method_args(method, samples, seed)
    shared = {k: x for k, x in inputs.items() if k != "attackers"}
    o, recorded = resolve(ownfile.load(KEY).volley, shared, method, samples, rng, units)
    inputs = dict(attackers=inputs["attackers"], **recorded)
    names = dict(_VOLLEY_EFFECTS, **{f"unsaved_wounds[{i}]": f"unsaved_wounds[{i}]" for i in range(len(units))})
    o = ownfile.outcome(o, system=KEY, function="volley", inputs=inputs, effects=names, width=models + 1,
                        attacks=total_shots, notes=(NOTE_SIMULTANEOUS, *o.notes, *unit_notes))
    # the target fires back with every model (casualties are removed at step 8); what would be left standing
    effects = dict(o.effects, return_fire_models=models, surviving_models=models - o.mean)
    if method == "exact":
        return o.replace(effects=effects)
    return o.replace(effects=effects, effects_stderr=dict(o.effects_stderr, return_fire_models=0.0,
                                                          surviving_models=o.mean_stderr))


#: the volley's effect names -> the rule file's (rules/changes/shooting.toml, its [volley] and [[chances]])
_VOLLEY_EFFECTS = {"unsaved_wounds": "to wound", "wasted_wounds": "wasted_damage", "destroyed": "destroyed",
                   "units_not_needed": "units_not_needed"}


# -- the volley dashboard ------------------------------------------------------
#: the volley dashboard: up to three units fire at one target, resolved together
VOLLEY_UNITS = 3
#: each unit's starting values on the volley dashboard (the others: the shooting file's defaults)
_UNIT_DEFAULTS: dict[int, dict[str, Any]] = {1: dict(shots=5), 2: dict(s=4, ap=4, shots=3, weapon="heavy"),
                                             3: dict(shots=5)}
#: the target's controls that read differently when several units fire
_TARGET_WORDS = {"cover": "the target's cover, added to every unit's BS roll needed",
                 "models": "the target unit's size"}
_TARGET = ("cover", "models", "go_to_ground", "evading", "firer_cover_rule", "heavy_shot", "t", "sv", "inv", "wounds",
           "natural_12_always_succeeds", "natural_1_always_fails")


def volley_call(fn, values: dict, **extra):
    """:func:`volley` from flat control values: ``units`` firing units, unit
    i's keys written ``u<i>_<key>`` (``u1_bs``, ``u2_action``...)."""
    n = values["units"]
    attackers: list[dict[str, Any]] = [{} for _ in range(n)]
    rest = {}
    for k, value in values.items():
        m = re.match(r"^u(\d+)_(.+)$", k)
        if m:
            if int(m.group(1)) <= n:
                attackers[int(m.group(1)) - 1][m.group(2)] = value
        elif k != "units":
            rest[k] = value
    return fn(attackers, **rest, **extra)


def volley_mode(shooting: Mode) -> Mode:
    """The volley dashboard, made of the shooting file's controls (their ranges, options and
    defaults: ``rules/changes/shooting.toml``): how many units fire, each unit's profile
    (``u<i>_bs``...) and the shared target. It stays in Python because it is the wiring of the
    file's ``[volley]`` into one page (a list of units as flat controls, :func:`volley_call`),
    which a rule file's dashboard of one profile has no words for; the target's size is a plain
    slider, as :func:`volley` needs one."""
    by_name = {c.name: c for c in shooting.controls}
    units = tuple(  # each unit's profile: the shooting file's controls, said of unit i
        dataclasses.replace(by_name[k], name=f"u{i}_{k}", label=f"unit {i} {by_name[k].label}",
                            help=f"unit {i}: {by_name[k].help}", default=_UNIT_DEFAULTS[i].get(k, by_name[k].default))
        for i in range(1, VOLLEY_UNITS + 1) for k in ATTACKER_KEYS)
    target = tuple(dataclasses.replace(by_name[k], help=_TARGET_WORDS.get(k, by_name[k].help),
                                       kind="int" if k == "models" else by_name[k].kind) for k in _TARGET)
    count = Control("units", "int", 2, 1, VOLLEY_UNITS, label="firing units",
                    help="units declared at the target, resolved together")
    return Mode("volley", "volley", "Volley", (count,) + units + target, trial="shot", call=volley_call,
                sides=Sides(target=shooting.sides.target if shooting.sides else (),
                            unit=shooting.sides.firer + shooting.sides.weapon if shooting.sides else ()))
