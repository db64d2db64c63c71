"""40k Changes (seed ``000_821a3f094c9e3c4f.txt``, RULES.md section 1): a D12 roll-high system.

A test adds the defender's modifier to the attacker's roll stat: Strength 5+ against Toughness +2
needs 7+ on a D12, P(success) = clamp((13 - target) / 12, 0, 1). Roll stats (``bs``, ``ws``, ``s``,
``ap``, ``ld``) are written as the number before the plus (``bs=5`` is "BS 5+"), modifiers (``t``,
``sv``, ``inv``, ``cover``, ``d``) as plain integers (``t=2`` is "T +2").

Per shot: to hit BS + max(cover, Inv), to pierce AP + Sv, to wound S + T; melee hits on
WS + max(D, Inv). Each unsaved wound removes one W; models removed = min(models, floor(wounds / W)).

Shooting and melee resolve through the system's rule folder ``rules/changes/`` (one file each); how
the module is split and described is in docs/architecture.md ("The built-in systems"), every
interpretation and variant switch in ``docs/rules/changes.md``.
"""
from __future__ import annotations

import math
import sys
from fractions import Fraction
from typing import Any, Mapping

import numpy as np

from .. import validate as v
from ..dice import roll_faces
from ..errors import InputError
from ..outcome import Outcome, Stage
from ..rules.die import roll_high
from . import ownfile
from .changes_rules import (_FILE, ACTIONS, DIE, GO_TO_GROUND_COVER, KEY, MAX_DICE, MAX_MODELS, MAX_WOUNDS, MODIFIER,
                            NAME, ROLL_STAT, SEED, WEAPONS, _checked, _flags, _int, _one_test, _test, test)
from .changes_volley import volley, volley_mode
from .records import SHOTS, ProfileField, Profiles, whole_fields
from .ownfile import grid_table, one_roll, resolve

__all__ = [
    "KEY", "NAME", "SEED", "DIE", "TABLES",
    "test", "shooting", "shooting_table", "volley", "melee", "melee_table",
    "leadership", "distance_pmf", "action_distance", "charge_distance",
    "move_distance", "reach_probability", "ACTION_DISTANCES",
    # the ranges and choices of the stats, as the turn simulator's units check them
    "ROLL_STAT", "MODIFIER", "MAX_DICE", "MAX_MODELS", "MAX_WOUNDS", "WEAPONS", "ACTIONS", "GO_TO_GROUND_COVER",
]


#: the variant switches every test takes, in the order an Outcome's inputs list them (last)
_FLAGS = ("natural_12_always_succeeds", "natural_1_always_fails")
#: the melee file's part name: rules/changes/melee.toml, a part of the built-in's own folder
MELEE_PART = "melee"
#: each part's arguments (None: shooting), checked in this order as its rule file states them
_ARGS = {None: ("bs", "s", "ap", "t", "sv", "inv", "cover", "shots", "models", "wounds", "weapon", "action",
                "go_to_ground", "evading", "firer_gone_to_ground", "firer_cover", "firer_cover_rule",
                "heavy_shot") + _FLAGS,
         MELEE_PART: ("ws", "s", "ap", "attacks", "d", "inv", "t", "sv", "models", "wounds", "furious_charge",
                      "charging_models", "blocked") + _FLAGS}
#: the stats a part's grid may vary, its whole numbers; the others are one value for the whole table
_GRIDS = {part: tuple(k for k in names if ownfile.load(KEY, part).stat(k).kind == "int")
          for part, names in _ARGS.items()}


def _checked_args(part, given: Mapping[str, Any], table: bool) -> dict:
    """The rule folder's ``part`` (None: shooting) arguments of ``given``, scalars or (``table``) arrays
    that broadcast together."""
    args = _checked(dict(given), _ARGS[part], table, part=part)
    v.broadcastable({k: args[k] for k in _GRIDS[part]})
    return args


#: the function's effect names -> the rule file's (rules/changes/shooting.toml); with a unit size also
_EFFECTS = {"hits": "to hit", "pierced": "to pierce", "unsaved_wounds": "to wound"}
_CAPPED = dict(_EFFECTS, wasted_wounds="wasted_damage", destroyed="destroyed")


def _width(shots, models, wounds) -> int:
    """Counts of models removed the pmf runs over: to the unit size, or every wound removing."""
    if models is not None:
        return int(np.max(models)) + 1
    return int(np.max(shots)) // int(np.min(wounds)) + 1


def _effects(args) -> dict:
    """The function's effect names -> the file's: with a unit size, the wasted wounds and "destroyed" too."""
    return _EFFECTS if args["models"] is None else _CAPPED


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
    args = _checked_args(None, locals(), table=True)
    return _table(None, args, args["shots"])


def _table(part, args, n) -> dict:
    """The vectorised table of the rule folder's ``part`` (None: shooting) at ``n`` dice."""
    return grid_table(ownfile.load(KEY, part), args, _GRIDS[part], n, _effects(args),
                      _width(n, args["models"], args["wounds"]), "shots / attacks")


