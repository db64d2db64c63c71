"""Two-sided close combat over rounds, the arithmetic of the named mechanism
``two_sided_close_combat`` (:mod:`.two_sided_close_combat` reads a file's dice): a
fight between one attacker and one defender who both throw dice in the same exchange, fought
again round after round until one side is downed or the round limit.

What is rolled is said by the caller as :class:`~workbench.rules.die.StageDie`
dice, one per die thrown (:class:`Round`, for the fighters' states at the
start of a round); this module only adds up what the dice do:

1. the attacker's dice hit; each success of the defender's blocking dice
   cancels one hit;
2. each hit left rolls the attacker's damage die while the defender stands;
   a kill is ignored on a passed heroic save (the wounded save, once the
   model is wounded); an unsaved kill wounds a fresh tough model and downs
   any other;
3. a defender still standing counters: its counter dice hit (at the
   "newly wounded" dice if this attack wounded it), each hit rolling the
   counter's damage die on the attacker in the same way;
4. a fighter wounded in a round fights the next at its wounded dice.

Pushback (the first round's): the fighter with a success (any hit, block or
counter hit) or, both succeeding, the higher best modified successful roll;
a tie or no success: nobody.

Exact: integers over the product of the dice's faces, given as Fractions; :func:`fight` gives
the effects and, per step of :data:`STEPS`, the distribution of how many of the attacker's dice
pass it over the whole fight (the outcome: docs/rulefiles.md, "Named mechanisms").
Sampled: :func:`sample`, every die rolled.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Mapping

import numpy as np

from ..die import CRITICAL, SUCCESS, StageDie

__all__ = ["Round", "Fight", "fight", "sample", "STEPS"]

#: the steps of the attacker's attack whose passes :func:`fight` counts, in order
STEPS = ("hits", "unblocked", "kills", "unsaved", "downed")


@dataclass(frozen=True, eq=False)
class Round:
    """The dice of one round, for the fighters' states at its start.

    ``attack``: the attacker's hit dice; ``block``: the defender's blocking
    dice; ``counter``: its counter dice, and ``counter_hurt`` the same dice
    judged for a defender this attack newly wounded (the same faces, one
    die each); ``strike``: the attacker's damage die; ``counter_damage``: the
    counter's damage die (unhurt, newly wounded) or None without counters;
    ``*_saves``: a fighter's heroic save (unwounded, wounded) or None.
    """

    attack: tuple[StageDie, ...]
    strike: StageDie
    block: tuple[StageDie, ...] = ()
    counter: tuple[StageDie, ...] = ()
    counter_hurt: tuple[StageDie, ...] = ()
    counter_damage: tuple[StageDie, StageDie] | None = None
    defender_saves: tuple[StageDie, StageDie] | None = None
    attacker_saves: tuple[StageDie, StageDie] | None = None


@dataclass(frozen=True)
class Fight:
    """What a fight does, exactly: ``effects`` (the chances of each end, the first round's
    pushback, the expected rounds fought) and ``passes``: step of :data:`STEPS` -> P(k pass it
    over the whole fight), index k."""

    effects: Mapping[str, Fraction]
    passes: Mapping[str, tuple[Fraction, ...]]


# Exact arithmetic: a distribution is a dict of integer numerators over one denominator (a
# product of the dice's faces), so no sum or product normalises a Fraction; Fractions are made
# once, at the end.
@functools.lru_cache(maxsize=4096)
def _faces_passed(key: tuple) -> tuple[bool, ...]:
    """Per natural face of a die (the mechanism's dice are rolled once: no re-roll, no long shot):
    does it pass (a success or a critical)?"""
    die = StageDie(*key)
    return tuple(bool(x) for x in _passed(die, np.arange(1, die.sides + 1)))


def _passed(die: StageDie, faces: np.ndarray) -> np.ndarray:
    return np.isin(die.classify(faces), (SUCCESS, CRITICAL))


def _p(die: StageDie) -> tuple[int, int]:
    """(faces that pass, faces): a die's chance to pass."""
    return sum(_faces_passed(die.key)), die.sides


def _add(dist: dict, key, n: int) -> None:
    if n:
        dist[key] = dist.get(key, 0) + n


def _count(dice) -> tuple[dict[int, int], int]:
    """P(k of ``dice`` succeed), each die on its own roll: (numerators by k, denominator)."""
    both, den = _pairs(dice, dice)
    return {c: q for (c, _), q in both.items()}, den


def _pairs(dice, hurt) -> tuple[dict[tuple[int, int], int], int]:
    """P(c of ``dice`` and w of ``hurt`` succeed), die i of both judging the same face."""
    dist, den = {(0, 0): 1}, 1
    for a, b in zip(dice, hurt):
        both: dict = {}
        for x, y in zip(_faces_passed(a.key), _faces_passed(b.key)):
            _add(both, (int(x), int(y)), 1)
        nxt: dict = {}
        for (c, w), q in dist.items():
            for (x, y), n in both.items():
                _add(nxt, (c + x, w + y), q * n)
        dist, den = nxt, den * a.sides
    return dist, den


def _over(*dice: StageDie) -> tuple[tuple[int, ...], int]:
    """The dice's chances to pass as numerators over one denominator."""
    got = [_p(d) for d in dice]
    den = math.lcm(*(d for _, d in got))
    return tuple(n * (den // d) for n, d in got), den


def _saves(saves) -> tuple[tuple[int, ...], int]:
    """A heroic save's (unwounded, wounded) numerators over one denominator (none: never)."""
    return ((0, 0), 1) if saves is None else _over(*saves)


def _takes(hits: int, kill: tuple[int, int], saves, tough: bool, wounded: bool) -> dict:
    """A model taking ``hits`` hits one after the other: {(kills, unsaved, end): numerator}, over
    the denominator (``kill``'s x the save's) to the power ``hits``; end "down", "wounded"
    (newly, standing) or "same". ``kill``: the damage die's (numerator, denominator)."""
    k, dk = kill
    (s_fresh, s_hurt), ds = _saves(saves)
    whole = dk * ds
    dist = {(0, 0, "wounded" if wounded else "fresh"): 1}
    for _ in range(hits):
        nxt: dict = {}
        for (kills, unsaved, state), q in dist.items():
            if state == "down":
                _add(nxt, (kills, unsaved, state), q * whole)
                continue
            s = s_hurt if state == "wounded" else s_fresh
            _add(nxt, (kills, unsaved, state), q * (dk - k) * ds)
            _add(nxt, (kills + 1, unsaved, state), q * k * s)
            hurt = "wounded" if tough and state == "fresh" else "down"
            _add(nxt, (kills + 1, unsaved + 1, hurt), q * k * (ds - s))
        dist = nxt
    out: dict = {}
    for (kills, unsaved, state), q in dist.items():
        end = "down" if state == "down" else "wounded" if state == "wounded" and not wounded else "same"
        _add(out, (kills, unsaved, end), q)
    return out


def _best(dice) -> tuple[dict, int]:
    """P(the best modified successful roll of ``dice`` is x), None: no success."""
    dist: dict = {None: 1}
    den = 1
    for die in dice:
        rolls = [(good, face + int(die.modifier)) for face, good in enumerate(_faces_passed(die.key), 1)]
        nxt: dict = {}
        for best, q in dist.items():
            for good, r in rolls:
                b = best if not good else r if best is None else max(best, r)
                _add(nxt, b, q)
        dist, den = nxt, den * die.sides
    return dist, den


def _pushback(r: Round) -> tuple[Fraction, Fraction, Fraction]:
    """(nobody, attacker, defender) wins the pushback."""
    out = [0, 0, 0]
    (att, da), (dfn, dd) = _best(r.attack), _best(r.block + r.counter)
    for a, pa in att.items():
        for d, pd in dfn.items():
            win = 0 if a == d else 1 if d is None or (a is not None and a > d) else 2
            out[win] += pa * pd
    return Fraction(out[0], da * dd), Fraction(out[1], da * dd), Fraction(out[2], da * dd)


def _one_round(r: Round, tough: tuple[bool, bool], wounded: tuple[bool, bool]) -> tuple[dict, int]:
    """{(steps passed, (attacker wounded, defender wounded), who is down or None): numerator} of
    one round, and their denominator."""
    out: dict = {}
    a_tough, d_tough = tough
    aw, dw = wounded
    attack, d_attack = _count(r.attack)
    block, d_block = _count(r.block)
    counters, d_counter = _pairs(r.counter, r.counter_hurt) if r.counter else ({(0, 0): 1}, 1)
    strike = _p(r.strike)
    d_take = strike[1] * _saves(r.defender_saves)[1]       # one hit on the defender
    most = len(r.attack)                                     # the most hits: every term is over d_take ** most
    if r.counter_damage is None:
        damage, d_back, n_back = None, 1, 0
    else:
        (n0, n1), e = _over(*r.counter_damage)
        damage = ((n0, e), (n1, e))
        d_back, n_back = e * _saves(r.attacker_saves)[1], len(r.counter)   # one counter hit on the attacker
    for hits, pa in attack.items():
        for blocks, pb in block.items():
            h = max(hits - blocks, 0)
            pab = pa * pb * d_take ** (most - h)
            for (kills, unsaved, d_end), pd in _takes(h, strike, r.defender_saves, d_tough, dw).items():
                steps = (hits, h, kills, unsaved, int(d_end == "down"))
                dw2 = dw or d_end == "wounded"
                q = pab * pd
                if d_end == "down":
                    _add(out, (steps, (aw, dw2), "defender"), q * d_counter * d_back ** n_back)
                    continue
                for (c, cw), pc in counters.items():
                    n = cw if d_end == "wounded" else c
                    if damage is None or n == 0:
                        _add(out, (steps, (aw, dw2), None), q * pc * d_back ** n_back)
                        continue
                    kill = damage[1 if d_end == "wounded" else 0]
                    qc = q * pc * d_back ** (n_back - n)
                    for (_k, _u, a_end), pt in _takes(n, kill, r.attacker_saves, a_tough, aw).items():
                        down = "attacker" if a_end == "down" else None
                        _add(out, (steps, (aw or a_end == "wounded", dw2), down), qc * pt)
    return out, d_attack * d_block * d_take ** most * d_counter * d_back ** n_back


def _reachable(start: tuple[bool, bool], tough: tuple[bool, bool], rounds: int) -> list[tuple[bool, bool]]:
    """The fighters' states a fight from ``start`` can begin a round in: a fighter is wounded
    and stands only when it is tough."""
    if rounds == 1:
        return [start]
    return [(start[0] or x, start[1] or y) for x in ((False, True) if tough[0] else (False,))
            for y in ((False, True) if tough[1] else (False,))]


def fight(round_at: Callable[[bool, bool], Round], *, rounds: int, attacker_tough: bool = False,
          defender_tough: bool = False, attacker_wounded: bool = False, defender_wounded: bool = False) -> Fight:
    """Up to ``rounds`` rounds (1 or more), ``round_at(attacker_wounded,
    defender_wounded)`` giving the dice of a round at the fighters' states."""
    if rounds < 1:
        raise ValueError(f"rounds: expected 1 or more, got {rounds}")
    start = (attacker_wounded, defender_wounded)
    tough = (attacker_tough, defender_tough)
    first = round_at(*start)
    by_state = {state: _one_round(first if state == start else round_at(*state), tough, state)
                for state in _reachable(start, tough, rounds)}
    den = math.lcm(*(d for _, d in by_state.values()))       # one round's denominator in every state
    outcomes = {state: [(key, q * (den // d)) for key, q in got.items()] for state, (got, d) in by_state.items()}

    # Numerators: a fight still going after round i over den ** i; what has ended, over den ** rounds.
    # (state, step) -> {count so far: numerator} for fights still going (each step's numerators add up
    # to the fights going in that state); ends: (final state, who is down)
    going: dict = {start: [{0: 1} for _ in STEPS]}
    finished: list[dict] = [dict() for _ in STEPS]
    ends: dict = {}
    fought = 0
    for i in range(rounds):
        later = den ** (rounds - i - 1)          # what ends in this round, brought over den ** rounds
        nxt: dict = {}
        for state, per_step in going.items():
            weight = sum(per_step[0].values())
            fought += weight * den * later
            for (steps, new_state, down), q in outcomes[state]:
                target = None
                if down is None:
                    target = nxt.setdefault(new_state, [dict() for _ in STEPS])
                else:
                    _add(ends, (new_state, down), weight * q * later)
                for j, inc in enumerate(steps):
                    into, scale = (finished[j], q * later) if target is None else (target[j], q)
                    for k, p in per_step[j].items():
                        _add(into, k + inc, p * scale)
        going = nxt
    for state, per_step in going.items():
        _add(ends, (state, None), sum(per_step[0].values()))
        for into, counts in zip(finished, per_step):
            for k, p in counts.items():
                _add(into, k, p)
    whole = den ** rounds
    passes = {name: tuple(Fraction(d.get(k, 0), whole) for k in range(max(d) + 1))
              for name, d in zip(STEPS, finished)}

    def total(test) -> Fraction:
        return Fraction(sum(p for key, p in ends.items() if test(*key)), whole)

    none, att, dfn = _pushback(first)
    effects = {
        "defender_downed": total(lambda s, down: down == "defender"),
        "attacker_downed": total(lambda s, down: down == "attacker"),
        "defender_newly_wounded": Fraction(0) if defender_wounded else
        total(lambda s, down: down != "defender" and s[1]),
        "attacker_newly_wounded": Fraction(0) if attacker_wounded else
        total(lambda s, down: down != "attacker" and s[0]),
        "pushback_none": none, "pushback_attacker": att, "pushback_defender": dfn,
        "rounds_fought": Fraction(fought, whole),
    }
    return Fight(effects=effects, passes=passes)


# ---------------------------------------------------------------------------
# sampled: every die rolled
# ---------------------------------------------------------------------------
_LOW = -(10 ** 6)


def _throw(dice, rng, m: int, also=()) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Roll ``dice`` for ``m`` fights: (successes per die (m, n), best modified successful roll,
    the successes of ``also`` judging the same faces)."""
    if not dice:
        return np.zeros((m, 0), dtype=bool), np.full(m, _LOW), np.zeros((m, 0), dtype=bool)
    faces = np.stack([rng.integers(1, d.sides + 1, size=m) for d in dice], axis=1)
    ok = np.stack([_passed(d, faces[:, i]) for i, d in enumerate(dice)], axis=1)
    rolls = faces + np.array([int(d.modifier) for d in dice])
    best = np.where(ok, rolls, _LOW).max(axis=1)
    same = np.zeros((m, 0), dtype=bool) if not also else \
        np.stack([_passed(d, faces[:, i]) for i, d in enumerate(also)], axis=1)
    return ok, best, same


def _blows(kills: np.ndarray, saves, tough: bool, wounded: bool, rng) -> tuple[np.ndarray, np.ndarray]:
    """``kills[:, i]``: blow i kills (in order); (downed, newly wounded and standing) per fight."""
    m, n = kills.shape
    down = np.zeros(m, dtype=bool)
    hurt = np.full(m, wounded)
    for i in range(n):
        k = kills[:, i] & ~down
        if saves is not None:
            faces = rng.integers(1, saves[0].sides + 1, size=m)
            k &= ~np.where(hurt, _passed(saves[1], faces), _passed(saves[0], faces))
        if tough:
            down |= k & hurt
            hurt |= k
        else:
            down |= k
    return down, hurt & ~down & (not wounded)


def _sample_round(r: Round, tough: tuple[bool, bool], wounded: tuple[bool, bool], rng, m: int) -> dict:
    a_ok, a_best, _ = _throw(r.attack, rng, m)
    b_ok, b_best, _ = _throw(r.block, rng, m)
    c_ok, c_best, cw_ok = _throw(r.counter, rng, m, r.counter_hurt)
    hits = a_ok.sum(axis=1)
    h = np.maximum(hits - b_ok.sum(axis=1), 0)
    n_att = len(r.attack)
    faces = rng.integers(1, r.strike.sides + 1, size=(m, n_att))
    kills = _passed(r.strike, faces) & (np.arange(n_att) < h[:, None])
    d_down, d_new = _blows(kills, r.defender_saves, tough[1], wounded[1], rng)
    a_down = np.zeros(m, dtype=bool)
    a_new = np.zeros(m, dtype=bool)
    if r.counter_damage is not None and r.counter:
        n_c = np.where(d_new, cw_ok.sum(axis=1), c_ok.sum(axis=1))
        fresh, hurt = r.counter_damage
        faces = rng.integers(1, fresh.sides + 1, size=(m, len(r.counter)))
        ok = np.where(d_new[:, None], _passed(hurt, faces), _passed(fresh, faces))
        ckills = ok & (np.arange(len(r.counter)) < n_c[:, None]) & ~d_down[:, None]
        a_down, a_new = _blows(ckills, r.attacker_saves, tough[0], wounded[0], rng)
    d_best = np.maximum(b_best, c_best)
    winner = np.where(a_best > d_best, 1, np.where(d_best > a_best, 2, 0))
    return {"d_down": d_down, "d_new": d_new, "a_down": a_down, "a_new": a_new, "winner": winner}


def sample(round_at: Callable[[bool, bool], Round], rng: np.random.Generator, m: int, *, rounds: int,
           attacker_tough: bool = False, defender_tough: bool = False, attacker_wounded: bool = False,
           defender_wounded: bool = False) -> dict[str, np.ndarray]:
    """``m`` fights of up to ``rounds`` rounds, every die rolled: per fight the effects of
    :class:`Fight` (booleans; ``pushback_*`` the first round's, ``rounds_fought`` a count)."""
    tough = (attacker_tough, defender_tough)
    dice = {(aw, dw): round_at(aw, dw) for aw in (False, True) for dw in (False, True)}
    aw = np.full(m, attacker_wounded)
    dw = np.full(m, defender_wounded)
    d_down = np.zeros(m, dtype=bool)
    a_down = np.zeros(m, dtype=bool)
    push = np.zeros(m, dtype=np.int64)
    fought = np.zeros(m, dtype=np.int64)
    for i in range(rounds):
        alive = ~d_down & ~a_down
        groups = [(key, np.nonzero(alive & (aw == key[0]) & (dw == key[1]))[0]) for key in dice]
        for key, idx in groups:
            if not idx.size:
                continue
            res = _sample_round(dice[key], tough, key, rng, idx.size)
            fought[idx] += 1
            if i == 0:
                push[idx] = res["winner"]
            d_down[idx] |= res["d_down"]
            a_down[idx] |= res["a_down"]
            dw[idx] |= res["d_new"]
            aw[idx] |= res["a_new"]
    return {"defender_downed": d_down, "attacker_downed": a_down,
            "defender_newly_wounded": dw & ~d_down & (not defender_wounded),
            "attacker_newly_wounded": aw & ~a_down & (not attacker_wounded),
            "pushback_none": push == 0, "pushback_attacker": push == 1, "pushback_defender": push == 2,
            "rounds_fought": fought}
