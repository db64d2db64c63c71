"""The Forgotten's description: its rule folder's (``rules/forgotten/``: the stats and ``[view]``
of ``shooting.toml`` and ``close_combat.toml``, :func:`~workbench.systems.ownfile.describe`), with
what only this Python says: the controls of arguments whose values :func:`shooting` and
:func:`close_combat` take otherwise than the files state them (none for "not used", where a file
has a number and a switch: a hero's save, a rule v1 number, a second weapon), the effects the
close-combat mechanism and the shooting's Python make, and the unit profiles' fields with the
function that reads them. :func:`describe` builds it; :mod:`workbench.systems.forgotten` holds it
as ``SYSTEM``.
"""
from __future__ import annotations

from types import ModuleType

from ..controls import Control, dropdown as _dropdown, optional_slider as _optional
from ..errors import InputError
from . import ownfile
from .description import ProfileField as _Field, Profiles as _Profiles
from .records import SHOTS as _SHOTS, whole_fields as _whole_fields
from .forgotten_rules import ARMOUR, KEY, SEED, none_options

def _own(part: str, name: str, none: str | None = "not used") -> Control:
    """The control of the stat ``name`` of the file ``part`` for a function that takes None for it,
    at its leftmost notch: the file's label and help, 1 to 12, starting at None and saying what it
    means (``none``; None: starting at the file's default); a choice's options are the file's, None
    for its "none"."""
    rs = ownfile.load(KEY, part)
    stat = rs.stat(name)
    if stat.kind == "choice":
        return _dropdown(name, None, none_options(stat), stat.label, stat.help, words=dict(rs.view.words.get(name, ())))
    return _optional(name, None if none else stat.default, 1, 12, stat.label,
                     stat.help + (f"; the leftmost notch means {none}" if none else ""))


#: shooting's arguments whose values are not the file's: none is "not used" / "no hero"
_SHOOTING_OWN = tuple(_own("shooting", k, none) for k, none in (
    ("aimed", None), ("damage", "not used"), ("defence", "not used"), ("heroic_save", "no hero")))
#: close combat's arguments whose values are not the file's
_CC_OWN = tuple(_own("close_combat", f"{side}_{k}", none) for side in ("attacker", "defender") for k, none in (
    ("phys", None), ("heroic_save", "no hero"), ("damage", "not used"), ("strength", "not used"),
    ("defence", "not used"))) + (_own("close_combat", "dual_weapons"), _own("close_combat", "defender_dual_weapons"))
#: the files' hero switches, which the functions' heroic saves hold (none: no hero)
_HEROES = ("hero", "attacker_hero", "defender_hero")


#: where the close-combat page starts that neither the file nor the function start: light armour on
#: both sides (a copy of the file starts at its defaults, as forgotten.close_combat does)
_CC_START = {"attacker_armour": "light", "defender_armour": "light"}


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


def describe(module: ModuleType):
    """The description of The Forgotten, whose stat-level functions are ``module``'s."""
    return ownfile.describe(
        KEY, module, title="Forgotten", colour="#DD8452", names={"shock": "shock"}, seed=SEED,
        modes=ownfile.own_controls({**{c.name: c for c in _SHOOTING_OWN + _CC_OWN}, **dict.fromkeys(_HEROES)},
                                   start=_CC_START),
        effects={k: "probability" for k in ("defender_downed", "attacker_downed", "defender_newly_wounded",
                                            "attacker_newly_wounded", "pushback_none", "pushback_attacker",
                                            "pushback_defender", "downed")},
        effect_words={"downed": "the model is downed", "non_damaging_hits": "hits that do no damage"},
        profiles=_Profiles(
            unit={**_whole_fields(1, 11, "; d10 target number, 6 means 6+", shoot="SHOOT", cqc="CQC", phys="PHYS"),
                  "armour": _Field("choice", allowed=tuple(ARMOUR), doc="armour level"),
                  "defence": _Field("int", 0, 20, default=None, doc="damage v1 Defence"),
                  "shield": _Field("bool", default=False, doc="carries a shield")},
            weapon={"shots": _SHOTS,
                    "attack_power": _Field("int", 0, 11, doc="ATTACK POWER, roll above it to kill"),
                    "damage": _Field("int", 0, 20, default=None, doc="damage v1 Damage"),
                    "class": _Field("choice", allowed=("ranged", "melee"), default="ranged", doc="weapon class")},
            basic=("trooper", "Rifle", "trooper"),
            to_kwargs=profile_kwargs),
    )
