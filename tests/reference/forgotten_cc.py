"""The hand-written Forgotten close-combat resolver, kept as a reference oracle.

This is ``workbench.systems.forgotten.close_combat`` as it was written by
hand before it resolved through its rule file
(``rules/forgotten/close_combat.toml``, the ``two_sided_close_combat``
mechanism): the exchange as one multi-die test, the damage chains, the rounds
as a chain over the fighters' wounded states, and its own sampled path. The
argument checks, the stages' and notes' words are the live file's (only the
numbers are this module's: the stages' chances are computed here, from the
exchange, and must be the file's stage by stage).
"""
from __future__ import annotations

import builtins
import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import numpy as np

from workbench import pipeline
from workbench import validate as v
from workbench.dice import roll_faces
from .dice import DieTest, RollHigh
from workbench.outcome import Outcome
from workbench.systems import ownfile
from workbench.rules.die import DieRoll, roll_high
from workbench.systems.forgotten_cc import _check_cc
from workbench.systems.forgotten_rules import ARMOUR, DAMAGE_V1_DIE, DIE, KEY, _file_stats
from .forgotten import _v1_need
from .forgotten_state import _absorb_step, _judge_both

__all__ = ["close_combat", "Exchange"]

#: close-combat rounds one call may fight
MAX_ROUNDS = 20

# ---------------------------------------------------------------------------
# close combat
# ---------------------------------------------------------------------------
def _melee_kill_test(damage_rule, kill_on, phys, bonus, roll_mod, armour, v1_attack, v1_defence) -> DieRoll:
    """One melee damage die. v2: d10 + ATTACK BONUS + roll_mod - armour > PHYS; v1: d6 table + roll_mod."""
    if damage_rule == "v2":
        need = phys + (1 if kill_on == "above" else 0) - bonus - roll_mod + ARMOUR[armour]
        return roll_high(need, DIE)
    return roll_high(_v1_need(v1_attack, v1_defence) - roll_mod, DAMAGE_V1_DIE)


def _saves(stat, shocked: bool = False):
    """(unwounded, wounded) heroic save tests of a model, or None: d10 >= stat, at -1 when wounded,
    and a further -1 when shocked (a shock token's "-1 to all rolls")."""
    if stat is None:
        return None
    stat = stat + int(shocked)
    return roll_high(stat, DIE), roll_high(stat + 1, DIE)


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
    """The hand-written resolution (see the module's docstring)."""
    kw = dict(locals())
    a = _check_cc(kw)
    rounds = v.integer("rounds", rounds, 1, MAX_ROUNDS)
    method, samples, rng = v.method_args(method, samples, seed)
    exchange, strike, _counters, att_hit = _cc_dice(a)
    d_saves = _saves(a["defender_heroic_save"], a["defender_shocked"])
    rs = ownfile.load(KEY, "close_combat")
    notes = rs.notes_at(**_file_stats(rs, a, rounds=rounds))
    chances = _stage_chances(a, exchange, strike, d_saves, att_hit, *_through_and_down(a, exchange, strike, d_saves))
    if rounds > 1:
        chances = (_rounds_effects(a, rounds)["defender_downed"],)
    # the words are the file's: its stages must be as many as the reference counts, each with its chance
    words = rs.fractions(**_file_stats(rs, a, rounds=rounds))["stages"]
    assert len(words) == len(chances), (words, chances)
    stages = tuple(dataclasses.replace(st, probability=p) for st, p in zip(words, chances))
    inputs = dict(a, rounds=rounds, method=method)
    label = "defenders downed"

    if method == "exact":
        return _close_combat_exact(a, rounds, inputs, stages, notes, label)

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
    return Outcome(KEY, "close_combat", inputs, pmf, stages,
                   {k: float(x) for k, x in effects.items()},
                   attacks=1 if rounds == 1 else None, notes=notes, label=label)


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


def _stage_chances(a: dict, exchange: Exchange, strike: RollHigh, d_saves, att_hit: int, p_through: Fraction,
                   p_down: Fraction) -> tuple[Fraction, ...]:
    """The chances of one round's stages, whose product is P(the defender downed): at least one of
    the attacker's dice hits; given a hit, at least one left after the blocks (where the defender
    has blocking dice); then the kill roll and the heroic save failed where one die strikes a
    defender who is not tough, else the chance the hits that got through down it."""
    dice = len(exchange.attack_mods)
    p_any = 1 - (1 - RollHigh(a["attacker_cqc"] - att_hit, DIE).success) ** dice
    out = [p_any]
    if exchange.block_mods:
        out.append(p_through / p_any if p_any else Fraction(0))
    if dice == 1 and not a["defender_tough"]:
        out.append(strike.success)
        if d_saves is not None:
            out.append(1 - d_saves[1 if a["defender_wounded"] else 0].success)
    else:
        out.append(p_down / p_through if p_through else Fraction(0))
    return tuple(out)


def _through_and_down(a: dict, exchange: Exchange, strike: RollHigh, d_saves) -> tuple[Fraction, Fraction]:
    """P(at least one hit left after the blocks) and P(the defender downed), exactly, from the exchange."""
    zero = Fraction(0)
    p_through = zero
    p_down = zero
    sf, sw = (zero, zero) if d_saves is None else (d_saves[0].success, d_saves[1].success)
    for label_i, p in exchange.probabilities.items():
        h = int(_decode(exchange.labels.index(label_i))[0])
        if p and h:
            p_through += p
            p_down += p * _chain_down(h, strike.success, sf, sw, a["defender_tough"], a["defender_wounded"])[0]
    return p_through, p_down
