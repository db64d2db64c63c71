"""Antares-style d10 (seed 004, RULES.md section 4).

Expected numbers come from brute-force enumerations written here (every face
of both dice of every test, itertools.product, Fractions), from icepool, or
from the RULES.md reference (Rever shoots Rever: 3/10); never from the module
under test.
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
from workbench.systems import antares as a

TOL = 1e-12
FACES = range(1, 11)


# ---------------------------------------------------------------------------
# the seed's test, written here from the seed's words
# ---------------------------------------------------------------------------
def seed_test(value, first, second):
    """(success, critical) of one test with dice faces ``first``, ``second``.

    "a roll of a 10 is always a failure regardless, and if you need to roll any
    number less than 1 to succeed you need a 1 followed by another 1"; "so long
    as you are testing against a value of 2 or greater any roll of a 1 on the
    D10 is considered a critical success".
    """
    if first == 10:
        return False, False
    if value < 1:
        ok = first == 1 and second == 1
    else:
        ok = first <= value
    return ok, ok and first == 1 and value >= 2


def brute_test(value):
    succ = crit = 0
    for f1, f2 in product(FACES, repeat=2):
        s, c = seed_test(value, f1, f2)
        succ += s
        crit += c
    return Fraction(succ, 100), Fraction(crit, 100)


def _one_shot_classes(hit_value, res_value, crit_ignores_res=False):
    """Every face of the 4 dice of one shot (hit test: 2 dice, Res test: 2 dice),
    grouped by (removed, hit, critical) with their face counts."""
    classes = Counter()
    for h1, h2, r1, r2 in product(FACES, repeat=4):
        hit, crit = seed_test(hit_value, h1, h2)
        resisted, _ = seed_test(res_value, r1, r2)
        removed = hit and (not resisted or (crit_ignores_res and crit))
        classes[(int(removed), int(hit), int(crit))] += 1
    return classes


def brute_shooting(*, acc, res, sv=0, armour=0, cover=0, acc_mod=0, shots=1, models=None,
                   critical_ignores_res=False):
    """The whole face space of ``shots`` shots (10**(4 shots) face tuples), enumerated
    as the product of each shot's face classes (multiplicities multiply)."""
    classes = list(_one_shot_classes(acc + acc_mod, res + armour + cover - sv, critical_ignores_res).items())
    removed = Counter()
    crits_total = any_crit = hits_total = 0
    for combo in product(classes, repeat=shots):
        weight = math.prod(count for _, count in combo)
        k = sum(c[0] for c, _ in combo)
        if models is not None:
            k = min(k, models)
        crits = sum(c[2] for c, _ in combo)
        removed[k] += weight
        crits_total += weight * crits
        any_crit += weight * (crits > 0)
        hits_total += weight * sum(c[1] for c, _ in combo)
    total = 10 ** (4 * shots)
    assert sum(removed.values()) == total
    pmf = [Fraction(removed[k], total) for k in range(max(removed) + 1)]
    return pmf, Fraction(crits_total, total), Fraction(any_crit, total), Fraction(hits_total, total)


# ---------------------------------------------------------------------------
# the basic test
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("value", range(-5, 16))
def test_stat_test_equals_brute_force(value):
    assert a.test(value) == brute_test(value)


def test_stat_test_closed_form_from_rules_md():
    # RULES.md: "P(success) = 1/100 for v < 1, v/10 for 1 <= v <= 9, 9/10 for v >= 9;
    # P(critical) = 1/10 for v >= 2."
    assert a.test(-3) == (Fraction(1, 100), 0)
    assert a.test(1) == (Fraction(1, 10), 0)
    assert a.test(5) == (Fraction(5, 10), Fraction(1, 10))
    assert a.test(12) == (Fraction(9, 10), Fraction(1, 10))
    assert all(isinstance(x, Fraction) for x in a.test(4))


