"""Gunfire (seed 003, RULES.md section 3).

Expected numbers come from brute-force enumerations written here (every die
face, itertools.product, Fractions), from icepool, or from the seed's worked
examples; never from the module under test.
"""
from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from itertools import product

import icepool
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from pmfcheck import assert_pmf_equal as _assert_pmf
from workbench.errors import InputError, UnknownArgumentError
from workbench.systems import gunfire as g

TOL = 1e-12


# ---------------------------------------------------------------------------
# brute force, written from RULES.md section 3, independent of the module
# ---------------------------------------------------------------------------
def _passes(face, attacker, defender, die, base, nat_max, nat_1):
    """Opposed test: a roll of base + defender - attacker or more succeeds."""
    if nat_1 and face == 1:
        return False
    if nat_max and face == die:
        return True
    return face >= base + defender - attacker


def _kills(pens, s, t, explosive, models):
    if s >= t:
        out = pens * (min(explosive, s // t) if explosive else 1)
    else:
        out = (pens * s) // t  # "Divide These Damage Points by the Toughness Of The Target, Rounding Down"
    return out if models is None else min(out, models)


def brute(*, bs, ev, ap, av, s, t, shots=1, models=None, hit_mod=0, pen_mod=0, explosive=None,
          suppression_fraction=0.25, die=10, base=6, nat_max=False, nat_1=False):
    """Every face of every die: two dice (hit, penetrate) per shot."""
    removed = Counter()
    supp = hits_total = pens_total = 0
    needed = None if models is None else math.ceil(Fraction(str(suppression_fraction)) * models)
    for faces in product(range(1, die + 1), repeat=2 * shots):
        hits = pens = 0
        for i in range(shots):
            h = _passes(faces[2 * i], bs, ev + hit_mod, die, base, nat_max, nat_1)
            p = h and _passes(faces[2 * i + 1], ap, av + pen_mod, die, base, nat_max, nat_1)
            hits += h
            pens += p
        removed[_kills(pens, s, t, explosive, models)] += 1
        supp += pens >= 1 or (needed is not None and hits >= needed)
        hits_total += hits
        pens_total += pens
    total = die ** (2 * shots)
    width = max(removed) + 1
    pmf = [Fraction(removed[k], total) for k in range(width)]
    return pmf, Fraction(supp, total), Fraction(hits_total, total), Fraction(pens_total, total)


CASES = [
    # d10 (the default), 1 and 2 shots
    dict(bs=3, ev=3, ap=3, av=3, s=1, t=1, shots=1),
    dict(bs=4, ev=2, ap=2, av=5, s=1, t=2, shots=2, models=5),
    dict(bs=3, ev=3, ap=4, av=3, s=6, t=2, shots=2, explosive=2, models=3),
    dict(bs=2, ev=4, ap=3, av=3, s=5, t=2, shots=2, explosive=4, hit_mod=-1, pen_mod=2, models=10,
         suppression_fraction=0.1),
    dict(bs=3, ev=3, ap=3, av=3, s=2, t=3, shots=2, models=2, suppression_fraction=1.0,
         nat_max=True, nat_1=True, hit_mod=5),
    dict(bs=9, ev=0, ap=0, av=9, s=1, t=3, shots=2, nat_max=True, nat_1=True),
    dict(bs=3, ev=3, ap=3, av=3, s=1, t=2, shots=2, explosive=3, base=4),
    # a d6 variant with 3 shots (6**6 face tuples)
    dict(bs=3, ev=3, ap=3, av=3, s=1, t=2, shots=3, models=4, suppression_fraction=0.5, die=6, base=4),
    dict(bs=2, ev=1, ap=3, av=2, s=4, t=1, shots=3, explosive=3, models=5, die=6, base=4),
    dict(bs=3, ev=3, ap=3, av=3, s=3, t=2, shots=3, models=8, suppression_fraction=0.3, die=6, base=3,
         nat_max=True),
]


def _call_kwargs(case):
    kw = dict(case)
    kw["natural_max_always_succeeds"] = kw.pop("nat_max", False)
    kw["natural_1_always_fails"] = kw.pop("nat_1", False)
    return kw


@pytest.mark.parametrize("case", CASES, ids=[str(i) for i in range(len(CASES))])
def test_exact_equals_brute_force(case):
    pmf, supp, hits, pens = brute(**case)
    out = g.shooting(**_call_kwargs(case))
    _assert_pmf(out.pmf, pmf)
    assert out.effects["suppressed"] == pytest.approx(float(supp), abs=TOL)
    assert out.effects["hits"] == pytest.approx(float(hits), abs=TOL)
    assert out.effects["penetrating_hits"] == pytest.approx(float(pens), abs=TOL)
    assert out.method == "exact" and out.attacks == case["shots"]


@pytest.mark.parametrize("case", CASES[:6], ids=[str(i) for i in range(6)])
def test_stages_are_exact_fractions_of_one_die(case):
    die, base = case.get("die", 10), case.get("base", 6)
    nat = (case.get("nat_max", False), case.get("nat_1", False))
    hit = Fraction(sum(_passes(f, case["bs"], case["ev"] + case.get("hit_mod", 0), die, base, *nat)
                       for f in range(1, die + 1)), die)
    pen = Fraction(sum(_passes(f, case["ap"], case["av"] + case.get("pen_mod", 0), die, base, *nat)
                       for f in range(1, die + 1)), die)
    out = g.shooting(**_call_kwargs(case))
    assert [s.name for s in out.stages] == ["to hit", "to penetrate"]
    assert all(isinstance(s.probability, Fraction) for s in out.stages)
    assert out.stages[0].probability == hit and out.stages[1].probability == pen
    assert out.per_attack == hit * pen


def test_stage_details_in_plain_words():
    out = g.shooting(bs=3, ev=3, ap=4, av=3, s=1, t=1)
    assert out.stages[0].detail == "BS 3 against Ev 3 needs 6+ on a d10: goes on 5/10"
    assert out.stages[1].detail == "AP 4 against AV 3 needs 5+ on a d10: goes on 6/10"
    out = g.shooting(bs=3, ev=3, ap=4, av=3, s=1, t=1, hit_mod=2, pen_mod=-1)
    assert out.stages[0].detail == "BS 3 against Ev 3 +2 (hit modifier) needs 8+ on a d10: goes on 3/10"
    assert out.stages[1].detail == "AP 4 against AV 3 -1 (penetration modifier) needs 4+ on a d10: goes on 7/10"
    # out of reach: the rule's own number (6 + 12 - 0); with the highest face passing, that face
    out = g.shooting(bs=0, ev=12, ap=20, av=0, s=1, t=1, die=6)
    assert out.stages[0].detail == "BS 0 against Ev 12 needs 18+ on a d6, which no roll reaches: goes on 0/6"
    assert out.stages[1].detail == "AP 20 against AV 0 any roll of a d6 succeeds: goes on 6/6"
    out = g.shooting(bs=0, ev=12, ap=20, av=0, s=1, t=1, die=6, natural_max_always_succeeds=True,
                     natural_1_always_fails=True)
    assert out.stages[0].detail == ("BS 0 against Ev 12 (a natural 6 always succeeds) (a natural 1 always fails) "
                                    "needs 6+ on a d6: goes on 1/6")
    assert out.stages[1].detail == ("AP 20 against AV 0 (a natural 6 always succeeds) (a natural 1 always fails) "
                                    "needs 2+ on a d6: goes on 5/6")
    assert "S at least T: each penetrating hit removes one model." in out.notes
    notes = g.shooting(bs=3, ev=3, ap=4, av=3, s=1, t=2, explosive=2).notes
    assert "S below T: models removed = floor(penetrating hits x S / T), the remainder discarded." in notes
    assert "Explosive has no effect when S is below T." in notes
    assert not any(n.startswith("S at least T") for n in notes)


def test_equal_stats_give_fifty_percent():
    # RULES.md section 3: "equal stats: 50%" with the defaults (d10, base 6)
    for stat in range(0, 21):
        out = g.shooting(bs=stat, ev=stat, ap=stat, av=stat, s=1, t=1)
        assert out.stages[0].probability == Fraction(1, 2) == out.stages[1].probability


def test_positive_hit_mod_makes_hitting_harder():
    easy = g.shooting(bs=5, ev=5, ap=5, av=5, s=1, t=1, hit_mod=-2).stages[0].probability
    plain = g.shooting(bs=5, ev=5, ap=5, av=5, s=1, t=1).stages[0].probability
    hard = g.shooting(bs=5, ev=5, ap=5, av=5, s=1, t=1, hit_mod=2).stages[0].probability
    assert easy == Fraction(7, 10) and plain == Fraction(5, 10) and hard == Fraction(3, 10)


# ---------------------------------------------------------------------------
# seed examples (seed 003, quoted in RULES.md section 3)
# ---------------------------------------------------------------------------
def test_seed_example_laansguard_on_knights():
    # "A unit of Laansguard gets 3 penetrating hits with their S1 rifles on a unit of T2 Knights.
    #  ... with which they kill one Knight. The leftover point is discarded."
    assert g.models_removed(3, 1, 2) == 1
    # the same through the whole resolution: every shot certain to hit and penetrate
    out = g.shooting(bs=20, ev=0, ap=20, av=0, s=1, t=2, shots=3)
    _assert_pmf(out.pmf, [0, 1])


def test_seed_example_knights_on_laansguard():
    # "A unit of Knights gets 4 penetrating hits on a unit of Laansguard. The Knights' weapons
    #  are S2, but since that's higher than the T1 of the guard ... So 4 dead guard."
    assert g.models_removed(4, 2, 1) == 4
    out = g.shooting(bs=20, ev=0, ap=20, av=0, s=2, t=1, shots=4)
    _assert_pmf(out.pmf, [0, 0, 0, 0, 1])


def test_models_removed_division_and_explosive():
    assert [g.models_removed(p, 1, 3) for p in range(7)] == [0, 0, 0, 1, 1, 1, 2]
    assert g.models_removed(5, 3, 3) == 5
    assert g.models_removed(2, 6, 2, explosive=2) == 4       # min(2, 6 // 2) = 2 per pen
    assert g.models_removed(2, 6, 2, explosive=5) == 6       # min(5, 3) = 3 per pen
    assert g.models_removed(3, 1, 2, explosive=4) == 1       # S < T: explosive has no effect
    assert g.models_removed(10, 2, 1, models=6) == 6         # capped at the unit size
    arr = g.models_removed(np.arange(5), 1, 2)
    assert arr.tolist() == [0, 0, 1, 1, 2]


def test_suppression_without_models_counts_penetration_only():
    out = g.shooting(bs=4, ev=3, ap=3, av=5, s=1, t=2, shots=4)
    p = Fraction(6, 10) * Fraction(3, 10)
    assert out.effects["suppressed"] == pytest.approx(float(1 - (1 - p) ** 4), abs=TOL)


def test_suppression_by_hits_alone():
    # nothing can penetrate (needs 6 + 14 - 0 = 20+ on a d10), so only the hit count suppresses:
    # 5 models x 0.5 -> 3 hits needed out of 4 shots at 5/10
    out = g.shooting(bs=3, ev=3, ap=0, av=14, s=1, t=1, shots=4, models=5, suppression_fraction=0.5)
    expected = sum(Fraction(math.comb(4, k), 2 ** 4) for k in (3, 4))
    assert out.effects["suppressed"] == pytest.approx(float(expected), abs=TOL)
    _assert_pmf(out.pmf, [1])


def test_suppression_fraction_is_read_as_a_decimal():
    # 0.1 x 10 models = 1 hit exactly (not 2 because of the float 0.1000000000000000055...)
    out = g.shooting(bs=3, ev=3, ap=0, av=14, s=1, t=1, shots=2, models=10, suppression_fraction=0.1)
    assert out.effects["suppressed"] == pytest.approx(0.75, abs=TOL)


# ---------------------------------------------------------------------------
# icepool cross-check: 10 shots
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("s,t,explosive,models,frac", [(1, 3, None, 8, 0.25), (6, 2, 2, 12, 0.5),
                                                      (2, 2, None, None, 0.25)])
def test_ten_shots_against_icepool(s, t, explosive, models, frac):
    bs, ev, ap, av = 4, 3, 3, 4
    need_hit, need_pen = 6 + ev - bs, 6 + av - ap
    K = 100  # a shot's value: 1 per hit + K per penetrating hit

    shot = icepool.map(lambda h, p: (1 + K * (p >= need_pen)) if h >= need_hit else 0,
                       icepool.d10, icepool.d10)
    total = 10 @ shot
    removed = total.map(lambda x: _kills(x // K, s, t, explosive, models))
    needed = None if models is None else math.ceil(Fraction(str(frac)) * models)
    supp = total.map(lambda x: (x // K >= 1) or (needed is not None and x % K >= needed))

    out = g.shooting(bs=bs, ev=ev, ap=ap, av=av, s=s, t=t, shots=10, models=models, explosive=explosive,
                     suppression_fraction=frac)
    expected = [removed.probability(k) for k in range(max(removed.outcomes()) + 1)]
    _assert_pmf(out.pmf, expected)
    assert out.effects["suppressed"] == pytest.approx(float(supp.probability(True)), abs=TOL)


# ---------------------------------------------------------------------------
# table = scalar path, cell by cell
# ---------------------------------------------------------------------------
def test_table_matches_scalar_cells():
    bs = np.array([1, 3, 6])[:, None, None]
    s = np.array([1, 2, 5])[None, :, None]
    shots = np.array([1, 4, 7])[None, None, :]
    table = g.shooting_table(bs=bs, ev=3, ap=4, av=3, s=s, t=2, shots=shots, models=5, explosive=2,
                             suppression_fraction=0.5)
    assert table["pmf"].shape[:-1] == (3, 3, 3)
    for i, j, k in product(range(3), repeat=3):
        one = g.shooting(bs=int(bs[i, 0, 0]), ev=3, ap=4, av=3, s=int(s[0, j, 0]), t=2,
                         shots=int(shots[0, 0, k]), models=5, explosive=2, suppression_fraction=0.5)
        row = table["pmf"][i, j, k]
        _assert_pmf(row, one.pmf)
        for name in ("suppressed", "hits", "penetrating_hits"):
            assert table["effects"][name][i, j, k] == pytest.approx(one.effects[name], abs=TOL)


def test_table_with_array_models():
    models = np.array([1, 3, 6])
    table = g.shooting_table(bs=4, ev=3, ap=4, av=3, s=1, t=1, shots=5, models=models)
    for i, m in enumerate(models):
        one = g.shooting(bs=4, ev=3, ap=4, av=3, s=1, t=1, shots=5, models=int(m))
        _assert_pmf(table["pmf"][i], one.pmf)
        assert table["effects"]["suppressed"][i] == pytest.approx(one.effects["suppressed"], abs=TOL)


def test_tables_registry():
    assert g.TABLES == {"shooting": g.shooting_table}
    assert (g.KEY, g.NAME, g.SEED, g.DIE) == ("gunfire", "Gunfire", "003_9fc46742126cc43c.txt", 10)


# ---------------------------------------------------------------------------
# sampled against exact
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("case", [
    dict(bs=4, ev=3, ap=3, av=4, s=1, t=2, shots=5, models=4, suppression_fraction=0.5),
    dict(bs=3, ev=3, ap=5, av=3, s=6, t=2, shots=3, explosive=2, models=5, natural_1_always_fails=True),
    dict(bs=3, ev=2, ap=3, av=3, s=2, t=1, shots=4, die=6, base=4, natural_max_always_succeeds=True),
])
def test_sampled_agrees_with_exact(case):
    n = 100_000
    exact = g.shooting(**case)
    sampled = g.shooting(**case, method="sampled", samples=n, seed=12345)
    assert sampled.method == "sampled" and sampled.samples == n
    width = max(exact.pmf.size, sampled.pmf.size)
    e = np.zeros(width)
    e[: exact.pmf.size] = exact.pmf
    sm = np.zeros(width)
    sm[: sampled.pmf.size] = sampled.pmf
    bound = 5 * np.sqrt(e * (1 - e) / n) + 1e-12  # 5 standard errors of a proportion
    assert np.all(np.abs(sm - e) <= bound), (sm, e)
    p = exact.effects["suppressed"]
    assert abs(sampled.effects["suppressed"] - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1e-12
    for name in ("hits", "penetrating_hits"):
        assert abs(sampled.effects[name] - exact.effects[name]) <= 5 * sampled.effects_stderr[name] + 1e-12
    assert sampled.stages == exact.stages


def test_sampled_is_reproducible_and_seed_matters():
    kw = dict(bs=4, ev=3, ap=3, av=4, s=1, t=1, shots=3, method="sampled", samples=2_000)
    a = g.shooting(**kw, seed=7)
    b = g.shooting(**kw, seed=7)
    c = g.shooting(**kw, seed=8)
    assert np.array_equal(a.pmf, b.pmf)
    assert not np.array_equal(a.pmf, c.pmf)
    gen = np.random.default_rng(7)
    assert np.array_equal(g.shooting(**kw, seed=gen).pmf, a.pmf)


# ---------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------
stat = st.integers(0, 12)


@settings(max_examples=60, deadline=None)
@given(bs=stat, ev=stat, ap=stat, av=stat, s=st.integers(0, 8), t=st.integers(1, 8),
       shots=st.integers(1, 12), models=st.one_of(st.none(), st.integers(1, 10)),
       explosive=st.one_of(st.none(), st.integers(1, 4)), hit_mod=st.integers(-3, 3),
       frac=st.sampled_from([0.25, 0.3, 0.5, 1.0]))
def test_properties(bs, ev, ap, av, s, t, shots, models, explosive, hit_mod, frac):
    kw = dict(ev=ev, ap=ap, av=av, s=s, t=t, shots=shots, models=models, explosive=explosive,
              hit_mod=hit_mod, suppression_fraction=frac)
    out = g.shooting(bs=bs, **kw)
    assert np.all(out.pmf >= 0) and out.pmf.sum() == pytest.approx(1.0, abs=1e-12)
    assert 0.0 <= out.effects["suppressed"] <= 1.0
    if models is not None:
        assert out.pmf.size <= models + 1
    per_pen = (min(explosive, s // t) if explosive else 1) if s >= t else 1
    assert out.mean <= shots * per_pen + 1e-9
    better = g.shooting(bs=bs + 1, **kw)
    assert better.mean >= out.mean - 1e-12
    assert better.effects["suppressed"] >= out.effects["suppressed"] - 1e-12


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------
BASE_KW = dict(bs=3, ev=3, ap=3, av=3, s=1, t=1)


@pytest.mark.parametrize("kw,pattern", [
    (dict(suppression_fraction=0), r"suppression_fraction: expected a finite number above 0 and at most 1, got 0"),
    (dict(suppression_fraction=1.5), r"suppression_fraction: expected a finite number above 0 and at most 1, got 1\.5"),
    (dict(die=1), r"die: expected a whole number from 2 to 100, got 1"),
    (dict(bs=float("nan")), r"bs: expected a whole number from 0 to 20, got nan"),
    (dict(shots=-1), r"shots: expected a whole number from 1 to 1000, got -1"),
    (dict(ev="three"), r"ev: expected a whole number from 0 to 20, got 'three'"),
    (dict(t=0), r"t: expected a whole number from 1 to 20, got 0"),
    (dict(models=0), r"models: expected None or a whole number from 1 to 1000, got 0"),
    (dict(explosive=2.5), r"explosive: expected None or a whole number from 1 to 20, got 2\.5"),
    (dict(hit_mod=True), r"hit_mod: expected a whole number from -20 to 20, got True"),
    (dict(natural_1_always_fails=1), r"natural_1_always_fails: expected True or False, got 1"),
    (dict(method="exactly"), r"method: expected one of 'exact', 'sampled', got 'exactly' \(did you mean 'exact'\?\)"),
    (dict(method="sampled", samples=0), r"samples: expected a whole number from 1 to 50000000, got 0"),
    (dict(method="sampled", seed=-3), r"seed: expected a whole number 0 or more, or a numpy.random.Generator, got -3"),
])
def test_bad_input_messages(kw, pattern):
    with pytest.raises(InputError, match=pattern):
        g.shooting(**{**BASE_KW, **kw})


def test_unknown_keyword_suggests_the_name():
    with pytest.raises(UnknownArgumentError, match=r"got 'hitmod' \(did you mean 'hit_mod'\?\)"):
        g.shooting(**BASE_KW, hitmod=1)
    with pytest.raises(ValueError, match=r"got 'BS' \(did you mean 'bs'\?\)"):
        g.shooting(BS=3, ev=3, ap=3, av=3, s=1, t=1)


def test_bad_table_input_names_the_cell_value():
    with pytest.raises(InputError, match=r"bs: expected whole numbers from 0 to 20, got nan"):
        g.shooting_table(**{**BASE_KW, "bs": np.array([1.0, np.nan])})
    with pytest.raises(InputError, match=r"shots: expected whole numbers from 1 to 1000, got -2"):
        g.shooting_table(**{**BASE_KW, "shots": np.array([3, -2])})
    with pytest.raises(InputError, match=r"ev: expected whole numbers from 0 to 20"):
        g.shooting_table(**{**BASE_KW, "ev": np.array(["a", "b"])})
    with pytest.raises(InputError, match=r"pens: expected a whole number from 0 to 1000000, got -1"):
        g.models_removed(-1, 1, 1)
