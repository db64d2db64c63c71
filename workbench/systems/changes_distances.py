"""40k Changes' distances: the maximum move of each seed action ("the maximal distance every
model can move during this action"), fixed inches or a base plus a die, and the chance an action
reaches a distance. Re-exported by :mod:`workbench.systems.changes`.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .. import validate as v
from ..dice import roll_faces
from ..outcome import Outcome, Stage
from ..rules.die import roll_high
from .changes_rules import KEY, _one_test
from .ownfile import one_roll

__all__ = ["SEED_ACTIONS", "ACTION_DISTANCES", "CHARGES", "distance_pmf", "action_distance", "charge_distance", "move_distance",
           "reach_probability"]

#: the seed's infantry actions: the name it prints, word for word with its bullets (• snap, •• shot,
#: ••• aimed), and how far the unit moves (fixed inches, sides of an added die or 0; None: it does not move)
SEED_ACTIONS: dict[str, tuple[str, tuple[int, int] | None]] = {
    "move": ('Move 6" ••', (6, 0)),
    "disembark": ('Disembark 6" ••', (6, 0)),
    "tactical_charge": ('Tactical Charge 6" •', (6, 0)),
    "furious_charge": ("Furious Charge 5”", (5, 0)),
    "desperate_charge": ('Desperate Charge 6+D6"', (6, 6)),
    "hold_ground": ('Hold Ground 3" •••', (3, 0)),
    "move_9_d3": ('Move 9+d3"', (9, 3)),
    "embark": ('Embark 6"', (6, 0)),
    "block": ("Block", None),
    "go_to_ground": ("Go to ground •", None),
    "get_up": ("Get up", None),
    "postpone": ('Postpone 6"', (6, 0)),
    "evade": ("Evade 4”", (4, 0)),
}
#: action -> (fixed inches, sides of the added die or 0, the seed's name without bullets)
ACTION_DISTANCES: dict[str, tuple[int, int, str]] = {
    k: (*move, name.rstrip(" •").replace("”", '"')) for k, (name, move) in SEED_ACTIONS.items() if move}
CHARGES = ("tactical", "furious", "desperate")


@v.stat_function
def distance_pmf(kind: str = "desperate_charge") -> dict[int, Fraction]:
    """Exact distribution of an action's maximum move in inches (a D3 is a fair
    three-sided die: 1, 2, 3 with 1/3 each)."""
    kind = v.choice("kind", kind, tuple(ACTION_DISTANCES))
    base, die, _ = ACTION_DISTANCES[kind]
    if not die:
        return {base: Fraction(1)}
    return {base + f: Fraction(1, die) for f in range(1, die + 1)}


def _distance_outcome(function, kind, allowed, method, samples, seed, suffix: str = "") -> Outcome:
    """The Outcome over inches of the action ``kind`` (one of ``allowed``, then with ``suffix``)."""
    kind = v.choice("kind", kind, tuple(allowed)) + suffix
    base, die, words = ACTION_DISTANCES[kind]
    method, samples, rng = v.method_args(method, samples, seed)
    notes = ("The distance in an action's name is \"the maximal distance every model can move "
             "during this action\"; pmf index = inches.",)
    pmf = np.zeros(base + die + 1)
    for inches, p in distance_pmf(kind).items():
        pmf[inches] = float(p)

    def one_chunk(k):
        return {"removed": base + roll_faces(rng, die, (k,)) if die else np.full(k, base)}

    return one_roll(KEY, function, dict(kind=kind, method=method), (), method, samples, pmf, {}, one_chunk,
                    notes=notes, label=f"inches ({words})")


@v.stat_function
def action_distance(kind="desperate_charge", *, method="exact", samples=100_000, seed=0) -> Outcome:
    """The maximum move of any seed action (``ACTION_DISTANCES``) as an Outcome over inches."""
    return _distance_outcome("action_distance", kind, ACTION_DISTANCES, method, samples, seed)


@v.stat_function
def charge_distance(kind="desperate", *, method="exact", samples=100_000, seed=0) -> Outcome:
    """Charge distance in inches: "tactical" 6", "furious" 5", "desperate" 6+D6"."""
    return _distance_outcome("charge_distance", kind, CHARGES, method, samples, seed, "_charge")


@v.stat_function
def move_distance(kind="move_9_d3", *, method="exact", samples=100_000, seed=0) -> Outcome:
    """Move distance in inches: "move_9_d3" (the seed's "Move 9+d3"", default) or "move" (6")."""
    return _distance_outcome("move_distance", kind, ("move_9_d3", "move"), method, samples, seed)


@v.stat_function
def reach_probability(distance, kind="desperate_charge", *, method="exact", samples=100_000,
                      seed=0) -> Outcome:
    """P(an action's maximum move is at least ``distance`` inches).

    ``kind`` is a key of ``ACTION_DISTANCES`` (or "tactical"/"furious"/
    "desperate" for the charges). A dice distance base + dX reaches when the
    die rolls ceil(distance - base) or more: a roll-high test on that die.
    Outcome: pmf = [P(short), P(reached)], label "reached"; the stage holds
    P(reached) as a Fraction.
    """
    distance = v.real("distance", distance, 0, 1000)
    if isinstance(kind, str) and kind in CHARGES:
        kind = f"{kind}_charge"
    kind = v.choice("kind", kind, tuple(ACTION_DISTANCES))
    method, samples, rng = v.method_args(method, samples, seed)
    base, die, words = ACTION_DISTANCES[kind]
    need = math.ceil(distance - base - 1e-12)
    tst = roll_high(need, die) if die else None
    if tst is not None:
        p = tst.success
        detail = f'{words} reaches {distance:g}" ' + (
            f"on a D{die} roll of {need}+" if 1 < need <= die else
            ("on any roll" if need <= 1 else "on no roll"))
    else:
        p = Fraction(int(base >= distance))
        detail = f'{words} {"reaches" if p else "falls short of"} {distance:g}"'
    return _one_test("reach_probability", dict(distance=distance, kind=kind, method=method), Stage("reach", p, detail),
                     tst, "reached", method, samples, rng, label="reached")
