"""A chance over two nested tallies (a hit and a penetrating hit) is read through the runs of its
condition (workbench.rules.condition), without the joint table: against the brute force of
tests/brute_rules.py (every die face enumerated, Fractions), against the full joint table over
many attacks, in sweeps, with the runs themselves checked, and where the condition cannot be
split (it falls back to the table)."""
from __future__ import annotations

import numpy as np
import pytest

from brute_rules import brute, stage, to_toml
from workbench import rules
from workbench.rules import condition, tally
from workbench.rules.expr import parse

TOL = 1e-12

#: (when, predicate of the outer count o, the inner count i and the stat need)
CONDITIONS = [
    ("{i} >= 1 or (need > 0 and {o} >= need)", lambda o, i, need: i >= 1 or (need > 0 and o >= need)),
    ("{o} >= 2 * {i}", lambda o, i, need: o >= 2 * i),
    ("{i} == {o}", lambda o, i, need: i == o),
    ("min({o}, 2) + {i} >= 3", lambda o, i, need: min(o, 2) + i >= 3),
    ("not ({i} > 0) and {o} != 1", lambda o, i, need: not i > 0 and o != 1),
    ("({o} - {i}) // 2 >= 1 if {i} else {o} >= need", lambda o, i, need: (o - i) // 2 >= 1 if i else o >= need),
    ("{o} > 0 and 6 // {o} >= {i}", lambda o, i, need: o > 0 and 6 // o >= i),   # 6 // o alone divides by 0
]
#: (outer tally, inner tally): "damaging" is read first (sorted names), so the inner count comes first
NAMES = [("hits", "pens"), ("hits", "damaging")]



def _predicate(f, outer: str, inner: str, need: int):
    """The brute force's reading of condition ``f`` over one outcome's counts ``c``."""
    return lambda c: f(c[outer], c[inner], need)

def _game(outer: str, inner: str, whens: list[str]):
    stages = [stage(name="hit", target=3, tally=outer), stage(name="pen", target=4, tally=inner)]
    stats = {"shots": {"min": 0, "max": 400, "default": 3}, "need": {"min": 0, "max": 5, "default": 2}}
    chances = [{"name": f"c{k}", "when": w} for k, w in enumerate(whens)]
    text = to_toml(stages, "shots", dict(damage=1), stats=stats, chances=chances)
    return stages, rules.loads(text, "nested.toml")


@pytest.mark.parametrize("outer,inner", NAMES)
def test_nested_chances_equal_brute_force(outer, inner):
    whens = [w.format(o=outer, i=inner) for w, _ in CONDITIONS]
    stages, system = _game(outer, inner, whens)
    for shots, need in ((0, 2), (1, 0), (3, 2), (4, 1)):
        preds = [(f"c{k}", _predicate(f, outer, inner, need)) for k, (_, f) in enumerate(CONDITIONS)]
        _, want = brute(stages, shots, dict(damage=1), chances=preds)
        got = system.attack(shots=shots, need=need)
        table = system.attack_table(shots=np.array([shots, 0, shots]), need=need)
        for name, _ in preds:
            assert got.effects[name] == pytest.approx(float(want[name]), abs=TOL), (name, shots, need)
            assert table["effects"][name][0] == pytest.approx(float(want[name]), abs=TOL), (name, shots)
            assert table["effects"][name][2] == table["effects"][name][0]


def test_nested_chances_over_many_attacks_equal_the_joint_table():
    """Over 300 attacks the runs give what summing the whole joint table (tally._nested_power,
    itself checked against repeated convolution) gives, cell by cell of a sweep."""
    rng = np.random.default_rng(5)
    h = rng.random((3, 2, 2))
    h[:, 0, 1] = 0.0
    h /= h.sum(axis=(1, 2), keepdims=True)
    count = np.array([300, 7, 150])
    env = {"need": np.array([120, 3, 0])}
    table = tally._nested_power(h, count)
    for when, _ in CONDITIONS[:6]:
        expr = parse(when.format(o="a", i="b"), {"a", "b", "need"})
        c = tally.Chance(name="x", when=expr, count=("a", "b"), index=0)
        want = tally.chance(c, table, env)
        got = condition.nested_chance(expr, ("a", "b"), h, count, env, "x")
        assert got is not None
        np.testing.assert_allclose(got, want, rtol=0, atol=TOL)
        flipped = condition.nested_chance(parse(when.format(o="b", i="a"), {"a", "b", "need"}), ("a", "b"),
                                          np.swapaxes(h, 1, 2).copy(), count, env, "x")
        np.testing.assert_allclose(flipped, want, rtol=0, atol=TOL)


def test_runs_start_where_a_part_of_the_condition_changes():
    expr = parse("pens >= 1 or (need > 0 and hits >= need)", {"hits", "pens", "need"})
    hits, pens = condition.runs(expr, ("hits", "pens"), 10, {"need": np.array([3])})
    assert list(hits) == [0, 3] and list(pens) == [0, 1]
    hits, pens = condition.runs(expr, ("hits", "pens"), 10, {"need": np.array([3, 5])})   # every cell's runs
    assert list(hits) == [0, 3, 5] and list(pens) == [0, 1]
    cross = parse("hits >= 2 * pens", {"hits", "pens"})
    hits, pens = condition.runs(cross, ("hits", "pens"), 6, {})
    assert list(hits) == list(range(7)) and list(pens) == list(range(7))
    assert condition.runs(parse("hits > 0 and 6 // hits >= pens", {"hits", "pens"}), ("hits", "pens"), 6, {}) is None


def test_gunfire_suppression_at_a_thousand_shots_equals_the_reference():
    from reference import gunfire as reference
    from workbench.systems import gunfire
    for kw in (dict(models=1000, suppression_fraction=0.25), dict(models=None), dict(models=40, hit_mod=3)):
        args = dict(bs=4, ev=3, ap=3, av=4, s=1, t=1, shots=1000, **kw)
        got, want = gunfire.shooting(**args), reference.shooting(**args)
        for name in ("suppressed", "hits", "penetrating_hits"):
            assert got.effects[name] == pytest.approx(want.effects[name], abs=TOL), (name, kw)
        np.testing.assert_allclose(got.pmf, want.pmf, rtol=0, atol=TOL)


def test_two_counts_that_are_not_nested_over_many_attacks_follow_the_multinomial():
    """Hits and near misses (a near miss is a failed roll) are not nested: over more than
    tally.FFT_FROM attacks their joint distribution is raised to the attacks by the FFT. P(condition)
    is the multinomial sum (Fractions) to rounding."""
    from fractions import Fraction
    from math import comb

    n = 60
    assert n > tally.FFT_FROM
    text = to_toml([stage(name="hit", target=4, tally="hits", near_miss_tally="near")], "shots", {"wounds": 1},
                   stats={"shots": {"min": 0, "max": 100, "default": n}},
                   chances=[{"name": "both", "when": "hits >= 30 and near <= 10"}])
    got = rules.loads(text).attack().effects["both"]
    hit, near, other = Fraction(3, 6), Fraction(1, 6), Fraction(2, 6)   # 4-6 hit, 3 is one short, 1-2 miss
    want = sum(comb(n, a) * comb(n - a, b) * hit ** a * near ** b * other ** (n - a - b)
               for a in range(30, n + 1) for b in range(0, min(10, n - a) + 1))
    assert got == pytest.approx(float(want), abs=TOL)
