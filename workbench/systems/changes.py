"""40k Changes (seed ``000_821a3f094c9e3c4f.txt``): a D12 roll-high system.

Every characteristic "is either a D12 roll (eg. Strength 6+), a modifier (eg.
Toughness +2) or a value (eg. Wounds 3)". A test adds the defender's modifier
to the attacker's roll stat: Strength 5+ against Toughness +2 needs 7+ on a
D12, so P(success) = clamp((13 - target) / 12, 0, 1) (RULES.md section 1).

Roll stats (``bs``, ``ws``, ``s``, ``ap``, ``ld``) are written as the number
before the plus: ``bs=5`` is "BS 5+". Modifier stats (``t``, ``sv``, ``inv``,
``cover``, ``d``) are plain integers: ``t=2`` is "T +2".

Shooting, per shot (seed: "Shooting To hit: Ballistic Skill vs Cover or
Invulnerable"; "To pierce: Armour Piercing vs Armour Save"; "To wound: Strength
vs Toughness"):

1. to hit   BS + max(cover, Inv)  (the target uses the better of the two),
2. to pierce AP + Sv,
3. to wound  S + T.

Melee replaces the first step with WS + max(D, Inv) ("Weapons Skill vs Dodge
or Invulnerable").

Each unsaved wound removes one W; wounds go to one model until it is removed;
models removed = min(models, floor(wounds / W)).

Shooting and melee resolve through the system's rule folder ``rules/changes/`` (one file each); how
the module is split and described is in docs/architecture.md ("The built-in systems"), every
interpretation and variant switch in ``docs/rules/changes.md``.
"""
from __future__ import annotations

import sys
from typing import Any, Mapping

import numpy as np

from .. import validate as v
from ..errors import InputError
from ..outcome import Outcome, Stage
from . import ownfile
from .changes_distances import (ACTION_DISTANCES, action_distance, charge_distance, distance_pmf, move_distance,
                                reach_probability)
from .changes_rules import (ACTIONS, DIE, FIRER_COVER_RULES, GO_TO_GROUND_COVER, HEAVY_SHOT_RULES, KEY, MAX_DICE,
                            MAX_MODELS, MAX_WOUNDS, MODIFIER, NAME, NOTE_FIRER_GTG, NOTE_FIRER_GTG_BETTER, NOTE_FURIOUS,
                            NOTE_GTG, NOTE_HEAVY_SHOT, NOTE_HEAVY_SHOT_FLAT, NOTE_HIT, NOTE_MELEE_HIT, NOTE_WOUND,
                            ROLL_STAT, SEED, WEAPONS, _CAPPED, _EFFECTS, _checked, _firer_cover, _flag_notes, _flags,
                            _heavy_bs, _int, _ints, _mod, _pierce_wound_stages, _scalar, _shooting_stages, _stage,
                            _test, _unit_notes, _width, test)
from .changes_volley import volley, volley_mode
from .records import ProfileField, Profiles
from .ownfile import grid_table, one_roll, resolve

__all__ = [
    "KEY", "NAME", "SEED", "DIE", "TABLES",
    "test", "shooting", "shooting_table", "volley", "melee", "melee_table",
    "leadership", "distance_pmf", "action_distance", "charge_distance",
    "move_distance", "reach_probability", "ACTION_DISTANCES",
    # the ranges and choices of the stats, as the turn simulator's units check them
    "ROLL_STAT", "MODIFIER", "MAX_DICE", "MAX_MODELS", "MAX_WOUNDS", "WEAPONS", "ACTIONS", "HEAVY_SHOT_RULES",
    "FIRER_COVER_RULES",
]


#: the variant switches every test takes, in the order an Outcome's inputs list them (last)
_FLAGS = ("natural_12_always_succeeds", "natural_1_always_fails")
#: shooting's arguments, checked in this order as rules/changes/shooting.toml states them
_SHOOTING = ("bs", "s", "ap", "t", "sv", "inv", "cover", "shots", "models", "wounds", "weapon", "action",
             "go_to_ground", "evading", "firer_gone_to_ground", "firer_cover", "firer_cover_rule", "heavy_shot") + _FLAGS


