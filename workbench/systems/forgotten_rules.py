"""The Forgotten: the rule pieces its shooting (:mod:`workbench.systems.forgotten`)
and its close combat (:mod:`workbench.systems.forgotten_cc`) share: the dice, the
choices they take None for, their arguments as the files' stats, the damage v1 table;
and the names and tables its description reads. Seed 002, RULES.md section 2.
"""
from __future__ import annotations

import numpy as np

from .. import validate as v
from ..errors import InputError
from . import ownfile

KEY = "forgotten"
SEED = "002_7c145f285029c8b2.txt"
_FILE = ownfile.load(KEY)
NAME, DIE = _FILE.name, _FILE.die
#: damage v1 rolls a d6 ("Original DAMAGE v1 (using d6s)")
DAMAGE_V1_DIE = 6

#: the armour levels, and the shooting modifiers: how far the firer moved, the range, the cover level taken off
#: the kill roll, each choice -> its number, as rules/forgotten/shooting.toml states them
ARMOUR, MOVED, RANGES, COVER_LEVEL = (dict(_FILE.stat(k).options)
                                      for k in ("armour", "moved", "range", "cover_level"))


def none_options(stat) -> tuple:
    """The options of the file's choice ``stat`` as the functions take them: None for its "none"."""
    return tuple(None if o == "none" else o for o, _ in stat.options)


#: aimed fire (none, +1 to hit or +1 to the kill roll) and close combat's second weapons (none, -1 to hit
#: or -1 to damage), as the functions take them
AIMED = none_options(_FILE.stat("aimed"))
DUAL = none_options(ownfile.load(KEY, "close_combat").stat("dual_weapons"))

def _file_stats(rs, a: dict, **more) -> dict:
    """The checked arguments ``a`` as the stats of the file ``rs`` (with ``more``): a heroic save of
    None is the file's hero switch off (``hero``, ``attacker_hero``, ...), a choice of None its option
    "none", and a number of None (not used) keeps the file's default."""
    out: dict = {}
    for k, x in a.items():
        if k.endswith("heroic_save"):
            out[k.removesuffix("heroic_save") + "hero"] = x is not None
        if x is not None or rs.stat(k).kind == "choice":
            out[k] = "none" if x is None else x
    return dict(out, **more)


# -- shared rule pieces --------------------------------------------------------------------
def _damage_v1_given(rs, kw: dict, a: dict, names: tuple[str, ...], needed, v1_why: str, v2_why: str) -> bool:
    """Whether the damage v1 stats ``names`` are read (``damage_rule="v1"``): each of ``needed`` is
    then required (a number in its stat's range in ``rs``); under v2 each must be None and is set
    None in ``a``. A refusal names the stat and says why (``v1_why``, ``v2_why``)."""
    if a["damage_rule"] == "v2":
        for name in names:
            if kw[name] is not None:
                v.forbid(name, kw[name], "None with damage_rule='v2'", v2_why)
            a[name] = None
        return False
    for name in needed:
        if kw[name] is None:
            v.forbid(name, None, f"a whole number from {rs.stat(name).min} to {rs.stat(name).max} with "
                     "damage_rule='v1'", v1_why)
    return True


#: the attack (weapon Damage, + Strength in melee) and Defence (+1 shield) v1_target accepts
V1_TABLE_RANGE = (1, 2 * _FILE.stat("damage").max)


@v.stat_function
def v1_target(attack, defence):
    """Damage v1 (d6, Kill Team style): the d6 roll needed to kill.

    "Defence is 2x or more better = 6+ kills; Defence is better = 5+ kills;
    Both equal = 4+ kills; Attack is better = 3+ kills; Attack is 2x or more
    better = 2+ kills". Works on ints and numpy arrays of whole numbers from
    1 to 80 (attack: weapon Damage, plus Strength in melee; defence: Defence,
    +1 with a shield).
    """
    attack = v.integers("attack", attack, *V1_TABLE_RANGE)
    defence = v.integers("defence", defence, *V1_TABLE_RANGE)
    try:
        np.broadcast_shapes(np.shape(attack), np.shape(defence))
    except ValueError:
        raise InputError("defence", f"an array of the same shape as attack {np.shape(attack)} "
                         "(or one that broadcasts with it)", defence) from None
    out = np.select([defence >= 2 * attack, defence > attack, defence == attack, attack >= 2 * defence], [6, 5, 4, 2],
                    default=3)
    return int(out) if out.ndim == 0 else out
