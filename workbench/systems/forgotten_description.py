"""The Forgotten as the workbench shows it: its dashboard modes (shooting, close combat) with
their controls, the stats the diagnostics step through, the compare page's concepts (armour and
cover as ladders), the seed matchup, the grids and the unit profiles' fields: :func:`describe`
builds the system's :class:`~workbench.systems.description.SystemDescription`, which
:mod:`workbench.systems.forgotten` holds as ``SYSTEM``.
"""
from __future__ import annotations

from types import ModuleType

from ..controls import (dropdown as _dropdown, optional_slider as _optional, shots_slider as _shots, slider as _slider,
                        toggle as _toggle, unit_size_slider as _unit_size)
from ..errors import InputError
from .description import (Mode as _Mode, Sides as _Sides, ProfileField as _Field, Profiles as _Profiles, Rung as _Rung,
                          StatInfo as _Stat, Step as _Step, SystemDescription as _Description)
from .forgotten_rules import AIMED, ARMOUR, COVER_LEVEL, DIE, DUAL, KEY, MOVED, NAME, RANGES, SEED

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


def describe(module: ModuleType) -> _Description:
    """The description of The Forgotten, whose stat-level functions are ``module``'s."""
    return _Description(
        key=KEY, name=NAME, module=module, die=DIE, seed=SEED,
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