def _shooting_setup(bs, s, ap, t, sv, inv, cover, shots, models, wounds, weapon, action,
                    go_to_ground, evading, firer_gone_to_ground, firer_cover, n12, n1, table=False,
                    firer_cover_rule="same", heavy_shot="bs_plus_4"):
    """Validate shooting arguments (scalars or arrays) and return the three targets and notes."""
    kw = dict(locals(), natural_12_always_succeeds=n12, natural_1_always_fails=n1)
    args = _checked(kw, _SHOOTING, _ints if table else _scalar, table)
    v.broadcastable({k: args[k] for k in _GRID})
    bs, weapon, action, go_to_ground, heavy_shot = (args[k] for k in ("bs", "weapon", "action", "go_to_ground",
                                                                      "heavy_shot"))
    notes = [NOTE_HIT]  # the forbidden combinations are the file's [[forbid]], refused as it resolves
    penalty = _heavy_bs(bs, weapon, action, heavy_shot) - bs
    if weapon == "heavy" and action == "shot":
        notes.append(NOTE_HEAVY_SHOT if heavy_shot == "bs_plus_4" else NOTE_HEAVY_SHOT_FLAT)
    eff_cover = args["cover"] + GO_TO_GROUND_COVER if go_to_ground else args["cover"]
    if go_to_ground:
        notes.append(NOTE_GTG)
    if args["firer_gone_to_ground"]:
        eff_cover = _firer_cover(eff_cover, args["firer_cover"], args["firer_cover_rule"])
        notes.append(NOTE_FIRER_GTG if args["firer_cover_rule"] == "same" else NOTE_FIRER_GTG_BETTER)
    notes.append(NOTE_WOUND)
    return args, (bs + penalty, eff_cover, args["inv"]), notes, penalty, eff_cover



#: the stats a grid may vary (whole numbers); the others are one value for the whole table
_GRID = ("bs", "s", "ap", "t", "sv", "inv", "cover", "shots", "models", "wounds", "firer_cover")


@v.stat_function
def shooting_table(*, bs, s, ap, t=0, sv=0, inv=0, cover=0, shots=1, models=None, wounds=1,
                   weapon="light", action="aimed", go_to_ground=False, evading=False,
                   firer_gone_to_ground=False, firer_cover=0, natural_12_always_succeeds=False,
                   natural_1_always_fails=False, firer_cover_rule="same", heavy_shot="bs_plus_4") -> dict:
    """Vectorised :func:`shooting`: numeric stats may be numpy arrays (broadcast together).

    Returns ``{"pmf": array S + (width,), "effects": {name: array S}}`` where
    width = max(models) + 1 when ``models`` is given, else max(shots) // min(W) + 1.
    Effects: ``hits``, ``pierced``, ``unsaved_wounds`` (expected counts) and,
    with ``models``, ``wasted_wounds`` (expected) and ``destroyed`` (probability).
    The numbers come from the system's rule file, ``rules/changes/shooting.toml``.
    """
    args = _shooting_setup(
        bs, s, ap, t, sv, inv, cover, shots, models, wounds, weapon, action, go_to_ground, evading,
        firer_gone_to_ground, firer_cover, natural_12_always_succeeds, natural_1_always_fails,
        table=True, firer_cover_rule=firer_cover_rule, heavy_shot=heavy_shot)[0]
    return _table(None, args, _GRID, args["shots"])


def _table(part, args, grid, n) -> dict:
    """The vectorised table of the rule folder's ``part`` (None: shooting) at ``n`` dice."""
    return grid_table(ownfile.load(KEY, part), args, grid, n, _EFFECTS if args["models"] is None else _CAPPED,
                      _width(n, args["models"], args["wounds"]), "shots / attacks")


