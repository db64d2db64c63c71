"""One per-die model: the single tests the built-ins make outside their rule files
(``changes.test``, leadership, reach rolls, Antares' stat tests, Forgotten's stage
words) roll the rule engine's :class:`workbench.rules.die.StageDie` through a
:class:`~workbench.rules.die.DieRoll`.

Every face (every pair of faces for a long shot) gives the result a brute force
over the faces gives and the result the old per-die tests (the oracles in
tests/reference/dice.py) gave, for every target, die and natural-face rule;
their exact Fractions are the counted ones, and a seeded roll draws the same
dice with the same results as the old tests did.
"""
from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from reference.dice import RollHigh, RollUnder
from workbench.rules import engine
from workbench.rules.die import DieRoll, StageDie, roll_high
from workbench.systems import antares, changes, ownfile
from workbench.systems.antares import _stat_die

SIDES = (2, 3, 4, 6, 8, 10, 12, 20)
NATURALS = list(itertools.product([False, True], repeat=2))


def brute_high_face(face: int, target: int, sides: int, nat_max: bool, nat_1: bool) -> str:
    """A roll-high face's result, read straight off the rule."""
    ok = (face >= target or (nat_max and face == sides)) and not (nat_1 and face == 1)
    if ok:
        return "success"
    return "near_miss" if face == target - 1 else "fail"


def brute_under_faces(first: int, second: int, value: int) -> str:
    """Seed 004's stat test on a first and a second d10, read straight off the seed."""
    if value < 1:
        return "success" if first == 1 and second == 1 else "fail"
    if first == 10 or first > value:
        return "fail"
    return "critical" if first == 1 and value >= 2 else "success"


def counted(results: list[str], labels) -> dict[str, Fraction]:
    return {k: Fraction(results.count(k), len(results)) for k in labels}


@pytest.mark.parametrize("sides", SIDES)
@pytest.mark.parametrize("nat_max,nat_1", NATURALS)
def test_roll_high_gives_every_face_the_old_result(sides, nat_max, nat_1):
    faces = np.arange(1, sides + 1)[:, None]
    for target in range(-2, sides + 4):
        new = roll_high(target, sides, natural_max_always_succeeds=nat_max, natural_1_always_fails=nat_1)
        old = RollHigh(target, sides, nat_max, nat_1)
        assert new.labels == old.labels == ("fail", "success", "near_miss")
        got = [new.labels[c] for c in new.evaluate(faces)]
        brute = [brute_high_face(f, target, sides, nat_max, nat_1) for f in range(1, sides + 1)]
        assert got == brute == [old.labels[c] for c in old.evaluate(faces)], target
        assert new.probabilities == counted(brute, new.labels) == old.probabilities, target
        assert new.success == old.success == Fraction(brute.count("success"), sides)
        assert new.describe() == old.describe() and new.describe("d10") == old.describe("d10")


@pytest.mark.parametrize("value", range(-4, 14))
def test_antares_stat_die_gives_every_face_pair_the_old_result(value):
    new, old = _stat_die(value), RollUnder(value)
    pairs = np.array(list(itertools.product(range(1, 11), repeat=2)))
    brute = [brute_under_faces(a, b, value) for a, b in pairs]
    assert new.labels == old.labels == ("fail", "success", "critical") and new.dice == old.dice == 2
    assert [new.labels[c] for c in new.evaluate(pairs)] == brute == [old.labels[c] for c in old.evaluate(pairs)]
    assert new.probabilities == counted(brute, new.labels) == old.probabilities
    assert antares.test(value) == (old.success, old.p("critical"))


def test_antares_stat_die_is_the_rule_files_stat_test():
    """The stat test the module rolls is the die its rule file's to-hit stage states."""
    rs = ownfile.load("antares")
    faces = np.arange(1, 11)
    for value in range(-4, 14):
        (filed,) = engine.stage_dice(rs.stages[:1], {"acc": np.int64(value), "acc_mod": np.int64(0)})
        assert np.array_equal(filed.classify(faces), _stat_die(value).die.classify(faces)), value
        assert filed.counts()[0].tolist() == _stat_die(value).die.counts()[0].tolist()


TESTS = ([(roll_high(t, 12, natural_max_always_succeeds=a, natural_1_always_fails=b), RollHigh(t, 12, a, b))
          for t in (-1, 1, 5, 7, 12, 13, 14) for a, b in NATURALS]
         + [(roll_high(t, s), RollHigh(t, s)) for s in (3, 6, 10) for t in range(0, s + 2)]
         + [(_stat_die(x), RollUnder(x)) for x in range(-2, 12)])


@pytest.mark.parametrize("new,old", TESTS, ids=repr)
def test_a_seeded_roll_draws_the_old_dice_and_results(new, old):
    """The sampled paths (leadership, reach, stat tests, the turn simulator) keep their draws."""
    a = new.roll(np.random.default_rng(5), (400, 3))
    b = old.roll(np.random.default_rng(5), (400, 3))
    assert a.dtype == np.int8 and a.shape == (400, 3)
    assert np.array_equal(a, b)
    assert np.array_equal(new.roll_success(np.random.default_rng(9), (257,)),
                          old.roll_success(np.random.default_rng(9), (257,)))
    assert np.array_equal(new.is_success(a), old.is_success(b))


def test_changes_test_and_leadership_roll_the_engines_die():
    got = changes.test(7, natural_12_always_succeeds=True)
    assert isinstance(got, DieRoll) and isinstance(got.die, StageDie)
    assert got.die.roll_high and got.die.always_succeed == (12,) and got.die.always_fail == ()
    sampled = changes.leadership(7, method="sampled", samples=5_000, seed=3)
    rolled = got.roll_success(np.random.default_rng(3), (5_000,))
    assert sampled.pmf[1] == pytest.approx(rolled.mean(), abs=1e-12)


def test_a_die_that_rerolls_is_a_stages_not_a_single_tests():
    with pytest.raises(ValueError, match="rolls once"):
        DieRoll(StageDie(sides=6, roll_high=True, target=4, reroll="ones"))