def _outcome(part, function, args, n, method, samples, seed) -> tuple[Outcome, str]:
    """The Outcome of ``function`` through the rule folder's ``part`` (None: shooting) at ``n`` dice, with
    the file's stages (the engine's words after the file's ``says``) and notes, and the method checked;
    the forbidden combinations are the file's [[forbid]], refused as it resolves."""
    method, samples, rng = v.method_args(method, samples, seed)
    o, inputs = resolve(ownfile.load(KEY, part).attack, args, method, samples, rng)
    return ownfile.outcome(o, system=KEY, function=function, inputs=inputs, effects=_effects(args),
                           width=_width(n, args["models"], args["wounds"]), attacks=n, notes=o.notes), method


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
    args = _checked_args(None, locals(), table=False)
    return _outcome(None, "shooting", args, args["shots"], method, samples, seed)[0]


# -- melee ---------------------------------------------------------------------
def _melee_setup(given: Mapping[str, Any], table: bool = False):
    """Melee's arguments checked: ``(args, Furious Charge's free attacks)``."""
    args = _checked_args(MELEE_PART, given, table)
    free = args["charging_models"] if (args["furious_charge"] and not args["blocked"]) else 0
    if np.max(args["attacks"] + free) > MAX_DICE:
        raise InputError("attacks", f"{MAX_DICE:,} attacks or fewer with Furious Charge's free attacks",
                         f"{int(np.max(args['attacks'] + free)):,} attacks", "the documented limit of dice per resolution")
    return args, free


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
    args, free = _melee_setup(locals(), table=True)
    got = _table(MELEE_PART, args, args["attacks"] + free)
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
    args, free = _melee_setup(locals())
    o, method = _outcome(MELEE_PART, "melee", args, args["attacks"] + free, method, samples, seed)
    stderr = o.effects_stderr if method == "exact" else dict(o.effects_stderr, free_attacks=0.0)
    return o.replace(effects=_with_free(o.effects, free, ()), effects_stderr=stderr)


# -- leadership ----------------------------------------------------------------
def _flag_notes(n12: bool, n1: bool) -> tuple[str, ...]:
    """The notes of the natural 12 / natural 1 variants, the shooting file's (a test that is no resolution of
    the file shows them): those it shows at its defaults with these switches and not without them."""
    return tuple(n for n in _FILE.notes_at(natural_12_always_succeeds=n12, natural_1_always_fails=n1)
                 if n not in _FILE.notes)


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
    die = _test(ld + modifier, n12, n1)
    stage = Stage("leadership", die.success, f"Ld {ld}+ with modifier {modifier:+d} {die.describe()}", faces=DIE)
    notes = ("A Leadership (morale) test passes on a D12 roll of Ld + modifier or more; the seed "
             "names morale tests but does not define them.",) + _flag_notes(n12, n1)
    inputs = dict(ld=ld, modifier=modifier, natural_12_always_succeeds=n12, natural_1_always_fails=n1,
                  method=method)
    return _one_test("leadership", inputs, stage, die, "passed", method, samples, rng,
                     attacks=1, notes=notes, label="tests passed")


TABLES = {"shooting": shooting_table, "melee": melee_table}


# -- distances: the maximum move of each seed action ("the maximal distance every model can move during this
# action"), fixed inches or a base plus a die, and the chance an action reaches a distance
#: the seed's infantry actions: the name it prints, word for word with its bullets (• snap, •• shot,
#: ••• aimed), and how far the unit moves (fixed inches, sides of an added die or 0; None: it does not move)
SEED_ACTIONS: dict[str, tuple[str, tuple[int, int] | None]] = {
    "move": ('Move 6" ••', (6, 0)),
    "disembark": ('Disembark 6" ••', (6, 0)),
    "tactical_charge": ('Tactical Charge 6" •', (6, 0)),
    "furious_charge": ("Furious Charge 5”", (5, 0)),
    "desperate_charge": ('Desperate Charge 6+D6"', (6, 6)),
    "hold_ground": ('Hold Ground 3" •••', (3, 0)),
    "move_9_d3": ('Move 9+d3"', (9, 3)),
    "embark": ('Embark 6"', (6, 0)),
    "block": ("Block", None),
    "go_to_ground": ("Go to ground •", None),
    "get_up": ("Get up", None),
    "postpone": ('Postpone 6"', (6, 0)),
    "evade": ("Evade 4”", (4, 0)),
}
#: action -> (fixed inches, sides of the added die or 0, the seed's name without bullets)
ACTION_DISTANCES: dict[str, tuple[int, int, str]] = {
    k: (*move, name.rstrip(" •").replace("”", '"')) for k, (name, move) in SEED_ACTIONS.items() if move}
CHARGES = ("tactical", "furious", "desperate")


