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

import fuzzkit as fk
from pmfcheck import assert_pmf_equal as _assert_pmf
from workbench.errors import InputError, UnknownArgumentError, WorkbenchError
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
    assert [s.name for s in out.stages] == ["to hit", "Res test failed"]
    assert out.stages[0].detail == ("Acc 5 needs 5 or less on a d10; a natural 10 always fails; a natural 1 is a "
                                    "critical success (an ordinary one here): goes on 5/10")
    assert out.stages[1].detail == ("Res 5 + armour 0 + cover 0 − SV 1 needs 4 or less on a d10; a natural 10 "
                                    "always fails; passed when the roll fails: goes on 6/10")


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
    # the chance one shot removes a model: the stages' product, or with a critical hit skipping the
    # Res test (so that the product is not) the per-shot figure
    one, _, _, _ = brute_shooting(**{**case, "shots": 1, "models": None})
    skips = case.get("critical_ignores_res") and case["acc"] + case.get("acc_mod", 0) >= 2
    assert (out.per_attack_mean, out.per_attack_any) == ((one[1], one[1]) if skips else (None, None))
    assert (out.per_attack_any if skips else out.per_attack) == one[1]


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
    assert out.inputs["shots"] == name and out.attacks == 1   # the file fires a blast weapon once
    assert sum(n.startswith("Blast weapon: the number of shots is rolled first") for n in out.notes) == 1
    assert not any(n.startswith("Blast weapon") for n in a.shooting(**case, shots=4).notes)


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


# ---------------------------------------------------------------------------
# a volley of mixed weapons at one target: "hit allocation from weapons with
# different strike qualities, for example where a unit shoots plasma carbines
# and a plasma cannon at the same target"
# ---------------------------------------------------------------------------
def brute_volley(weapons, *, res, armour=0, cover=0, models=None, critical_ignores_res=False):
    """Every face of both dice of the hit and Res tests of every shot of every
    weapon (a blast weapon: every face of its count die too), each hit tested
    against its own weapon's SV; failed Res tests added, then capped."""
    # each weapon: [(P(count), that many shots' face classes)]
    options = []
    for w in weapons:
        classes = list(_one_shot_classes(w["acc"] + w.get("acc_mod", 0), res + armour + cover - w.get("sv", 0),
                                         critical_ignores_res).items())
        shots = w.get("shots", 1)
        counts = blast_counts(shots) if isinstance(shots, str) else {shots: Fraction(1)}
        options.append([(pc, classes, c) for c, pc in counts.items()])
    out = dict(pmf=Counter(), hits=Fraction(0), critical_hits=Fraction(0), any_critical=Fraction(0),
               overkill=Fraction(0), failed=[Fraction(0)] * len(weapons))
    for choice in product(*options):
        p_counts = math.prod(pc for pc, _, _ in choice)
        per_weapon = [product(classes, repeat=c) for _, classes, c in choice]
        denominators = math.prod(10 ** (4 * c) for _, _, c in choice)
        for combos in product(*per_weapon):
            weight = p_counts * Fraction(math.prod(n for combo in combos for _, n in combo), denominators)
            failed = [sum(cls[0] for cls, _ in combo) for combo in combos]
            total = sum(failed)
            crits = sum(cls[2] for combo in combos for cls, _ in combo)
            out["pmf"][total if models is None else min(total, models)] += weight
            out["hits"] += weight * sum(cls[1] for combo in combos for cls, _ in combo)
            out["critical_hits"] += weight * crits
            out["any_critical"] += weight * (crits > 0)
            out["overkill"] += weight * (max(total - models, 0) if models is not None else 0)
            out["failed"] = [f + weight * x for f, x in zip(out["failed"], failed)]
    out["pmf"] = [out["pmf"][k] for k in range(max(out["pmf"]) + 1)]
    assert sum(out["pmf"]) == 1
    return out


VOLLEY_CASES = [
    dict(weapons=[dict(acc=5, sv=1, shots=2), dict(acc=5, sv=4, shots=1)], res=5),
    dict(weapons=[dict(acc=6, sv=0, shots=2), dict(acc=4, acc_mod=1, sv=3, shots=1)], res=5, armour=1, models=2),
    dict(weapons=[dict(acc=5, sv=1, shots=1), dict(acc=7, sv=6, shots=1), dict(acc=0, shots=1)], res=6, cover=2,
         models=1, critical_ignores_res=True),
    dict(weapons=[dict(acc=5, sv=1, shots=1, name="plasma carbine"), dict(acc=5, sv=5, shots="D3",
                                                                          name="plasma cannon")],
         res=5, models=2),
]


