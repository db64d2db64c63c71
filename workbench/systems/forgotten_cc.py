"""The Forgotten, close combat: one attacker against one defender (seed 002,
RULES.md section 2). The shooting rules and the pieces both share (the
damage v1 table, the tough/heroic-save state update, the stat ranges) live in
:mod:`workbench.systems.forgotten`, which re-exports :func:`close_combat`.
"""
from __future__ import annotations

import builtins
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from .. import pipeline
from .. import validate as v
from ..dice import DieTest, RollHigh, roll_faces
from ..outcome import Outcome, Stage
from ..rules.die import StageDie
from ..rules.mechanisms import two_sided_close_combat as mechanism
from .forgotten_rules import (ARMOUR, BONUS_RANGE, DAMAGE_V1_DIE, DIE, DUAL, KEY, STAT_RANGE, V1_RANGE, _MINUS,
                              _absorb_step, _judge_both, _ratio, _signed, _v1_need)

__all__ = ["close_combat", "Exchange", "CC_NOTES", "MAX_ROUNDS"]

#: close-combat rounds one call may fight
MAX_ROUNDS = 20

# ---------------------------------------------------------------------------
# close combat
# ---------------------------------------------------------------------------
_WINNERS = ("none", "attacker", "defender")


@dataclass(frozen=True)
class Exchange(DieTest):
    """The dice both fighters throw when the attacker makes contact.

    Die i of the attacker hits if face + ``attack_mods[i]`` >= ``attacker_cqc``;
    the defender's blocking dice succeed if face + ``block_mods[j]`` >=
    ``defender_cqc``; its counter dice hit if face + ``counter_mods[j]`` >=
    ``defender_cqc`` (and, for a defender newly wounded by this attack, with a
    further -1). The result code packs (unblocked hits h, counter hits c,
    counter hits at -1 cw, pushback winner) as ((h*3 + c)*3 + cw)*3 + winner.

    Pushback: "The successful fighter (or the one with the highest roll if
    they both succeeded)": a fighter succeeded if any of its dice succeeded
    (hit, block or counter hit); both: the higher best modified roll; a tie or
    no success: nobody.
    """

    attacker_cqc: int
    defender_cqc: int
    attack_mods: tuple
    block_mods: tuple = ()
    counter_mods: tuple = ()
    sides: int = DIE

    labels: ClassVar[tuple[str, ...]] = tuple(
        f"h{h}_c{c}_cw{cw}_{w}" for h in range(3) for c in range(3) for cw in range(3) for w in _WINNERS)
    success_labels: ClassVar[frozenset[str]] = frozenset(
        f"h{h}_c{c}_cw{cw}_{w}" for h in (1, 2) for c in range(3) for cw in range(3) for w in _WINNERS)

    @property
    def dice(self) -> int:  # type: ignore[override]  # DieTest's dice is a class constant; an exchange counts its own
        return len(self.attack_mods) + len(self.block_mods) + len(self.counter_mods)

    def evaluate(self, faces: np.ndarray) -> np.ndarray:
        f = np.asarray(faces).astype(np.int16)
        na, nb = len(self.attack_mods), len(self.block_mods)
        low = np.int16(-100)
        a = f[..., :na] + np.array(self.attack_mods, dtype=np.int16)
        a_ok = a >= self.attacker_cqc
        hits = a_ok.sum(axis=-1)
        a_best = np.where(a_ok, a, low).max(axis=-1)
        d_best = np.full(hits.shape, low, dtype=np.int16)
        blocks = np.zeros_like(hits)
        if nb:
            b = f[..., na:na + nb] + np.array(self.block_mods, dtype=np.int16)
            b_ok = b >= self.defender_cqc
            blocks = b_ok.sum(axis=-1)
            d_best = np.maximum(d_best, np.where(b_ok, b, low).max(axis=-1))
        c_fresh = np.zeros_like(hits)
        c_wound = np.zeros_like(hits)
        if self.counter_mods:
            c = f[..., na + nb:] + np.array(self.counter_mods, dtype=np.int16)
            c_ok = c >= self.defender_cqc
            c_fresh = c_ok.sum(axis=-1)
            c_wound = (c - 1 >= self.defender_cqc).sum(axis=-1)
            d_best = np.maximum(d_best, np.where(c_ok, c, low).max(axis=-1))
        h = np.maximum(hits - blocks, 0)
        a_succ = hits > 0
        d_succ = (blocks + c_fresh) > 0
        both = a_succ & d_succ
        winner = np.where(a_succ & ~d_succ, 1, np.where(d_succ & ~a_succ, 2, 0))
        winner = np.where(both & (a_best > d_best), 1, np.where(both & (d_best > a_best), 2, winner))
        return (((h * 3 + c_fresh) * 3 + c_wound) * 3 + winner).astype(np.int16)


def _decode(code):
    code = np.asarray(code)
    return code // 27, (code // 9) % 3, (code // 3) % 3, code % 3


