"""The Forgotten, close combat: one attacker against one defender (seed 002, RULES.md section 2),
resolved through its own rule file ``rules/forgotten/close_combat.toml`` (``ownfile.load("forgotten",
"close_combat")``), whose named mechanism :mod:`workbench.rules.mechanisms.two_sided_close_combat` adds up
the dice both fighters throw. :func:`close_combat` checks its arguments, hands them to the file as its
stats and says the result in its own words (stages, notes); :mod:`workbench.systems.forgotten`
re-exports it. The pieces it shares with the shooting are :mod:`workbench.systems.forgotten_rules`'s.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from .. import pipeline
from .. import validate as v
from ..rules.die import DieRoll
from ..rules.mechanisms.two_sided_close_combat import round_of
from ..rules.plan import readonly
from ..outcome import Outcome, Stage
from . import ownfile
from .ownfile import checked
from .forgotten_rules import (ARMOUR, DAMAGE_V1_DIE, DIE, DUAL, KEY, _MINUS, _damage_v1_given, _env, _file_stats,
                              _mod_words, _mods, _ratio, _signed)

__all__ = ["close_combat", "CC_NOTES"]


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
        strike_phys = "attacker_phys" if a["melee_phys"] == "attacker" else "defender_phys"
        counter_phys = "defender_phys" if a["melee_phys"] == "attacker" else "attacker_phys"
        needed: Sequence[str] = [strike_phys] + ([counter_phys] if counter else [])
        for name in needed:
            if a[name] is None:
                v.forbid(name, None, f"a whole number from {rs.stat(name).min} to {rs.stat(name).max}",
                         f"melee damage v2 rolls above the {a['melee_phys']}'s PHYS"
                         + (" (the counter too)" if counter else ""))
    return a


#: the attacker's modifiers to hit and to its damage roll, as :func:`~.forgotten_rules._mods` reads them
_ATTACKER_HIT = (("facing_away", 1, "target facing away"), ("outnumbered", -1, "outnumbered"),
                 ("power_attack", -1, "power attack"), ("dual_weapons=hit", -1, "dual weapons"),
                 ("attacker_wounded", -1, "wounded"), ("attacker_shocked", -1, "shocked"))
_ATTACKER_DAMAGE = (("power_attack", 2, "power attack"), ("from_rear", 1, "from the rear"),
                    ("dual_weapons=damage", -1, "dual weapons"), ("attacker_wounded", -1, "wounded"),
                    ("attacker_shocked", -1, "shocked"))
#: the defender's modifiers to its blocking dice
_DEFENDER_BLOCK = (("defender_outnumbered", -1, "outnumbered"), ("defender_wounded", -1, "wounded"),
                   ("defender_shocked", -1, "shocked"), ("defender_dual_weapons=hit", -1, "dual weapons, weapon dice"))


#: the notes every close combat relies on: the file's (rules/forgotten/close_combat.toml), those it shows
#: for a variant, a shock or several rounds left out
CC_NOTES = ownfile.load(KEY, "close_combat").notes


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
    got = rs.fractions(**stats)
    one = got if rounds == 1 else rs.fractions(**dict(stats, rounds=1))
    first = _cc_stages(a, 1 - one["passes"]["unblocked"][0], one["effects"]["defender_downed"])
    stages = first if rounds == 1 else _rounds_stage(first, rounds, got["effects"]["defender_downed"])
    notes = rs.notes_at(**stats)
    inputs = dict(a, rounds=rounds, method=method)
    names = [k for k in got["effects"] if rounds > 1 or k != "rounds_fought"]
    attacks = 1 if rounds == 1 else None
    if method == "exact":
        down = got["effects"]["defender_downed"]
        out = pipeline.exact_outcome(KEY, "close_combat", inputs, np.array([float(1 - down), float(down)]), stages,
                                     {k: float(got["effects"][k]) for k in names}, attacks=attacks, notes=notes,
                                     label="defenders downed", **ownfile.terms(KEY, "close_combat"))
        # each stage of one round counts the passes of a step of the mechanism over the whole fight: "to
        # kill" those of its kills or, where it stands for the hits that got through downing the defender
        # (two attack dice, a tough defender), the defender downed
        simple = a["dual_weapons"] is None and not a["defender_tough"]
        steps = {"to hit": "hits", "not blocked": "unblocked", "to kill": "kills" if simple else "downed",
                 "heroic save fails": "unsaved"}
        return out.replace(stage_pmfs={st.name: readonly(got["passes"][steps[st.name]]) for st in first})
    o = rs.attack(method=method, samples=samples, seed=seed, **stats)
    return ownfile.outcome(o, system=KEY, function="close_combat", inputs=inputs, effects={k: k for k in names},
                           width=2, stages=stages, attacks=attacks, notes=notes)


def _rounds_stage(first: tuple[Stage, ...], rounds: int, p_downed: Fraction) -> tuple[Stage, ...]:
    """The stages of a fight of up to ``rounds`` rounds: one step, the
    defender downed within them, whose chance is exactly P(defender downed)
    (so "Per attack" reads the whole fight's chance); its detail recounts the
    first round's steps, the rounds after being the same exchange at the
    fighters' new states."""
    steps = " × ".join(f"{st.name} {st.probability}" for st in first)
    first_p = math.prod((st.probability for st in first), start=Fraction(1))
    return (Stage(f"downed within {rounds} rounds", p_downed,
                  f"the first round {steps} = {first_p}; then the same exchange again until one side "
                  f"is downed or {rounds} rounds are fought, a model wounded in a round at -1 in the next"),)


def _cc_stages(a: dict, p_through: Fraction, p_down: Fraction) -> tuple[Stage, ...]:
    """The steps of one close-combat attack, whose product is exactly
    P(the defender is downed): to hit (at least one attack die), not blocked
    (at least one hit left after the defender's blocks, given a hit), and the
    damage (the kill roll and the heroic save; with two hits or a tough
    defender, the chance the hits that got through down it). ``p_through``:
    P(one round leaves at least one hit), ``p_down``: P(it downs the defender)."""
    rs = ownfile.load(KEY, "close_combat")
    r = round_of(rs.spec, _env(rs, _file_stats(rs, a)), rs.die)     # the first round's dice, as the file says
    one, strike, d_saves = DieRoll(r.attack[0]), DieRoll(r.strike), r.defender_saves
    n_block, dice = len(r.block), len(r.attack)
    mods = _mod_words(_mods(a, _ATTACKER_HIT))
    with_text = (" with " + ", ".join(mods)) if mods else ""
    p_die = one.success
    p_any = 1 - (1 - p_die) ** dice
    hit_words = (f"CQC {a['attacker_cqc']}{with_text} {one.describe('d10')}: {_ratio(p_die, DIE)}"
                 + (f" per die; at least one of {dice} dice hits: 1 {_MINUS} (1 {_MINUS} {p_die})^{dice}"
                    if dice > 1 else "") + f" (defender chose {a['response']})")
    stages = [Stage("to hit", p_any, hit_words, faces=DIE if dice == 1 else None)]

    zero = Fraction(0)
    if n_block:  # a second weapon's die is at -1 only when it blocks
        d_mods = _mods(a if a["response"] == "block" else dict(a, defender_dual_weapons=None), _DEFENDER_BLOCK)
        stages.append(Stage("not blocked", p_through / p_any if p_any else zero,
                            f"the defender's {n_block} blocking {'die' if n_block == 1 else 'dice'} (d10"
                            + "".join(" " + x for x in _mod_words(d_mods)) + f" >= CQC "
                            f"{a['defender_cqc']}, each cancels one hit) leave at least one hit"))

    roll = _mod_words(_mods(a, _ATTACKER_DAMAGE))
    if a["damage_rule"] == "v2":
        phys = a["attacker_phys"] if a["melee_phys"] == "attacker" else a["defender_phys"]
        kdetail = (f"d10 {_signed(a['attacker_weapon_bonus'])} ATTACK BONUS" + "".join(" " + x for x in roll)
                   + f" {_MINUS}{ARMOUR[a['defender_armour']]} {a['defender_armour']} armour must roll "
                   + ("above" if a["kill_on"] == "above" else "at or above")
                   + f" PHYS {phys} ({a['melee_phys']}'s): {strike.describe('d10')}: {_ratio(strike.success, DIE)}")
    else:
        att = a["attacker_damage"] + a["attacker_strength"]
        base = int(r.strike.target)    # the chart's roll, before the modifiers
        kdetail = (f"damage v1: Damage + Strength {att} against Defence {a['defender_defence']} kills on {base}+"
                   + (f" with {', '.join(roll)} on the d6" if roll else "")
                   + f": {strike.describe('d6')}: {_ratio(strike.success, DAMAGE_V1_DIE)}")
    simple = dice == 1 and not a["defender_tough"]
    if simple:
        stages.append(Stage("to kill", strike.success, kdetail, faces=strike.sides))
        if d_saves is not None:
            s = DieRoll(d_saves[1 if a["defender_wounded"] else 0]).success
            minus = [w for on, w in ((a["defender_wounded"], "wounded"), (a["defender_shocked"], "shocked")) if on]
            stages.append(Stage("heroic save fails", 1 - s,
                                f"heroic save d10 >= {a['defender_heroic_save']}"
                                + (f" at -{len(minus)} ({', '.join(minus)})" if minus else "")
                                + f" ignores the kill: fails {_ratio(1 - s, DIE)}", faces=DIE))
    else:
        extra = []
        if dice > 1:
            extra.append("up to 2 hits get through")
        if a["defender_tough"]:
            extra.append("a tough defender is downed by its second unsaved kill"
                         if not a["defender_wounded"] else "the wounded tough defender is downed by one")
        if d_saves is not None:
            extra.append(f"each kill is saved on d10 >= {a['defender_heroic_save']} (-1 once wounded"
                         + (", -1 shocked" if a["defender_shocked"] else "") + ")")
        stages.append(Stage("to kill", p_down / p_through if p_through else zero,
                            f"each hit that gets through: {kdetail}; {'; '.join(extra)}"))
    return tuple(stages)
