"""The named mechanism ``two_sided_close_combat`` (docs/rulefiles.md, "Named mechanisms"):
a file's ``[mechanism]`` table read into expressions of the stats (:func:`read`), each
round's dice built from them as :class:`~workbench.rules.die.StageDie` dice
(:func:`round_of`), and the fight resolved by the arithmetic of
:mod:`workbench.rules.mechanisms.two_sided`, exactly (:func:`exact`) or by
rolling every die (:func:`sampled`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from ..die import StageDie
from ..errors import BudgetError
from ..frozen import remember
from .two_sided import STEPS, Fight, Round, fight, sample

__all__ = ["read", "exact", "sampled", "round_of", "Spec", "Round", "Fight", "fight", "sample", "STEPS",
           "MAX_ROUNDS", "MAX_DICE"]


#: close-combat rounds one resolution may fight, and dice one group may throw (the exact work's bound)
MAX_ROUNDS = 20
MAX_DICE = 4
#: the dice of one exchange, both fighters together (The Forgotten's most is 5)
MAX_EXCHANGE_DICE = 6
#: the exact path's bound: rounds x the digits of the faces of every die one round can throw
#: (the size of the Fractions it adds up; The Forgotten's largest fight is 260)
MAX_EXACT_DIGITS = 300
#: the names of the file's keys, with the keys of each die table
_KEYS = ("rounds", "attacker_wounded", "defender_wounded", "attacker_tough", "defender_tough", "label",
         "attack", "block", "counter", "strike", "counter_damage", "attacker_save", "defender_save", "steps")
_DICE_KEYS = ("dice", "target", "modifier", "hurt")
_DIE_KEYS = ("die", "target", "modifier", "hurt")
_SAVE_KEYS = ("when", "die", "target", "wounded")


@dataclass(frozen=True)
class Spec:
    """A file's ``[mechanism]``: expressions of the stats (``Expr``), read by :func:`round_of`.
    ``attack``/``counter``/``block`` groups are (dice, target, modifier, hurt) and the damage
    and save dice (die, target, modifier, hurt) or (when, die, target, wounded); ``steps``: the
    name the outcome gives each of :data:`STEPS`."""

    rounds: Any
    states: tuple[str, str]
    tough: tuple[Any, Any]
    label: str
    attack: tuple
    block: tuple
    counter: tuple | None
    strike: tuple
    counter_damage: tuple | None
    saves: tuple[tuple | None, tuple | None]
    steps: Mapping[str, str]
    #: the file, named in a refusal
    path: str = "<rule file>"


def read(r, table: dict, names) -> Spec:
    """Read the ``[mechanism]`` table of a file (``r``: the loader's reader, which names the
    field and its line in every error)."""
    r.known(table, "mechanism", _KEYS)
    states = []
    for side in ("attacker", "defender"):
        stat = r.string(table, f"{side}_wounded", "mechanism")
        if stat not in names:
            r.fail(f"mechanism.{side}_wounded", "the name of a stat (the rounds set it once the fighter is "
                   "wounded)", stat)
        states.append(stat)

    def dice(key: str, keys: tuple[str, ...], required=True):
        if key not in table:
            if required:
                r.fail(f"mechanism.{key}", f"a [mechanism.{key}] table", "nothing")
            return None
        t = r.table(table[key], f"mechanism.{key}")
        return _group(r, t, f"mechanism.{key}", keys, names)

    blocks = table.get("block", [])
    if not isinstance(blocks, list):
        r.fail("mechanism.block", "[[mechanism.block]] tables with dice, target and modifier", blocks)
    steps = r.table(table.get("steps", {}), "mechanism.steps")
    r.known(steps, "mechanism.steps", STEPS)
    return Spec(
        rounds=r.expr(table, "rounds", "mechanism", names, "1"), states=(states[0], states[1]),
        tough=(r.expr(table, "attacker_tough", "mechanism", names, "0"),
               r.expr(table, "defender_tough", "mechanism", names, "0")),
        label=r.string(table, "label", "mechanism", "defenders downed"),
        attack=dice("attack", _DICE_KEYS),
        block=tuple(_group(r, r.table(b, f"mechanism.block[{i}]"), f"mechanism.block[{i}]", _DICE_KEYS,
                           names) for i, b in enumerate(blocks)),
        counter=dice("counter", _DICE_KEYS, False), strike=dice("strike", _DIE_KEYS),
        counter_damage=dice("counter_damage", _DIE_KEYS, False),
        saves=(dice("attacker_save", _SAVE_KEYS, False), dice("defender_save", _SAVE_KEYS, False)),
        steps={s: r.string(steps, s, "mechanism.steps", s) for s in STEPS}, path=str(r.path))


def _group(r, t: dict, field: str, keys: tuple[str, ...], names) -> tuple:
    r.known(t, field, keys)
    defaults = {"dice": "1", "die": None, "when": "1", "modifier": "0", "hurt": "0", "wounded": "0"}
    return (field,) + tuple(r.expr(t, k, field, names, defaults.get(k, ...)) for k in keys)


#: expression source and the values of the stats it reads -> its value (see _scalar)
_VALUES: dict[tuple, int] = {}


def _scalar(expr, env: Mapping[str, int], field: str) -> int:
    """``expr``'s value at the stats ``env``, remembered by its text and the values it reads: the
    rounds of a fight read the same expressions at each of the fighters' states."""
    return remember(_VALUES, (expr.source, *(env[n] for n in sorted(expr.names))), lambda: expr.scalar(env, field))


def _value(expr, env, field: str, lo: int, hi: int, what: str, path: str) -> int:
    x = _scalar(expr, env, field)
    if not lo <= x <= hi:
        raise BudgetError(path, field, f"{what} from {lo} to {hi}", x)
    return x