def _melee_kill_test(damage_rule, kill_on, phys, bonus, roll_mod, armour, v1_attack, v1_defence) -> RollHigh:
    """One melee damage die. v2: d10 + ATTACK BONUS + roll_mod - armour > PHYS; v1: d6 table + roll_mod."""
    if damage_rule == "v2":
        need = phys + (1 if kill_on == "above" else 0) - bonus - roll_mod + ARMOUR[armour]
        return RollHigh(target=need, sides=DIE)
    return RollHigh(target=_v1_need(v1_attack, v1_defence) - roll_mod, sides=DAMAGE_V1_DIE)


def _chain_down(hits: int, kill: Fraction, save_f: Fraction, save_w: Fraction, tough: bool,
                start_wounded: bool) -> tuple[Fraction, Fraction]:
    """(P(downed), P(newly wounded and standing)) of one model taking ``hits`` hits
    that kill with probability ``kill`` each (same update as shooting)."""
    state = np.zeros((2, 2), dtype=object)
    state[:] = Fraction(0)
    state[0, 1 if start_wounded else 0] = Fraction(1)
    for _ in range(hits):
        state = _absorb_step(state, kill, save_f, save_w, tough)
    downed = state[1, 0] + state[1, 1]
    newly = Fraction(0) if start_wounded else state[0, 1]
    return Fraction(downed), Fraction(newly)


def _chain_sample(kills: np.ndarray, save_ok_f, save_ok_w, tough: bool, start_wounded: bool):
    """Sampled twin: ``kills[:, i]`` = die i kills; returns (downed, newly wounded) per sample."""
    m = kills.shape[0]
    downed = np.zeros(m, dtype=bool)
    wounded = np.full(m, start_wounded)
    for i in range(kills.shape[1]):
        k = kills[:, i] & ~downed
        if save_ok_f is not None:
            k &= ~np.where(wounded, save_ok_w[:, i], save_ok_f[:, i])
        if tough:
            downed |= k & wounded
            wounded = wounded | k
        else:
            downed |= k
    return downed, wounded & ~downed & (not start_wounded)


def _check_cc(kw: dict) -> dict:
    a: dict[str, Any] = {}  # argument name -> its checked value (ints, strs, bools, None)
    for name in ("attacker_cqc", "defender_cqc"):
        a[name] = v.integer(name, kw[name], *STAT_RANGE)
    for name in ("attacker_phys", "defender_phys", "attacker_heroic_save", "defender_heroic_save"):
        a[name] = v.optional_integer(name, kw[name], *STAT_RANGE)
    for name in ("attacker_weapon_bonus", "defender_weapon_bonus"):
        a[name] = v.integer(name, kw[name], *BONUS_RANGE)
    for name in ("attacker_armour", "defender_armour"):
        a[name] = v.choice(name, kw[name], tuple(ARMOUR))
    a["response"] = v.choice("response", kw["response"], ("block", "counter"))
    for name in ("shield", "shield_when_countering", "power_attack", "defender_power_attack", "from_rear",
                 "facing_away", "outnumbered", "defender_outnumbered", "attacker_wounded",
                 "defender_wounded", "attacker_tough", "defender_tough", "attacker_shocked",
                 "defender_shocked"):
        a[name] = v.boolean(name, kw[name])
    a["shocked_defence"] = v.choice("shocked_defence", kw["shocked_defence"], SHOCKED_DEFENCES)
    if a["shocked_defence"] == "block_only" and a["defender_shocked"]:
        a["response"] = "block"  # "Must defend": it blocks, whatever response was asked
    a["dual_weapons"] = v.choice("dual_weapons", kw["dual_weapons"], DUAL)
    a["defender_dual_weapons"] = v.choice("defender_dual_weapons", kw["defender_dual_weapons"], DUAL)
    a["damage_rule"] = v.choice("damage_rule", kw["damage_rule"], ("v2", "v1"))
    a["kill_on"] = v.choice("kill_on", kw["kill_on"], ("above", "at_or_above"))
    a["melee_phys"] = v.choice("melee_phys", kw["melee_phys"], ("attacker", "defender"))
    if a["power_attack"] and a["dual_weapons"] is not None:
        v.forbid("power_attack", True, "False with dual_weapons",
                 "a power attack needs a two-handed weapon, dual weapons take both hands")
    if a["defender_power_attack"] and (a["defender_dual_weapons"] is not None or a["shield"]):
        v.forbid("defender_power_attack", True, "False with defender_dual_weapons or shield",
                 "a power attack needs a two-handed weapon")
    if a["shield"] and a["defender_dual_weapons"] is not None:
        v.forbid("shield", True, "False with defender_dual_weapons", "dual weapons take both hands")
    if a["response"] == "block" and a["defender_power_attack"]:
        v.forbid("defender_power_attack", True, "False with response='block'",
                 "a power attack is a counter option")
    if a["shield_when_countering"] and not a["shield"]:
        v.forbid("shield_when_countering", True, "False without shield=True")
    counter = a["response"] == "counter"
    v1_names = ("attacker_damage", "attacker_strength", "defender_defence",
                "defender_damage", "defender_strength", "attacker_defence")
    if a["damage_rule"] == "v2":
        for name in v1_names:
            if kw[name] is not None:
                v.forbid(name, kw[name], "None with damage_rule='v2'",
                         "Damage, Strength and Defence are damage v1 stats")
            a[name] = None
        strike_phys = "attacker_phys" if a["melee_phys"] == "attacker" else "defender_phys"
        counter_phys = "defender_phys" if a["melee_phys"] == "attacker" else "attacker_phys"
        needed: Sequence[str] = [strike_phys] + ([counter_phys] if counter else [])
        for name in needed:
            if a[name] is None:
                v.forbid(name, None, f"a whole number from {STAT_RANGE[0]} to {STAT_RANGE[1]}",
                         f"melee damage v2 rolls above the {a['melee_phys']}'s PHYS"
                         + (" (the counter too)" if counter else ""))
    else:
        needed = v1_names[:3] + (v1_names[3:] if counter else ())
        for name in v1_names:
            if kw[name] is None and name in needed:
                v.forbid(name, None, f"a whole number from {V1_RANGE[0]} to {V1_RANGE[1]} with damage_rule='v1'",
                         "melee damage v1 compares weapon Damage + Strength with the target's Defence")
            a[name] = v.optional_integer(name, kw[name], *V1_RANGE)
        for name in ("attacker_weapon_bonus", "defender_weapon_bonus"):
            if a[name]:
                v.forbid(name, a[name], "0 with damage_rule='v1'", "ATTACK BONUS is a damage v2 stat")
        for name in ("attacker_armour", "defender_armour"):
            if a[name] != "none":
                v.forbid(name, a[name], "'none' with damage_rule='v1'",
                         "damage v1 uses Defence instead of armour levels")
        if a["kill_on"] != "above":
            v.forbid("kill_on", a["kill_on"], "'above' with damage_rule='v1'", "kill_on is a damage v2 switch")
    return a


