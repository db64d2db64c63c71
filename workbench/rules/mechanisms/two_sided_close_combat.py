"""The named mechanism ``two_sided_close_combat`` (docs/rulefiles.md, "Named mechanisms"):
a file's ``[mechanism]`` table read into expressions of the stats (:func:`read`), each
round's dice built from them as :class:`~workbench.rules.die.StageDie` dice
(:func:`round_of`), and the fight resolved by the arithmetic of
:mod:`workbench.rules.mechanisms.two_sided`, exactly (:func:`exact`) or by
rolling every die (:func:`sampled`).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping

import numpy as np

from ...dice import faces_text
from ...outcome import Stage
from ..die import StageDie, need_text
from ..errors import BudgetError
from ..frozen import remember
from ..says import Says, read_says
from .two_sided import STEPS, Fight, Round, _p, fight, sample

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
         "attack", "block", "counter", "strike", "counter_damage", "attacker_save", "defender_save", "steps", "says")
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
    #: step of :data:`STEPS` -> what its roll is made against, in the file's words (``[mechanism.says]``)
    says: Mapping[str, Says] = dataclasses.field(default_factory=dict)


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
        return _group(r, table[key], f"mechanism.{key}", keys, names)

    blocks = table.get("block", [])
    if not isinstance(blocks, list):
        r.fail("mechanism.block", "[[mechanism.block]] tables with dice, target and modifier", blocks)
    steps = r.table(table.get("steps", {}), "mechanism.steps", STEPS)
    says = r.table(table.get("says", {}), "mechanism.says", STEPS[:-1])
    return Spec(
        rounds=r.expr(table, "rounds", "mechanism", names, "1"), states=(states[0], states[1]),
        tough=(r.expr(table, "attacker_tough", "mechanism", names, "0"),
               r.expr(table, "defender_tough", "mechanism", names, "0")),
        label=r.string(table, "label", "mechanism", "defenders downed"),
        attack=dice("attack", _DICE_KEYS),
        block=tuple(_group(r, b, f"mechanism.block[{i}]", _DICE_KEYS, names) for i, b in enumerate(blocks)),
        counter=dice("counter", _DICE_KEYS, False), strike=dice("strike", _DIE_KEYS),
        counter_damage=dice("counter_damage", _DIE_KEYS, False),
        saves=(dice("attacker_save", _SAVE_KEYS, False), dice("defender_save", _SAVE_KEYS, False)),
        steps={s: r.string(steps, s, "mechanism.steps", s) for s in STEPS}, path=str(r.path),
        says={s: x for s in STEPS[:-1] if (x := read_says(r, says, "mechanism.says", names, s)) is not None})


def _group(r, data, field: str, keys: tuple[str, ...], names) -> tuple:
    """A die table's expressions, after its ``field`` name: ``keys`` in order, each at its default."""
    t = r.table(data, field, keys)
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
    file's name of each step; ``stages`` (:func:`stages_of`) and ``stage_pmfs`` (stage name -> the
    passes it shows); ``attacks``: 1 for one round, None for several (one stage: the whole fight)."""
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
    first = got if kw["rounds"] == 1 else fight(round_at, **dict(kw, rounds=1))
    down = got.effects["defender_downed"]
    stages, shown = stages_of(spec, env, r, first, kw, down)
    return {"pmf": (1 - down, down), "effects": got.effects, "passes": got.passes, "labels": spec.steps,
            "stages": stages, "stage_pmfs": {name: got.passes[step] for name, step in shown.items()},
            "attacks": 1 if kw["rounds"] == 1 else None}


def _need(die: StageDie) -> str:
    """'needs 7+ on a d10', with '(target 6, modifier -1)' where a modifier moves it."""
    t, m = int(die.target), int(die.modifier)
    text = need_text(t - m, die.sides, True, f"d{die.sides}", f"any roll of a d{die.sides} succeeds")
    return text + (f" (target {t}, modifier {m:+d})" if m else "")


def _ratio(p: Fraction, sides: int | None = None) -> str:
    """'4/10' on a d10 as a player counts the faces; a chance of several dice reduced."""
    return faces_text(p, sides) if sides else f"{p.numerator}/{p.denominator}"


def stages_of(spec: Spec, env: Mapping[str, int], r: Round, first: Fight, kw: Mapping[str, Any],
              downed: Fraction) -> tuple[tuple[Stage, ...], dict[str, str]]:
    """The outcome's stages, whose product is exactly P(the defender is downed), and for each
    the step of :data:`STEPS` whose passes it shows. One round (``r``, ``first``: its dice and its
    fight): to hit (at least one attack die), not blocked (at least one hit left after the blocks,
    given a hit), then the kill roll and the defender's save where one attack die's hit meets a
    defender who is not tough, else one step: the hits that got through down the defender. Several
    rounds: one step, the defender downed within them (``downed``), the first round's recounted; the
    steps whose passes are shown stay the first round's, counted over the whole fight."""
    said = {s: x.text(env, f"mechanism.says.{s}") for s, x in spec.says.items()}

    def lead(step: str, sep: str = " ") -> str:
        """The file's words for ``step`` and ``sep`` before the engine's, or nothing."""
        return said[step] + sep if said.get(step) else ""

    names, out, shown = spec.steps, [], {}
    dice = len(r.attack)
    p_die = Fraction(*_p(r.attack[0])) if dice else Fraction(0)
    p_any = 1 - (1 - p_die) ** dice
    faces = r.attack[0].sides if dice == 1 else None
    hit = lead("hits") + _need(r.attack[0]) if dice else "no attack dice"
    if dice > 1:
        hit += f", {_ratio(p_die, r.attack[0].sides)} a die; at least one of {dice} dice hits"
    out.append(Stage(names["hits"], p_any, f"{hit}: goes on {_ratio(p_any, faces)}", faces=faces))
    shown[names["hits"]] = "hits"
    through = 1 - first.passes["unblocked"][0]
    if r.block:
        p = through / p_any if p_any else Fraction(0)
        needs = " or ".join(dict.fromkeys(_need(d) for d in r.block))
        n = len(r.block)
        out.append(Stage(names["unblocked"], p, lead("unblocked", ": ") + f"{n} blocking {'die' if n == 1 else 'dice'} "
                         f"({needs}), each success cancelling one hit; at least one hit left: goes on {_ratio(p)}"))
        shown[names["unblocked"]] = "unblocked"
    saves = r.defender_saves
    if dice == 1 and not kw["defender_tough"]:
        p = Fraction(*_p(r.strike))
        out.append(Stage(names["kills"], p, f"{lead('kills')}{_need(r.strike)}: goes on "
                         f"{_ratio(p, r.strike.sides)}", faces=r.strike.sides))
        shown[names["kills"]] = "kills"
        if saves is not None:
            save = saves[1 if kw["defender_wounded"] else 0]
            p = 1 - Fraction(*_p(save))
            out.append(Stage(names["unsaved"], p, f"{lead('unsaved')}{_need(save)}; passed when the roll "
                             f"fails: goes on {_ratio(p, save.sides)}", faces=save.sides))
            shown[names["unsaved"]] = "unsaved"
    else:
        p = first.effects["defender_downed"] / through if through else Fraction(0)
        extra = [f"up to {dice} hits get through"] if dice > 1 else []
        if kw["defender_tough"]:
            extra.append("the wounded tough defender is downed by one unsaved kill" if kw["defender_wounded"]
                         else "a tough defender is downed by its second unsaved kill")
        if saves is not None:
            extra.append(f"each kill is saved unless the save fails: {_need(saves[0])}, "
                         f"once wounded {_need(saves[1])}")
        kill = lead("kills", ", for each hit that gets through, ") or "each hit that gets through "
        out.append(Stage(names["kills"], p, kill + "; ".join([_need(r.strike)] + extra) + f": goes on {_ratio(p)}"))
        shown[names["kills"]] = "downed"
    if kw["rounds"] == 1:
        return tuple(out), shown
    steps = " × ".join(f"{st.name} {st.probability}" for st in out)
    once = math.prod((st.probability for st in out), start=Fraction(1))
    return (Stage(f"downed within {kw['rounds']} rounds", downed,
                  f"the first round {steps} = {once}; then the same exchange again until one side is downed or "
                  f"{kw['rounds']} rounds are fought, a model wounded in a round at -1 in the next"),), shown


def sampled(spec: Spec, env: Mapping[str, int], sides: int, rng: np.random.Generator):
    """``(dice per fight, one_chunk)``: ``one_chunk(m)`` fights ``m`` fights, every die rolled,
    giving ``removed`` (the defender downed) and the effects per fight."""
    round_at, kw, r = setup(spec, env, sides)
    per_round = 2 * (len(r.attack) + len(r.block) + len(r.counter)) + 2 * len(r.counter) + len(r.attack)

    def one_chunk(m: int) -> dict:
        out = sample(round_at, rng, m, **kw)
        return dict(out, removed=out["defender_downed"].astype(np.int64))

    return per_round * kw["rounds"], one_chunk
