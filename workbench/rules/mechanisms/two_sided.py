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

Exact, with Fractions. :func:`fight` gives the effects (chances of each end)
and the distribution, over the whole fight, of how many dice pass each step
of the attacker's attack: ``hits`` (attack dice that hit), ``unblocked``
(hits left after the blocks), ``kills`` (damage rolls that kill a standing
defender), ``unsaved`` (kills the heroic save does not stop) and ``downed``
(0 or 1).

The exchange is not one :class:`StageDie` roll: it is several dice of two
fighters compared with each other (blocks cancel hits, the best rolls decide
pushback), so it is built here from one StageDie per die thrown.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Mapping

import numpy as np

from ..die import CRITICAL, SUCCESS, StageDie

__all__ = ["Round", "Fight", "fight", "sample", "STEPS"]

#: the steps of the attacker's attack whose passes :func:`fight` counts, in order
STEPS = ("hits", "unblocked", "kills", "unsaved", "downed")

_ZERO = Fraction(0)
_ONE = Fraction(1)


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
    """What a fight does, exactly.

    ``effects``: ``defender_downed``, ``attacker_downed``,
    ``defender_newly_wounded`` and ``attacker_newly_wounded`` (standing and
    wounded at the end), ``pushback_attacker``, ``pushback_defender``,
    ``pushback_none`` (the first round's) and ``rounds_fought`` (expected).
    ``passes``: step of :data:`STEPS` -> P(k pass it over the whole fight),
    index k."""

    effects: Mapping[str, Fraction]
    passes: Mapping[str, tuple[Fraction, ...]]


def _p(die: StageDie) -> Fraction:
    counts, denom = die.counts()
    return Fraction(int(counts[SUCCESS]) + int(counts[CRITICAL]), denom)


def _add(dist: dict, key, p: Fraction) -> None:
    if p:
        dist[key] = dist.get(key, _ZERO) + p


def _count(dice) -> dict[int, Fraction]:
    """P(k of ``dice`` succeed), each die on its own roll."""
    dist = {0: _ONE}
    for die in dice:
        p = _p(die)
        nxt: dict = {}
        for k, q in dist.items():
            _add(nxt, k + 1, q * p)
            _add(nxt, k, q * (1 - p))
        dist = nxt
    return dist


def _pairs(dice, hurt) -> dict[tuple[int, int], Fraction]:
    """P(c of ``dice`` and w of ``hurt`` succeed), die i of both judging the same face."""
    dist = {(0, 0): _ONE}
    for a, b in zip(dice, hurt):
        faces = np.arange(1, a.sides + 1)
        ok_a = np.isin(a.classify(faces), (SUCCESS, CRITICAL))
        ok_b = np.isin(b.classify(faces), (SUCCESS, CRITICAL))
        nxt: dict = {}
        for (c, w), q in dist.items():
            for x, y in zip(ok_a, ok_b):
                _add(nxt, (c + int(x), w + int(y)), q / a.sides)
        dist = nxt
    return dist


def _takes(hits: int, kill: StageDie, saves, tough: bool, wounded: bool) -> dict:
    """A model taking ``hits`` hits one after the other: {(kills, unsaved, end): P},
    end "down", "wounded" (newly, standing) or "same"."""
    k = _p(kill)
    save = (_ZERO, _ZERO) if saves is None else (_p(saves[0]), _p(saves[1]))
    dist = {(0, 0, "wounded" if wounded else "fresh"): _ONE}
    for _ in range(hits):
        nxt: dict = {}
        for (kills, unsaved, state), q in dist.items():
            if state == "down":
                _add(nxt, (kills, unsaved, state), q)
                continue
            s = save[1] if state == "wounded" else save[0]
            _add(nxt, (kills, unsaved, state), q * (1 - k))
            _add(nxt, (kills + 1, unsaved, state), q * k * s)
            hurt = "wounded" if tough and state == "fresh" else "down"
            _add(nxt, (kills + 1, unsaved + 1, hurt), q * k * (1 - s))
        dist = nxt
    out: dict = {}
    for (kills, unsaved, state), q in dist.items():
        end = "down" if state == "down" else "wounded" if state == "wounded" and not wounded else "same"
        _add(out, (kills, unsaved, end), q)
    return out


def _best(dice) -> dict:
    """P(the best modified successful roll of ``dice`` is x), None: no success."""
    dist: dict = {None: _ONE}
    for die in dice:
        faces = np.arange(1, die.sides + 1)
        ok = np.isin(die.classify(faces), (SUCCESS, CRITICAL))
        rolls = faces + np.asarray(die.modifier, dtype=np.int64)
        nxt: dict = {}
        for best, q in dist.items():
            for good, r in zip(ok, rolls):
                b = best if not good else int(r) if best is None else max(best, int(r))
                _add(nxt, b, q / die.sides)
        dist = nxt
    return dist


