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

Shooting resolves through the system's rule file ``rules/changes/shooting.toml`` and
melee through ``rules/changes/melee.toml``, the two parts of the system's rule
folder ``rules/changes/`` (keyed "changes", so no list shows it as a system of its own): the functions here check
their arguments, name their stages and notes, and turn the engine's answer
into their own (:mod:`workbench.systems.ownfile`). A volley is the file's
``[volley]``: each unit a profile, its unsaved wounds added before the one fold
into models removed.

See ``docs/rules/changes.md`` for every interpretation and variant switch.
"""
from __future__ import annotations

import difflib
import math
from fractions import Fraction
from functools import lru_cache
from typing import Any, Mapping, Sequence, TypedDict

import numpy as np

from .. import pipeline
from .. import validate as v
from ..dice import percent, roll_faces
from ..errors import InputError
from ..outcome import Outcome, Stage
from ..rules.die import DieRoll, roll_high
from . import ownfile

__all__ = [
    "KEY", "NAME", "SEED", "DIE", "TABLES",
    "test", "shooting", "shooting_table", "volley", "melee", "melee_table",
    "leadership", "distance_pmf", "action_distance", "charge_distance",
    "move_distance", "reach_probability", "ACTION_DISTANCES",
]

KEY = "changes"
NAME = "40k Changes"
SEED = "000_821a3f094c9e3c4f.txt"
DIE = 12

ROLL_STAT = (1, 13)        #: "5+" is written 5; 1+ .. 13+ (13+ passes only on a natural 12 with the variant)
MODIFIER = (-12, 12)       #: "+2" is written 2
MAX_DICE = 10_000          #: shots / attacks per resolution
MAX_WOUNDS = 100
MAX_MODELS = 10_000
MAX_UNITS = 100            #: attacking units in one volley
HEAVY_SHOT_PENALTY = 4     #: seed: "heavy weapons with BALLISTIC SKILL U+4"
GO_TO_GROUND_COVER = 2     #: seed: "Its COVER MODIFIER is improved by +2"

WEAPONS = ("light", "heavy")
ACTIONS = ("snap", "shot", "aimed")

# -- notes (the interpretations a resolution relies on) ---------------------
NOTE_WOUND = ("To wound is S + T as the seed's formula says (\"Strength vs Toughness\"; "
              "S 5+ against T +2 needs 7+). The seed also says its example marine \"would "
              "wound an identical model on an 8+ roll\", which contradicts that formula "
              "(5+ and +2 = 7+); the workbench follows the formula.")
NOTE_HIT = ("To hit is BS + max(cover, Inv): \"Ballistic Skill vs Cover or Invulnerable\" is read "
            "as the target using the better of the two, not their sum.")
NOTE_MELEE_HIT = ("To hit in melee is WS + max(D, Inv): \"Weapons Skill vs Dodge or Invulnerable\" "
                  "is read as the target using the better of the two.")
NOTE_HEAVY_SHOT = ("A heavy weapon in a SHOT action fires at BS +4: the seed's \"BALLISTIC SKILL U+4\" "
                   "is read as a +4 penalty to the target number, not a flat 4+ (variant "
                   "heavy_shot='flat_4'); \"cover or invulnerable modifiers to hit still apply\".")
NOTE_HEAVY_SHOT_FLAT = ("A heavy weapon in a SHOT action fires at a flat 4+ (variant heavy_shot='flat_4'): the "
                        "seed's \"BALLISTIC SKILL U+4\" read as the roll stat 4+ whatever the unit's BS; "
                        "\"cover or invulnerable modifiers to hit still apply\".")
HEAVY_SHOT_RULES = ("bs_plus_4", "flat_4")
FIRER_COVER_RULES = ("same", "better")
NOTE_ONE_MARKER = "Every unit may only have one status marker"
NOTE_GTG = ("The target has gone to ground (seed action 10, which \"may be performed immediately "
            "when the unit is attacked\"): its cover modifier is improved by +2.")
NOTE_FIRER_GTG = ("The firer has gone to ground: it \"may only make SNAP SHOTS\" and \"Any unit it "
                  "fires at receives the same cover modifier this unit currently has\": the target's "
                  "cover becomes the firer's cover + 2 (the +2 being the firer's own go-to-ground "
                  "bonus), whatever the target's own cover.")
NOTE_FIRER_GTG_BETTER = ("The firer has gone to ground: it \"may only make SNAP SHOTS\"; variant "
                         "firer_cover_rule='better': the target gets the better of its own cover and the "
                         "firer's cover + 2, where the seed says it \"receives the same cover modifier this "
                         "unit currently has\".")
NOTE_WOUNDS = ("Each unsaved wound removes one W; wounds go to one model until it is removed, so "
               "models removed = floor(unsaved wounds / W) (wounds left on a damaged model "
               "remove nothing).")
NOTE_CAP = ("Models removed are capped at the unit size; wounds beyond models x W are wasted "
            "(effects['wasted_wounds']).")
NOTE_SIMULTANEOUS = ("Simultaneous allocation: every attacking unit is declared before any die is "
                     "rolled and casualties are removed only at step 8 of the phase, so wounds "
                     "beyond those needed to destroy the unit are wasted and the target returns "
                     "fire with all its models (effects['return_fire_models']).")
NOTE_FURIOUS = ("Furious Charge: \"Each model in the charging unit performs one free close combat "
                "attack\" (charging_models extra attacks with the same profile); Block denies "
                "ONE charging unit its free attacks (blocked=True removes them).")
NOTE_N12 = "Variant natural_12_always_succeeds: a natural 12 passes every test."
NOTE_N1 = "Variant natural_1_always_fails: a natural 1 fails every test."


# -- argument checks ----------------------------------------------------------
def _hint(value: Any) -> str | None:
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("+") and text[:-1].strip().lstrip("+-").isdigit():
            return f"write the roll stat {text} as the number {int(text[:-1])}"
        if text.lstrip("+-").isdigit():
            return f"write the modifier {text} as the number {int(text)}"
        return "give a number, e.g. bs=5 for BS 5+ or t=2 for T +2"
    return None


def _int(name: str, value: Any, lo: int, hi: int) -> int:
    """A scalar whole number (with a hint for "5+"-style strings)."""
    try:
        return v.integer(name, value, lo, hi)
    except InputError as exc:
        hint = _hint(value)
        if hint:
            raise InputError(name, exc.expected, value, hint) from None
        raise


def _ints(name: str, value: Any, lo: int, hi: int):
    """A whole number or a numpy array of whole numbers in ``[lo, hi]``."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if not isinstance(value, (np.ndarray, list, tuple)):
        return _int(name, value, lo, hi)
    return v.integers(name, value, lo, hi)