def _cc_dice(a: dict):
    """The exchange and damage tests of one close combat, with plain-words pieces."""
    att_hit = (1 if a["facing_away"] else 0) - int(a["outnumbered"]) - int(a["power_attack"]) \
        - int(a["dual_weapons"] == "hit") - int(a["attacker_wounded"]) - int(a["attacker_shocked"])
    n_att = 2 if a["dual_weapons"] is not None else 1
    def_roll = -int(a["defender_outnumbered"]) - int(a["defender_wounded"]) - int(a["defender_shocked"])
    def_weapon = def_roll - int(a["defender_dual_weapons"] == "hit")
    n_def_weapon = 2 if a["defender_dual_weapons"] is not None else 1
    block: tuple[int, ...]
    counter: tuple[int, ...]
    if a["response"] == "block":
        block = (def_weapon,) * n_def_weapon + ((def_roll,) if a["shield"] else ())
        counter = ()
    else:
        block = (def_roll,) if a["shield_when_countering"] else ()
        counter = (def_weapon - int(a["defender_power_attack"]),) * n_def_weapon
    exchange = Exchange(attacker_cqc=a["attacker_cqc"], defender_cqc=a["defender_cqc"],
                        attack_mods=(att_hit,) * n_att, block_mods=block, counter_mods=counter)

    v2 = a["damage_rule"] == "v2"
    strike_phys = a["attacker_phys"] if a["melee_phys"] == "attacker" else a["defender_phys"]
    counter_phys = a["defender_phys"] if a["melee_phys"] == "attacker" else a["attacker_phys"]
    att_dmg_mod = 2 * int(a["power_attack"]) - int(a["dual_weapons"] == "damage") + int(a["from_rear"]) \
        - int(a["attacker_wounded"]) - int(a["attacker_shocked"])
    strike = _melee_kill_test(a["damage_rule"], a["kill_on"], strike_phys, a["attacker_weapon_bonus"],
                              att_dmg_mod, a["defender_armour"],
                              None if v2 else a["attacker_damage"] + a["attacker_strength"],
                              None if v2 else a["defender_defence"])
    counters = None
    if a["response"] == "counter":
        c_mod = 2 * int(a["defender_power_attack"]) - int(a["defender_dual_weapons"] == "damage") \
            - int(a["defender_wounded"]) - int(a["defender_shocked"])
        args = (a["damage_rule"], a["kill_on"], counter_phys, a["defender_weapon_bonus"])
        v1 = (None if v2 else a["defender_damage"] + a["defender_strength"],
              None if v2 else a["attacker_defence"])
        counters = (_melee_kill_test(*args, c_mod, a["attacker_armour"], *v1),
                    _melee_kill_test(*args, c_mod - 1, a["attacker_armour"], *v1))
    return exchange, strike, counters, att_hit


def _saves(stat, shocked: bool = False):
    """(unwounded, wounded) heroic save tests of a model, or None: d10 >= stat, at -1 when wounded,
    and a further -1 when shocked (a shock token's "-1 to all rolls")."""
    if stat is None:
        return None
    stat = stat + int(shocked)
    return RollHigh(target=stat, sides=DIE), RollHigh(target=stat + 1, sides=DIE)


