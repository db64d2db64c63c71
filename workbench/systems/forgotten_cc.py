"""The Forgotten, close combat: one attacker against one defender (seed 002, RULES.md section 2),
resolved through its own rule file ``rules/forgotten/close_combat.toml`` (``ownfile.load("forgotten",
"close_combat")``), whose named mechanism :mod:`workbench.rules.mechanisms.two_sided_close_combat` adds up
the dice both fighters throw. :func:`close_combat` checks its arguments, hands them to the file as its
stats and shows the file's stages and notes, as a copy of the file does; :mod:`workbench.systems.forgotten`
re-exports it. The pieces it shares with the shooting are :mod:`workbench.systems.forgotten_rules`'s.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import validate as v
from ..rules.plan import readonly
from ..outcome import Outcome
from . import ownfile
from .ownfile import checked
from .forgotten_rules import DUAL, KEY, _damage_v1_given, _file_stats

__all__ = ["close_combat"]


def _check_cc(kw: dict) -> dict:
    rs = ownfile.load(KEY, "close_combat")
    saves = ("attacker_phys", "defender_phys", "attacker_heroic_save", "defender_heroic_save")  # None: not used
    a: dict[str, Any] = checked(rs, kw, ("attacker_cqc", "defender_cqc") + saves + (
        "attacker_weapon_bonus", "defender_weapon_bonus", "attacker_armour", "defender_armour", "response", "shield",
        "shield_when_countering", "power_attack", "defender_power_attack", "from_rear", "facing_away", "outnumbered",
        "defender_outnumbered", "attacker_wounded", "defender_wounded", "attacker_tough", "defender_tough",
        "attacker_shocked", "defender_shocked", "shocked_defence"), optional=saves)
    if a["shocked_defence"] == "block_only" and a["defender_shocked"]:
        a["response"] = "block"  # "Must defend": it blocks, whatever response was asked
    a["dual_weapons"] = v.choice("dual_weapons", kw["dual_weapons"], DUAL)
    a["defender_dual_weapons"] = v.choice("defender_dual_weapons", kw["defender_dual_weapons"], DUAL)
    a.update(checked(rs, kw, ("damage_rule", "kill_on", "melee_phys")))  # combinations: the file's [[forbid]]
    counter = a["response"] == "counter"
    v1_names = ("attacker_damage", "attacker_strength", "defender_defence",
                "defender_damage", "defender_strength", "attacker_defence")
    if _damage_v1_given(rs, kw, a, v1_names, v1_names[:3] + (v1_names[3:] if counter else ()),
                        "melee damage v1 compares weapon Damage + Strength with the target's Defence",
                        "Damage, Strength and Defence are damage v1 stats"):
        a.update(checked(rs, kw, v1_names, optional=v1_names))
    else:
        phys = ["attacker_phys", "defender_phys"]
        needed = phys if a["melee_phys"] == "attacker" else phys[::-1]   # the striker's, then the counter's
        for name in needed if counter else needed[:1]:
            if a[name] is None:
                v.forbid(name, None, f"a whole number from {rs.stat(name).min} to {rs.stat(name).max}",
                         f"melee damage v2 rolls above the {a['melee_phys']}'s PHYS"
                         + (" (the counter too)" if counter else ""))
    return a


@v.stat_function
def close_combat(*, attacker_cqc, defender_cqc, attacker_phys=None, defender_phys=None,
                 attacker_weapon_bonus=0, defender_weapon_bonus=0, attacker_armour="none",
                 defender_armour="none", response="block", shield=False, shield_when_countering=False,
                 dual_weapons=None, defender_dual_weapons=None, power_attack=False,
                 defender_power_attack=False, from_rear=False, facing_away=False, outnumbered=False,
                 defender_outnumbered=False, attacker_wounded=False, defender_wounded=False,
                 attacker_tough=False, defender_tough=False, attacker_shocked=False,
                 defender_shocked=False, attacker_heroic_save=None,
                 defender_heroic_save=None, damage_rule="v2", kill_on="above", melee_phys="attacker",
                 attacker_damage=None, attacker_strength=None, attacker_defence=None,
                 defender_damage=None, defender_strength=None, defender_defence=None,
                 rounds=1, shocked_defence="any", method="exact", samples=100_000,
                 seed=0) -> Outcome:
    """One attacker moves into base contact with one defender.

    The attacker rolls to hit (d10 + modifiers >= ``attacker_cqc``; two dice
    with ``dual_weapons``); the defender, by ``response``, blocks (each die
    d10 + modifiers >= ``defender_cqc`` cancels one hit; a ``shield`` adds a
    die) or counters after the attacker, if still standing; each hit that
    gets through rolls damage v2 (d10 + ATTACK BONUS - armour level > PHYS,
    the striker's with ``melee_phys="attacker"``, as the seed says) or v1
    (the d6 table, Damage + Strength against Defence). ``*_wounded``,
    ``*_shocked`` (-1 to all rolls; a shock marks no wound), ``*_tough``
    (absorbs one unsaved kill) and ``*_heroic_save`` (d10 >= it saves a
    kill) are each fighter's; ``shocked_defence="block_only"`` makes a
    shocked defender block. ``rounds`` (1 to 20): the same exchange again
    until one side is downed ("otherwise they remain in CQC for their next
    activation"), a model wounded in a round at -1 in the next. Every rule
    and modifier with its seed quotation: docs/rules/forgotten.md, section 5.

    ``pmf`` = [P(defender standing), P(defender downed)] after the fight.
    Effects: ``defender_downed``, ``attacker_downed`` (by a counter),
    ``defender_newly_wounded``, ``attacker_newly_wounded`` (standing and
    wounded at the end), ``pushback_attacker``, ``pushback_defender``,
    ``pushback_none`` (the first round's) and, with ``rounds > 1``,
    ``rounds_fought`` (expected).
    """
    kw = dict(locals())
    a = _check_cc(kw)
    rs = ownfile.load(KEY, "close_combat")
    rounds = checked(rs, kw, ("rounds",))["rounds"]
    method, samples, _rng = v.method_args(method, samples, seed)
    stats = _file_stats(rs, a, rounds=rounds)
    notes = rs.notes_at(**stats)
    inputs = dict(a, rounds=rounds, method=method)
    if method == "exact":
        got = rs.fractions(**stats)
        names = [k for k in got["effects"] if rounds > 1 or k != "rounds_fought"]
        down = got["effects"]["defender_downed"]
        out = Outcome(KEY, "close_combat", inputs, np.array([float(1 - down), float(down)]),
                      got["stages"], {k: float(got["effects"][k]) for k in names},
                      attacks=got["attacks"], notes=notes, label="defenders downed",
                      **ownfile.terms(KEY, "close_combat"))
        return out.replace(stage_pmfs={k: readonly(x) for k, x in got["stage_pmfs"].items()})
    o = rs.attack(method=method, samples=samples, seed=seed, **stats)
    names = [k for k in o.effects if rounds > 1 or k != "rounds_fought"]
    return ownfile.outcome(o, system=KEY, function="close_combat", inputs=inputs, effects={k: k for k in names},
                           width=2, attacks=o.attacks, notes=notes)