def _scalar(name: str, value: Any, lo: int, hi: int) -> int:
    """A scalar whole number (a 0-d numpy array counts as one)."""
    if type(value) is int and lo <= value <= hi:  # the common case, checked in full below otherwise
        return value
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    return _int(name, value, lo, hi)


def _optional_ints(name, value, lo, hi, table=True):
    if value is None:
        return None
    try:
        return (_ints if table else _scalar)(name, value, lo, hi)
    except InputError as exc:
        raise InputError(name, "None or " + exc.expected, exc.got, exc.hint) from None


def _flags(n12, n1) -> tuple[bool, bool]:
    return (v.boolean("natural_12_always_succeeds", n12), v.boolean("natural_1_always_fails", n1))


def _flag_notes(n12: bool, n1: bool) -> tuple[str, ...]:
    return ((NOTE_N12,) if n12 else ()) + ((NOTE_N1,) if n1 else ())


# -- the test ------------------------------------------------------------------
@lru_cache(maxsize=4096)
def _test(target: int, n12: bool, n1: bool) -> DieRoll:
    return roll_high(target, DIE, natural_max_always_succeeds=n12, natural_1_always_fails=n1)


@v.stat_function
def test(target, *, natural_12_always_succeeds=False, natural_1_always_fails=False) -> DieRoll:
    """The D12 test "roll stat + modifier": succeeds on ``target`` or more.

    ``target`` = roll stat + modifier (S 5+ against T +2: ``test(7)``);
    P(success) = clamp((13 - target) / 12, 0, 1) unless a variant switch
    makes a natural 12 always pass or a natural 1 always fail. The test is a
    :class:`workbench.rules.die.DieRoll` (``success``, ``p(label)``,
    ``describe()``, ``roll``/``roll_success``), the rule engine's die.
    """
    target = _int("target", target, -4 * DIE, 4 * DIE)
    n12, n1 = _flags(natural_12_always_succeeds, natural_1_always_fails)
    return _test(target, n12, n1)


test.__test__ = False  # type: ignore[attr-defined]  # not a pytest test function when imported into a test module


@lru_cache(maxsize=4096)
def _stage(name: str, target: int, n12: bool, n1: bool, words: str) -> Stage:
    t = _test(target, n12, n1)
    return Stage(name, t.success, f"{words} {t.describe()}", faces=t.sides)


def _mod(x: int) -> str:
    return f"{int(x):+d}"


# -- shooting ------------------------------------------------------------------
def _heavy_bs(bs, weapon: str, action: str, heavy_shot: str):
    """The roll stat a shot uses: a heavy weapon in a SHOT action at BS + 4
    (default) or a flat 4+ (``heavy_shot="flat_4"``), "BALLISTIC SKILL U+4"."""
    if weapon == "heavy" and action == "shot":
        return (bs + HEAVY_SHOT_PENALTY) if heavy_shot == "bs_plus_4" else bs * 0 + HEAVY_SHOT_PENALTY
    return bs


def _firer_cover(target_cover, firer_cover, rule: str):
    """The target's cover when the firer has gone to ground: the firer's
    cover + 2 ("the same cover modifier this unit currently has"), or the
    better of that and the target's own (``firer_cover_rule="better"``)."""
    mine = firer_cover + GO_TO_GROUND_COVER
    return mine if rule == "same" else np.maximum(target_cover, mine)


def _one_marker(go_to_ground: bool, evading: bool) -> None:
    if go_to_ground and evading:
        raise InputError("go_to_ground", "False with evading=True", go_to_ground,
                         f"{NOTE_ONE_MARKER}: a target cannot both have gone to ground and be EVADING")


def _shooting_setup(bs, s, ap, t, sv, inv, cover, shots, models, wounds, weapon, action,
                    go_to_ground, evading, firer_gone_to_ground, firer_cover, n12, n1, table=False,
                    firer_cover_rule="same", heavy_shot="bs_plus_4"):
    """Validate shooting arguments (scalars or arrays) and return the three targets and notes."""
    I = _ints if table else _scalar
    bs = I("bs", bs, *ROLL_STAT)
    s = I("s", s, *ROLL_STAT)
    ap = I("ap", ap, *ROLL_STAT)
    t = I("t", t, *MODIFIER)
    sv = I("sv", sv, *MODIFIER)
    inv = I("inv", inv, *MODIFIER)
    cover = I("cover", cover, *MODIFIER)
    shots = I("shots", shots, 0, MAX_DICE)
    models = _optional_ints("models", models, 1, MAX_MODELS, table)
    wounds = I("wounds", wounds, 1, MAX_WOUNDS)
    weapon = v.choice("weapon", weapon, WEAPONS)
    action = v.choice("action", action, ACTIONS)
    go_to_ground = v.boolean("go_to_ground", go_to_ground)
    evading = v.boolean("evading", evading)
    firer_gone_to_ground = v.boolean("firer_gone_to_ground", firer_gone_to_ground)
    firer_cover = I("firer_cover", firer_cover, *MODIFIER)
    n12, n1 = _flags(n12, n1)
    v.broadcastable(dict(bs=bs, s=s, ap=ap, t=t, sv=sv, inv=inv, cover=cover, shots=shots, models=models,
                         wounds=wounds, firer_cover=firer_cover))
    firer_cover_rule = v.choice("firer_cover_rule", firer_cover_rule, FIRER_COVER_RULES)
    heavy_shot = v.choice("heavy_shot", heavy_shot, HEAVY_SHOT_RULES)
    _one_marker(go_to_ground, evading)
    _check_action(weapon, action, evading, firer_gone_to_ground)
    notes = [NOTE_HIT]
    heavy = weapon == "heavy" and action == "shot"
    penalty = _heavy_bs(bs, weapon, action, heavy_shot) - bs
    if heavy:
        notes.append(NOTE_HEAVY_SHOT if heavy_shot == "bs_plus_4" else NOTE_HEAVY_SHOT_FLAT)
    eff_cover = cover + GO_TO_GROUND_COVER if go_to_ground else cover
    if go_to_ground:
        notes.append(NOTE_GTG)
    if firer_gone_to_ground:
        eff_cover = _firer_cover(eff_cover, firer_cover, firer_cover_rule)
        notes.append(NOTE_FIRER_GTG if firer_cover_rule == "same" else NOTE_FIRER_GTG_BETTER)
    notes.append(NOTE_WOUND)
    args = dict(bs=bs, s=s, ap=ap, t=t, sv=sv, inv=inv, cover=cover, shots=shots, models=models,
                wounds=wounds, weapon=weapon, action=action, go_to_ground=go_to_ground,
                evading=evading, firer_gone_to_ground=firer_gone_to_ground, firer_cover=firer_cover,
                firer_cover_rule=firer_cover_rule, heavy_shot=heavy_shot,
                natural_12_always_succeeds=n12, natural_1_always_fails=n1)
    return args, (bs + penalty, eff_cover, inv), notes, penalty, eff_cover