CC_NOTE_V1 = (
    "Melee damage v1 (d6, Kill Team style): attack = weapon Damage + wielder Strength against the struck "
    "model's Defence (Defence >= 2 x attack 6+, Defence better 5+, equal 4+, attack better 3+, attack >= 2 x "
    "Defence 2+); the melee roll modifiers (+2 power attack, +1 from the rear, -1 dual weapons for damage, "
    "-1 wounded) are added to the d6.")

#: how a shocked defender may answer: "any" (block or counter, the default) or "block_only"
SHOCKED_DEFENCES = ("any", "block_only")
CC_NOTE_SHOCK_BLOCK = (
    "Variant shocked_defence='block_only': 'A unit who has received a shock token 1. Must defend and attempt "
    "to disengage from CQC' read as: a shocked defender blocks (a counter is an attack, not a defence), "
    "whatever response was chosen; the disengaging is movement, not modelled.")
CC_NOTE_ROUNDS = (
    "Several rounds: 'otherwise they remain in CQC for their next activation': the same exchange is fought "
    "again (the defender keeps its response) until one side is downed or the round limit; a model wounded "
    "in one round is -1 to all rolls in the next ('A wounded model is -1 to all rolls'). Its one step is "
    "the chance the defender is downed within the rounds (the first round's steps in its detail); pushback "
    "is the first round's.")

CC_NOTE_SHOCK = (
    "Shocked: 'A unit who has received a shock token ... Has -1 to all rolls': -1 to the shocked fighter's "
    "hit, block and counter dice, damage rolls and heroic saves in every round; it marks no wound (a tough "
    "model still absorbs its first kill), and it adds to a wound's -1.")