@pytest.mark.parametrize("fn,stat_kw,stat_name", [
    (a.reaction, "init", "Init"), (a.movement_test, "ag", "Ag"), (a.combat_status, "cou", "Cou"),
])
@pytest.mark.parametrize("stat,modifier", [(5, 0), (7, -2), (1, 0), (2, -3), (9, 3)])
def test_named_tests_equal_brute_force(fn, stat_kw, stat_name, stat, modifier):
    p, c = brute_test(stat + modifier)
    out = fn(**{stat_kw: stat}, modifier=modifier)
    assert out.stages[0].probability == p and out.stages[0].name == f"{stat_name} test"
    _assert_pmf(out.pmf, [1 - p, p])
    assert out.effects["critical"] == pytest.approx(float(c), abs=TOL)
    assert out.label == "successes"


def test_stat_test_outcome():
    out = a.stat_test(6, -2, name="Tech")
    p, c = brute_test(4)
    assert out.per_attack == p and out.effects["critical"] == pytest.approx(float(c))
    assert out.stages[0].detail == ("Tech 6 − modifier 2 = 4: needs 4 or less on a d10: 4/10 "
                                    "(a 1 is a critical success: 1/10)")


def test_combat_status_uses_com_for_machines():
    # seed: Compute's "principle use is for WarDrones ... where compute is generally used instead of courage"
    living = a.combat_status(7, com=2)
    machine = a.combat_status(7, machine=True, com=2)
    assert living.per_attack == brute_test(7)[0]
    assert machine.per_attack == brute_test(2)[0]
    assert machine.stages[0].name == "Com test"
    with pytest.raises(InputError, match=r"com: expected a whole number from 0 to 20 when machine=True, "
                                         r"got None \(machines test Com instead of Cou\)"):
        a.combat_status(7, machine=True)
    with pytest.raises(InputError, match=r"cou: expected a whole number from 0 to 20, got None"):
        a.combat_status(com=3)


@pytest.mark.parametrize("fn,kw", [(a.reaction, dict(init=5)), (a.movement_test, dict(ag=3, modifier=-4)),
                                   (a.combat_status, dict(machine=True, com=2)),
                                   (a.stat_test, dict(value=8, modifier=3))])