def _check_action(weapon, action, evading, firer_gone_to_ground, field="action"):
    if weapon == "heavy" and action == "snap":
        raise InputError(field, "'shot' or 'aimed' for a heavy weapon", action,
                         "a SNAP SHOT fires light weapons only")
    if evading and action != "snap":
        raise InputError(field, "'snap' at an EVADING target (evading=True)", action,
                         "enemy units can only fire at an EVADING unit with SNAP SHOTS")
    if firer_gone_to_ground and action != "snap":
        raise InputError(field, "'snap' for a firer gone to ground (firer_gone_to_ground=True)",
                         action, "a unit with a GO TO GROUND marker may only make SNAP SHOTS")


def _shooting_targets(bs_pen, eff_cover, inv, ap, sv, s, t):
    return bs_pen + np.maximum(eff_cover, inv), ap + sv, s + t


#: the function's effect names -> the rule file's (rules/changes/shooting.toml); with a unit size also
_EFFECTS = {"hits": "to hit", "pierced": "to pierce", "unsaved_wounds": "to wound"}
_CAPPED = dict(_EFFECTS, wasted_wounds="wasted_damage", destroyed="destroyed")
#: the stats a grid may vary (whole numbers); the others are one value for the whole table
_GRID = ("bs", "s", "ap", "t", "sv", "inv", "cover", "shots", "models", "wounds", "firer_cover")


def _width(shots, models, wounds) -> int:
    """Counts of models removed the pmf runs over: to the unit size, or every wound removing."""
    if models is not None:
        return int(np.max(models)) + 1
    return int(np.max(shots)) // int(np.min(wounds)) + 1


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
    shape, flat = ownfile.flat_grid({k: args[k] for k in _GRID})
    v.table_size(shape, int(np.max(args["shots"])) + 1, "shots / attacks")
    out = ownfile.load(KEY).attack_table(**dict(args, **flat))
    return ownfile.table(out, shape, _EFFECTS if args["models"] is None else _CAPPED,
                         _width(args["shots"], args["models"], args["wounds"]))


def _shooting_stages(args, bs_pen, eff_cover, penalty) -> tuple[Stage, Stage, Stage]:
    n12, n1 = args["natural_12_always_succeeds"], args["natural_1_always_fails"]
    bs, inv = args["bs"], args["inv"]
    eff_cover = int(eff_cover)
    if inv > eff_cover:
        against = f"invulnerable {_mod(inv)}"
    else:
        against = f"cover {_mod(eff_cover)}"
        if args["go_to_ground"] or args["firer_gone_to_ground"]:
            against += " (gone to ground)"
    if args.get("heavy_shot") == "flat_4" and args.get("weapon") == "heavy" and args.get("action") == "shot":
        bs_words = f"flat {bs + penalty}+ (heavy weapon, shot action: \"U+4\" read as 4+)"
    else:
        bs_words = f"BS {bs}+" + (f" {_mod(penalty)} (heavy weapon, shot action)" if penalty else "")
    hit = _stage("to hit", bs + penalty + max(eff_cover, inv), n12, n1, f"{bs_words} against {against}")
    return (hit,) + _pierce_wound_stages(args, n12, n1)


def _pierce_wound_stages(args, n12, n1):
    ap, sv, s, t = args["ap"], args["sv"], args["s"], args["t"]
    return (_stage("to pierce", ap + sv, n12, n1, f"AP {ap}+ against armour {_mod(sv)}"),
            _stage("to wound", s + t, n12, n1, f"S {s}+ against T {_mod(t)}"))