CC_NOTES = (
    "Close combat: the attacker hits on d10 + modifiers >= its CQC (+1 target facing away, -1 outnumbered, "
    "-1 power attack, -1 dual weapons for hit, -1 wounded, -1 shocked).",
    "Block: each defender success (d10 + modifiers >= its own CQC) cancels one hit; a shield adds a die "
    "'only used to block'; dual weapons add a second weapon die (blocking too).",
    "Counter: 'rolling to hit and damage - AFTER the attacker': it lands only if the defender is still "
    "standing; a defender wounded by this attack counters at -1 ('-1 to all rolls').",
    "Melee damage v2: d10 + ATTACK BONUS (+2 power attack, +1 from the rear, -1 dual for damage) - armour "
    "level must roll above PHYS ('Roll above attacker's PHYS to kill': the striker's PHYS by default; "
    "melee_phys='defender' uses the struck model's PHYS).",
    "Pushback: the fighter with a success (or the higher modified successful roll if both succeeded); "
    "a tie or no success: nobody.",
)


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

    * Attacker: one die (two with ``dual_weapons="hit"|"damage"``: both at -1
      to hit or both at -1 to damage), hits on d10 + modifiers >= ``attacker_cqc``;
      modifiers +1 ``facing_away`` (the target faces away), -1 ``outnumbered``
      (the attacker is outnumbered), -1 ``power_attack`` (two-handed: +2 to the
      damage roll), -1 ``attacker_wounded``, -1 ``attacker_shocked``.
    * Defender, chosen before the roll (``response``): ``"block"``: one die
      (two with dual weapons, plus one with a ``shield``), each d10 + modifiers
      >= ``defender_cqc`` cancels one hit; ``"counter"``: one die (two with
      dual weapons) to hit the attacker, then damage, only if the defender is
      still standing (``shield_when_countering=True``: the shield die still
      blocks). Defender modifiers: -1 ``defender_outnumbered``, -1
      ``defender_wounded``, -1 ``defender_shocked``, -1 dual weapons for hit,
      -1 its power attack.
    * Damage v2: d10 + weapon ATTACK BONUS (+2 power attack, +1 ``from_rear``,
      -1 dual for damage, -1 wounded) - the struck model's armour level >
      PHYS (the striker's PHYS, ``melee_phys="attacker"``, as the seed says;
      ``kill_on="at_or_above"`` variant). Damage v1: d6 table with attack =
      weapon Damage + wielder Strength against the struck model's Defence,
      the same roll modifiers on the d6.
    * ``*_wounded``: the model already carries a wound (-1 to all rolls; if
      also ``*_tough``, its next unsaved kill downs it).
    * ``*_shocked``: the fighter's unit carries a shock token: "A unit who
      has received a shock token ... 2. Has -1 to all rolls": -1 to its hit,
      block and counter dice, its damage rolls and its heroic saves, for every
      round (a token is removed only by actions outside close combat). Unlike
      ``*_wounded`` it marks no wound: a shocked tough model still absorbs its
      first kill. Shock and a wound add up (-2). ``shocked_defence``: how a
      shocked defender may answer, "any" (block or counter, default) or
      "block_only" (the seed's "Must defend and attempt to disengage from
      CQC": it blocks whatever ``response`` says). ``*_tough``: absorbs
      one unsaved kill. ``*_heroic_save``: the stat a kill is saved against
      (d10 >= it; -1 when wounded).

    ``rounds``: fight up to this many rounds (1 to 20), or until one side is
    downed; ``rounds=1`` is the single exchange. The seed: "otherwise they
    remain in CQC for their next activation". Each round repeats the exchange
    (same response) with the fighters' current states: a model wounded in a
    round is -1 to all rolls in the rounds after.

    ``pmf`` = [P(defender standing), P(defender downed)] after the fight.
    Effects: ``defender_downed``, ``attacker_downed`` (by a counter),
    ``defender_newly_wounded``, ``attacker_newly_wounded`` (standing and
    wounded at the end), ``pushback_attacker``, ``pushback_defender``,
    ``pushback_none`` (the first round's) and, with ``rounds > 1``,
    ``rounds_fought`` (expected).
    """
    kw = dict(locals())
    a = _check_cc(kw)
    rounds = v.integer("rounds", rounds, 1, MAX_ROUNDS)
    method, samples, rng = v.method_args(method, samples, seed)
    exchange, strike, _counters, att_hit = _cc_dice(a)
    d_saves = _saves(a["defender_heroic_save"], a["defender_shocked"])
    stages = _cc_stages(a, exchange, strike, att_hit, d_saves)
    notes = [n for n in CC_NOTES if a["damage_rule"] == "v2" or not n.startswith("Melee damage v2")]
    if a["damage_rule"] == "v1":
        notes.insert(3, CC_NOTE_V1)
    if a["attacker_shocked"] or a["defender_shocked"]:
        notes.append(CC_NOTE_SHOCK)
    if a["defender_shocked"] and a["shocked_defence"] == "block_only":
        notes.append(CC_NOTE_SHOCK_BLOCK)
    if rounds > 1:
        notes.append(CC_NOTE_ROUNDS)
        stages = _rounds_stage(stages, rounds, _rounds_effects(a, rounds)["defender_downed"])
    inputs = dict(a, rounds=rounds, method=method)
    label = "defenders downed"

    if method == "exact":
        out = _close_combat_exact(a, rounds, inputs, stages, notes, label)
        return out.replace(stage_pmfs=CloseCombatPasses(a, rounds))

    start_aw, start_dw = a["attacker_wounded"], a["defender_wounded"]
    by_state = {(aw, dw): dict(a, attacker_wounded=aw, defender_wounded=dw)
                for aw in (False, True) for dw in (False, True)}
    dice_by_state = {k: _round_dice(s) for k, s in by_state.items()}

    def one_chunk(m: int) -> dict:
        aw = np.full(m, start_aw)
        dw = np.full(m, start_dw)
        d_down = np.zeros(m, dtype=bool)
        a_down = np.zeros(m, dtype=bool)
        push = np.zeros(m, dtype=np.int64)
        fought = np.zeros(m, dtype=np.int64)
        for r in builtins.range(rounds):
            alive = ~d_down & ~a_down
            groups = [(key, np.nonzero(alive & (aw == key[0]) & (dw == key[1]))[0]) for key in by_state]
            for key, idx in groups:
                if not idx.size:
                    continue
                res = _round_sample(by_state[key], dice_by_state[key], idx.size, rng)
                fought[idx] += 1
                if r == 0:
                    push[idx] = res["winner"]
                d_down[idx] |= res["d_down"]
                a_down[idx] |= res["a_down"]
                dw[idx] |= res["d_new"]
                aw[idx] |= res["a_new"]
        out = {"removed": d_down.astype(np.int64), "defender_downed": d_down, "attacker_downed": a_down,
               "defender_newly_wounded": dw & ~d_down & (not start_dw),
               "attacker_newly_wounded": aw & ~a_down & (not start_aw),
               "pushback_none": push == 0, "pushback_attacker": push == 1, "pushback_defender": push == 2}
        if rounds > 1:
            out["rounds_fought"] = fought
        return out

    tally = pipeline.tally_sampled(samples, (exchange.dice + 8) * rounds, one_chunk, 2)
    return pipeline.tally_outcome(KEY, "close_combat", inputs, tally, stages, attacks=1 if rounds == 1 else None,
                                  notes=notes, label=label)


def _round_dice(a: dict):
    """The dice of one round for the fighters' states in ``a``: the exchange,
    the strike and counter damage tests and both fighters' heroic saves."""
    exchange, strike, counters, _att_hit = _cc_dice(a)
    return (exchange, strike, counters, _saves(a["defender_heroic_save"], a["defender_shocked"]),
            _saves(a["attacker_heroic_save"], a["attacker_shocked"]))


def _round_exact(a: dict):
    """One round, exactly: the joint distribution of what happens to the
    defender and to the attacker, {(defender, attacker): P} with each "down",
    "wounded" (newly, standing) or "same", and P(pushback winner) 0/1/2."""
    exchange, strike, counters, d_saves, a_saves = _round_dice(a)
    zero = Fraction(0)
    joint: dict = {}
    push = [zero, zero, zero]
    cache: dict = {}

    def chain(n, test, saves, tough, start):
        key = (n, id(test), tough, start)
        if key not in cache:
            sf, sw = (zero, zero) if saves is None else (saves[0].success, saves[1].success)
            cache[key] = _chain_down(n, test.success, sf, sw, tough, start)
        return cache[key]

    def add(key, p):
        if p:
            joint[key] = joint.get(key, zero) + p

    for label_i, p in exchange.probabilities.items():
        if p == 0:
            continue
        h, c, cw, w = (int(x) for x in _decode(exchange.labels.index(label_i)))
        push[w] += p
        d_down, d_new = chain(h, strike, d_saves, a["defender_tough"], a["defender_wounded"])
        add(("down", "same"), p * d_down)
        for d_state, prob, n_hits, k in (("same", 1 - d_down - d_new, c, 0), ("wounded", d_new, cw, 1)):
            if not prob:
                continue
            if counters is None:
                add((d_state, "same"), p * prob)
                continue
            a_down, a_new = chain(n_hits, counters[k], a_saves, a["attacker_tough"], a["attacker_wounded"])
            add((d_state, "down"), p * prob * a_down)
            add((d_state, "wounded"), p * prob * a_new)
            add((d_state, "same"), p * prob * (1 - a_down - a_new))
    return joint, push


def _close_combat_exact(a: dict, rounds: int, inputs, stages, notes, label) -> Outcome:
    """Up to ``rounds`` rounds as a chain over the fighters' wounded states
    (a model wounded in one round fights the next at -1), stopping when one
    side is downed; Fractions throughout."""
    effects = _rounds_effects(a, rounds)
    pmf = np.array([float(1 - effects["defender_downed"]), float(effects["defender_downed"])])
    return pipeline.exact_outcome(KEY, "close_combat", inputs, pmf, stages,
                                  {k: float(x) for k, x in effects.items()},
                                  attacks=1 if rounds == 1 else None, notes=notes, label=label)


def _rounds_stage(first: tuple[Stage, ...], rounds: int, p_downed: Fraction) -> tuple[Stage, ...]:
    """The stages of a fight of up to ``rounds`` rounds: one step, the
    defender downed within them, whose chance is exactly P(defender downed)
    (so "Per attack" reads the whole fight's chance); its detail recounts the
    first round's steps, the rounds after being the same exchange at the
    fighters' new states."""
    steps = " × ".join(f"{st.name} {st.probability}" for st in first)
    first_p = Fraction(1)
    for st in first:
        first_p *= st.probability
    return (Stage(f"downed within {rounds} rounds", p_downed,
                  f"the first round {steps} = {first_p}; then the same exchange again until one side "
                  f"is downed or {rounds} rounds are fought, a model wounded in a round at -1 in the next"),)


def _rounds_effects(a: dict, rounds: int) -> dict:
    """The effects of up to ``rounds`` rounds as Fractions (see :func:`_close_combat_exact`)."""
    zero = Fraction(0)
    state = {(a["attacker_wounded"], a["defender_wounded"]): Fraction(1)}
    p_def_down = p_att_down = expected_rounds = zero
    ended: dict = {}   # fights over by a downing: (attacker wounded and standing, defender wounded and standing)
    push_first = None
    for _ in builtins.range(rounds):
        nxt: dict = {}
        for (aw, dw), ps in state.items():
            joint, push = _round_exact(dict(a, attacker_wounded=aw, defender_wounded=dw))
            if push_first is None:
                push_first = push
            expected_rounds += ps
            for (d_state, a_state), q in joint.items():
                key = (aw or a_state == "wounded", dw or d_state == "wounded")
                if d_state == "down":
                    p_def_down += ps * q
                    ended[(key[0], False)] = ended.get((key[0], False), zero) + ps * q
                elif a_state == "down":
                    p_att_down += ps * q
                    ended[(False, key[1])] = ended.get((False, key[1]), zero) + ps * q
                else:
                    nxt[key] = nxt.get(key, zero) + ps * q
        state = nxt
    if push_first is None:  # rounds is checked to be 1 or more: the first round sets it
        raise RuntimeError("no round of close combat was fought")
    # standing and wounded at the end (whether the fight ended by a downing or by the round limit)
    finals = list(state.items()) + list(ended.items())
    d_new = sum((p for (aw, dw), p in finals if dw), zero) if not a["defender_wounded"] else zero
    a_new = sum((p for (aw, dw), p in finals if aw), zero) if not a["attacker_wounded"] else zero
    effects = {"defender_downed": p_def_down, "attacker_downed": p_att_down,
               "defender_newly_wounded": d_new, "attacker_newly_wounded": a_new,
               "pushback_none": push_first[0], "pushback_attacker": push_first[1],
               "pushback_defender": push_first[2]}
    if rounds > 1:
        effects["rounds_fought"] = expected_rounds
    return effects


def _round_sample(a: dict, dice, m: int, rng) -> dict:
    """One round for ``m`` fights in the states of ``a``, every die rolled."""
    exchange, strike, counters, d_saves, a_saves = dice
    h, c, cw, w = _decode(exchange.roll(rng, (m,)))
    n_att = len(exchange.attack_mods)
    kills = strike.is_success(strike.roll(rng, (m, n_att))) & (np.arange(n_att) < h[:, None])
    sf = sw = None
    if d_saves is not None:
        faces = roll_faces(rng, DIE, (m, n_att, 1))
        sf, sw = _judge_both(d_saves, faces)
    d_down, d_new = _chain_sample(kills, sf, sw, a["defender_tough"], a["defender_wounded"])
    a_down = np.zeros(m, dtype=bool)
    a_new = np.zeros(m, dtype=bool)
    if counters is not None:
        n_c = len(exchange.counter_mods)
        faces = roll_faces(rng, counters[0].sides, (m, n_c, 1))
        ok_same, ok_new = _judge_both(counters, faces)
        n_hits = np.where(d_new, cw, c)
        ok = np.where(d_new[:, None], ok_new, ok_same)
        ckills = ok & (np.arange(n_c) < n_hits[:, None]) & ~d_down[:, None]
        sf = sw = None
        if a_saves is not None:
            sfaces = roll_faces(rng, DIE, (m, n_c, 1))
            sf, sw = _judge_both(a_saves, sfaces)
        a_down, a_new = _chain_sample(ckills, sf, sw, a["attacker_tough"], a["attacker_wounded"])
    return {"d_down": d_down, "d_new": d_new, "a_down": a_down, "a_new": a_new, "winner": w}


def _cc_stages(a: dict, exchange: Exchange, strike: RollHigh, att_hit: int, d_saves) -> tuple[Stage, ...]:
    """The steps of one close-combat attack, whose product is exactly
    P(the defender is downed): to hit (at least one attack die), not blocked
    (at least one hit left after the defender's blocks, given a hit), and the
    damage (the kill roll and the heroic save; with two hits or a tough
    defender, the chance the hits that got through down it)."""
    one = RollHigh(target=a["attacker_cqc"] - att_hit, sides=DIE)
    mods = []
    for on, m, text in ((a["facing_away"], 1, "target facing away"), (a["outnumbered"], -1, "outnumbered"),
                        (a["power_attack"], -1, "power attack"), (a["dual_weapons"] == "hit", -1, "dual weapons"),
                        (a["attacker_wounded"], -1, "wounded"), (a["attacker_shocked"], -1, "shocked")):
        if on:
            mods.append(f"{_signed(m)} {text}")
    with_text = (" with " + ", ".join(mods)) if mods else ""
    dice = len(exchange.attack_mods)
    p_die = one.success
    p_any = 1 - (1 - p_die) ** dice
    hit_words = (f"CQC {a['attacker_cqc']}{with_text} {one.describe('d10')}: {_ratio(p_die, DIE)}"
                 + (f" per die; at least one of {dice} dice hits: 1 {_MINUS} (1 {_MINUS} {p_die})^{dice}"
                    if dice > 1 else "") + f" (defender chose {a['response']})")
    stages = [Stage("to hit", p_any, hit_words, faces=DIE if dice == 1 else None)]

    # P(h >= 1 unblocked hits) and P(defender downed), exactly, from the exchange
    zero = Fraction(0)
    p_through = zero
    p_down = zero
    sf, sw = (zero, zero) if d_saves is None else (d_saves[0].success, d_saves[1].success)
    for label_i, p in exchange.probabilities.items():
        h = int(_decode(exchange.labels.index(label_i))[0])
        if p and h:
            p_through += p
            p_down += p * _chain_down(h, strike.success, sf, sw, a["defender_tough"], a["defender_wounded"])[0]
    if exchange.block_mods:
        n_b = len(exchange.block_mods)
        d_mods = [f"{_MINUS}1 {text}" for on, text in (
            (a["defender_outnumbered"], "outnumbered"), (a["defender_wounded"], "wounded"),
            (a["defender_shocked"], "shocked"),
            (a["defender_dual_weapons"] == "hit" and a["response"] == "block", "dual weapons, weapon dice")) if on]
        d_text = f" {' '.join(d_mods)}" if d_mods else ""
        stages.append(Stage("not blocked", p_through / p_any if p_any else zero,
                            f"the defender's {n_b} blocking {'die' if n_b == 1 else 'dice'} (d10{d_text} >= CQC "
                            f"{a['defender_cqc']}, each cancels one hit) leave at least one hit"))

    if a["damage_rule"] == "v2":
        phys = a["attacker_phys"] if a["melee_phys"] == "attacker" else a["defender_phys"]
        kdetail = (f"d10 {_signed(a['attacker_weapon_bonus'])} ATTACK BONUS"
                   + (" +2 power attack" if a["power_attack"] else "")
                   + (" +1 from the rear" if a["from_rear"] else "")
                   + (f" {_MINUS}1 dual weapons" if a["dual_weapons"] == "damage" else "")
                   + (f" {_MINUS}1 wounded" if a["attacker_wounded"] else "")
                   + (f" {_MINUS}1 shocked" if a["attacker_shocked"] else "")
                   + f" {_MINUS}{ARMOUR[a['defender_armour']]} {a['defender_armour']} armour must roll "
                   + ("above" if a["kill_on"] == "above" else "at or above")
                   + f" PHYS {phys} ({a['melee_phys']}'s): {strike.describe('d10')}: {_ratio(strike.success, DIE)}")
    else:
        att = a["attacker_damage"] + a["attacker_strength"]
        base = _v1_need(att, a["defender_defence"])
        roll = [text for on, text in ((a["power_attack"], "+2 power attack"), (a["from_rear"], "+1 from the rear"),
                                      (a["dual_weapons"] == "damage", f"{_MINUS}1 dual weapons"),
                                      (a["attacker_wounded"], f"{_MINUS}1 wounded"),
                                      (a["attacker_shocked"], f"{_MINUS}1 shocked")) if on]
        kdetail = (f"damage v1: Damage + Strength {att} against Defence {a['defender_defence']} kills on {base}+"
                   + (f" with {', '.join(roll)} on the d6" if roll else "")
                   + f": {strike.describe('d6')}: {_ratio(strike.success, DAMAGE_V1_DIE)}")
    simple = dice == 1 and not a["defender_tough"]
    if simple:
        stages.append(Stage("to kill", strike.success, kdetail, faces=strike.sides))
        if d_saves is not None:
            s = sw if a["defender_wounded"] else sf
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


# ---------------------------------------------------------------------------
# stage by stage: the passes of each step over the whole fight
# ---------------------------------------------------------------------------
def _stage_die(test: RollHigh, modifier: int = 0) -> StageDie:
    return StageDie(sides=test.sides, roll_high=True, target=int(test.target), modifier=modifier)


def _mechanism_round(a: dict) -> mechanism.Round:
    """The dice of one round at the fighters' states in ``a``, one StageDie per die thrown."""
    exchange, strike, counters, d_saves, a_saves = _round_dice(a)

    def d10(target, mods, shift=0):
        return tuple(StageDie(sides=DIE, roll_high=True, target=target, modifier=m + shift) for m in mods)

    return mechanism.Round(
        attack=d10(a["attacker_cqc"], exchange.attack_mods), strike=_stage_die(strike),
        block=d10(a["defender_cqc"], exchange.block_mods), counter=d10(a["defender_cqc"], exchange.counter_mods),
        counter_hurt=d10(a["defender_cqc"], exchange.counter_mods, -1),
        counter_damage=None if counters is None else (_stage_die(counters[0]), _stage_die(counters[1])),
        defender_saves=None if d_saves is None else (_stage_die(d_saves[0]), _stage_die(d_saves[1])),
        attacker_saves=None if a_saves is None else (_stage_die(a_saves[0]), _stage_die(a_saves[1])))


def _stage_steps(a: dict) -> dict[str, str]:
    """The attacker's stages (as :func:`_cc_stages` names them for one round) -> the step of
    :data:`~workbench.rules.mechanisms.two_sided_close_combat.STEPS` whose passes they count:
    the hits, the hits not blocked, then the kills and the kills not saved or, where the stage
    "to kill" stands for the hits that got through downing the defender (two attack dice, a
    tough defender), the defender downed."""
    steps = {"to hit": "hits"}
    if a["response"] == "block" or a["shield_when_countering"]:
        steps["not blocked"] = "unblocked"
    if a["dual_weapons"] is None and not a["defender_tough"]:
        steps["to kill"] = "kills"
        if a["defender_heroic_save"] is not None:
            steps["heroic save fails"] = "unsaved"
    else:
        steps["to kill"] = "downed"
    return steps


class CloseCombatPasses(Mapping):
    """``Outcome.stage_pmfs`` of a close combat: stage name -> P(k of the attacker's dice pass
    that stage over the whole fight, every round fought), exact; computed on first reading
    (a plain dict when pickled). A kill counts while the defender stands."""

    def __init__(self, a: dict, rounds: int):
        self._a = dict(a)
        self._rounds = rounds
        self._steps = _stage_steps(a)
        self._done: dict | None = None

    def _all(self) -> dict:
        if self._done is None:
            a = self._a
            got = mechanism.fight(
                lambda aw, dw: _mechanism_round(dict(a, attacker_wounded=aw, defender_wounded=dw)),
                rounds=self._rounds, attacker_tough=a["attacker_tough"], defender_tough=a["defender_tough"],
                attacker_wounded=a["attacker_wounded"], defender_wounded=a["defender_wounded"])
            done = {}
            for name, step in self._steps.items():
                pmf = np.array([float(p) for p in got.passes[step]])
                pmf.setflags(write=False)
                done[name] = pmf
            self._done = done
        return self._done

    def __getitem__(self, name: str) -> np.ndarray:
        return self._all()[name]

    def __iter__(self):
        return iter(self._steps)

    def __len__(self) -> int:
        return len(self._steps)

    def __reduce__(self):
        return (dict, (self._all(),))