def test_named_tests_sampled_agree_with_exact(fn, kw):
    n = 50_000
    exact = fn(**kw)
    sampled = fn(**kw, method="sampled", samples=n, seed=2024)
    p = exact.pmf[1]
    assert abs(sampled.pmf[1] - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1e-12
    c = exact.effects["critical"]
    assert abs(sampled.effects["critical"] - c) <= 5 * math.sqrt(c * (1 - c) / n) + 1e-12


# ---------------------------------------------------------------------------
# shooting
# ---------------------------------------------------------------------------
def test_reference_rever_shoots_rever():
    # RULES.md reference: "Rever Acc 5 shoots Rever Res 5, SV 1, no armour or cover: 5/10 x 6/10 = 3/10"
    out = a.shooting(acc=5, res=5, sv=1)
    assert [s.probability for s in out.stages] == [Fraction(5, 10), Fraction(6, 10)]
    assert out.per_attack == Fraction(3, 10)
    _assert_pmf(out.pmf, [Fraction(7, 10), Fraction(3, 10)])
    assert out.stages[0].detail == "Acc 5: needs 5 or less on a d10: 5/10 (a 1 is a critical hit: 1/10)"
    assert out.stages[1].detail == "Res 5 + armour 0 + cover 0 − SV 1 = 4: the target fails on 5 or more: 6/10"


CASES = [
    dict(acc=5, res=5, sv=1, shots=1),
    dict(acc=0, res=5, shots=1),                       # Acc below 1: a 1 then a 1
    dict(acc=1, res=0, shots=1),                       # no critical at 1; Res 0 fails unless 1,1
    dict(acc=12, res=12, shots=1, critical_ignores_res=True),
    dict(acc=5, res=5, sv=1, armour=1, cover=2, shots=2, models=1),
    dict(acc=3, acc_mod=-4, res=6, sv=3, shots=2),
    dict(acc=7, acc_mod=1, res=4, armour=2, sv=1, shots=2, critical_ignores_res=True),
    dict(acc=6, res=3, shots=3, models=2),
    dict(acc=2, res=9, sv=9, shots=3, critical_ignores_res=True),
    dict(acc=10, res=2, cover=1, shots=3, models=3),
]


@pytest.mark.parametrize("case", CASES, ids=[str(i) for i in range(len(CASES))])
def test_shooting_equals_brute_force(case):
    pmf, crits, any_crit, hits = brute_shooting(**case)
    out = a.shooting(**case)
    _assert_pmf(out.pmf, pmf)
    assert out.effects["critical_hits"] == pytest.approx(float(crits), abs=TOL)
    assert out.effects["any_critical"] == pytest.approx(float(any_crit), abs=TOL)
    assert out.effects["hits"] == pytest.approx(float(hits), abs=TOL)
    # the stages multiply to the chance one shot removes a model
    one, _, _, _ = brute_shooting(**{**case, "shots": 1, "models": None})
    assert out.per_attack == one[1]


@pytest.mark.parametrize("ignores", [False, True])
def test_ten_shots_against_icepool(ignores):
    acc, res_value, models = 6, 5 + 1 - 2, 7

    def code(value):
        return icepool.map(lambda f1, f2: 2 if seed_test(value, f1, f2)[1] else int(seed_test(value, f1, f2)[0]),
                           icepool.d10, icepool.d10)

    # one shot: removed (0/1) + 100 x critical
    shot = icepool.map(lambda h, r: int(h > 0 and (r == 0 or (ignores and h == 2))) + 100 * (h == 2),
                       code(acc), code(res_value))
    total = 10 @ shot
    removed = total.map(lambda x: min(x % 100, models))
    crits = total.map(lambda x: x // 100)
    out = a.shooting(acc=acc, res=5, armour=1, sv=2, shots=10, models=models, critical_ignores_res=ignores)
    _assert_pmf(out.pmf, [removed.probability(k) for k in range(models + 1)])
    assert out.effects["critical_hits"] == pytest.approx(float(crits.mean()), abs=TOL)
    assert out.effects["any_critical"] == pytest.approx(float(1 - crits.probability(0)), abs=TOL)


def test_criticals_do_not_change_the_count_by_default():
    plain = a.shooting(acc=6, res=4, shots=5)
    p = Fraction(6, 10) * Fraction(6, 10)
    _assert_pmf(plain.pmf, [Fraction(math.comb(5, k)) * p ** k * (1 - p) ** (5 - k) for k in range(6)])
    assert plain.effects["critical_hits"] == pytest.approx(0.5)


@pytest.mark.parametrize("case", [
    dict(acc=5, res=5, sv=1, shots=6, models=4),
    dict(acc=0, acc_mod=0, res=2, shots=3),
    dict(acc=8, res=3, armour=2, shots=4, critical_ignores_res=True),
])
def test_sampled_agrees_with_exact(case):
    n = 100_000
    exact = a.shooting(**case)
    sampled = a.shooting(**case, method="sampled", samples=n, seed=99)
    width = max(exact.pmf.size, sampled.pmf.size)
    e = np.zeros(width)
    e[: exact.pmf.size] = exact.pmf
    sm = np.zeros(width)
    sm[: sampled.pmf.size] = sampled.pmf
    assert np.all(np.abs(sm - e) <= 5 * np.sqrt(e * (1 - e) / n) + 1e-12), (sm, e)  # 5 standard errors
    p = exact.effects["any_critical"]
    assert abs(sampled.effects["any_critical"] - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1e-12
    for name in ("critical_hits", "hits"):
        assert abs(sampled.effects[name] - exact.effects[name]) <= 5 * sampled.effects_stderr[name] + 1e-12
    assert sampled.stages == exact.stages


def test_table_matches_scalar_cells():
    acc = np.array([0, 1, 2, 5, 10])[:, None, None]
    res = np.array([0, 4, 9])[None, :, None]
    shots = np.array([1, 3, 8])[None, None, :]
    for ignores in (False, True):
        table = a.shooting_table(acc=acc, res=res, sv=1, shots=shots, models=5, critical_ignores_res=ignores)
        for i, j, k in product(range(5), range(3), range(3)):
            one = a.shooting(acc=int(acc[i, 0, 0]), res=int(res[0, j, 0]), sv=1, shots=int(shots[0, 0, k]),
                             models=5, critical_ignores_res=ignores)
            _assert_pmf(table["pmf"][i, j, k], one.pmf)
            for name in ("critical_hits", "any_critical", "hits"):
                assert table["effects"][name][i, j, k] == pytest.approx(one.effects[name], abs=TOL)


def test_table_with_array_models():
    models = np.array([1, 2, 9])
    table = a.shooting_table(acc=6, res=4, shots=4, models=models)
    for i, m in enumerate(models):
        _assert_pmf(table["pmf"][i], a.shooting(acc=6, res=4, shots=4, models=int(m)).pmf)


def test_constants_and_registry():
    assert (a.KEY, a.NAME, a.SEED, a.DIE) == ("antares", "Antares-style d10", "004_d2632203ddb2a5c8.txt", 10)
    assert a.TABLES == {"shooting": a.shooting_table}


# ---------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(acc=st.integers(0, 12), res=st.integers(0, 12), sv=st.integers(0, 5), armour=st.integers(0, 3),
       cover=st.integers(0, 3), acc_mod=st.integers(-4, 4), shots=st.integers(1, 15),
       models=st.one_of(st.none(), st.integers(1, 10)), ignores=st.booleans())
def test_properties(acc, res, sv, armour, cover, acc_mod, shots, models, ignores):
    kw = dict(res=res, sv=sv, armour=armour, cover=cover, acc_mod=acc_mod, shots=shots, models=models,
              critical_ignores_res=ignores)
    out = a.shooting(acc=acc, **kw)
    assert np.all(out.pmf >= 0) and out.pmf.sum() == pytest.approx(1.0, abs=1e-12)
    if models is not None:
        assert out.pmf.size <= models + 1
    assert out.pmf.size <= shots + 1
    assert 0 <= out.effects["critical_hits"] <= shots / 10 + 1e-12
    assert a.shooting(acc=acc + 1, **kw).mean >= out.mean - 1e-12      # better Acc never hurts
    assert a.shooting(acc=acc, **{**kw, "res": res + 1}).mean <= out.mean + 1e-12  # tougher never helps


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("kw,pattern", [
    (dict(acc="five"), r"acc: expected a whole number from 0 to 20, got 'five'"),
    (dict(res=float("nan")), r"res: expected a whole number from 0 to 20, got nan"),
    (dict(shots=-2), r"shots: expected a whole number from 1 to 1000, got -2"),
    (dict(sv=-1), r"sv: expected a whole number from 0 to 20, got -1"),
    (dict(acc_mod=2.5), r"acc_mod: expected a whole number from -20 to 20, got 2\.5"),
    (dict(models=0), r"models: expected None or a whole number from 1 to 1000, got 0"),
    (dict(critical_ignores_res="yes"), r"critical_ignores_res: expected True or False, got 'yes'"),
    (dict(method="sample"), r"method: expected one of 'exact', 'sampled', got 'sample' \(did you mean 'sampled'\?\)"),
])
def test_bad_input_messages(kw, pattern):
    with pytest.raises(InputError, match=pattern):
        a.shooting(**{"acc": 5, "res": 5, **kw})


def test_bad_test_values():
    with pytest.raises(InputError, match=r"value: expected a whole number from -40 to 40, got 41"):
        a.test(41)
    with pytest.raises(InputError, match=r"value: expected a whole number from -40 to 40, got nan"):
        a.test(float("nan"))
    with pytest.raises(InputError, match=r"value: expected a whole number from -40 to 40, got True"):
        a.test(True)
    with pytest.raises(InputError, match=r"init: expected a whole number from 0 to 20, got '5'"):
        a.reaction("5")


def test_unknown_keyword_suggests_the_name():
    with pytest.raises(UnknownArgumentError, match=r"got 'armor' \(did you mean 'armour'\?\)"):
        a.shooting(acc=5, res=5, armor=1)
    with pytest.raises(UnknownArgumentError, match=r"got 'Init' \(did you mean 'init'\?\)"):
        a.reaction(Init=5)


def test_bad_table_input():
    with pytest.raises(InputError, match=r"acc: expected whole numbers from 0 to 20, got 21"):
        a.shooting_table(acc=np.array([5, 21]), res=5)
    with pytest.raises(InputError, match=r"res: expected whole numbers from 0 to 20, got inf"):
        a.shooting_table(acc=5, res=np.array([np.inf]))


# ---------------------------------------------------------------------------
# blast weapons: a random number of shots
# ---------------------------------------------------------------------------
def blast_counts(name):
    """P(count) of a blast die, from the seed's way of rolling it, every face
    counted: "D3 (half D6 roll)", "D5s (half D10 score)", "generate 1-8 by
    re-rolling 9s and 10s" (a re-rolled face is as if never rolled)."""
    if name == "D3":
        faces = Counter((f + 1) // 2 for f in range(1, 7))
    elif name == "D5":
        faces = Counter((f + 1) // 2 for f in range(1, 11))
    elif name == "D8":
        faces = Counter(f for f in range(1, 11) if f <= 8)
    else:
        faces = Counter(range(1, int(name[1:]) + 1))
    total = sum(faces.values())
    return {c: Fraction(n, total) for c, n in faces.items()}


def blast_pmf(name, *, acc, res, models=None, **kw):
    """Mixture over the count of the binomial of one shot's removal chance
    (every face of the shot's dice counted), as exact Fractions."""
    classes = _one_shot_classes(acc + kw.get("acc_mod", 0),
                                res + kw.get("armour", 0) + kw.get("cover", 0) - kw.get("sv", 0))
    p = Fraction(sum(n for (removed, _, _), n in classes.items() if removed), 10 ** 4)
    out = Counter()
    for c, pc in blast_counts(name).items():
        for k in range(c + 1):
            out[k if models is None else min(k, models)] += pc * math.comb(c, k) * p ** k * (1 - p) ** (c - k)
    return [out[k] for k in range(max(out) + 1)]


@pytest.mark.parametrize("name", ["D3", "D4", "D5", "D6", "D8", "D12"])
@pytest.mark.parametrize("case", [dict(acc=5, res=5), dict(acc=7, res=3, sv=1, models=4)])
def test_blast_shots_are_the_mixture_over_the_count(name, case):
    out = a.shooting(**case, shots=name)
    _assert_pmf(out.pmf, [float(x) for x in blast_pmf(name, **case)])
    assert out.inputs["shots"] == name and out.attacks is None
    assert any(name in n for n in out.notes)


def test_blast_d3_against_full_enumeration():
    """D3 shots: every face of the D6 and of every shot's dice."""
    expect = Counter()
    for c, pc in blast_counts("D3").items():
        pmf, *_ = brute_shooting(acc=6, res=4, shots=c, models=2)
        for k, x in enumerate(pmf):
            expect[k] += pc * x
    out = a.shooting(acc=6, res=4, shots="D3", models=2)
    _assert_pmf(out.pmf, [float(expect[k]) for k in range(max(expect) + 1)])


@pytest.mark.parametrize("name", ["D3", "D8"])
def test_blast_sampled_agrees_with_exact(name):
    n = 60_000
    exact = a.shooting(acc=6, res=5, shots=name, models=5)
    sampled = a.shooting(acc=6, res=5, shots=name, models=5, method="sampled", samples=n, seed=7)
    e = np.zeros(6)
    e[: exact.pmf.size] = exact.pmf
    sm = np.zeros(6)
    sm[: sampled.pmf.size] = sampled.pmf
    assert np.all(np.abs(sm - e) <= 5 * np.sqrt(e * (1 - e) / n) + 1e-12), (sm, e)
    assert abs(sampled.effects["hits"] - exact.effects["hits"]) <= 5 * sampled.effects_stderr["hits"]


def test_blast_bad_die():
    with pytest.raises(InputError, match=r"^shots: expected one of 'D3', 'D4', 'D5', 'D6', 'D8', 'D12', got 'D7'"):
        a.shooting(acc=5, res=5, shots="D7")