def _pushback(r: Round) -> tuple[Fraction, Fraction, Fraction]:
    """(nobody, attacker, defender) wins the pushback."""
    out = [_ZERO, _ZERO, _ZERO]
    for a, pa in _best(r.attack).items():
        for d, pd in _best(r.block + r.counter).items():
            win = 0 if a == d or (a is None and d is None) else 1 if d is None or (a is not None and a > d) else 2
            out[win] += pa * pd
    return out[0], out[1], out[2]


def _one_round(r: Round, tough: tuple[bool, bool], wounded: tuple[bool, bool]) -> dict:
    """{(steps passed, (attacker wounded, defender wounded), who is down or None): P} of one round."""
    out: dict = {}
    a_tough, d_tough = tough
    aw, dw = wounded
    counters = _pairs(r.counter, r.counter_hurt) if r.counter else {(0, 0): _ONE}
    for hits, pa in _count(r.attack).items():
        for blocks, pb in _count(r.block).items():
            h = max(hits - blocks, 0)
            for (kills, unsaved, d_end), pd in _takes(h, r.strike, r.defender_saves, d_tough, dw).items():
                steps = (hits, h, kills, unsaved, int(d_end == "down"))
                dw2 = dw or d_end == "wounded"
                if d_end == "down":
                    _add(out, (steps, (aw, dw2), "defender"), pa * pb * pd)
                    continue
                for (c, cw), pc in counters.items():
                    n = cw if d_end == "wounded" else c
                    if r.counter_damage is None or n == 0:
                        _add(out, (steps, (aw, dw2), None), pa * pb * pd * pc)
                        continue
                    damage = r.counter_damage[1 if d_end == "wounded" else 0]
                    for (_k, _u, a_end), pt in _takes(n, damage, r.attacker_saves, a_tough, aw).items():
                        down = "attacker" if a_end == "down" else None
                        _add(out, (steps, (aw or a_end == "wounded", dw2), down), pa * pb * pd * pc * pt)
    return out


def fight(round_at: Callable[[bool, bool], Round], *, rounds: int, attacker_tough: bool = False,
          defender_tough: bool = False, attacker_wounded: bool = False, defender_wounded: bool = False) -> Fight:
    """Up to ``rounds`` rounds (1 or more), ``round_at(attacker_wounded,
    defender_wounded)`` giving the dice of a round at the fighters' states."""
    if rounds < 1:
        raise ValueError(f"rounds: expected 1 or more, got {rounds}")
    start = (attacker_wounded, defender_wounded)
    tough = (attacker_tough, defender_tough)
    memo: dict = {}

    def round_from(state):
        if state not in memo:
            memo[state] = _one_round(round_at(*state), tough, state)
        return memo[state]

    # (state, step) -> {count so far: P} for fights still going; ends: (final state, who is down) -> P
    going: dict = {start: [{0: _ONE} for _ in STEPS]}
    weight = {start: _ONE}
    finished: list[dict] = [dict() for _ in STEPS]
    ends: dict = {}
    fought = _ZERO
    for _ in range(rounds):
        nxt: dict = {}
        nxt_weight: dict = {}
        for state, per_step in going.items():
            fought += weight[state]
            outcomes = round_from(state)
            for (steps, new_state, down), q in outcomes.items():
                target = None
                if down is None:
                    target = nxt.setdefault(new_state, [dict() for _ in STEPS])
                    _add(nxt_weight, new_state, weight[state] * q)
                else:
                    _add(ends, (new_state, down), weight[state] * q)
                for i, inc in enumerate(steps):
                    into = finished[i] if target is None else target[i]
                    for k, p in per_step[i].items():
                        _add(into, k + inc, p * q)
        going, weight = nxt, nxt_weight
    for state, per_step in going.items():
        _add(ends, (state, None), weight[state])
        for i in range(len(STEPS)):
            for k, p in per_step[i].items():
                _add(finished[i], k, p)
    passes = {name: tuple(d.get(k, _ZERO) for k in range(max(d) + 1)) for name, d in zip(STEPS, finished)}

    def total(test) -> Fraction:
        return sum((p for key, p in ends.items() if test(*key)), _ZERO)

    none, att, dfn = _pushback(round_at(*start))
    effects = {
        "defender_downed": total(lambda s, down: down == "defender"),
        "attacker_downed": total(lambda s, down: down == "attacker"),
        "defender_newly_wounded": _ZERO if defender_wounded else
        total(lambda s, down: down != "defender" and s[1]),
        "attacker_newly_wounded": _ZERO if attacker_wounded else
        total(lambda s, down: down != "attacker" and s[0]),
        "pushback_none": none, "pushback_attacker": att, "pushback_defender": dfn,
        "rounds_fought": fought,
    }
    return Fight(effects=effects, passes=passes)


# ---------------------------------------------------------------------------
# sampled: every die rolled
# ---------------------------------------------------------------------------
_LOW = -(10 ** 6)


def _passed(die: StageDie, faces: np.ndarray) -> np.ndarray:
    return np.isin(die.classify(faces), (SUCCESS, CRITICAL))


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