@pytest.mark.parametrize("case", VOLLEY_CASES, ids=range(len(VOLLEY_CASES)))
def test_volley_equals_brute_force(case):
    out = a.volley(**case)
    exp = brute_volley(**case)
    _assert_pmf(out.pmf, exp["pmf"])
    for name in ("hits", "critical_hits", "any_critical", "overkill"):
        assert out.effects[name] == pytest.approx(float(exp[name]), abs=TOL), name
    for i, f in enumerate(exp["failed"]):
        assert out.effects[f"failed_res[{i}]"] == pytest.approx(float(f), abs=TOL)
    assert out.function == "volley" and out.trial == "shot"


def _icepool_code(value):
    """0 fail, 1 success, 2 critical success of one test, every face of both dice."""
    return icepool.map(lambda f1, f2: 2 if seed_test(value, f1, f2)[1] else int(seed_test(value, f1, f2)[0]),
                       icepool.d10, icepool.d10)


def _icepool_shot(acc, res_value):
    """One shot as removed (0/1) + 100 x hit + 10000 x critical."""
    return icepool.map(lambda h, r: int(h > 0 and r == 0) + 100 * (h > 0) + 10000 * (h == 2),
                       _icepool_code(acc), _icepool_code(res_value))


def test_plasma_carbines_and_a_plasma_cannon_against_icepool():
    """Five plasma carbines (Acc 5, SV 2) and a plasma cannon (Acc 5, SV 5,
    D4 blast shots) at Rever (Res 5, armour 1), 4 models."""
    carbines = 5 @ _icepool_shot(5, 5 + 1 - 2)
    cannon = icepool.d4 @ _icepool_shot(5, 5 + 1 - 5)
    total = carbines + cannon
    removed = total.map(lambda x: min(x % 100, 4))
    out = a.volley([dict(acc=5, sv=2, shots=5, name="plasma carbines"),
                    dict(acc=5, sv=5, shots="D4", name="plasma cannon")], res=5, armour=1, models=4)
    _assert_pmf(out.pmf, [removed.probability(k) for k in range(5)])
    assert out.effects["hits"] == pytest.approx(float(total.map(lambda x: (x // 100) % 100).mean()), abs=TOL)
    assert out.effects["critical_hits"] == pytest.approx(float(total.map(lambda x: x // 10000).mean()), abs=TOL)
    assert out.effects["overkill"] == pytest.approx(float(total.map(lambda x: max(x % 100 - 4, 0)).mean()),
                                                    abs=TOL)
    assert out.effects["failed_res[1]"] == pytest.approx(float(cannon.map(lambda x: x % 100).mean()), abs=TOL)
    # different strike values: no single per-shot chance, each weapon's steps in the notes
    assert out.stages == () and out.attacks is None
    notes = "\n".join(out.notes)
    assert "weapons[0] (plasma carbines, SV 2): 5 shots" in notes and "per shot 3/10" in notes
    assert "weapons[1] (plasma cannon, SV 5): D4 shots (a D4)" in notes and "per shot 9/20" in notes
    assert "Per shot" not in out.explain()


def test_one_weapon_volley_is_shooting_and_splitting_changes_nothing():
    one = a.volley([dict(acc=6, sv=1, shots=5)], res=4, armour=1, models=3)
    ref = a.shooting(acc=6, res=4, sv=1, armour=1, shots=5, models=3)
    _assert_pmf(one.pmf, ref.pmf)
    assert one.stages == ref.stages and one.attacks == 5
    for name, value in ref.effects.items():
        assert one.effects[name] == pytest.approx(value, abs=TOL)
    split = a.volley([dict(acc=6, sv=1, shots=2), dict(acc=6, sv=1, shots=3)], res=4, armour=1, models=3)
    _assert_pmf(split.pmf, ref.pmf)
    assert split.per_attack == ref.per_attack and "Per shot" in split.explain()


@pytest.mark.parametrize("case", [VOLLEY_CASES[3], dict(
    weapons=[dict(acc=5, sv=2, shots=6), dict(acc=6, sv=5, shots="D8"), dict(acc=3, sv=0, shots=4)],
    res=5, armour=1, models=6, critical_ignores_res=True)])
def test_volley_sampled_agrees_with_exact(case):
    n = 60_000
    exact = a.volley(**case)
    sampled = a.volley(**case, method="sampled", samples=n, seed=404)
    assert sampled.method == "sampled" and sampled.pmf.size == exact.pmf.size
    e, sm = exact.pmf, sampled.pmf
    assert np.all(np.abs(sm - e) <= 5 * np.sqrt(e * (1 - e) / n) + 1e-12), (sm, e)  # 5 standard errors
    for name, value in exact.effects.items():
        assert abs(sampled.effects[name] - value) <= 5 * max(sampled.effects_stderr[name], 1e-9), name
    again = a.volley(**case, method="sampled", samples=2_000, seed=404)
    assert np.array_equal(again.pmf, a.volley(**case, method="sampled", samples=2_000, seed=404).pmf)


@pytest.mark.parametrize("kw,pattern", [
    (dict(weapons=[], res=5), r"^weapons: expected a non-empty list of dicts with keys acc, sv, acc_mod, shots, "
                              r"name, got \[\]"),
    (dict(weapons=dict(acc=5), res=5), r"^weapons: expected a non-empty list"),
    (dict(weapons=[dict(acc=5), 7], res=5), r"^weapons\[1\]: expected a dict with keys acc \(required\), sv, "
                                            r"acc_mod, shots, name, got 7"),
    (dict(weapons=[dict(acc=5), dict(sv=3)], res=5), r"^weapons\[1\]\.acc: expected a whole number from 0 to 20 "
                                                     r"\(a required key\), got 'missing'"),
    (dict(weapons=[dict(acc=5, svv=2)], res=5), r"^weapons\[0\] key: expected one of acc, sv, acc_mod, shots, "
                                                r"name, got 'svv' \(did you mean 'sv'\?\)"),
    (dict(weapons=[dict(acc=5), dict(acc=5, sv=-1)], res=5), r"^weapons\[1\]\.sv: expected a whole number from "
                                                             r"0 to 20, got -1"),
    (dict(weapons=[dict(acc=5, shots="D7")], res=5), r"^weapons\[0\]\.shots: expected one of 'D3', 'D4', 'D5', "
                                                     r"'D6', 'D8', 'D12', got 'D7'"),
    (dict(weapons=[dict(acc=5, shots=0)], res=5), r"^weapons\[0\]\.shots: expected a whole number from 1 to "
                                                  r"1000, got 0"),
    (dict(weapons=[dict(acc=True)], res=5), r"^weapons\[0\]\.acc: expected a whole number from 0 to 20, got True"),
    (dict(weapons=[dict(acc=5, acc_mod=float("nan"))], res=5), r"^weapons\[0\]\.acc_mod: expected a whole "
                                                               r"number from -20 to 20, got nan"),
    (dict(weapons=[dict(acc=5, name=3)], res=5), r"^weapons\[0\]\.name: expected a short text naming the weapon"),
    (dict(weapons=[dict(acc=5, shots=600), dict(acc=5, shots=500)], res=5),
     r"^weapons: expected 1,000 shots or fewer in all, got 1100 \(shots of all weapons"),
    (dict(weapons=[dict(acc=5)] * 21, res=5), r"^weapons: expected at most 20 weapons, got 21 \(weapons given\)"),
    (dict(weapons=[dict(acc=5)], res=5, models=0), r"^models: expected None or a whole number from 1 to 1000, got 0"),
    (dict(weapons=[dict(acc=5)], res="5"), r"^res: expected a whole number from 0 to 20, got '5'"),
])
def test_volley_bad_input(kw, pattern):
    with pytest.raises(InputError, match=pattern):
        a.volley(**kw)


def test_volley_needs_res_and_knows_its_keywords():
    with pytest.raises(UnknownArgumentError):
        a.volley([dict(acc=5)])
    with pytest.raises(UnknownArgumentError, match=r"did you mean 'cover'\?"):
        a.volley([dict(acc=5)], res=5, cvoer=1)


@settings(max_examples=150, deadline=None)
@given(weapons=st.lists(st.fixed_dictionaries({}, optional={k: st.one_of(st.integers(-3, 25), fk.values)
                                                            for k in ("acc", "sv", "acc_mod", "shots", "name")}),
                        min_size=1, max_size=3),
       models=st.one_of(st.none(), st.integers(-1, 8), fk.values))
def test_volley_weapon_fields_fuzzed(weapons, models):
    """Random values in every field of every weapon: a valid outcome or the
    workbench's own error, never a Python or numpy error."""
    try:
        out = a.volley(weapons, res=5, models=models)
    except WorkbenchError:
        return
    fk.check_result(out)
    assert out.pmf.size <= sum(w.get("shots", 1) if not isinstance(w.get("shots", 1), str) else 12
                               for w in weapons) + 1
