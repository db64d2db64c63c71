"""The resolver core: per-die tests, pmf engine, outcome type, validation, pipeline.

Expected numbers come from brute-force counts written here (itertools over
every face, fractions.Fraction), from icepool, or from RULES.md.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import re
from fractions import Fraction

import icepool
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from workbench import engine, pipeline
from workbench import validate as v
from workbench.dice import percent, roll_faces
from reference.dice import RollHigh, RollUnder, rates
from workbench.errors import InputError, UnknownArgumentError, WorkbenchError
from workbench.outcome import Outcome, Stage

SETTINGS = settings(max_examples=60, deadline=None)


# -- brute force ------------------------------------------------------------------
def brute_high(target: int, sides: int, nat_max: bool = False, nat_1: bool = False) -> dict[str, Fraction]:
    counts = {"fail": 0, "success": 0, "near_miss": 0}
    for f in range(1, sides + 1):
        ok = f >= target or (nat_max and f == sides)
        if nat_1 and f == 1:
            ok = False
        if ok:
            counts["success"] += 1
        elif f == target - 1:
            counts["near_miss"] += 1
        else:
            counts["fail"] += 1
    return {k: Fraction(c, sides) for k, c in counts.items()}


def brute_under(value: int, sides: int = 10) -> dict[str, Fraction]:
    """Seed 004: d10 at or under the value; a 10 always fails; below 1 needs a 1
    then another 1; a 1 is a critical from value 2."""
    counts = {"fail": 0, "success": 0, "critical": 0}
    for a, b in itertools.product(range(1, sides + 1), repeat=2):
        if value < 1:
            ok = a == 1 and b == 1
        else:
            ok = a <= value and a != sides
        if ok and a == 1 and value >= 2:
            counts["critical"] += 1
        elif ok:
            counts["success"] += 1
        else:
            counts["fail"] += 1
    return {k: Fraction(c, sides * sides) for k, c in counts.items()}


def brute_binomial(n: int, p: Fraction) -> list[Fraction]:
    out = [Fraction(0)] * (n + 1)
    for trials in itertools.product((0, 1), repeat=n):
        prob = Fraction(1)
        for t in trials:
            prob *= p if t else 1 - p
        out[sum(trials)] += prob
    return out


# -- RollHigh ---------------------------------------------------------------------
@pytest.mark.parametrize("sides", [6, 10, 12])
@pytest.mark.parametrize("nat_max,nat_1", [(False, False), (True, False), (False, True), (True, True)])
def test_roll_high_equals_brute_force(sides, nat_max, nat_1):
    for target in range(-1, sides + 3):
        t = RollHigh(target, sides, nat_max, nat_1)
        assert t.probabilities == brute_high(target, sides, nat_max, nat_1), target
        assert t.success == brute_high(target, sides, nat_max, nat_1)["success"]


@pytest.mark.parametrize("target", range(1, 14))
def test_roll_high_d12_against_icepool(target):
    assert RollHigh(target, 12).success == (icepool.d12 >= target).probability(True)
    nat = icepool.d12.map(lambda f: (f >= target or f == 12) and f != 1)
    assert RollHigh(target, 12, True, True).success == nat.probability(True)


def test_roll_high_rules_examples():
    # RULES.md: "Strength 5+ against Toughness +2 needs 7+", P = (13 - target) / 12
    assert RollHigh(7, 12).success == Fraction(6, 12)
    assert RollHigh(5 + 2, 12).describe() == "needs 7+ on a D12"
    # d12 >= 7 is the icepool expression named in the brief
    assert RollHigh(7, 12).success == (icepool.d12 >= 7).probability(True)
    assert RollHigh(14, 12).success == 0 and RollHigh(0, 12).success == 1
    assert "no roll reaches" in RollHigh(14, 12).describe()


# -- RollUnder (antares) ------------------------------------------------------------
@pytest.mark.parametrize("value", range(-3, 13))
def test_roll_under_equals_brute_force(value):
    t = RollUnder(value)
    assert t.probabilities == brute_under(value)
    assert t.success == brute_under(value)["success"] + brute_under(value)["critical"]


@pytest.mark.parametrize("value", range(-2, 12))
def test_roll_under_against_icepool(value):
    def rule(a, b):
        if value < 1:
            return a == 1 and b == 1
        return a <= value and a != 10

    die = icepool.map(rule, icepool.d10, icepool.d10)
    assert RollUnder(value).success == die.probability(True)
    crit = icepool.map(lambda a, b: rule(a, b) and a == 1 and value >= 2, icepool.d10, icepool.d10)
    assert RollUnder(value).p("critical") == crit.probability(True)


def test_roll_under_rules_summary():
    # RULES.md section 4: 1/100 below 1, v/10 for 1..9, 9/10 from 9; criticals 1/10 from v = 2
    assert RollUnder(0).success == Fraction(1, 100)
    assert RollUnder(-5).success == Fraction(1, 100)
    assert [RollUnder(x).success for x in range(1, 10)] == [Fraction(x, 10) for x in range(1, 10)]
    assert RollUnder(10).success == RollUnder(15).success == Fraction(9, 10)
    assert RollUnder(1).p("critical") == 0 and RollUnder(2).p("critical") == Fraction(1, 10)


# -- rates: vectorised grids ----------------------------------------------------------
def test_rates_roll_high_grid_equals_scalars():
    targets = np.arange(-1, 15)[:, None]
    sides_nat = np.array([False, True])[None, :]
    grid = rates(RollHigh(targets, 12, sides_nat, False))
    assert grid.shape == (16, 2)
    for i, t in enumerate(range(-1, 15)):
        for j, nm in enumerate((False, True)):
            assert grid[i, j] == pytest.approx(float(RollHigh(t, 12, nm).success), abs=1e-15)
    near = rates(RollHigh(targets[:, 0], 12), "near_miss")
    assert np.allclose(near, [float(brute_high(t, 12)["near_miss"]) for t in range(-1, 15)], atol=1e-15)


def test_rates_roll_under_grid_equals_scalars():
    values = np.arange(-3, 13)
    assert np.allclose(rates(RollUnder(values)), [float(brute_under(x)["success"] + brute_under(x)["critical"])
                                                  for x in values], atol=1e-15)
    assert np.allclose(rates(RollUnder(values), "critical"), [float(brute_under(x)["critical"]) for x in values],
                       atol=1e-15)


@SETTINGS
@given(st.lists(st.integers(-5, 20), min_size=1, max_size=30), st.sampled_from([6, 10, 12]))
def test_rates_property(targets, sides):
    got = rates(RollHigh(np.array(targets), sides))
    assert np.allclose(got, [float(brute_high(t, sides)["success"]) for t in targets], atol=1e-15)
    assert np.all((got >= 0) & (got <= 1))


# -- sampled rolls ---------------------------------------------------------------------
N = 200_000


def within(freq: float, p: float, n: int = N, k: float = 5.0) -> bool:
    """|freq - p| within k standard errors of a proportion (and a floor for p near 0 or 1)."""
    se = math.sqrt(max(p * (1 - p), 1.0 / n) / n)
    return abs(freq - p) <= k * se


def test_roll_faces_uniform():
    faces = roll_faces(np.random.default_rng(1), 12, (N,))
    assert faces.dtype == np.uint8 and faces.min() == 1 and faces.max() == 12
    freq = np.bincount(faces, minlength=13)[1:] / N
    assert all(within(f, 1 / 12) for f in freq)


@pytest.mark.parametrize("test", [RollHigh(7, 12), RollHigh(5, 10, True, True), RollUnder(5), RollUnder(0),
                                  RollHigh(9, 10)], ids=repr)
def test_roll_frequencies_match_exact(test):
    codes = test.roll(np.random.default_rng(20240), (N,))
    for i, label in enumerate(test.labels):
        assert within(float(np.mean(codes == i)), float(test.p(label))), label
    assert within(float(test.is_success(codes).mean()), float(test.success))


def test_roll_is_reproducible_at_a_seed():
    a = RollUnder(6).roll(np.random.default_rng(7), (1000,))
    b = RollUnder(6).roll(np.random.default_rng(7), (1000,))
    assert np.array_equal(a, b)


# -- engine -----------------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("p", [Fraction(0), Fraction(5, 36), Fraction(1, 2), Fraction(11, 12), Fraction(1)])
def test_binomial_pmf_brute_force(n, p):
    got = engine.binomial_pmf(n, float(p))
    assert got.shape == (n + 1,)
    assert np.allclose(got, [float(x) for x in brute_binomial(n, p)], atol=1e-12)


@pytest.mark.parametrize("n", [1, 10, 20, 100])
def test_binomial_pmf_against_icepool(n):
    # icepool: the sum of n Bernoulli(7/12) dice, i.e. (d12 >= 6) counted n times
    hit = icepool.d12 >= 6
    dist = n @ hit.map({False: 0, True: 1})
    expected = [float(dist.probability(k)) for k in range(n + 1)]
    assert np.allclose(engine.binomial_pmf(n, 7 / 12), expected, atol=1e-12)


def test_binomial_pmf_grid_with_varying_n():
    p = np.array([[0.1, 0.5], [0.9, 0.25]])
    n = np.array([[1, 5], [20, 10]])
    got = engine.binomial_pmf(n, p)
    assert got.shape == (2, 2, 21)
    for idx in itertools.product(range(2), range(2)):
        exp = [float(x) for x in brute_binomial(int(n[idx]), Fraction(p[idx]).limit_denominator())] \
            if n[idx] <= 10 else [math.comb(int(n[idx]), k) * p[idx] ** k * (1 - p[idx]) ** (n[idx] - k)
                                  for k in range(n[idx] + 1)]
        assert np.allclose(got[idx][: n[idx] + 1], exp, atol=1e-12)
        assert np.all(got[idx][n[idx] + 1:] == 0)


@pytest.mark.parametrize("n", [0, 1, 7, engine.SMALL_N, engine.SMALL_N + 1])
def test_a_scalar_binomial_in_python_floats_equals_the_array_one(n):
    """One scalar resolution's binomial (Python floats, up to SMALL_N trials) and the array path
    (numpy scalars take it) give the same pmf to a rounding of the last bit."""
    for p in (0.0, 5 / 36, 0.5, 11 / 12, 1.0):
        small, array = engine.binomial_pmf(n, p), engine.binomial_pmf(np.int64(n), np.float64(p))
        assert small.shape == array.shape == (n + 1,)
        assert np.max(np.abs(small - array)) <= 2e-16
        exact = [float(math.comb(n, k) * Fraction(p) ** k * (1 - Fraction(p)) ** (n - k)) for k in range(n + 1)]
        assert np.allclose(small, exact, rtol=1e-12, atol=1e-300)


def test_binomial_pmf_width_truncates_and_pads():
    assert engine.binomial_pmf(3, 0.5, width=6).tolist() == pytest.approx([1 / 8, 3 / 8, 3 / 8, 1 / 8, 0, 0])
    assert engine.binomial_pmf(3, 0.5, width=2).tolist() == pytest.approx([1 / 8, 3 / 8])


@SETTINGS
@given(st.integers(0, 60), st.floats(0, 1))
def test_binomial_pmf_property(n, p):
    pmf = engine.binomial_pmf(n, p)
    assert np.all(pmf >= 0) and np.all(np.isfinite(pmf))
    assert pmf.sum() == pytest.approx(1.0, abs=1e-9)
    assert engine.mean_of(pmf) == pytest.approx(n * p, abs=1e-8)


def test_remap_brute_force():
    pmf = np.array([0.1, 0.2, 0.3, 0.4])
    index = np.array([0, 0, 1, 1])  # e.g. 2 wounds per model
    assert engine.remap(pmf, index, 2).tolist() == pytest.approx([0.3, 0.7])
    grid = np.stack([pmf, pmf[::-1]])
    assert np.allclose(engine.remap(grid, [2, 1, 0, 0], 3), [[0.7, 0.2, 0.1], [0.3, 0.3, 0.4]], atol=1e-15)


def test_remap_per_cell_index_and_cap_per_cell_limit():
    # RULES.md: models removed = min(models, floor(wounds / W)), one unit size per cell
    pmf = np.array([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]])
    index = np.array([[0, 0, 1, 1], [0, 1, 1, 1]])      # W = 2 with 2 models; W = 1 with 1 model
    assert np.allclose(engine.remap(pmf, index, 2), [[0.3, 0.7], [0.4, 0.6]], atol=1e-15)
    capped = engine.cap(pmf, np.array([1, 2]))
    assert np.allclose(capped, [[0.1, 0.9, 0, 0], [0.4, 0.3, 0.3, 0]], atol=1e-15)


def test_cap():
    pmf = np.array([0.1, 0.2, 0.3, 0.4])
    assert engine.cap(pmf, 1).tolist() == pytest.approx([0.1, 0.9])
    assert engine.cap(pmf, None) is pmf
    assert engine.cap(pmf, 10) is pmf
    assert np.allclose(engine.cap(np.stack([pmf, pmf]), 2), [[0.1, 0.2, 0.7]] * 2, atol=1e-15)


def test_convolve_brute_force_and_icepool():
    a = [Fraction(1, 6)] * 6  # counts 0..5
    b = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)]
    expected = [Fraction(0)] * 8
    for (i, pa), (j, pb) in itertools.product(enumerate(a), enumerate(b)):
        expected[i + j] += pa * pb
    got = engine.convolve(np.array([float(x) for x in a]), np.array([float(x) for x in b]))
    assert np.allclose(got, [float(x) for x in expected], atol=1e-15)
    die = icepool.Die({i: 1 for i in range(6)}) + icepool.Die({0: 3, 1: 2, 2: 1})
    assert np.allclose(got, [float(die.probability(k)) for k in range(8)], atol=1e-15)


@SETTINGS
@given(st.lists(st.floats(0, 1), min_size=1, max_size=8), st.lists(st.floats(0, 1), min_size=1, max_size=8),
       st.integers(0, 10))
def test_convolve_and_cap_keep_mass(wa, wb, limit):
    a = np.array(wa) + 1e-3
    b = np.array(wb) + 1e-3
    a, b = a / a.sum(), b / b.sum()
    c = engine.convolve(a, b)
    assert c.sum() == pytest.approx(1.0, abs=1e-12)
    assert engine.mean_of(c) == pytest.approx(engine.mean_of(a) + engine.mean_of(b), abs=1e-9)
    capped = engine.cap(c, limit)
    assert capped.sum() == pytest.approx(1.0, abs=1e-12)
    assert capped.size <= limit + 1


# -- outcome -------------------------------------------------------------------------------
def make(pmf=(0.25, 0.5, 0.25), **kw) -> Outcome:
    base = dict(system="test", function="shooting", inputs={"shots": 2}, pmf=pmf,
                stages=(Stage("to hit", Fraction(1, 2)), Stage("to wound", Fraction(1, 2))))
    base.update(kw)
    return Outcome(**base)


def test_outcome_reading():
    o = make()
    assert o.mean == pytest.approx(1.0)
    assert o.at_least(0) == 1.0 and o.at_least(1) == pytest.approx(0.75) and o.at_least(2) == pytest.approx(0.25)
    assert o.at_least(3) == 0.0 and o.exactly(1) == 0.5 and o.exactly(7) == 0.0
    assert o.at_least_curve.tolist() == pytest.approx([1.0, 0.75, 0.25])
    assert o.per_attack == Fraction(1, 4)
    assert o.max_removed == 2
    assert make(stages=()).per_attack is None
    assert "mean=1.0000" in repr(o)


def test_outcome_pmf_must_sum_to_one():
    with pytest.raises(InputError, match=re.escape("pmf: expected non-negative probabilities that sum to 1, got [0.5, 0.4]")):
        make(pmf=[0.5, 0.4])
    with pytest.raises(InputError, match=r"^pmf: expected non-negative probabilities that sum to 1"):
        make(pmf=[1.5, -0.5])
    with pytest.raises(InputError, match=r"^pmf: expected finite numbers"):
        make(pmf=[float("nan"), 1.0])
    with pytest.raises(InputError, match=r"^pmf: expected a non-empty 1-D array, got \[\]$"):
        make(pmf=[])
    with pytest.raises(InputError, match=r"^method: expected 'exact' or 'sampled', got 'guess'$"):
        make(method="guess")


def test_outcome_is_immutable():
    o = make()
    with pytest.raises(ValueError, match="read-only"):
        o.pmf[0] = 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.method = "sampled"
    with pytest.raises(TypeError):
        o.inputs["shots"] = 3
    with pytest.raises(TypeError):
        o.effects["x"] = 1.0
    source = np.array([0.5, 0.5])
    o2 = o.replace(pmf=source)
    source[0] = 0.9  # the outcome copied its input
    assert o2.pmf.tolist() == [0.5, 0.5] and o.pmf.tolist() == [0.25, 0.5, 0.25]
    assert o2.pmf.flags.writeable is False
    with pytest.raises(InputError, match=r"^pmf: expected non-negative probabilities"):
        o.replace(pmf=[0.9])


def test_outcome_k_validation():
    o = make()
    with pytest.raises(InputError, match=r"^k: expected a whole number 0 or more, got -1$"):
        o.at_least(-1)
    with pytest.raises(InputError, match=r"^k: expected a whole number 0 or more, got True$"):
        o.exactly(True)
    with pytest.raises(InputError, match=r"^k: expected a whole number 0 or more, got 1\.5$"):
        o.at_least(1.5)


def test_stage_validation():
    s = Stage("to hit", Fraction(5, 36), "needs 5+")
    assert str(s) == "to hit: 5/36 (13.9%)"
    with pytest.raises(InputError, match=r"^Stage.probability: expected a Fraction from 0 to 1, got 0\.5$"):
        Stage("x", 0.5)
    with pytest.raises(InputError, match=r"^Stage.probability: expected a Fraction from 0 to 1, got Fraction\(3, 2\)$"):
        Stage("x", Fraction(3, 2))


def test_percent():
    assert percent(Fraction(5, 36)) == "13.9%"
    assert percent(Fraction(3, 10), 2) == "30.00%"


# -- validate --------------------------------------------------------------------------------
@pytest.mark.parametrize("value,message", [
    (2.5, r"^bs: expected a whole number from 1 to 12, got 2\.5$"),
    (13, r"^bs: expected a whole number from 1 to 12, got 13$"),
    (True, r"^bs: expected a whole number from 1 to 12, got True$"),
    ("5", r"^bs: expected a whole number from 1 to 12, got '5'$"),
    (float("nan"), r"^bs: expected a whole number from 1 to 12, got nan$"),
    (None, r"^bs: expected a whole number from 1 to 12, got None$"),
])
def test_integer_messages(value, message):
    with pytest.raises(InputError, match=message):
        v.integer("bs", value, 1, 12)


def test_integer_accepts():
    assert v.integer("shots", 5.0, 0) == 5 and type(v.integer("shots", np.int64(3), 0)) is int
    with pytest.raises(InputError, match=r"^shots: expected a whole number 0 or more, got -1$"):
        v.integer("shots", -1, 0)
    assert v.optional_integer("models", None, 1) is None
    with pytest.raises(InputError, match=r"^models: expected None or a whole number 1 or more, got 0$"):
        v.optional_integer("models", 0, 1)


def test_real_messages():
    assert v.real("f", 0.25, 0, 1) == 0.25
    with pytest.raises(InputError, match=r"^f: expected a finite number from 0 to 1, got nan$"):
        v.real("f", float("nan"), 0, 1)
    with pytest.raises(InputError, match=r"^f: expected a finite number from 0 to 1, got inf$"):
        v.real("f", float("inf"), 0, 1)
    with pytest.raises(InputError, match=r"^f: expected a finite number above 0 and at most 1, got 0$"):
        v.real("f", 0, 0, 1, lo_open=True)


def test_choice_boolean_forbid_messages():
    assert v.choice("weapon", "heavy", ("light", "heavy")) == "heavy"
    with pytest.raises(InputError, match=r"^weapon: expected one of 'light', 'heavy', got 'hevy' \(did you mean 'heavy'\?\)$"):
        v.choice("weapon", "hevy", ("light", "heavy"))
    with pytest.raises(InputError, match=r"^weapon: expected one of 'light', 'heavy', got 3$"):
        v.choice("weapon", 3, ("light", "heavy"))
    assert v.boolean("cover", np.bool_(True)) is True
    with pytest.raises(InputError, match=r"^cover: expected True or False, got 'yes'$"):
        v.boolean("cover", "yes")
    with pytest.raises(InputError, match=r"^action: expected 'snap' \(the target is EVADING\), got 'aimed' \(fire snap shots\)$"):
        v.forbid("action", "aimed", "'snap' (the target is EVADING)", "fire snap shots")


def test_method_args():
    assert v.method_args("exact", 100, 3) == ("exact", 0, None)
    # with method="exact" the sampling arguments are still checked, never silently ignored
    with pytest.raises(InputError, match=r"^samples: expected a whole number from 1 to 50000000, got 0$"):
        v.method_args("exact", 0, 3)
    with pytest.raises(InputError, match=r"^seed: expected a whole number 0 or more, or a numpy.random.Generator, "
                                         r"got 'ignored'$"):
        v.method_args("exact", 10, "ignored")
    method, samples, rng = v.method_args("sampled", 1000, 3)
    assert (method, samples) == ("sampled", 1000) and isinstance(rng, np.random.Generator)
    g = np.random.default_rng(1)
    assert v.method_args("sampled", 10, g)[2] is g
    with pytest.raises(InputError, match=r"^method: expected one of 'exact', 'sampled', got 'Exact' \(did you mean 'exact'\?\)$"):
        v.method_args("Exact", 10, 0)
    with pytest.raises(InputError, match=r"^samples: expected a whole number from 1 to 50000000, got 0$"):
        v.method_args("sampled", 0, 0)
    with pytest.raises(InputError, match=r"^seed: expected a whole number 0 or more, or a numpy.random.Generator, got -1$"):
        v.method_args("sampled", 10, -1)


def test_stat_function_names():
    @v.stat_function
    def shoot(*, bs, shots=1):
        return bs * shots

    assert shoot(bs=2, shots=3) == 6
    with pytest.raises(UnknownArgumentError, match=r"^argument name: expected one of bs, shots for "
                                                   r".*shoot\(\), got 'shot' \(did you mean 'shots'\?\)$"):
        shoot(bs=2, shot=3)
    with pytest.raises(TypeError):  # UnknownArgumentError is a TypeError too
        shoot(bs=2, BS=3)
    with pytest.raises(UnknownArgumentError, match=r"^arguments: expected keyword arguments as in .*shoot\(\*, bs, shots=1\)"):
        shoot()
    assert issubclass(UnknownArgumentError, ValueError) and issubclass(InputError, WorkbenchError)


# -- pipeline --------------------------------------------------------------------------------
def test_chunks_cover_samples():
    sizes = list(pipeline.chunks(1_000_001, 3))
    assert sum(sizes) == 1_000_001
    assert max(sizes) <= pipeline.CHUNK_DICE // 3
    assert list(pipeline.chunks(5, 10**9)) == [1] * 5


def test_sampled_binomial_against_exact_pmf():
    # 10 shots of the 5/36 pipeline, counted per sample, against binomial_pmf within 5 standard errors
    n, shots = 50_000, 10
    tests = [RollHigh(5, 12), RollHigh(8, 12), RollHigh(7, 12)]
    rng = np.random.default_rng(11)
    def chunk(m):
        passed = np.logical_and.reduce([t.roll_success(rng, (m, shots)) for t in tests])
        removed = np.minimum(passed.sum(axis=1), 5)
        return {"removed": removed, "any": removed > 0}

    tally = pipeline.tally_sampled(n, 3 * shots, chunk, 6)
    assert tally.n == n
    o = pipeline.tally_outcome("t", "f", {}, tally, ())
    exact = engine.cap(engine.binomial_pmf(shots, 5 / 36), 5)
    assert np.all(np.abs(o.pmf - exact) <= 5 * np.sqrt(exact * (1 - exact) / n) + 1e-12)
    assert o.method == "sampled" and o.samples == n
    assert o.effects["any"] == pytest.approx(1 - exact[0], abs=5 * o.effects_stderr["any"])
    assert o.mean == pytest.approx(engine.mean_of(exact), abs=5 * o.mean_stderr)


def test_exact_outcome_from_positional_fields():
    """An exact resolution builds its Outcome directly: system, function, inputs, pmf, stages, effects."""
    o = Outcome("t", "f", {"a": 1}, engine.binomial_pmf(2, 0.5), [Stage("s", Fraction(1, 2))],
                {"e": 0.5}, attacks=2, notes=("n",))
    assert o.method == "exact" and o.attacks == 2 and o.notes == ("n",) and o.effects["e"] == 0.5
    assert o.pmf.tolist() == pytest.approx([0.25, 0.5, 0.25])


@pytest.mark.parametrize("test", [RollHigh(7, 12), RollHigh(1, 6, True, True), RollHigh(11, 10, True, False),
                                  RollUnder(5), RollUnder(0), RollUnder(1), RollUnder(12)])
def test_roll_success_is_roll_then_is_success_on_the_same_draws(test):
    """The sampled paths' per-face lookup gives exactly what evaluating every
    rolled face gives, die for die, for one- and two-dice tests."""
    a = test.roll_success(np.random.default_rng(11), (300, 7))
    b = test.is_success(test.evaluate(roll_faces(np.random.default_rng(11), test.sides, (300, 7, test.dice))))
    assert a.dtype == bool and a.shape == (300, 7)
    assert np.array_equal(a, b)


# -- bad input that used to escape as a Python or numpy error ---------------------------
@pytest.mark.parametrize("huge", [10 ** 400, -10 ** 400, Fraction(10 ** 400), float("inf"), float("nan"), 1e400])
def test_huge_numbers_are_input_errors(huge):
    """A number too large for a float is refused like any other bad number,
    never an OverflowError from inside the check."""
    with pytest.raises(InputError, match=r"^x: expected a whole number from 0 to 5"):
        v.integer("x", huge, 0, 5)
    with pytest.raises(InputError, match=r"^x: expected a finite number"):
        v.real("x", huge, 0, 1)
    with pytest.raises(InputError, match=r"^x: expected"):
        v.integers("x", [1, huge], 0, 5)


def test_whole_fractions_and_ragged_lists():
    assert v.integer("x", Fraction(4, 1), 0, 5) == 4
    with pytest.raises(InputError, match=r"^x: expected a whole number from 0 to 5, got Fraction\(9, 2\)"):
        v.integer("x", Fraction(9, 2), 0, 5)
    with pytest.raises(InputError, match=r"^x: expected .*not a ragged list"):
        v.integers("x", [[1], [1, 2]], 0, 5)
    with pytest.raises(InputError, match=r"^x: expected whole numbers from 0 to 5, got 1e\+300"):
        v.integers("x", np.array([1.0, 1e300]), 0, 5)
    with pytest.raises(InputError, match=r"^arrays: expected True or False"):
        v.integer_checks(np.array([1, 2]))
    with pytest.raises(InputError, match=r"^fn: expected a function, got 3"):
        v.stat_function(3)


@pytest.mark.parametrize("n,p", [(1001, Fraction(37, 100)), (1500, Fraction(5, 36)), (10_000, Fraction(1, 2))])
def test_binomial_beyond_float_coefficients_is_exact_enough(n, p):
    """Above 1,000 trials C(n, k) no longer fits in a float: the log-space pmf
    agrees with exact Fractions (math.comb) to a relative 1e-9 wherever the
    probability is above 1e-200, and sums to 1."""
    out = engine.binomial_pmf(n, float(p))
    assert out.shape == (n + 1,)
    assert out.sum() == pytest.approx(1.0, abs=1e-9)
    for k in range(0, n + 1, max(1, n // 97)):
        exact = math.comb(n, k) * p ** k * (1 - p) ** (n - k)
        if exact > Fraction(1, 10 ** 200):
            assert out[k] == pytest.approx(float(exact), rel=1e-9)
    edge = engine.binomial_pmf(np.array([1200, 1300]), np.array([0.0, 1.0]), width=1301)
    assert edge[0, 0] == 1.0 and edge[1, 1300] == 1.0 and edge.sum() == pytest.approx(2.0)


def test_sampled_memory_does_not_grow_with_samples():
    """10 million samples are tallied chunk by chunk (histogram and sums), not
    kept: the call's peak traced memory stays near one chunk's, far below the
    80 MB that one 8-byte count per sample alone would take."""
    import tracemalloc
    from workbench.systems import changes
    tracemalloc.start()
    try:
        out = changes.leadership(5, method="sampled", samples=10_000_000, seed=1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out.samples == 10_000_000
    assert out.effects["passed"] == pytest.approx(8 / 12, abs=5 * out.effects_stderr["passed"])
    assert peak < 40e6


def test_sampled_cost_is_bounded_and_said():
    """A sampled call may roll at most pipeline.MAX_SAMPLED_DICE dice; the error says what a call may cost."""
    from workbench.rules import BudgetError
    from workbench.systems import changes
    with pytest.raises(InputError, match=r"^samples: expected at most 33,333,333 for this call \(30 dice per "
                                         r"sample; a sampled call rolls at most 1,000,000,000 dice"):
        pipeline.check_cost(50_000_000, 30)
    # a volley is its rule file's: bounded by the rule engine's budget before a die is rolled, as shooting is
    with pytest.raises(BudgetError) as exc:
        changes.volley([dict(bs=5, s=5, ap=5, shots=10)], models=5, method="sampled", samples=50_000_000)
    assert exc.value.field == "samples"
    tally = pipeline.Tally(3)
    tally.add(np.array([0, 1, 1, 2]), {"x": np.array([1.0, 2.0, 3.0, 4.0])})
    assert list(tally.counts) == [1, 2, 1] and tally.mean_and_stderr("x")[0] == 2.5
    assert tally.mean_and_stderr("x")[1] == pytest.approx(np.std([1, 2, 3, 4], ddof=1) / 2)


@pytest.mark.parametrize("names", [None, 3, "exact", object()])
def test_a_name_hint_from_no_collection_of_names_is_none_not_an_error(names):
    # the fuzz calls every public function of validate with values of random types
    from workbench import validate

    assert validate.did_you_mean("exact", names) is None
    assert validate.did_you_mean("exakt", ["exact", 3]) == "did you mean 'exact'?"