def round_of(spec: Spec, env: Mapping[str, int], sides: int) -> Round:
    """The dice of one round for the stats ``env`` (the fighters' states among them), one
    StageDie per die thrown; ``sides``: the file's die."""

    def two(field: str, die, target, modifier, extra, wounded=False) -> tuple[StageDie, StageDie]:
        """The die (``die`` faces, None: the file's) fresh and for a hurt fighter: ``extra`` added
        to the modifier (a group's and a damage die's ``hurt``) or to the target (a save's ``wounded``)."""
        d = sides if die is None else _value(die, env, f"{field}.die", 2, 100, "faces", spec.path)
        t = _scalar(target, env, f"{field}.target")
        m = 0 if modifier is None else _scalar(modifier, env, f"{field}.modifier")
        x = _scalar(extra, env, f"{field}.wounded" if wounded else f"{field}.hurt")
        return (StageDie(sides=d, roll_high=True, target=t, modifier=m),
                StageDie(sides=d, roll_high=True, target=t + x * wounded, modifier=m + x * (not wounded)))

    def group(g) -> tuple[tuple[StageDie, ...], tuple[StageDie, ...]]:
        k = _value(g[1], env, f"{g[0]}.dice", 0, MAX_DICE, "a number of dice", spec.path)
        fresh, hurt = two(g[0], None, *g[2:])
        return (fresh,) * k, (hurt,) * k

    def save(g):
        if g is None or not _scalar(g[1], env, f"{g[0]}.when"):
            return None
        field, _when, die, target, wounded = g
        return two(field, die, target, None, wounded, wounded=True)

    attack, _ = group(spec.attack)
    block = tuple(die for g in spec.block for die in group(g)[0])
    counter, counter_hurt = group(spec.counter) if spec.counter is not None else ((), ())
    n = len(attack) + len(block) + len(counter)
    if n > MAX_EXCHANGE_DICE:
        raise BudgetError(spec.path, "mechanism.attack.dice", f"at most {MAX_EXCHANGE_DICE} dice in one exchange "
                          "(attack, block and counter dice together)", n)
    return Round(attack=attack, strike=two(*spec.strike)[0], block=block, counter=counter,
                 counter_hurt=counter_hurt,
                 counter_damage=two(*spec.counter_damage) if spec.counter_damage is not None and counter else None,
                 defender_saves=save(spec.saves[1]), attacker_saves=save(spec.saves[0]))


def setup(spec: Spec, env: Mapping[str, int], sides: int) -> tuple[Callable[[bool, bool], Round], dict, Round]:
    """``(round_at, keywords, first)`` for :func:`fight` and :func:`sample`: the dice of a round at the fighters'
    states (the state stats set as the rounds go), the rounds, toughness and start, the first round's dice."""
    a_stat, d_stat = spec.states
    made: dict[tuple[bool, bool], Round] = {}   # each state's dice, made once

    def round_at(aw: bool, dw: bool) -> Round:
        r = made.get((aw, dw))
        if r is None:
            r = made[aw, dw] = round_of(spec, dict(env, **{a_stat: int(aw), d_stat: int(dw)}), sides)
        return r

    rounds = _value(spec.rounds, env, "mechanism.rounds", 1, MAX_ROUNDS, "a number of rounds", spec.path)
    kw: dict[str, Any] = dict(
        rounds=rounds, attacker_tough=bool(_scalar(spec.tough[0], env, "mechanism.attacker_tough")),
        defender_tough=bool(_scalar(spec.tough[1], env, "mechanism.defender_tough")),
        attacker_wounded=bool(env[a_stat]), defender_wounded=bool(env[d_stat]))
    return round_at, kw, round_at(kw["attacker_wounded"], kw["defender_wounded"])


def exact(spec: Spec, env: Mapping[str, int], sides: int) -> dict:
    """The file's resolution, exactly: ``pmf`` [P(defender standing), P(downed)], ``effects``
    and ``passes`` (each step of :data:`STEPS` -> P(k pass it)), Fractions; ``labels``: the
    file's name of each step."""
    round_at, kw, r = setup(spec, env, sides)
    thrown = [d.sides for d in r.attack + r.block + r.counter] + [r.strike.sides] * len(r.attack)
    thrown += [r.defender_saves[0].sides] * len(r.attack) if r.defender_saves else []
    if r.counter_damage is not None:
        thrown += [r.counter_damage[0].sides] * len(r.counter)
        thrown += [r.attacker_saves[0].sides] * len(r.counter) if r.attacker_saves else []
    digits = kw["rounds"] * sum(math.log10(f) for f in thrown)
    if digits > MAX_EXACT_DIGITS + 1e-9:
        raise BudgetError(spec.path, "mechanism.rounds", f"rounds x the digits of every die's faces one round "
                          f"throws of at most {MAX_EXACT_DIGITS}", round(digits), "method='sampled' has no such limit")
    got = fight(round_at, **kw)
    down = got.effects["defender_downed"]
    return {"pmf": (1 - down, down), "effects": got.effects, "passes": got.passes, "labels": spec.steps}


def sampled(spec: Spec, env: Mapping[str, int], sides: int, rng: np.random.Generator):
    """``(dice per fight, one_chunk)``: ``one_chunk(m)`` fights ``m`` fights, every die rolled,
    giving ``removed`` (the defender downed) and the effects per fight."""
    round_at, kw, r = setup(spec, env, sides)
    per_round = 2 * (len(r.attack) + len(r.block) + len(r.counter)) + 2 * len(r.counter) + len(r.attack)

    def one_chunk(m: int) -> dict:
        out = sample(round_at, rng, m, **kw)
        return dict(out, removed=out["defender_downed"].astype(np.int64))

    return per_round * kw["rounds"], one_chunk