def _outcome(part, function, args, stages, notes, n, method, samples, seed) -> tuple[Outcome, str]:
    """The Outcome of ``function`` through the rule folder's ``part`` (None: shooting) at ``n`` dice, with
    its own stages and notes, and the method checked."""
    method, samples, rng = v.method_args(method, samples, seed)
    notes = tuple(notes + _unit_notes(args)) + _flag_notes(args["natural_12_always_succeeds"],
                                                          args["natural_1_always_fails"])
    o, inputs = resolve(ownfile.load(KEY, part).attack, args, method, samples, rng)
    return ownfile.outcome(o, system=KEY, function=function, inputs=inputs,
                           effects=_EFFECTS if args["models"] is None else _CAPPED,
                           width=_width(n, args["models"], args["wounds"]), stages=stages, attacks=n,
                           notes=notes), method



@v.stat_function
def shooting(*, bs, s, ap, t=0, sv=0, inv=0, cover=0, shots=1, models=None, wounds=1,
             weapon="light", action="aimed", go_to_ground=False, evading=False,
             firer_gone_to_ground=False, firer_cover=0,
             natural_12_always_succeeds=False, natural_1_always_fails=False,
             firer_cover_rule="same", heavy_shot="bs_plus_4",
             method="exact", samples=100_000, seed=0) -> Outcome:
    """One unit's shots at one target: the distribution of models removed.

    ``bs``, ``s``, ``ap``: roll stats (5 means 5+); ``t``, ``sv``, ``inv``,
    ``cover``: the target's modifiers; ``shots``: dice rolled in all;
    ``models``/``wounds``: the target unit's size and W. The per-shot tests are
    the module docstring's; the actions, markers and variant switches
    (``weapon``, ``action``, ``evading``, ``go_to_ground``,
    ``firer_gone_to_ground``, ``firer_cover``, ``firer_cover_rule``,
    ``heavy_shot``) are the stats of ``rules/changes/shooting.toml``, whose
    ``[[forbid]]`` states the combinations refused and whose stages give
    the numbers; the seed's words for each are in the outcome's notes.

    Effects: ``hits``, ``pierced``, ``unsaved_wounds`` (expected counts) and,
    with ``models``, ``wasted_wounds`` (expected wounds beyond models x W) and
    ``destroyed`` (probability).
    """
    args, _targets, notes, penalty, eff_cover = _shooting_setup(
        bs, s, ap, t, sv, inv, cover, shots, models, wounds, weapon, action, go_to_ground, evading,
        firer_gone_to_ground, firer_cover, natural_12_always_succeeds, natural_1_always_fails,
        firer_cover_rule=firer_cover_rule, heavy_shot=heavy_shot)
    stages = _shooting_stages(args, args["bs"], int(eff_cover), penalty)
    return _outcome(None, "shooting", args, stages, notes, args["shots"], method, samples, seed)[0]



# -- melee ---------------------------------------------------------------------
#: melee's arguments, checked in this order as rules/changes/melee.toml states them
_MELEE = ("ws", "s", "ap", "attacks", "d", "inv", "t", "sv", "models", "wounds", "furious_charge", "charging_models",
          "blocked") + _FLAGS


def _melee_setup(ws, s, ap, attacks, d, inv, t, sv, models, wounds, furious_charge,
                 charging_models, blocked, n12, n1, table=False):
    kw = dict(locals(), natural_12_always_succeeds=n12, natural_1_always_fails=n1)
    args = _checked(kw, _MELEE, _ints if table else _scalar, table, part=MELEE_PART)
    v.broadcastable({k: args[k] for k in _MELEE_GRID})
    attacks, furious_charge, blocked = args["attacks"], args["furious_charge"], args["blocked"]
    free = args["charging_models"] if (furious_charge and not blocked) else 0
    if np.max(attacks + free) > MAX_DICE:
        raise InputError("attacks", f"{MAX_DICE:,} attacks or fewer with Furious Charge's free attacks",
                         f"{int(np.max(attacks + free)):,} attacks", "the documented limit of dice per resolution")
    notes = [NOTE_MELEE_HIT, NOTE_WOUND] + ([NOTE_FURIOUS] if furious_charge else [])
    return args, free, notes


#: the melee file's part name: rules/changes/melee.toml, a part of the built-in's own folder
MELEE_PART = "melee"
#: the stats a melee grid may vary (whole numbers); the others are one value for the whole table
_MELEE_GRID = ("ws", "s", "ap", "attacks", "d", "inv", "t", "sv", "models", "wounds", "charging_models")


