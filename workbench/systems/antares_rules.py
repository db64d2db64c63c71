"""Antares-style d10: the stat test and the single tests the seed names, in their own words, and
the ranges and notes its shooting (:mod:`workbench.systems.antares`) shares with them (the
shooting's words are its rule file's).

Seed 004 ("DICE AND STATS"): "roll a D10 and if the score is equal to or less
than the value you are testing against the test is a success"; "a D10 dice
roll of a 10 is always deemed a failure"; below 1, "a 1 followed by another 1";
at a value of 2 or greater "any roll of a 1 on the D10 is considered a critical
success". The test is a :class:`~workbench.rules.die.DieRoll` (``_stat_die``),
the die ``rules/antares.toml`` states for its stages. The seed's other tests
are one stat test each: Init (:func:`reaction`), Cou or Com for machines
(:func:`combat_status`), Ag (:func:`movement_test`); docs/rules/antares.md
quotes them. All are re-exported by :mod:`workbench.systems.antares`.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from .. import validate as v
from ..dice import faces_text
from ..errors import InputError
from ..outcome import Outcome, Stage
from ..rules.die import DieRoll, StageDie
from . import ownfile
from .ownfile import one_roll

__all__ = ["KEY", "NAME", "SEED", "DIE", "test", "stat_test", "reaction", "combat_status", "movement_test",
           "STAT_RANGE", "MOD_RANGE", "VALUE_RANGE"]

KEY = "antares"
SEED = "004_d2632203ddb2a5c8.txt"
_FILE = ownfile.load(KEY)
NAME, DIE = _FILE.name, _FILE.die

#: a stat (Acc, Res, Ag, Init, Cou, Com): the seed scores them "out of 10 with
#: 1 being the lowest value possible and 10 the highest for this type"; other
#: types may go further, as rules/antares.toml's Acc (0..20)
STAT_RANGE = (_FILE.stat("acc").min, _FILE.stat("acc").max)
#: a modifier (acc_mod, a test's modifier) may lower or raise the value, as the file's Acc modifier
MOD_RANGE = (_FILE.stat("acc_mod").min, _FILE.stat("acc_mod").max)
#: a test value after modifiers: every stat + modifier combination fits; any
#: value below 1 behaves as 0 (1/100) and any value from 9 up as 9 (9/10)
VALUE_RANGE = (-40, 40)


# -- plain words -------------------------------------------------------------------
def _pass_words(value: int) -> str:
    if value < 1:
        return "below 1: needs a 1 then another 1 on a d10"
    if value >= 10:
        return "needs 9 or less on a d10 (a 10 always fails)"
    return f"needs {value} or less on a d10"


def _test_words(stat_name: str, stat: int, modifier: int, p: Fraction, crit: Fraction) -> str:
    """'Init 5 + modifier 1 = 6: needs 6 or less on a d10: 6/10 (a 1 is a critical success: 1/10)': a
    stat test's words, its chance ``p`` and its critical chance ``crit``."""
    value, text = stat + modifier, f"{stat_name} {stat}"
    if modifier:
        text += f" {'+' if modifier > 0 else '−'} modifier {abs(modifier)} = {value if value >= 0 else f'−{-value}'}"
    crit_text = f" (a 1 is a critical success: {faces_text(crit, 10)})" if value >= 2 else " (no critical possible)"
    return f"{text}: {_pass_words(value)}: {faces_text(p, 10)}{crit_text}"


# -- the basic test ------------------------------------------------------------------
def _stat_die(value: int) -> DieRoll:
    """The seed's stat test at ``value``, as ``rules/antares.toml`` states it for
    its stages: a d10 at or under the value succeeds, a 10 always fails, below
    1 a 1 then another 1, and a 1 is a critical when the value is 2 or more."""
    return DieRoll(StageDie(sides=DIE, roll_high=False, target=value, always_fail=(DIE,), long_shot=True,
                            critical=(1,), critical_on=value >= 2))


@v.stat_function
def test(value) -> tuple[Fraction, Fraction]:
    """(P(success), P(critical)) of one stat test against ``value`` (after modifiers).

    P(success) = 1/100 for a value below 1, value/10 from 1 to 9, 9/10 from 9
    up; P(critical) = 1/10 for a value of 2 or more, else 0 (a critical is
    also a success). ``value`` is a whole number from -40 to 40.
    """
    value = v.integer("value", value, *VALUE_RANGE)
    die = _stat_die(value)
    return die.success, die.p("critical")