def _unit_notes(args) -> list[str]:
    notes = []
    if args["wounds"] > 1:
        notes.append(NOTE_WOUNDS)
    if args["models"] is not None:
        notes.append(NOTE_CAP)
    return notes


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
    ``models``/``wounds``: the target unit's size and W.

    Per shot: to hit BS + max(cover, Inv), to pierce AP + Sv, to wound S + T,
    each a D12 roll-high test. ``weapon`` "light"/"heavy"; ``action``:
    "snap" (light weapons only), "shot" (heavy weapons at BS +4, the seed's
    "BALLISTIC SKILL U+4"), "aimed" (every weapon at full BS).
    ``evading``: the target is EVADING, so only "snap" is allowed.
    ``go_to_ground``: the target has gone to ground, cover +2.
    ``firer_gone_to_ground``: the firer has gone to ground, so it may only snap
    shoot and "Any unit it fires at receives the same cover modifier this
    unit currently has": the target's cover becomes ``firer_cover`` + 2
    (``firer_cover_rule="better"``: at least that, the target's own cover if
    better). ``heavy_shot``: "BALLISTIC SKILL U+4" read as BS + 4
    ("bs_plus_4", default) or as a flat 4+ ("flat_4"). ``go_to_ground`` with
    ``evading`` is refused: "Every unit may only have one status marker".

    Effects: ``hits``, ``pierced``, ``unsaved_wounds`` (expected counts) and,
    with ``models``, ``wasted_wounds`` (expected wounds beyond models x W) and
    ``destroyed`` (probability).

    The numbers come from the system's rule file, ``rules/changes/shooting.toml``.
    """
    args, _targets, notes, penalty, eff_cover = _shooting_setup(
        bs, s, ap, t, sv, inv, cover, shots, models, wounds, weapon, action, go_to_ground, evading,
        firer_gone_to_ground, firer_cover, natural_12_always_succeeds, natural_1_always_fails,
        firer_cover_rule=firer_cover_rule, heavy_shot=heavy_shot)
    method, samples, rng = v.method_args(method, samples, seed)
    eff_cover = int(eff_cover)
    stages = _shooting_stages(args, args["bs"], eff_cover, penalty)
    notes = tuple(notes + _unit_notes(args)) + _flag_notes(args["natural_12_always_succeeds"],
                                                          args["natural_1_always_fails"])
    if method == "exact":
        inputs = dict(args, method=method)
        o = ownfile.load(KEY).attack(**args)
    else:
        inputs = dict(args, method=method, samples=samples)
        o = ownfile.load(KEY).attack(**args, method=method, samples=samples, seed=rng)
    return ownfile.outcome(o, system=KEY, function="shooting", inputs=inputs,
                           effects=_EFFECTS if args["models"] is None else _CAPPED,
                           width=_width(args["shots"], args["models"], args["wounds"]), stages=stages,
                           attacks=args["shots"], notes=notes)


def _roll_counts(rng, tests, shape):
    """Roll every die of every attack; return hits, pierced and wounds per sample.

    Every attack rolls its three dice, in stage order, even after a failed
    stage (the later dice are ignored, which changes no probability).
    """
    h = tests[0].roll_success(rng, shape)
    p = h & tests[1].roll_success(rng, shape)
    w = p & tests[2].roll_success(rng, shape)
    return (np.count_nonzero(h, axis=-1), np.count_nonzero(p, axis=-1), np.count_nonzero(w, axis=-1))


# -- volley: several units at one target, resolved together --------------------
ATTACKER_KEYS = ("bs", "s", "ap", "shots", "weapon", "action", "firer_gone_to_ground", "firer_cover")
ATTACKER_REQUIRED = ("bs", "s", "ap")


def _attacker(i: int, a: Any, cover_eff: int, inv: int, evading: bool, firer_cover_rule: str = "same",
              heavy_shot: str = "bs_plus_4"):
    where = f"attackers[{i}]"
    if not isinstance(a, Mapping):
        raise InputError(where, "a dict with keys bs, s, ap (and optionally shots, weapon, action)", a)
    for key in a:
        if key not in ATTACKER_KEYS:
            close = [k for k in ATTACKER_KEYS if isinstance(key, str) and k == key.lower()]
            close = close or (difflib.get_close_matches(key, ATTACKER_KEYS, n=1) if isinstance(key, str) else [])
            raise InputError(f"{where} key", "one of " + ", ".join(ATTACKER_KEYS), key,
                             f"did you mean {close[0]!r}?" if close else None)
    for key in ATTACKER_REQUIRED:
        if key not in a:
            raise InputError(f"{where}.{key}", "a whole number from 1 to 13 (a required key)", "missing")
    out = {
        "bs": _int(f"{where}.bs", a["bs"], *ROLL_STAT),
        "s": _int(f"{where}.s", a["s"], *ROLL_STAT),
        "ap": _int(f"{where}.ap", a["ap"], *ROLL_STAT),
        "shots": _int(f"{where}.shots", a.get("shots", 1), 0, MAX_DICE),
        "weapon": v.choice(f"{where}.weapon", a.get("weapon", "light"), WEAPONS),
        "action": v.choice(f"{where}.action", a.get("action", "aimed"), ACTIONS),
        "firer_gone_to_ground": v.boolean(f"{where}.firer_gone_to_ground", a.get("firer_gone_to_ground", False)),
        "firer_cover": _int(f"{where}.firer_cover", a.get("firer_cover", 0), *MODIFIER),
    }
    _check_action(out["weapon"], out["action"], evading, out["firer_gone_to_ground"], f"{where}.action")
    penalty = _heavy_bs(out["bs"], out["weapon"], out["action"], heavy_shot) - out["bs"]
    cover = cover_eff
    if out["firer_gone_to_ground"]:
        cover = int(_firer_cover(cover, out["firer_cover"], firer_cover_rule))
    return out, penalty, cover


def _volley_setup(attackers, t, sv, inv, cover, models, wounds, go_to_ground, evading, n12, n1,
                  firer_cover_rule, heavy_shot):
    """Check a volley's arguments: (the units, the stages (when every unit's are the same), the notes,
    the shots in all, the inputs (without the method), and each unit's BS penalty and the target's cover
    against it)."""
    t = _int("t", t, *MODIFIER)
    sv = _int("sv", sv, *MODIFIER)
    inv = _int("inv", inv, *MODIFIER)
    cover = _int("cover", cover, *MODIFIER)
    models = _int("models", models, 1, MAX_MODELS)
    wounds = _int("wounds", wounds, 1, MAX_WOUNDS)
    go_to_ground = v.boolean("go_to_ground", go_to_ground)
    evading = v.boolean("evading", evading)
    n12, n1 = _flags(n12, n1)
    firer_cover_rule = v.choice("firer_cover_rule", firer_cover_rule, FIRER_COVER_RULES)
    heavy_shot = v.choice("heavy_shot", heavy_shot, HEAVY_SHOT_RULES)
    _one_marker(go_to_ground, evading)
    if isinstance(attackers, (str, bytes, Mapping)) or not isinstance(attackers, Sequence) or not attackers:
        raise InputError("attackers", "a non-empty list of dicts with keys bs, s, ap, shots, weapon, action",
                         attackers)
    if len(attackers) > MAX_UNITS:
        raise InputError("attackers", f"at most {MAX_UNITS} units", f"{len(attackers)} units")
    cover_eff = cover + GO_TO_GROUND_COVER if go_to_ground else cover
    units, per_unit_stages, placed, notes = [], [], [], [NOTE_SIMULTANEOUS, NOTE_HIT]
    for i, a in enumerate(attackers):
        unit, penalty, c = _attacker(i, a, cover_eff, inv, evading, firer_cover_rule, heavy_shot)
        args = dict(unit, t=t, sv=sv, inv=inv, go_to_ground=go_to_ground, heavy_shot=heavy_shot,
                    natural_12_always_succeeds=n12, natural_1_always_fails=n1)
        st = _shooting_stages(args, unit["bs"], c, penalty)
        units.append(unit)
        placed.append((penalty, c))
        per_unit_stages.append(st)
        per = st[0].probability * st[1].probability * st[2].probability
        notes.append(f"attackers[{i}]: {unit['shots']} shots; " +
                     "; ".join(f"{s.name} {s.detail}: {s.probability}" for s in st) +
                     f"; per shot {per} ({percent(per)})")
        heavy_note = NOTE_HEAVY_SHOT if heavy_shot == "bs_plus_4" else NOTE_HEAVY_SHOT_FLAT
        if unit["weapon"] == "heavy" and unit["action"] == "shot" and heavy_note not in notes:
            notes.append(heavy_note)
        gtg_note = NOTE_FIRER_GTG if firer_cover_rule == "same" else NOTE_FIRER_GTG_BETTER
        if unit["firer_gone_to_ground"] and gtg_note not in notes:
            notes.append(gtg_note)
    if go_to_ground:
        notes.append(NOTE_GTG)
    notes.append(NOTE_WOUND)
    if wounds > 1:
        notes.append(NOTE_WOUNDS)
    all_notes = tuple(notes) + _flag_notes(n12, n1)
    same = all([s.probability for s in st] == [s.probability for s in per_unit_stages[0]]
               for st in per_unit_stages)
    stages = per_unit_stages[0] if same else ()
    total_shots = sum(u["shots"] for u in units)
    if total_shots > MAX_DICE:
        raise InputError("attackers", f"{MAX_DICE:,} shots or fewer in all", f"{total_shots:,} shots",
                         "the documented limit of dice per resolution")
    inputs = dict(attackers=tuple(dict(u) for u in units), t=t, sv=sv, inv=inv, cover=cover,
                  models=models, wounds=wounds, go_to_ground=go_to_ground, evading=evading,
                  natural_12_always_succeeds=n12, natural_1_always_fails=n1,
                  firer_cover_rule=firer_cover_rule, heavy_shot=heavy_shot)
    return units, stages, all_notes, total_shots, inputs, placed


@v.stat_function
def volley(attackers, *, t=0, sv=0, inv=0, cover=0, models, wounds=1, go_to_ground=False,
           evading=False, natural_12_always_succeeds=False, natural_1_always_fails=False,
           firer_cover_rule="same", heavy_shot="bs_plus_4",
           method="exact", samples=100_000, seed=0) -> Outcome:
    """Several units declared at one target and resolved together.

    ``attackers``: a sequence of dicts with keys ``bs``, ``s``, ``ap``
    (required) and ``shots`` (1), ``weapon`` ("light"), ``action`` ("aimed"),
    ``firer_gone_to_ground`` (False), ``firer_cover`` (0). The seed's core
    idea: "you have to decide who's shooting at a guy before you know if some
    other guy will not take him down at the same time", and casualties are
    removed only at step 8 of the phase. So the wounds of all units are summed
    (a convolution of each unit's wound distribution) and then turned into
    models removed.

    Effects: ``unsaved_wounds`` (expected), ``wasted_wounds`` = E[max(0,
    wounds - models x W)], ``destroyed`` = P(unit destroyed),
    ``return_fire_models`` = models (the target fires back at full strength),
    ``surviving_models`` = E[models - removed] (what would fire back if
    casualties were removed as they happen), ``units_not_needed`` = expected
    number of attacking units, in the order given, whose whole volley came
    after the earlier units had already destroyed the target (the units a
    remove-as-you-go player would have kept for another target), and
    ``unsaved_wounds[i]`` per unit.

    ``firer_cover_rule`` and ``heavy_shot`` apply to every attacker as in
    :func:`shooting`; ``go_to_ground`` with ``evading`` is refused ("Every
    unit may only have one status marker").

    The numbers come from the ``[volley]`` of the system's rule file,
    ``rules/changes/shooting.toml`` (each unit a profile, the target's stats shared).
    """
    units, stages, all_notes, total_shots, inputs, _ = _volley_setup(
        attackers, t, sv, inv, cover, models, wounds, go_to_ground, evading, natural_12_always_succeeds,
        natural_1_always_fails, firer_cover_rule, heavy_shot)
    models = inputs["models"]
    method, samples, rng = v.method_args(method, samples, seed)
    inputs["method"] = method
    if method != "exact":
        inputs["samples"] = samples
    shared = {k: x for k, x in inputs.items() if k not in ("attackers", "method", "samples")}
    rs = ownfile.load(KEY)
    o = (rs.volley(units, **shared) if method == "exact" else
         rs.volley(units, **shared, method=method, samples=samples, seed=rng))
    names = dict(_VOLLEY_EFFECTS, **{f"unsaved_wounds[{i}]": f"unsaved_wounds[{i}]" for i in range(len(units))})
    o = ownfile.outcome(o, system=KEY, function="volley", inputs=inputs, effects=names, width=models + 1,
                        stages=stages, attacks=total_shots, notes=all_notes)
    # the target fires back with every model (casualties are removed at step 8); what would be left standing
    effects = dict(o.effects, return_fire_models=models, surviving_models=models - o.mean)
    if method == "exact":
        return o.replace(effects=effects)
    return o.replace(effects=effects, effects_stderr=dict(o.effects_stderr, return_fire_models=0.0,
                                                          surviving_models=o.mean_stderr))


#: the volley's effect names -> the rule file's (rules/changes/shooting.toml, its [volley] and [[chances]])
_VOLLEY_EFFECTS = {"unsaved_wounds": "to wound", "wasted_wounds": "wasted_damage", "destroyed": "destroyed",
                   "units_not_needed": "units_not_needed"}


# -- melee ---------------------------------------------------------------------
def _melee_setup(ws, s, ap, attacks, d, inv, t, sv, models, wounds, furious_charge,
                 charging_models, blocked, n12, n1, table=False):
    I = _ints if table else _scalar
    ws = I("ws", ws, *ROLL_STAT)
    s = I("s", s, *ROLL_STAT)
    ap = I("ap", ap, *ROLL_STAT)
    attacks = I("attacks", attacks, 0, MAX_DICE)
    d = I("d", d, *MODIFIER)
    inv = I("inv", inv, *MODIFIER)
    t = I("t", t, *MODIFIER)
    sv = I("sv", sv, *MODIFIER)
    models = _optional_ints("models", models, 1, MAX_MODELS, table)
    wounds = I("wounds", wounds, 1, MAX_WOUNDS)
    furious_charge = v.boolean("furious_charge", furious_charge)
    charging_models = I("charging_models", charging_models, 0, MAX_DICE)
    blocked = v.boolean("blocked", blocked)
    n12, n1 = _flags(n12, n1)
    v.broadcastable(dict(ws=ws, s=s, ap=ap, attacks=attacks, d=d, inv=inv, t=t, sv=sv, models=models,
                         wounds=wounds, charging_models=charging_models))
    if blocked and not furious_charge:
        raise InputError("blocked", "False unless furious_charge=True", blocked,
                         "BLOCK denies a unit performing a FURIOUS CHARGE its free attacks")
    free = charging_models if (furious_charge and not blocked) else 0
    if np.max(attacks + free) > MAX_DICE:
        raise InputError("attacks", f"{MAX_DICE:,} attacks or fewer with Furious Charge's free attacks",
                         f"{int(np.max(attacks + free)):,} attacks", "the documented limit of dice per resolution")
    args = dict(ws=ws, s=s, ap=ap, attacks=attacks, d=d, inv=inv, t=t, sv=sv, models=models,
                wounds=wounds, furious_charge=furious_charge, charging_models=charging_models,
                blocked=blocked, natural_12_always_succeeds=n12, natural_1_always_fails=n1)
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
    shape, flat = ownfile.flat_grid({k: args[k] for k in _MELEE_GRID})
    n = args["attacks"] + free
    v.table_size(shape, int(np.max(n)) + 1, "shots / attacks")
    out = ownfile.load(KEY, MELEE_PART).attack_table(**dict(args, **flat))
    got = ownfile.table(out, shape, _EFFECTS if args["models"] is None else _CAPPED,
                        _width(n, args["models"], args["wounds"]))
    got["effects"] = _with_free(got["effects"], free, shape)
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
    method, samples, rng = v.method_args(method, samples, seed)
    stages = _melee_stages(args)
    notes = tuple(notes + _unit_notes(args)) + _flag_notes(args["natural_12_always_succeeds"],
                                                          args["natural_1_always_fails"])
    n = args["attacks"] + free
    rs = ownfile.load(KEY, MELEE_PART)
    if method == "exact":
        inputs = dict(args, method=method)
        o = rs.attack(**args)
    else:
        inputs = dict(args, method=method, samples=samples)
        o = rs.attack(**args, method=method, samples=samples, seed=rng)
    o = ownfile.outcome(o, system=KEY, function="melee", inputs=inputs,
                        effects=_EFFECTS if args["models"] is None else _CAPPED,
                        width=_width(n, args["models"], args["wounds"]), stages=stages, attacks=n, notes=notes)
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
    if method == "exact":
        p = float(stage.probability)
        return pipeline.exact_outcome(KEY, "leadership", inputs, np.array([1.0 - p, p]), (stage,),
                                      {"passed": p}, attacks=1, notes=notes, label="tests passed")
    inputs.update(samples=samples)
    tst = _test(ld + modifier, n12, n1)
    def one_chunk(k):
        ok = tst.is_success(tst.roll(rng, (k,)))
        return {"removed": ok.astype(np.int64), "passed": ok}

    tally = pipeline.tally_sampled(samples, 1, one_chunk, 2)
    return pipeline.tally_outcome(KEY, "leadership", inputs, tally, (stage,), attacks=1, notes=notes,
                                  label="tests passed")


# -- distances -----------------------------------------------------------------
#: action -> (fixed inches, sides of the added die or 0, seed wording)
ACTION_DISTANCES: dict[str, tuple[int, int, str]] = {
    "move": (6, 0, 'Move 6"'),
    "disembark": (6, 0, 'Disembark 6"'),
    "tactical_charge": (6, 0, 'Tactical Charge 6"'),
    "furious_charge": (5, 0, 'Furious Charge 5"'),
    "desperate_charge": (6, 6, 'Desperate Charge 6+D6"'),
    "hold_ground": (3, 0, 'Hold Ground 3"'),
    "move_9_d3": (9, 3, 'Move 9+d3"'),
    "embark": (6, 0, 'Embark 6"'),
    "postpone": (6, 0, 'Postpone 6"'),
    "evade": (4, 0, 'Evade 4"'),
}
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


def _distance_outcome(function, kind, method, samples, seed) -> Outcome:
    base, die, words = ACTION_DISTANCES[kind]
    method, samples, rng = v.method_args(method, samples, seed)
    width = base + die + 1
    notes = ("The distance in an action's name is \"the maximal distance every model can move "
             "during this action\"; pmf index = inches.",)
    inputs = dict(kind=kind, method=method)
    if method == "exact":
        pmf = np.zeros(width)
        for inches, p in distance_pmf(kind).items():
            pmf[inches] = float(p)
        return pipeline.exact_outcome(KEY, function, inputs, pmf, (), {}, notes=notes,
                                      label=f"inches ({words})")
    inputs.update(samples=samples)
    def one_chunk(k):
        return {"removed": base + roll_faces(rng, die, (k,)) if die else np.full(k, base)}

    tally = pipeline.tally_sampled(samples, 1, one_chunk, width)
    return pipeline.tally_outcome(KEY, function, inputs, tally, (), notes=notes, label=f"inches ({words})")


@v.stat_function
def action_distance(kind="desperate_charge", *, method="exact", samples=100_000, seed=0) -> Outcome:
    """The maximum move of any seed action (``ACTION_DISTANCES``) as an Outcome over inches."""
    kind = v.choice("kind", kind, tuple(ACTION_DISTANCES))
    return _distance_outcome("action_distance", kind, method, samples, seed)


@v.stat_function
def charge_distance(kind="desperate", *, method="exact", samples=100_000, seed=0) -> Outcome:
    """Charge distance in inches: "tactical" 6", "furious" 5", "desperate" 6+D6"."""
    kind = v.choice("kind", kind, CHARGES)
    return _distance_outcome("charge_distance", f"{kind}_charge", method, samples, seed)


@v.stat_function
def move_distance(kind="move_9_d3", *, method="exact", samples=100_000, seed=0) -> Outcome:
    """Move distance in inches: "move_9_d3" (the seed's "Move 9+d3"", default) or "move" (6")."""
    kind = v.choice("kind", kind, ("move_9_d3", "move"))
    return _distance_outcome("move_distance", kind, method, samples, seed)


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
    if die:
        tst = roll_high(need, die)
        p = tst.success
        detail = f'{words} reaches {distance:g}" ' + (
            f"on a D{die} roll of {need}+" if 1 < need <= die else
            ("on any roll" if need <= 1 else "on no roll"))
    else:
        tst = None
        p = Fraction(int(base >= distance))
        detail = f'{words} {"reaches" if p else "falls short of"} {distance:g}"'
    stage = Stage("reach", p, detail)
    inputs = dict(distance=distance, kind=kind, method=method)
    if method == "exact":
        return pipeline.exact_outcome(KEY, "reach_probability", inputs,
                                      np.array([1.0 - float(p), float(p)]), (stage,),
                                      {"reached": float(p)}, label="reached")
    inputs.update(samples=samples)
    def one_chunk(k):
        ok = tst.is_success(tst.roll(rng, (k,))) if tst is not None else np.full(k, bool(p))
        return {"removed": ok.astype(np.int64), "reached": ok}

    tally = pipeline.tally_sampled(samples, 1, one_chunk, 2)
    return pipeline.tally_outcome(KEY, "reach_probability", inputs, tally, (stage,), label="reached")


TABLES = {"shooting": shooting_table, "melee": melee_table}


# ---------------------------------------------------------------------------
# the system's description (workbench.systems): dashboards, diagnostics,
# compare page, profiles and forum posts read it
# ---------------------------------------------------------------------------
import inspect as _inspect
import sys as _sys

from ..controls import (dropdown as _dropdown, shots_slider as _shots, slider as _slider, toggle as _toggle,
                        unit_size_slider as _unit_size)
from .description import (Mode as _Mode, Sides as _Sides, ProfileField as _Field, Profiles as _Profiles, StatInfo as _Stat,
                          Step as _Step, SystemDescription as _Description)

_ROLL_HELP = "a D12 roll of this or more (lower is better)"

_DEFENCE_CONTROLS = (
    _slider("t", 2, -2, 8, "T (added to S)", "the target's toughness, added to the S roll needed to wound"),
    _slider("sv", 3, -2, 8, "Sv (added to AP)", "the target's armour save, added to the AP roll needed to pierce"),
    _slider("inv", 0, 0, 8, "Inv (added to BS or WS)",
            "the target's invulnerable modifier; the better of cover (or dodge) and Inv is added to the hit roll"),
    _unit_size(10),
    _slider("wounds", 1, 1, 6, "W (wounds per model)", "wounds each target model takes before it is removed"),
    _toggle("natural_12_always_succeeds", False, "a natural 12 always succeeds",
            "variant: a roll of 12 passes every test, however hard"),
    _toggle("natural_1_always_fails", False, "a natural 1 always fails",
            "variant: a roll of 1 fails every test, however easy"),
)

#: the seed's two readings where the workbench's default could be argued
_READINGS = (
    _dropdown("firer_cover_rule", "same", ("same", "better"), "target cover when the firer has gone to ground",
              "the firer's cover +2, as the rules say, or the better of that and the target's own",
              words={"same": "the firer's cover +2", "better": "the better of the firer's +2 and its own"}),
    _dropdown("heavy_shot", "bs_plus_4", ("bs_plus_4", "flat_4"), "heavy weapon in a SHOT action",
              "BALLISTIC SKILL U+4 read as BS +4 or as a flat 4+",
              words={"bs_plus_4": "BS +4", "flat_4": "a flat 4+"}),
)

#: the target's stats in a forum post's matchup line (shooting and volley)
_TARGET_SIDE = (("t", "T", "mod"), ("sv", "Sv", "mod"), ("inv", "Inv", "mod"), ("cover", "cover", "mod"), ("wounds", "W", "plain"))

_SHOOTING_MODE = _Mode("shooting", "shooting", "Shooting", (
    _slider("bs", 5, 1, 13, "BS (roll needed)", f"ballistic skill: hits on {_ROLL_HELP}"),
    _slider("s", 5, 1, 13, "S (roll needed)", f"weapon strength: wounds on {_ROLL_HELP}, plus the target's T"),
    _slider("ap", 5, 1, 13, "AP (roll needed)",
            f"armour piercing: pierces on {_ROLL_HELP}, plus the target's Sv"),
    _slider("cover", 0, 0, 8, "cover (added to BS)", "the target's cover, added to the BS roll needed"),
    _shots(10),
    _dropdown("weapon", "light", WEAPONS, "weapon class", "a heavy weapon fires at BS +4 in a SHOT action"),
    _dropdown("action", "aimed", ACTIONS, "action", "the firing unit's action this turn: snap, shot or aimed"),
    _toggle("go_to_ground", False, "target gone to ground", "the target has gone to ground: +2 cover"),
    _toggle("evading", False, "target EVADING", "the target is EVADING: only snap shots may be fired at it"),
    _toggle("firer_gone_to_ground", False, "firer gone to ground",
            "the firing unit has gone to ground: it may only take snap shots"),
    _slider("firer_cover", 0, -2, 8, "firer's cover",
            "the firing unit's own cover, given to its target when it has gone to ground"),
) + _READINGS + _DEFENCE_CONTROLS, trial="shot",
   sides=_Sides(firer=(("bs", "BS", "plus"),), weapon=(("s", "S", "plus"), ("ap", "AP", "plus")),
                target=_TARGET_SIDE, always=("action",)))

_MELEE_MODE = _Mode("melee", "melee", "Melee", (
    _slider("ws", 5, 1, 13, "WS (roll needed)", f"weapon skill: hits on {_ROLL_HELP}"),
    _slider("s", 5, 1, 13, "S (roll needed)", f"strength: wounds on {_ROLL_HELP}, plus the target's T"),
    _slider("ap", 5, 1, 13, "AP (roll needed)", f"armour piercing: pierces on {_ROLL_HELP}, plus the target's Sv"),
    _slider("attacks", 10, 1, 40, "attacks", "attack dice, all models together"),
    _slider("d", 2, -2, 8, "D (added to WS)", "the target's dodge, added to the WS roll needed"),
    _toggle("furious_charge", False, "Furious Charge", "each charging model makes one free attack"),
    _slider("charging_models", 1, 0, 40, "charging models", "models that charged: one free attack each with "
            "Furious Charge"),
    _toggle("blocked", False, "Blocked", "the target blocked this unit: no free attacks"),
) + _DEFENCE_CONTROLS, trial="attack",
   sides=_Sides(firer=(("ws", "WS", "plus"),), weapon=(("s", "S", "plus"), ("ap", "AP", "plus")),
                target=(("d", "D", "mod"), ("t", "T", "mod"), ("sv", "Sv", "mod"), ("inv", "Inv", "mod"),
                        ("wounds", "W", "plain"))))

#: the volley dashboard: up to three units fire at one target, resolved together
VOLLEY_UNITS = 3
class _VolleyDefaults(TypedDict):
    bs: int
    s: int
    ap: int
    shots: int
    weapon: str
    action: str


_VOLLEY_DEFAULTS: dict[int, _VolleyDefaults] = {
    1: dict(bs=5, s=5, ap=5, shots=5, weapon="light", action="aimed"),
    2: dict(bs=5, s=4, ap=4, shots=3, weapon="heavy", action="aimed"),
    3: dict(bs=5, s=5, ap=5, shots=5, weapon="light", action="aimed")}


def _volley_unit(i: int) -> tuple:
    d = _VOLLEY_DEFAULTS[i]
    return (
        _slider(f"u{i}_bs", d["bs"], 1, 13, f"unit {i} BS (roll needed)", f"unit {i} hits on {_ROLL_HELP}"),
        _slider(f"u{i}_s", d["s"], 1, 13, f"unit {i} S (roll needed)", f"unit {i}'s weapon strength"),
        _slider(f"u{i}_ap", d["ap"], 1, 13, f"unit {i} AP (roll needed)", f"unit {i}'s armour piercing"),
        _slider(f"u{i}_shots", d["shots"], 1, 40, f"unit {i} shots", f"dice unit {i} rolls to hit"),
        _dropdown(f"u{i}_weapon", d["weapon"], WEAPONS, f"unit {i} weapon", "light or heavy weapon"),
        _dropdown(f"u{i}_action", d["action"], ACTIONS, f"unit {i} action", "snap, shot or aimed"),
        _toggle(f"u{i}_firer_gone_to_ground", False, f"unit {i} gone to ground",
                f"unit {i} has gone to ground: snap shots only"),
        _slider(f"u{i}_firer_cover", 0, -2, 8, f"unit {i} cover", f"unit {i}'s own cover"),
    )


def volley_call(fn, values: dict, **extra):
    """:func:`volley` from flat control values: ``units`` firing units, unit
    i's keys written ``u<i>_<key>`` (``u1_bs``, ``u2_action``...)."""
    import re
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


_VOLLEY_MODE = _Mode("volley", "volley", "Volley", (
    _slider("units", 2, 1, VOLLEY_UNITS, "firing units", "units declared at the target, resolved together"),
) + sum((_volley_unit(i) for i in range(1, VOLLEY_UNITS + 1)), ()) + (
    _slider("cover", 0, 0, 8, "cover (added to BS)", "the target's cover, added to every unit's BS roll needed"),
    _slider("models", 10, 1, 40, "models in the target unit", "the target unit's size"),
    _toggle("go_to_ground", False, "target gone to ground", "the target has gone to ground: +2 cover"),
    _toggle("evading", False, "target EVADING", "the target is EVADING: only snap shots may be fired at it"),
) + tuple(c for c in _READINGS if c.name in _inspect.signature(volley).parameters)  # once volley takes them
  + tuple(c for c in _DEFENCE_CONTROLS if c.name != "models"), trial="shot", call=volley_call,
  sides=_Sides(target=_TARGET_SIDE, unit=(("bs", "BS", "plus"), ("s", "S", "plus"), ("ap", "AP", "plus"))))


def _roll(doc: str) -> _Field:
    return _Field("int", 1, 13, doc=f"{doc}; the D12 target, 5 means 5+")


def _modifier(doc: str) -> _Field:
    return _Field("int", -12, 12, doc=f"{doc}; the modifier added, 2 means +2")


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


SYSTEM = _Description(
    key=KEY, name=NAME, module=_sys.modules[__name__], die=DIE, seed=SEED,
    title="Changes",
    blurb="D12 shooting: BS, S against T, AP against SV, cover, actions and volleys.",
    colour="#4C72B0",
    modes=(_SHOOTING_MODE, _MELEE_MODE, _VOLLEY_MODE),
    effects={"destroyed": "probability", "passed": "probability", "reached": "probability"},
    effect_words={
        "destroyed": "the whole unit is destroyed",
        "pierced": "hits that beat the armour roll",
        "unsaved_wounds": "unsaved wounds",
        "wasted_wounds": "wounds wasted beyond the unit",
        "free_attacks": "free attacks (Furious Charge)",
        "return_fire_models": "models left to fire back (removed at the end)",
        "surviving_models": "models left standing",
        "units_not_needed": "firing units not needed",
        "passed": "the test is passed",
        "reached": "the charge reaches its target",
    },
    stats=(
        _Stat("bs", "attacker", -1, range(2, 13), "BS N+ on a D12: lower is better, +1 = BS 5+ -> 4+"),
        _Stat("ap", "attacker", -1, range(2, 13), "AP N+ on a D12: lower is better, +1 = AP 5+ -> 4+"),
        _Stat("s", "attacker", -1, range(2, 13), "S N+ on a D12: lower is better, +1 = S 5+ -> 4+"),
        _Stat("cover", "defender", +1, range(0, 7), "cover modifier: added to BS, higher is better for the target"),
        _Stat("sv", "defender", +1, range(0, 7), "armour modifier: added to AP, higher is better for the target"),
        _Stat("t", "defender", +1, range(0, 7), "toughness modifier: added to S, higher is better for the target"),
    ),
    # RULES.md reference: space marine, S5+ AP5+ gun, aimed, at a space marine in the open
    seed_matchup=dict(bs=5, s=5, ap=5, t=2, sv=3, shots=10),
    # the three target numbers with the target's modifiers at 0 (a modifier only shifts a target number)
    granularity_grid=dict(bs=list(range(1, 14)), s=list(range(1, 14)), ap=list(range(1, 14)), shots=1),
    equivalence_search=dict(bs=list(range(2, 13)), s=list(range(2, 13)), ap=list(range(2, 13))),
    concepts={"accuracy": _Step("bs", "BS", -1, "plus"), "penetration": _Step("ap", "AP", -1, "plus"),
              "toughness": _Step("t", "T", +1, "mod"), "cover": _Step("cover", "cover", +1, "mod")},
    profiles=_Profiles(
        unit={"ws": _roll("Weapon Skill"), "bs": _roll("Ballistic Skill"), "s": _roll("Strength"),
              "t": _modifier("Toughness"), "w": _Field("int", 1, 100, doc="Wounds"),
              "i": _Field("int", 0, 20, doc="Initiative"), "a": _Field("int", 0, 100, doc="Attacks"),
              "ld": _roll("Leadership"), "sv": _modifier("armour Save"), "d": _modifier("Dodge"),
              "inv": _modifier("Invulnerable")},
        weapon={"s": _roll("Strength"), "ap": _roll("Armour Piercing"), "shots": _Field("int", 1, 100,
                                                                                         doc="dice per model"),
                "class": _Field("choice", allowed=("light", "heavy", "melee"), doc="weapon class")},
        basic=("space_marine", "Boltgun", "space_marine"),
        to_kwargs=profile_kwargs),
)