def _with_free(effects: Mapping[str, Any], free, shape) -> dict:
    """The effects with ``free_attacks``, the number of free attacks made (Furious Charge)."""
    return dict(effects, free_attacks=np.broadcast_to(np.asarray(free, dtype=float), shape) if shape else float(free))


@v.stat_function
def melee_table(*, ws, s, ap, attacks=1, d=0, inv=0, t=0, sv=0, models=None, wounds=1,
                furious_charge=False, charging_models=1, blocked=False,
                natural_12_always_succeeds=False, natural_1_always_fails=False) -> dict:
    """Vectorised :func:`melee` (numeric stats may be numpy arrays, broadcast together).

    Returns ``{"pmf": array S + (width,), "effects": {name: array S}}`` as
    :func:`shooting_table`, plus ``free_attacks``. The numbers come from the
    system's melee rule file, ``rules/changes/melee.toml``.
    """
    args, free, _ = _melee_setup(ws, s, ap, attacks, d, inv, t, sv, models, wounds, furious_charge,
                                 charging_models, blocked, natural_12_always_succeeds,
                                 natural_1_always_fails, table=True)
    got = _table(MELEE_PART, args, _MELEE_GRID, args["attacks"] + free)
    got["effects"] = _with_free(got["effects"], free, got["pmf"].shape[:-1])
    return got


@v.stat_function
def melee(*, ws, s, ap, attacks=1, d=0, inv=0, t=0, sv=0, models=None, wounds=1,
          furious_charge=False, charging_models=1, blocked=False,
          natural_12_always_succeeds=False, natural_1_always_fails=False,
          method="exact", samples=100_000, seed=0) -> Outcome:
    """Close combat attacks: to hit WS + max(D, Inv), to pierce AP + Sv, to wound S + T.

    ``attacks``: attack dice in all. ``furious_charge``: "Each model in the
    charging unit performs one free close combat attack": ``charging_models``
    extra attacks with the same profile. ``blocked``: the target performed
    BLOCK against this unit, which denies those free attacks (only meaningful
    with ``furious_charge``). Effects as :func:`shooting`, plus
    ``free_attacks`` (the number of free attacks made).

    The numbers come from the system's melee rule file, ``rules/changes/melee.toml``.
    """
    args, free, notes = _melee_setup(ws, s, ap, attacks, d, inv, t, sv, models, wounds,
                                     furious_charge, charging_models, blocked,
                                     natural_12_always_succeeds, natural_1_always_fails)
    o, method = _outcome(MELEE_PART, "melee", args, _melee_stages(args), notes, args["attacks"] + free, method,
                         samples, seed)
    stderr = o.effects_stderr if method == "exact" else dict(o.effects_stderr, free_attacks=0.0)
    return o.replace(effects=_with_free(o.effects, free, ()), effects_stderr=stderr)


def _melee_stages(args) -> tuple[Stage, Stage, Stage]:
    n12, n1 = args["natural_12_always_succeeds"], args["natural_1_always_fails"]
    ws_, d_, inv_ = args["ws"], args["d"], args["inv"]
    against = f"invulnerable {_mod(inv_)}" if inv_ > d_ else f"dodge {_mod(d_)}"
    return (_stage("to hit", ws_ + max(d_, inv_), n12, n1, f"WS {ws_}+ against {against}"),
            ) + _pierce_wound_stages(args, n12, n1)


