"""The Forgotten: d10, roll high (d6 for damage v1). Seed 002, RULES.md section 2.

"I've tried to keep a consistent mechanic - rolling high on d10 is good."
Every stat (SHOOT, CQC, PHYS, ATTACK POWER) is a target number: lower is
better.

Shooting, per shot
------------------
* **To hit**: d10 + modifiers >= SHOOT ("You must roll equal or above the stat
  to hit a target"). Modifiers: firer +1 stationary, -1 normal move, 0 moving
  cautiously; target +1 close range, -1 long range, +1 facing away, -2 in
  cover/obscured ("if the firer is in its rear 180 the cover does not count":
  ``flanked=True`` cancels the -2 and the cover level below); blind fire / spray -1 ("All rolls are -1 to
  hit"); aimed fire "+1 to hit"; a wounded or shocked firer -1 ("-1 to all
  rolls"). The die is a :func:`~workbench.rules.die.roll_high` with target
  SHOOT - modifiers.
* **Near miss**: "shots that fail by 1": a modified roll of exactly SHOOT - 1
  (the die's ``near_miss`` label).
* **Damage v2** (default, d10): "roll above weapon's ATTACK POWER to kill",
  "- defender armour level", "- cover level": kills if d10 - armour - cover
  level (none when flanked; +1 aimed for damage, -1 wounded/shocked firer) > ATTACK POWER;
  variant ``kill_on="at_or_above"`` uses >=.
* **Damage v1** (``damage_rule="v1"``, d6, "borrowed this off Kill Team"):
  weapon Damage against the target's Defence (+1 with a shield, "adds +1 DEF
  vs shooting"): Defence >= 2 x attack 6+, Defence > attack 5+, equal 4+,
  attack > Defence 3+, attack >= 2 x Defence 2+. Aimed for damage is +1 to the
  d6 roll.
* **Heroic save** (``heroic_save=PHYS``): "Some heroes ... may roll an extra
  'save' to avoid being 'killed' This is tested against PHYS": read as a d10
  >= the given stat, rolled for each kill; it ignores the kill.
* **Tough** (``tough=True``): "can be 'wounded' - absorbing damage that would
  incapacitate or kill a lesser being. A wounded model is -1 to all rolls":
  each model absorbs its first unsaved kill and is downed by the next; kills
  go to the wounded model first; a wounded hero saves at -1.
* **Red token** (``target_wounded=k``): "A wounded model ... receives a red
  token under its base": k models of the target are already wounded; kills
  go to them first, so each of the first k unsaved kills downs one (tough or
  not) and their heroic saves are at -1 (the only roll a shooting target
  makes). ``target_shocked``: a shocked unit "Has -1 to all rolls": its
  heroic saves at -1 (adding to a wound's -1).

Shock ("A unit must test for shock if: 1. A member of their fire team ... is
downed 2. It receives 2+ near misses or a non-damaging hit"): default
``shock_rule="seed"``: any model downed, or any non-damaging hit, or two or
more near misses. Variant ``"pooled"`` follows the shooting section ("Two or
more near-misses ... or non-damaging hits may trigger a SHOCK test"): near
misses and non-damaging hits counted together, two or more triggers (a downed
model still triggers). A hit that downs nobody (damage roll failed, heroic
save made, or absorbed as a wound) counts as a non-damaging hit.

Close combat: :func:`close_combat`, defined in :mod:`workbench.systems.forgotten_cc`
and re-exported here.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .. import engine, pipeline
from .. import validate as v
from ..rules.die import DieRoll, roll_high
from ..errors import InputError
from ..outcome import Outcome, Stage
from ..rules.errors import BudgetError
from . import ownfile
# the pieces shooting and close combat share, and close combat itself (its own
# module), re-exported so that ``from workbench.systems.forgotten import
# close_combat`` keeps working
from .forgotten_cc import CC_NOTES, close_combat
from .forgotten_rules import (ARMOUR, BONUS_RANGE, DAMAGE_V1_DIE, DIE, DUAL, STAT_RANGE, V1_RANGE, _MINUS,
                              _ratio, _signed, _v1_need, v1_target)

__all__ = ["KEY", "NAME", "SEED", "DIE", "DAMAGE_V1_DIE", "shooting", "shooting_table", "close_combat",
           "v1_target", "TABLES", "MOVED", "RANGES", "ARMOUR", "COVER_LEVEL"]

KEY = "forgotten"
NAME = "The Forgotten"
SEED = "002_7c145f285029c8b2.txt"
MOVED = {"stationary": 1, "cautious": 0, "normal": -1}
RANGES = {"close": 1, "medium": 0, "long": -1}
COVER_LEVEL = {"none": 0, "soft": 1, "hard": 2}
AIMED = (None, "hit", "damage")
MAX_SHOTS = 1000
MAX_MODELS = 1000


# ---------------------------------------------------------------------------
# shooting
# ---------------------------------------------------------------------------
def _check_shooting(kw: dict, arrays: bool) -> dict:
    num, opt = v.integer_checks(arrays)
    a = {}
    a["shoot"] = num("shoot", kw["shoot"], *STAT_RANGE)
    a["attack_power"] = num("attack_power", kw["attack_power"], *STAT_RANGE)
    a["shots"] = num("shots", kw["shots"], 1, MAX_SHOTS)
    a["models"] = opt("models", kw["models"], 1, MAX_MODELS)
    a["moved"] = v.choice("moved", kw["moved"], tuple(MOVED))
    a["range"] = v.choice("range", kw["range"], tuple(RANGES))
    for b in ("facing_away", "cover", "flanked", "blind_fire", "tough", "shield",
              "firer_wounded", "firer_shocked", "blast", "aimed_fire_team", "target_shocked"):
        a[b] = v.boolean(b, kw[b])
    a["target_wounded"] = v.integer("target_wounded", kw["target_wounded"], 0, MAX_MODELS)
    a["armour"] = v.choice("armour", kw["armour"], tuple(ARMOUR))
    a["cover_level"] = v.choice("cover_level", kw["cover_level"], tuple(COVER_LEVEL))
    a["aimed"] = v.choice("aimed", kw["aimed"], AIMED)
    a["damage_rule"] = v.choice("damage_rule", kw["damage_rule"], ("v2", "v1"))
    a["kill_on"] = v.choice("kill_on", kw["kill_on"], ("above", "at_or_above"))
    a["shock_rule"] = v.choice("shock_rule", kw["shock_rule"], ("seed", "pooled"))
    a["heroic_save"] = opt("heroic_save", kw["heroic_save"], *STAT_RANGE)
    v.broadcastable({k: a[k] for k in ("shoot", "attack_power", "shots", "models", "heroic_save")})
    if a["models"] is not None and np.any(a["target_wounded"] > np.asarray(a["models"])):
        v.forbid("target_wounded", a["target_wounded"], f"at most models={kw['models']!r}",
                 "the models of the target unit that already carry the red token")
    a["blind_fire_rule"] = v.choice("blind_fire_rule", kw["blind_fire_rule"], ("seed", "any"))
    if a["blind_fire"] and a["blind_fire_rule"] == "seed":
        # "This is firing fully automatic (Rof3+) or blast weapons and may be used
        # against a not fully-visible target at medium ranges."
        if a["range"] != "medium":
            v.forbid("range", a["range"], "'medium' with blind_fire=True",
                     "the seed allows blind fire 'at medium ranges'; blind_fire_rule='any' lifts this check")
        if not a["blast"] and np.any(np.asarray(a["shots"]) < 3):
            v.forbid("shots", kw["shots"], "3 or more with blind_fire=True (or blast=True)",
                     "blind fire is 'firing fully automatic (Rof3+) or blast weapons'; "
                     "blind_fire_rule='any' lifts this check")
    if a["aimed"] is not None:
        if a["moved"] == "normal":
            v.forbid("aimed", a["aimed"], "None when moved='normal'",
                     "aimed fire needs a firer who is stationary or moving cautiously")
        if np.any(np.asarray(a["shots"]) != 1) and not a["aimed_fire_team"]:
            v.forbid("aimed", a["aimed"], "None when shots is not 1",
                     f"aimed fire is 'a single shot', got shots={kw['shots']!r}")
        if a["blind_fire"]:
            v.forbid("aimed", a["aimed"], "None with blind_fire=True",
                     "blind fire is fully automatic or blast fire, not a single aimed shot")
    if a["damage_rule"] == "v1":
        for name in ("damage", "defence"):
            if kw[name] is None:
                v.forbid(name, None, "a whole number from 1 to 40 with damage_rule='v1'",
                         "damage v1 compares the weapon's Damage with the target's Defence")
        a["damage"] = num("damage", kw["damage"], *V1_RANGE)
        a["defence"] = num("defence", kw["defence"], *V1_RANGE)
        v.broadcastable({k: a[k] for k in ("shoot", "attack_power", "shots", "models", "heroic_save",
                                           "damage", "defence")})
        if a["armour"] != "none":
            v.forbid("armour", a["armour"], "'none' with damage_rule='v1'",
                     "damage v1 uses the target's Defence instead of armour levels")
        if a["cover_level"] != "none":
            v.forbid("cover_level", a["cover_level"], "'none' with damage_rule='v1'",
                     "cover levels belong to damage v2")
        if a["kill_on"] != "above":
            v.forbid("kill_on", a["kill_on"], "'above' with damage_rule='v1'",
                     "kill_on is a damage v2 switch")
    else:
        for name in ("damage", "defence"):
            if kw[name] is not None:
                v.forbid(name, kw[name], "None with damage_rule='v2'",
                         "Damage and Defence are damage v1 stats; v2 uses attack_power, armour and cover_level")
        a["damage"] = a["defence"] = None
        if a["shield"]:
            v.forbid("shield", True, "False with damage_rule='v2'",
                     "the seed's shield 'adds +1 DEF vs shooting', and DEF exists only in damage v1")
    return a


def _hit_mods(a: dict) -> list[tuple[int, str]]:
    mods = [(MOVED[a["moved"]], a["moved"] if a["moved"] != "normal" else "normal move"),
            (RANGES[a["range"]], f"{a['range']} range")]
    if a["facing_away"]:
        mods.append((1, "facing away"))
    if a["cover"]:
        mods.append((0, "cover ignored: firer in the target's rear 180") if a["flanked"] else (-2, "cover"))
    if a["blind_fire"]:
        mods.append((-1, "blind fire"))
    if a["aimed"] == "hit":
        mods.append((1, "aimed"))
    if a["firer_wounded"]:
        mods.append((-1, "wounded firer"))
    if a["firer_shocked"]:
        mods.append((-1, "shocked firer"))
    return mods


def _cover_level(a: dict) -> int:
    """The cover level taken off the damage roll: none when flanked ("if the
    firer is in its rear 180 the cover does not count")."""
    return 0 if a["flanked"] else COVER_LEVEL[a["cover_level"]]


def _damage_mod(a: dict) -> int:
    return (1 if a["aimed"] == "damage" else 0) - int(a["firer_wounded"]) - int(a["firer_shocked"])


def _shooting_tests(a: dict):
    """The dice of one shot: to hit, to kill, heroic save (fresh, wounded)."""
    hit_mod = sum(m for m, _ in _hit_mods(a))
    to_hit = roll_high(np.asarray(a["shoot"]) - hit_mod, DIE)
    dmod = _damage_mod(a)
    if a["damage_rule"] == "v2":
        need = (np.asarray(a["attack_power"]) + ARMOUR[a["armour"]] + _cover_level(a)
                + (1 if a["kill_on"] == "above" else 0) - dmod)
        to_kill = roll_high(need, DIE)
    else:
        defence = np.asarray(a["defence"]) + int(a["shield"])
        to_kill = roll_high(np.asarray(_v1_need(a["damage"], defence)) - dmod, DAMAGE_V1_DIE)
    if a["heroic_save"] is None:
        saves = None
    else:
        # a shocked target unit "Has -1 to all rolls": its heroes' saves too
        hs = np.asarray(a["heroic_save"]) + int(a["target_shocked"])
        saves = (roll_high(hs, DIE), roll_high(hs + 1, DIE))
    return to_hit, to_kill, saves


@v.stat_function
def shooting_table(*, shoot, attack_power, shots=1, models=None, moved="cautious", range="medium",
                   facing_away=False, cover=False, flanked=False, armour="none", cover_level="none",
                   aimed=None, blind_fire=False, damage_rule="v2", kill_on="above", shock_rule="seed",
                   damage=None, defence=None, heroic_save=None, tough=False, shield=False,
                   firer_wounded=False, firer_shocked=False, blast=False, blind_fire_rule="seed",
                   aimed_fire_team=False, target_wounded=0, target_shocked=False) -> dict:
    """Vectorised twin of :func:`shooting` (exact only).

    ``shoot, attack_power, shots, models, damage, defence, heroic_save`` may be
    numpy arrays (broadcast together, shape S); the rest (``target_wounded``
    too) are scalars. Returns
    ``{"pmf": array S+(width,), "effects": {"shock", "hits", "near_misses",
    "non_damaging_hits": arrays S}}``; pmf[..., k] = P(k models downed).
    """
    kw = dict(locals())
    a = _check_shooting(kw, arrays=True)
    stats = _file_stats(a)
    shape, flat = ownfile.flat_grid({k: stats[k] for k in _GRID if k in stats})
    out = _within_budget(lambda: ownfile.load(KEY).attack_table(**dict(stats, **flat)))
    width = int(np.shape(out["pmf"])[-1])
    down = np.asarray(out["pmf"]).reshape(shape + (width,))
    effects = {k: np.asarray(out["effects"][k], dtype=float).reshape(shape) for k in ("shock", "hits", "near_misses")}
    effects["non_damaging_hits"] = np.clip(effects["hits"] - down @ np.arange(width), 0.0, None)
    return {"pmf": _capped(down, a["models"], int(np.max(a["shots"]))), "effects": effects}


TABLES = {"shooting": shooting_table}


def _every_kill_on_a_wounded_model(a: dict) -> bool:
    """Every kill of the volley lands on a model that already carries the red
    token (kills go to the wounded models first): there are at least as many
    of them as shots, or the whole unit is wounded."""
    k = a["target_wounded"]
    return k > 0 and (k >= a["shots"] or (a["models"] is not None and k >= a["models"]))


def _per_shot_exists(a: dict, saves) -> bool:
    """Whether one chance per shot of downing a model exists: not when a kill's
    effect depends on the shots before it (a fresh tough model absorbs it, a
    wounded hero saves worse than a fresh one), unless every kill lands on a
    wounded model."""
    stateful = a["tough"] or (a["target_wounded"] > 0 and saves is not None)
    return not stateful or _every_kill_on_a_wounded_model(a)


def _shooting_stages(a: dict, to_hit: DieRoll, to_kill: DieRoll, saves) -> tuple[Stage, ...]:
    mods = _hit_mods(a)
    shown = [f"{_signed(m)} {label}" for m, label in mods if m or label.startswith("cover ignored")]
    with_text = (" with " + ", ".join(shown)) if shown else " unmodified"
    p_hit = to_hit.success
    p_near = to_hit.p("near_miss")
    hit_detail = (f"SHOOT {a['shoot']}{with_text} {to_hit.describe('d10')}: {_ratio(p_hit, DIE)}"
                  f" (near miss on {int(to_hit.target) - 1}: {_ratio(p_near, DIE)})")
    stages = [Stage("to hit", p_hit, hit_detail, faces=to_hit.sides)]
    dmod = _damage_mod(a)
    extra = []
    if a["aimed"] == "damage":
        extra.append("+1 aimed")
    if a["firer_wounded"]:
        extra.append(f"{_MINUS}1 wounded firer")
    if a["firer_shocked"]:
        extra.append(f"{_MINUS}1 shocked firer")
    p_kill = to_kill.success
    if a["damage_rule"] == "v2":
        word = "above" if a["kill_on"] == "above" else "at or above"
        parts = ([f"{_MINUS}{ARMOUR[a['armour']]} {a['armour']} armour"] if ARMOUR[a["armour"]] else []) \
            + ([f"{_MINUS}{COVER_LEVEL[a['cover_level']]} {a['cover_level']} cover"]
               if _cover_level(a) else []) + extra
        ignored = (" (cover level ignored: firer in the target's rear 180)"
                   if a["flanked"] and COVER_LEVEL[a["cover_level"]] else "")
        detail = (f"d10{''.join(' ' + x for x in parts)} must roll {word} ATTACK POWER {a['attack_power']}"
                  f"{ignored}: {to_kill.describe('d10')}: {_ratio(p_kill, DIE)}")
    else:
        defence = a["defence"] + int(a["shield"])
        base = _v1_need(a["damage"], defence)
        sh = " (+1 shield)" if a["shield"] else ""
        mod = f" with {', '.join(extra)}" if dmod else ""
        detail = (f"damage v1: Damage {a['damage']} against Defence {defence}{sh} kills on {base}+{mod}: "
                  f"{to_kill.describe('d6')}: {_ratio(p_kill, DAMAGE_V1_DIE)}")
    on_wounded = _every_kill_on_a_wounded_model(a)
    if on_wounded and a["tough"]:
        detail += " (every model hit already carries the red token: a kill downs it)"
    stages.append(Stage("to kill", p_kill, detail, faces=to_kill.sides))
    if saves is not None and _per_shot_exists(a, saves):
        save = saves[1] if on_wounded else saves[0]
        s = save.success
        minus = [w for on, w in ((on_wounded, "wounded: red token"), (a["target_shocked"], "shocked")) if on]
        at = f" at {_MINUS}{len(minus)} ({', '.join(minus)})" if minus else ""
        stages.append(Stage("heroic save fails", 1 - s,
                            f"heroic save d10 >= {a['heroic_save']}{at} ignores the kill: {save.describe('d10')}: "
                            f"saves {_ratio(s, DIE)}, fails {_ratio(1 - s, DIE)}", faces=save.sides))
    return tuple(stages)


def _shooting_notes(a: dict, stages: tuple[Stage, ...], saves) -> tuple[tuple[Stage, ...], list[str]]:
    """The outcome's stages and notes: the rules as read for these arguments; where no per-shot
    chance of downing a model exists the per-die steps go to the notes and no stage is shown."""
    notes = list(SHOOTING_NOTES)
    if a["damage_rule"] == "v2":
        notes.append("Damage v2: 'roll above weapon's ATTACK POWER to kill', minus armour level and cover level"
                     + (" (variant kill_on='at_or_above': equal also kills)." if a["kill_on"] != "above" else "."))
    else:
        notes.append("Damage v1 (d6, Kill Team style): weapon Damage against target Defence; "
                     "attack_power is not used.")
    if a["shock_rule"] == "seed":
        notes.append("Shock (seed morale section): a model downed, or any non-damaging hit, or 2+ near misses.")
    else:
        notes.append("Shock (pooled variant): a model downed, or near misses + non-damaging hits >= 2.")
    if a["heroic_save"] is not None:
        notes.append(f"Heroic save: each kill is ignored on a d10 >= {a['heroic_save']}"
                     + (" (at -1 once wounded" if a["tough"] or a["target_wounded"] else "")
                     + (("; " if a["tough"] or a["target_wounded"] else " (") + "at -1 more while the unit is "
                        "shocked: 'Has -1 to all rolls'" if a["target_shocked"] else "")
                     + (")" if a["tough"] or a["target_wounded"] or a["target_shocked"] else "") + ".")
    if a["target_wounded"]:
        k = a["target_wounded"]
        notes.append(f"Red token: {k} {'model' if k == 1 else 'models'} of the target already wounded ('A wounded "
                     "model is -1 to all rolls ... and receives a red token under its base'); kills go to the "
                     f"wounded models first, so each of the first {k} unsaved {'kill' if k == 1 else 'kills'} downs "
                     "one (tough or not), and their heroic saves are at -1.")
    if a["target_shocked"] and a["heroic_save"] is None:
        notes.append("Shocked target: 'Has -1 to all rolls'; a shooting target rolls only heroic saves, and it "
                     "has none here, so nothing changes.")
    if a["tough"]:
        notes.append("Tough: each model absorbs its first unsaved kill (wounded, -1 to all rolls) and is "
                     "downed by the next; kills go to the wounded model first.")
    if a["blind_fire"]:
        notes.append("Blind fire / spray: 'firing fully automatic (Rof3+) or blast weapons' 'at medium ranges', "
                     "'All rolls are -1 to hit'"
                     + (" (variant blind_fire_rule='any': range and rate of fire not checked)."
                        if a["blind_fire_rule"] == "any" else "."))
    if a["aimed"] is not None and a["aimed_fire_team"]:
        notes.append("Aimed fire by a fire team (variant aimed_fire_team=True): the seed lets 'a soldier' "
                     "fire 'a single shot'; here each of the shots is one soldier's single aimed shot.")
    if not _per_shot_exists(a, saves):
        # No per-shot chance of downing a model exists: a tough model's first
        # unsaved kill only wounds it, and a wounded hero saves at -1, so what
        # one shot does depends on the shots before it. The per-die steps go
        # to the notes, not the stages (whose product would read as "the
        # chance one shot downs a model").
        why = (("a kill downs a model with the red token but only wounds a fresh tough model: no single "
                "chance per shot" if a["target_wounded"] else
                "a kill on a tough model wounds it first: no single shot downs a fresh tough model")
               if a["tough"] else "kills on the wounded models are saved at -1, on the others at full: "
               "no single chance per shot")
        notes[:0] = [f"{s.name[:1].upper()}{s.name[1:]}: {s.detail} ({why})" if s.name == "to kill"
                     else f"{s.name[:1].upper()}{s.name[1:]}: {s.detail}" for s in stages]
        stages = ()
    return stages, notes


SHOOTING_NOTES = (
    "To hit: d10 + modifiers >= SHOOT; near miss = a modified roll of exactly SHOOT - 1 "
    "('shots that fail by 1').",
    "Cover does not count when flanked, neither the -2 to hit nor the cover level off the damage roll: "
    "'if the firer is in its rear 180 the cover does not count'.",
    "Aimed fire: 'A soldier who is stationary or moving cautiously can choose to fire a single shot', "
    "+1 to hit or +1 to the damage roll.",
)


@v.stat_function
def shooting(*, shoot, attack_power, shots=1, models=None, moved="cautious", range="medium",
             facing_away=False, cover=False, flanked=False, armour="none", cover_level="none", aimed=None,
             blind_fire=False, damage_rule="v2", kill_on="above", shock_rule="seed", damage=None,
             defence=None, heroic_save=None, tough=False, shield=False, firer_wounded=False,
             firer_shocked=False, blast=False, blind_fire_rule="seed", aimed_fire_team=False,
             target_wounded=0, target_shocked=False,
             method="exact", samples=100_000, seed=0) -> Outcome:
    """One soldier's or fire team's ``shots`` at a target unit of ``models`` models.

    To hit: d10 + modifiers >= ``shoot`` (see the module docstring for every
    modifier). To kill, damage v2 (default): d10 - armour level - cover level
    (+1 ``aimed="damage"``) above ``attack_power`` (``kill_on="at_or_above"``:
    equal also kills); damage v1 (``damage_rule="v1"``): d6 from the table of
    weapon ``damage`` against target ``defence``. ``attack_power`` is not used
    by v1.

    Options: ``heroic_save`` (None or the stat a killed hero rolls d10 >= to
    ignore the kill, PHYS in the seed), ``tough`` (every model absorbs its
    first unsaved kill; kills go to the wounded model first), ``shield`` (v1
    only: +1 Defence), ``firer_wounded`` / ``firer_shocked`` (-1 to all the
    firer's rolls: to hit and to kill).

    ``target_wounded``: how many models of the target unit already carry the
    red token ("A wounded model is -1 to all rolls and halves movement
    permanently and receives a red token under its base"), 0 to ``models``.
    Kills go to the wounded models first (as a model wounded by this volley
    takes the next kill), so each of the first ``target_wounded`` unsaved
    kills downs a wounded model even when ``tough``, and a wounded hero's
    heroic save is at -1; then the fresh models follow. The save is the only
    roll a shooting target makes, so it is the only "-1 to all rolls" here.
    Without ``tough`` and ``heroic_save`` it changes nothing (every kill
    downs a model anyway). ``target_shocked``: the target unit carries a
    shock token, "Has -1 to all rolls": its heroic saves are at -1 (adding
    to a wound's -1).

    ``flanked``: the firer is in the target's rear 180, so "the cover does not
    count": neither the -2 to hit nor the cover level off the damage roll.
    ``blind_fire``: "firing fully automatic (Rof3+) or blast weapons ... at
    medium ranges. ... All rolls are -1 to hit"; with the default
    ``blind_fire_rule="seed"`` it needs ``range="medium"`` and 3 or more
    shots (or ``blast=True``); ``blind_fire_rule="any"`` checks neither.
    ``aimed``: "A soldier ... can choose to fire a single shot", so aimed fire
    needs ``shots=1``; the variant ``aimed_fire_team=True`` reads ``shots`` as
    soldiers, each firing one aimed shot.
    With ``tough`` the outcome has no stages (no single shot downs a fresh
    tough model, so no per-shot chance exists); the per-die steps are in the
    notes.

    ``pmf[k]`` = P(k models downed), capped at ``models``. Effects: ``shock``
    = P(the target must test for shock after this volley), ``hits``,
    ``near_misses``, ``non_damaging_hits`` = expected numbers (a hit that
    downs nobody, overkill beyond the unit not counted separately).
    """
    kw = dict(locals())
    a = _check_shooting(kw, arrays=False)
    method, samples, rng = v.method_args(method, samples, seed)
    to_hit, to_kill, saves = _shooting_tests(a)
    stages = _shooting_stages(a, to_hit, to_kill, saves)
    stages, notes = _shooting_notes(a, stages, saves)
    inputs = dict(a, method=method)
    rs = ownfile.load(KEY)
    stats = _file_stats(a)
    n_shots, models = a["shots"], a["models"]
    if method == "exact":
        o = _within_budget(lambda: rs.attack(**stats))
        down = o.pmf
        effects = {k: float(o.effects[k]) for k in ("shock", "hits", "near_misses")}
        effects["non_damaging_hits"] = max(0.0, effects["hits"] - float(down @ np.arange(down.size)))
        out = pipeline.exact_outcome(KEY, "shooting", inputs, _capped(down, models, n_shots), stages, effects,
                                     attacks=n_shots, notes=notes, label="models downed")
        return out.replace(stage_pmfs=_StagePmfs(o.stage_pmfs, down, tuple(s.name for s in stages)))

    if rng is None:  # method_args gives a Generator for every method but "exact"
        raise RuntimeError("no random generator for a sampled resolution")
    width = n_shots + 1 if models is None else min(n_shots, models) + 1

    def per_sample(got: dict) -> dict:
        down = got["removed"]                   # the unit without a size: every model downed
        return {"removed": down if models is None else np.minimum(down, models), "shock": got["shock"],
                "hits": got["hits"], "near_misses": got["near_misses"], "non_damaging_hits": got["hits"] - down}

    tally = rs.sample_tally(rng, samples, per_sample, **stats)
    o = pipeline.tally_outcome(KEY, "shooting", inputs, tally, stages, attacks=n_shots, notes=notes,
                               label="models downed")
    return o.replace(pmf=ownfile.fit(o.pmf, width),
                     pmf_stderr=None if o.pmf_stderr is None else ownfile.fit(o.pmf_stderr, width))


#: the numbers of the shooting functions that may be arrays (a sweep's axes)
_GRID = ("shoot", "attack_power", "shots", "damage", "defence", "heroic_save")


def _file_stats(a: dict) -> dict:
    """The checked arguments as the stats of rules/forgotten/shooting.toml, the unit without a size (the
    function caps the models downed itself, and counts the hits that down nobody without it):
    no aimed fire is the choice "none", no hero is ``hero = false``."""
    out = {k: a[k] for k in ("shoot", "attack_power", "shots", "moved", "range", "facing_away", "cover",
                             "flanked", "armour", "cover_level", "blind_fire", "damage_rule", "kill_on",
                             "shock_rule", "tough", "shield", "firer_wounded", "firer_shocked", "blast",
                             "blind_fire_rule", "aimed_fire_team", "target_wounded", "target_shocked")}
    out["models"] = None
    out["aimed"] = "none" if a["aimed"] is None else a["aimed"]
    if a["heroic_save"] is not None:
        out.update(hero=True, heroic_save=a["heroic_save"])
    for k in ("damage", "defence"):
        if a[k] is not None:
            out[k] = a[k]
    return out


def _within_budget(resolve):
    """``resolve()``, the file's refusal of too much exact work said in the function's words: the
    state of tough or wounded models is stepped once per shot, so the work grows with cells x
    shots x shots."""
    try:
        return resolve()
    except BudgetError as e:
        raise InputError("shots", f"fewer shots or cells: {e.expected}", e.got,
                         "method='sampled' has no such limit") from None


def _capped(down: np.ndarray, models, n_max: int) -> np.ndarray:
    """P(k models downed) of a unit of ``models`` (None: no size) from the downs of a unit
    without a size, up to the most that can be downed."""
    pmf = engine.cap(down, models)
    width = n_max + 1 if models is None else min(n_max, int(np.max(models))) + 1
    return ownfile.fit(pmf, width)


class _StagePmfs(Mapping):
    """``Outcome.stage_pmfs`` of the shooting: P(k shots pass each shown stage over the volley),
    from the rule file's (its last kill roll's passes are the kills) and, for the heroic save,
    the models downed by the unit without a size; each read on first use (a dict when pickled)."""

    def __init__(self, engine_pmfs: Mapping, down: np.ndarray, names: tuple[str, ...]):
        self._src = {"to hit": lambda: engine_pmfs["to hit"], "to kill": lambda: engine_pmfs["to kill (damage v1)"],
                     "heroic save fails": lambda: down}
        self._names = tuple(n for n in names if n in self._src)
        self._done: dict = {}

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self._names:
            raise KeyError(name)
        if name not in self._done:
            self._done[name] = np.asarray(self._src[name]())
        return self._done[name]

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __reduce__(self):
        return (dict, ({k: self[k] for k in self._names},))


# ---------------------------------------------------------------------------
# the system's description (workbench.systems): dashboards, diagnostics,
# compare page, profiles and forum posts read it
# ---------------------------------------------------------------------------
import sys as _sys

from ..controls import (dropdown as _dropdown, optional_slider as _optional, shots_slider as _shots, slider as _slider,
                        toggle as _toggle, unit_size_slider as _unit_size)
from .description import (Mode as _Mode, Sides as _Sides, ProfileField as _Field, Profiles as _Profiles, Rung as _Rung,
                          StatInfo as _Stat, Step as _Step, SystemDescription as _Description)

_SHOOTING_MODE = _Mode("shooting", "shooting", "Shooting", (
    _slider("shoot", 6, 1, 12, "SHOOT (roll needed)", "hits when a d10 plus modifiers reaches SHOOT (lower is better)"),
    _slider("attack_power", 5, 0, 10, "ATTACK POWER", "the weapon kills when a d10 beats it (lower is stronger)"),
    _shots(5),
    _unit_size(5),
    _dropdown("moved", "cautious", tuple(MOVED), "firer moved", "how far the firer moved: stationary +1, normal -1"),
    _dropdown("range", "medium", tuple(RANGES), "range", "close +1, long -1 to hit"),
    _toggle("facing_away", False, "target facing away", "the target faces away from the firer"),
    _toggle("cover", False, "target in cover", "the target is in cover or obscured: -2 to hit"),
    _toggle("flanked", False, "firer flanks the target", "the firer is in the target's rear half: cover is ignored"),
    _dropdown("armour", "light", tuple(ARMOUR), "armour", "the target's armour, taken off the kill roll"),
    _dropdown("cover_level", "none", tuple(COVER_LEVEL), "cover against damage",
              "soft or hard cover, taken off the kill roll"),
    _dropdown("aimed", None, AIMED, "aimed fire bonus", "aimed fire adds +1 to the hit roll or to the kill roll",
              words={"hit": "+1 to hit", "damage": "+1 to the kill roll"}),
    _toggle("blind_fire", False, "blind fire / spray", "firing blind or spraying: -1 to hit"),
    _dropdown("damage_rule", "v2", ("v2", "v1"), "damage rule",
              "v2: a d10 against ATTACK POWER; v1: a d6 of Damage against Defence"),
    _dropdown("kill_on", "above", ("above", "at_or_above"), "kill roll needed",
              "whether the kill roll must beat ATTACK POWER or only reach it",
              words={"above": "above ATTACK POWER", "at_or_above": "ATTACK POWER or above"}),
    _dropdown("shock_rule", "seed", ("seed", "pooled"), "shock test after",
              "how shock tests are counted over a volley: as the shock section says (a model downed, a "
              "non-damaging hit or 2 near misses) or as the shooting section says (near misses and "
              "non-damaging hits counted together)",
              words={"seed": "a downed model, a non-damaging hit or 2 near misses",
                     "pooled": "2 near misses or non-damaging hits together"}),
    _optional("damage", None, 1, 12, "Damage (rule v1)", "the weapon's Damage for damage rule v1; the leftmost "
              "notch means not used"),
    _optional("defence", None, 1, 12, "Defence (rule v1)", "the target's Defence for damage rule v1; the leftmost "
              "notch means not used"),
    _optional("heroic_save", None, 1, 12, "heroic save (PHYS)",
              "a downed hero rolls against PHYS to stay up; the leftmost notch means no hero"),
    _toggle("tough", False, "tough", "the target shrugs off the first kill"),
    _slider("target_wounded", 0, 0, 10, "models with a red token",
            "models of the target that already carry the red token: the next kill downs one, and a hero among "
            "them saves at -1"),
    _toggle("target_shocked", False, "target shocked",
            "the target unit carries a shock token: -1 to all its rolls, so its heroes save at -1"),
    _toggle("shield", False, "target has a shield", "a shield adds +1 Defence against shooting (damage rule v1)"),
    _toggle("firer_wounded", False, "firer wounded", "a wounded firer has -1 to hit"),
    _toggle("firer_shocked", False, "firer shocked", "a shocked firer shoots worse"),
    _toggle("blast", False, "blast weapon", "a blast weapon may blind fire with fewer than 3 shots"),
    _dropdown("blind_fire_rule", "seed", ("seed", "any"), "blind fire allowed",
              "only at medium range with 3 or more shots or a blast weapon, as the seed says, or always",
              words={"seed": "at medium range with 3+ shots or a blast weapon", "any": "always"}),
    _toggle("aimed_fire_team", False, "a fire team may aim", "one aimed shot per soldier of a fire team"),
), trial="shot",
   sides=_Sides(firer=(("shoot", "SHOOT", "plus"),),
                weapon=(("attack_power", "ATTACK POWER", "plain"), ("damage", "Damage", "plain")),
                target=(("armour", "armour", "plain"), ("defence", "Defence", "plain"))))


def _cc_side(side: str) -> tuple:
    return (
        _slider(f"{side}_cqc", 6, 0, 12, f"{side} CQC", f"the {side}'s close-combat roll needed (lower is better)"),
        _optional(f"{side}_phys", 6, 1, 12, f"{side} PHYS", "a damage roll (rule v2) must beat PHYS to down"),
        _slider(f"{side}_weapon_bonus", 0, -3, 4, f"{side} ATTACK BONUS", "sword +1, two-handed axe +2 (rule v2)"),
        _dropdown(f"{side}_armour", "light", tuple(ARMOUR), f"{side} armour", f"the {side}'s armour"),
        _toggle(f"{side}_wounded", False, f"{side} wounded", f"the {side} is wounded: -1"),
        _toggle(f"{side}_tough", False, f"{side} tough", f"the {side} shrugs off the first kill"),
        _toggle(f"{side}_shocked", False, f"{side} shocked",
                f"the {side} carries a shock token: -1 to all its rolls, without being wounded"),
        _optional(f"{side}_heroic_save", None, 1, 12, f"{side} heroic save",
                  "a downed hero rolls this to stay up; the leftmost notch means no hero"),
        _optional(f"{side}_damage", None, 1, 12, f"{side} Damage (rule v1)", "the leftmost notch means not used"),
        _optional(f"{side}_strength", None, 1, 12, f"{side} Strength (rule v1)", "the leftmost notch means not used"),
        _optional(f"{side}_defence", None, 1, 12, f"{side} Defence (rule v1)", "the leftmost notch means not used"),
    )


#: each side's stats in a forum post's close-combat matchup line
_CC_SIDE = (("cqc", "CQC", "plus"), ("phys", "PHYS", "plus"), ("weapon_bonus", "ATTACK BONUS", "mod"),
            ("armour", "armour", "plain"))

_CC_MODE = _Mode("close_combat", "close_combat", "Close combat", _cc_side("attacker") + _cc_side("defender") + (
    _dropdown("response", "block", ("block", "counter"), "defender's response", "the defender blocks or counters"),
    _toggle("shield", False, "defender's shield", "the defender's shield adds a block die"),
    _toggle("shield_when_countering", False, "shield used when countering",
            "the shield's block die also counts when the defender counters"),
    _dropdown("dual_weapons", None, DUAL, "attacker's dual weapons", "a second weapon helps to hit or to kill"),
    _dropdown("defender_dual_weapons", None, DUAL, "defender's dual weapons",
              "a second weapon helps to hit or to kill"),
    _toggle("power_attack", False, "attacker power attack", "the attacker makes a power attack"),
    _toggle("defender_power_attack", False, "defender power attack", "the defender makes a power attack"),
    _toggle("from_rear", False, "attack from the rear", "the attacker strikes from the defender's rear"),
    _toggle("facing_away", False, "defender facing away", "the defender faces away"),
    _toggle("outnumbered", False, "attacker outnumbered", "the attacker is outnumbered"),
    _toggle("defender_outnumbered", False, "defender outnumbered", "the defender is outnumbered"),
    _dropdown("damage_rule", "v2", ("v2", "v1"), "damage rule",
              "v2: a d10 against PHYS; v1: a d6 of Damage against Defence"),
    _dropdown("kill_on", "above", ("above", "at_or_above"), "damage roll needed",
              "whether the damage roll must beat the number or only reach it",
              words={"above": "above the number", "at_or_above": "the number or above"}),
    _dropdown("melee_phys", "attacker", ("attacker", "defender"), "PHYS rolled against",
              "whose PHYS the damage roll is made against"),
    _dropdown("shocked_defence", "any", ("any", "block_only"), "a shocked defender may",
              "the seed's \"Must defend and attempt to disengage from CQC\": block or counter as any "
              "defender, or only block",
              words={"any": "block or counter", "block_only": "only block (must defend)"}),
    _slider("rounds", 1, 1, 20, "rounds of close combat",
            "fight on until one side is downed or this many rounds are fought; a wounded fighter is -1 after"),
), trial="attack",
   sides=_Sides(firer=tuple((f"attacker_{k}", label, style) for k, label, style in _CC_SIDE),
                target=tuple((f"defender_{k}", label, style) for k, label, style in _CC_SIDE)))


def _d10(doc: str) -> _Field:
    return _Field("int", 1, 11, doc=f"{doc}; d10 target number, 6 means 6+")


def profile_kwargs(attacker, weapon, target, situation) -> tuple[str, dict]:
    """``("shooting", keyword arguments of :func:`shooting`)`` for ``attacker``
    firing ``weapon`` at ``target``; a melee weapon is an InputError."""
    if weapon["class"] == "melee":
        from ..errors import InputError
        raise InputError("weapon", "a ranged weapon (shooting)", weapon.name, f"{weapon.name} is a melee weapon")
    out = dict(shoot=attacker["shoot"], attack_power=weapon["attack_power"], shots=weapon["shots"])
    if situation.get("damage_rule") == "v1":
        # the d6 damage v1 compares the weapon's Damage with the target's
        # Defence (which already counts its armour): no armour level
        out["damage"] = weapon["damage"]
        out["defence"] = target["defence"]
        if target["shield"]:
            # seed: a shield "adds +1 DEF vs shooting" (damage v1 only)
            out["shield"] = True
    else:
        out["armour"] = target["armour"]
    return "shooting", out


SYSTEM = _Description(
    key=KEY, name=NAME, module=_sys.modules[__name__], die=DIE, seed=SEED,
    title="Forgotten",
    blurb="SHOOT against ATTACK POWER, movement, range, armour, shock, close combat.",
    colour="#DD8452",
    modes=(_SHOOTING_MODE, _CC_MODE),
    effects={"shock": "probability", "defender_downed": "probability", "attacker_downed": "probability",
             "defender_newly_wounded": "probability", "attacker_newly_wounded": "probability",
             "pushback_none": "probability", "pushback_attacker": "probability",
             "pushback_defender": "probability", "downed": "probability"},
    effect_words={
        "shock": "the unit takes shock",
        "downed": "the model is downed",
        "defender_downed": "the defender is downed",
        "attacker_downed": "the attacker is downed (by a counter)",
        "defender_newly_wounded": "the defender takes a new wound",
        "attacker_newly_wounded": "the attacker takes a new wound",
        "pushback_none": "nobody is pushed back",
        "pushback_attacker": "the attacker is pushed back",
        "pushback_defender": "the defender is pushed back",
        "non_damaging_hits": "hits that do no damage",
    },
    stats=(
        _Stat("shoot", "attacker", -1, range(2, 11),
              "SHOOT: d10 + modifiers >= SHOOT hits; lower is better, +1 = SHOOT 6 -> 5"),
        _Stat("attack_power", "attacker", -1, range(0, 10),
              "ATTACK POWER: d10 - armour - cover > ATTACK POWER kills; lower is stronger, +1 = 5 -> 4"),
    ),
    # profiles/forgotten/trooper.toml (illustrative): SHOOT 6, rifle ATTACK POWER 5, light armour
    seed_matchup=dict(shoot=6, attack_power=5, armour="light", shots=10),
    granularity_grid=dict(shoot=list(range(0, 12)), attack_power=list(range(0, 11)), shots=1),
    equivalence_search=dict(shoot=list(range(2, 11)), attack_power=list(range(0, 10))),
    concepts={
        "accuracy": _Step("shoot", "SHOOT", -1),
        "penetration": _Step("attack_power", "ATTACK POWER", -1),
        "toughness": _Step("armour", "armour", +1, ladder=tuple(
            _Rung((("armour", a),), f"armour {a}") for a in ARMOUR)),
        "cover": _Step("cover_level", "cover", +1, ladder=(
            _Rung((("cover", False), ("cover_level", "none")), "open"),
            _Rung((("cover", True), ("cover_level", "soft")), "in cover (soft)"),
            _Rung((("cover", True), ("cover_level", "hard")), "in cover (hard)"))),
    },
    profiles=_Profiles(
        unit={"shoot": _d10("SHOOT"), "cqc": _d10("CQC"), "phys": _d10("PHYS"),
              "armour": _Field("choice", allowed=tuple(ARMOUR), doc="armour level"),
              "defence": _Field("int", 0, 20, default=None, doc="damage v1 Defence"),
              "shield": _Field("bool", default=False, doc="carries a shield")},
        weapon={"shots": _Field("int", 1, 100, doc="dice per model"),
                "attack_power": _Field("int", 0, 11, doc="ATTACK POWER, roll above it to kill"),
                "damage": _Field("int", 0, 20, default=None, doc="damage v1 Damage"),
                "class": _Field("choice", allowed=("ranged", "melee"), default="ranged", doc="weapon class")},
        basic=("trooper", "Rifle", "trooper"),
        to_kwargs=profile_kwargs),
)