@v.stat_function
def distance_pmf(kind: str = "desperate_charge") -> dict[int, Fraction]:
    """Exact distribution of an action's maximum move in inches (a D3 is a fair
    three-sided die: 1, 2, 3 with 1/3 each)."""
    kind = v.choice("kind", kind, tuple(ACTION_DISTANCES))
    base, die, _ = ACTION_DISTANCES[kind]
    if not die:
        return {base: Fraction(1)}
    return {base + f: Fraction(1, die) for f in range(1, die + 1)}


def _distance_outcome(function, kind, allowed, method, samples, seed, suffix: str = "") -> Outcome:
    """The Outcome over inches of the action ``kind`` (one of ``allowed``, then with ``suffix``)."""
    kind = v.choice("kind", kind, tuple(allowed)) + suffix
    base, die, words = ACTION_DISTANCES[kind]
    method, samples, rng = v.method_args(method, samples, seed)
    notes = ("The distance in an action's name is \"the maximal distance every model can move "
             "during this action\"; pmf index = inches.",)
    pmf = np.zeros(base + die + 1)
    for inches, p in distance_pmf(kind).items():
        pmf[inches] = float(p)

    def one_chunk(k):
        return {"removed": base + roll_faces(rng, die, (k,)) if die else np.full(k, base)}

    return one_roll(KEY, function, dict(kind=kind, method=method), (), method, samples, pmf, {}, one_chunk,
                    notes=notes, label=f"inches ({words})")


@v.stat_function
def action_distance(kind="desperate_charge", *, method="exact", samples=100_000, seed=0) -> Outcome:
    """The maximum move of any seed action (``ACTION_DISTANCES``) as an Outcome over inches."""
    return _distance_outcome("action_distance", kind, ACTION_DISTANCES, method, samples, seed)


@v.stat_function
def charge_distance(kind="desperate", *, method="exact", samples=100_000, seed=0) -> Outcome:
    """Charge distance in inches: "tactical" 6", "furious" 5", "desperate" 6+D6"."""
    return _distance_outcome("charge_distance", kind, CHARGES, method, samples, seed, "_charge")


@v.stat_function
def move_distance(kind="move_9_d3", *, method="exact", samples=100_000, seed=0) -> Outcome:
    """Move distance in inches: "move_9_d3" (the seed's "Move 9+d3"", default) or "move" (6")."""
    return _distance_outcome("move_distance", kind, ("move_9_d3", "move"), method, samples, seed)


@v.stat_function
def reach_probability(distance, kind="desperate_charge", *, method="exact", samples=100_000,
                      seed=0) -> Outcome:
    """P(an action's maximum move is at least ``distance`` inches).

    ``kind`` is a key of ``ACTION_DISTANCES`` (or "tactical"/"furious"/
    "desperate" for the charges). A dice distance base + dX reaches when the
    die rolls ceil(distance - base) or more: a roll-high test on that die.
    Outcome: pmf = [P(short), P(reached)], label "reached"; the stage holds
    P(reached) as a Fraction.
    """
    distance = v.real("distance", distance, 0, 1000)
    if isinstance(kind, str) and kind in CHARGES:
        kind = f"{kind}_charge"
    kind = v.choice("kind", kind, tuple(ACTION_DISTANCES))
    method, samples, rng = v.method_args(method, samples, seed)
    base, die, words = ACTION_DISTANCES[kind]
    need = math.ceil(distance - base - 1e-12)
    tst = roll_high(need, die) if die else None
    if tst is not None:
        p = tst.success
        detail = f'{words} reaches {distance:g}" ' + (
            f"on a D{die} roll of {need}+" if 1 < need <= die else
            ("on any roll" if need <= 1 else "on no roll"))
    else:
        p = Fraction(int(base >= distance))
        detail = f'{words} {"reaches" if p else "falls short of"} {distance:g}"'
    return _one_test("reach_probability", dict(distance=distance, kind=kind, method=method), Stage("reach", p, detail),
                     tst, "reached", method, samples, rng, label="reached")


# -- unit profiles: the fields profile_kwargs reads ------------------------------------
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


#: what a roll stat's and a modifier's profile field says after its name
_ROLL, _MODIFIER = "; the D12 target, 5 means 5+", "; the modifier added, 2 means +2"
_PROFILES = Profiles(
    unit={**whole_fields(*ROLL_STAT, _ROLL, ws="Weapon Skill", bs="Ballistic Skill", s="Strength"),
          **whole_fields(*MODIFIER, _MODIFIER, t="Toughness"), "w": ProfileField("int", 1, MAX_WOUNDS, doc="Wounds"),
          "i": ProfileField("int", 0, 20, doc="Initiative"), "a": ProfileField("int", 0, 100, doc="Attacks"),
          **whole_fields(*ROLL_STAT, _ROLL, ld="Leadership"),
          **whole_fields(*MODIFIER, _MODIFIER, sv="armour Save", d="Dodge", inv="Invulnerable")},
    weapon={**whole_fields(*ROLL_STAT, _ROLL, s="Strength", ap="Armour Piercing"), "shots": SHOTS,
            "class": ProfileField("choice", allowed=WEAPONS + ("melee",), doc="weapon class")},
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