# -- leadership ----------------------------------------------------------------
@v.stat_function
def leadership(ld, modifier=0, *, natural_12_always_succeeds=False, natural_1_always_fails=False,
               method="exact", samples=100_000, seed=0) -> Outcome:
    """A Leadership test: Ld is a roll stat ("Ld 5+"), so it passes on a D12
    roll of Ld + modifier or more. The seed names morale tests ("Perform a
    close combat morale test for every unit that lost a close combat", "by
    failing a MORALE test") but does not define them; the workbench reads them
    as an ordinary D12 test of the roll stat Ld, ``modifier`` being any
    penalty (positive = harder). Outcome: pmf = [P(fail), P(pass)], label
    "tests passed"; the one stage holds P(pass) as a Fraction.
    """
    ld = _int("ld", ld, *ROLL_STAT)
    modifier = _int("modifier", modifier, *MODIFIER)
    n12, n1 = _flags(natural_12_always_succeeds, natural_1_always_fails)
    method, samples, rng = v.method_args(method, samples, seed)
    stage = _stage("leadership", ld + modifier, n12, n1, f"Ld {ld}+ with modifier {_mod(modifier)}")
    notes = ("A Leadership (morale) test passes on a D12 roll of Ld + modifier or more; the seed "
             "names morale tests but does not define them.",) + _flag_notes(n12, n1)
    inputs = dict(ld=ld, modifier=modifier, natural_12_always_succeeds=n12, natural_1_always_fails=n1,
                  method=method)
    tst, p = _test(ld + modifier, n12, n1), float(stage.probability)

    def one_chunk(k):
        ok = tst.is_success(tst.roll(rng, (k,)))
        return {"removed": ok.astype(np.int64), "passed": ok}

    return one_roll(KEY, "leadership", inputs, (stage,), method, samples, np.array([1.0 - p, p]), {"passed": p},
                    one_chunk, attacks=1, notes=notes, label="tests passed")



TABLES = {"shooting": shooting_table, "melee": melee_table}


# -- unit profiles: the fields profile_kwargs reads ------------------------------------
def _roll(doc: str) -> ProfileField:
    return ProfileField("int", *ROLL_STAT, doc=f"{doc}; the D12 target, 5 means 5+")


def _modifier(doc: str) -> ProfileField:
    return ProfileField("int", *MODIFIER, doc=f"{doc}; the modifier added, 2 means +2")


def profile_kwargs(attacker, weapon, target, situation) -> tuple[str, dict]:
    """``(mode, keyword arguments)`` of ``attacker`` using ``weapon`` on
    ``target``: :func:`shooting` for a light or heavy weapon, :func:`melee`
    (WS, the weapon's S and AP, the attacker's A, the target's D) for a melee
    weapon."""
    if weapon["class"] == "melee":
        return "melee", dict(ws=attacker["ws"], s=weapon["s"], ap=weapon["ap"], d=target["d"], inv=target["inv"],
                             t=target["t"], sv=target["sv"], wounds=target["w"],
                             attacks=attacker["a"] * weapon["shots"])
    return "shooting", dict(bs=attacker["bs"], s=weapon["s"], ap=weapon["ap"], t=target["t"], sv=target["sv"],
                            inv=target["inv"], wounds=target["w"], weapon=weapon["class"], shots=weapon["shots"])


_PROFILES = Profiles(
    unit={"ws": _roll("Weapon Skill"), "bs": _roll("Ballistic Skill"), "s": _roll("Strength"),
          "t": _modifier("Toughness"), "w": ProfileField("int", 1, MAX_WOUNDS, doc="Wounds"),
          "i": ProfileField("int", 0, 20, doc="Initiative"), "a": ProfileField("int", 0, 100, doc="Attacks"),
          "ld": _roll("Leadership"), "sv": _modifier("armour Save"), "d": _modifier("Dodge"),
          "inv": _modifier("Invulnerable")},
    weapon={"s": _roll("Strength"), "ap": _roll("Armour Piercing"),
            "shots": ProfileField("int", 1, 100, doc="dice per model"),
            "class": ProfileField("choice", allowed=("light", "heavy", "melee"), doc="weapon class")},
    basic=("space_marine", "Boltgun", "space_marine"), to_kwargs=profile_kwargs)

SYSTEM = ownfile.describe(
    KEY, sys.modules[__name__], title="Changes", colour="#4C72B0", names=_CAPPED, seed=SEED,
    modes=lambda own: own + (volley_mode(own[0]),),
    effects={"passed": "probability", "reached": "probability"},
    effect_words={"free_attacks": "free attacks (Furious Charge)",
                  "return_fire_models": "models left to fire back (removed at the end)",
                  "surviving_models": "models left standing",
                  "passed": "the test is passed", "reached": "the charge reaches its target"},
    profiles=_PROFILES)