def _test_outcome(function: str, stat_name: str, stat: int, modifier: int, method: Any, samples: Any,
                  seed: Any, inputs: dict, extra_notes: tuple[str, ...] = ()) -> Outcome:
    """The Outcome of one stat test at ``stat + modifier`` (its arguments checked: ``inputs``), exact or
    sampled."""
    rng: Any  # a Generator for every method but "exact", which rolls nothing
    method, samples, rng = v.method_args(method, samples, seed)
    inputs = dict(inputs, method=method)
    value = stat + modifier
    die = _stat_die(value)
    p, crit = die.success, die.p("critical")
    stage = Stage(f"{stat_name} test", p, _test_words(stat_name, stat, modifier, p, crit), faces=DIE)
    notes = _FILE.notes[:1] + extra_notes  # the rule file's first note, which a shooting shows too

    def one_chunk(n: int) -> dict:
        codes = die.roll(rng, (n,))
        return {"removed": die.is_success(codes).astype(np.int8), "critical": codes == die.labels.index("critical")}

    return one_roll(KEY, function, inputs, (stage,), method, samples, np.array([float(1 - p), float(p)]),
                    {"critical": float(crit)}, one_chunk, die.dice, record_samples=False, attacks=1, notes=notes,
                    label="successes")


@v.stat_function
def stat_test(value, modifier=0, *, name="stat", method="exact", samples=100_000, seed=0) -> Outcome:
    """One stat test at ``value + modifier`` as an Outcome.

    ``pmf = [P(fail), P(success)]`` (label "successes"), one stage with the
    exact probability and the roll needed, ``effects["critical"]`` =
    P(critical success). ``name`` only labels the stage ("Init", "Cou"...).
    """
    value = v.integer("value", value, *STAT_RANGE)
    modifier = v.integer("modifier", modifier, *MOD_RANGE)
    if not isinstance(name, str) or not name:
        raise InputError("name", "a non-empty string", name)
    inputs = {"value": value, "modifier": modifier, "name": name}
    return _test_outcome("stat_test", name, value, modifier, method, samples, seed, inputs)


def _single(function: str, field: str, stat_name: str, stat, modifier, method, samples, seed, note: str) -> Outcome:
    """The Outcome of the single test ``function``: the stat ``field`` (``stat_name`` in words) and its
    modifier checked, then one stat test with its ``note``."""
    inputs = {field: v.integer(field, stat, *STAT_RANGE), "modifier": v.integer("modifier", modifier, *MOD_RANGE)}
    return _test_outcome(function, stat_name, inputs[field], inputs["modifier"], method, samples, seed, inputs,
                         (note,))


@v.stat_function
def reaction(init, *, modifier=0, method="exact", samples=100_000, seed=0) -> Outcome:
    """An Init test to react to an enemy action ("the key value that we test
    against when a unit reacts to an enemy's action")."""
    return _single("reaction", "init", "Init", init, modifier, method, samples, seed,
                   "A reaction is an Init test (seed: 'the key value that we test against when a "
                   "unit reacts to an enemy's action').")


@v.stat_function
def combat_status(cou=None, machine=False, com=None, *, modifier=0, method="exact", samples=100_000,
                  seed=0) -> Outcome:
    """A Combat Status check: a Cou test, or a Com test for a machine.

    Seed: Courage is tested "when checking Combat Status"; Compute's "principle
    use is for WarDrones and other kinds of sentient machines, where compute is
    generally used instead of courage". ``machine=False`` needs ``cou`` (a
    ``com`` given as well is ignored: a living model's stat line has both);
    ``machine=True`` needs ``com`` (``cou`` is then ignored).
    """
    machine = v.boolean("machine", machine)
    modifier = v.integer("modifier", modifier, *MOD_RANGE)
    field, other = ("com", "cou") if machine else ("cou", "com")
    given = {"cou": cou, "com": com}
    if given[field] is None:
        raise InputError(field, f"a whole number from {STAT_RANGE[0]} to {STAT_RANGE[1]}"
                         + (" when machine=True" if machine else ""), None,
                         "machines test Com instead of Cou" if machine
                         else "pass machine=True and com=... for a machine")
    given = {field: v.integer(field, given[field], *STAT_RANGE),
             other: v.optional_integer(other, given[other], *STAT_RANGE)}
    inputs = {"cou": given["cou"], "machine": machine, "com": given["com"], "modifier": modifier}
    note = ("A machine checks Combat Status on Com ('compute is generally used instead of courage')."
            if machine else "Combat Status is a Cou test ('We test against this value when checking "
            "Combat Status').")
    return _test_outcome("combat_status", field.capitalize(), given[field], modifier, method, samples, seed, inputs,
                         (note,))


@v.stat_function
def movement_test(ag, *, modifier=0, method="exact", samples=100_000, seed=0) -> Outcome:
    """An Ag test for demanding movement ("It is used mostly for movement
    tests in demanding situations")."""
    return _single("movement_test", "ag", "Ag", ag, modifier, method, samples, seed,
                   "Demanding movement is an Ag test (seed: 'used mostly for movement tests in "
                   "demanding situations').")
