"""40k Changes (RULES.md section 1): exact results against brute-force
enumeration (tests/brute_changes.py) and icepool, sampled against exact at
fixed seeds, hypothesis properties and pinned error messages."""
from __future__ import annotations

import itertools
import math
import re
from fractions import Fraction

import icepool
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import brute_changes as brute
from workbench.errors import InputError, UnknownArgumentError
from workbench.rules.die import DieRoll
from workbench.systems import changes

TOL = 1e-12
Z = 5.0  # sampled results must lie within Z standard errors of the exact ones


def close(pmf, expected, tol=TOL):
    expected = [float(x) for x in expected]
    assert len(pmf) == len(expected), (list(pmf), expected)
    assert np.allclose(pmf, expected, rtol=0, atol=tol), (list(pmf), expected)


# -- constants and the test ----------------------------------------------------
def test_module_constants():
    assert (changes.KEY, changes.NAME, changes.SEED, changes.DIE) == (
        "changes", "40k Changes", "000_821a3f094c9e3c4f.txt", 12)
    assert set(changes.TABLES) >= {"shooting"}


@pytest.mark.parametrize("n12,n1", list(itertools.product([False, True], repeat=2)))
def test_test_matches_every_face(n12, n1):
    for target in range(-2, 16):
        expected = Fraction(sum(brute.passes(f, target, n12, n1) for f in brute.FACES), 12)
        got = changes.test(target, natural_12_always_succeeds=n12, natural_1_always_fails=n1)
        assert isinstance(got, DieRoll) and got.sides == 12
        assert got.success == expected, target
        if not (n12 or n1):  # RULES.md: P = clamp((13 - target) / 12, 0, 1)
            assert got.success == min(max(Fraction(13 - target, 12), Fraction(0)), Fraction(1))


# -- the RULES.md reference number and the 8+/7+ contradiction ----------------
def test_reference_space_marine_aimed_shot():
    # RULES.md reference table: 8/12 x 5/12 x 6/12 = 5/36
    out = changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, inv=0, cover=0, action="aimed")
    assert [s.probability for s in out.stages] == [Fraction(8, 12), Fraction(5, 12), Fraction(6, 12)]
    assert out.per_attack == Fraction(5, 36)
    close(out.pmf, [Fraction(31, 36), Fraction(5, 36)])
    assert [s.name for s in out.stages] == ["to hit", "to pierce", "to wound"]
    assert [s.detail for s in out.stages] == [
        "BS 5+ against cover +0 needs 5+ on a d12: goes on 8/12",
        "AP 5+ against armour +3 needs 8+ on a d12: goes on 5/12",
        "S 5+ against T +2 needs 7+ on a d12: goes on 6/12",
    ]
    assert out.attacks == 1 and out.method == "exact"


def test_wound_follows_formula_not_the_seeds_8_plus():
    # seed: "The above model would wound an identical model on an 8+ roll";
    # its own formula: S 5+ against T +2 = 7+ (RULES.md "Known contradiction")
    out = changes.shooting(bs=5, s=5, ap=5, t=2, sv=3)
    assert out.stages[2].probability == Fraction(6, 12) != Fraction(5, 12)
    note = [n for n in out.notes if "8+" in n]
    assert note and "7+" in note[0] and "formula" in note[0]
    melee = changes.melee(ws=5, s=5, ap=5, d=2, t=2, sv=3)
    assert any("8+" in n and "7+" in n for n in melee.notes)
    assert melee.stages[0].detail == "WS 5+ against dodge +2 needs 7+ on a d12: goes on 6/12"


# -- shooting: brute force over every face ---------------------------------------
ONE_SHOT_CASES = [
    dict(bs=5, s=5, ap=5, t=2, sv=3),
    dict(bs=3, s=4, ap=6, t=1, sv=2, inv=4, cover=1),            # inv better than cover
    dict(bs=4, s=6, ap=2, t=3, sv=1, inv=1, cover=3),            # cover better than inv
    dict(bs=5, s=5, ap=5, t=2, sv=3, weapon="heavy", action="shot"),   # BS +4
    dict(bs=2, s=2, ap=3, t=1, sv=2, weapon="heavy", action="aimed"),
    dict(bs=5, s=5, ap=5, t=2, sv=3, weapon="light", action="shot"),
    dict(bs=5, s=3, ap=4, t=0, sv=0, cover=1, go_to_ground=True),
    dict(bs=4, s=3, ap=4, cover=1, firer_gone_to_ground=True, firer_cover=2, action="snap"),
    dict(bs=9, s=10, ap=12, t=4, sv=5, natural_12_always_succeeds=True),
    dict(bs=1, s=1, ap=1, t=-3, sv=-1, natural_1_always_fails=True),
    dict(bs=13, s=1, ap=1, natural_12_always_succeeds=True, natural_1_always_fails=True),
    dict(bs=5, s=5, ap=5, t=2, sv=3, evading=True, action="snap"),
]


@pytest.mark.parametrize("case", ONE_SHOT_CASES)
@pytest.mark.parametrize("W,models", [(1, None), (1, 1), (2, None)])
def test_one_shot_equals_brute_force(case, W, models):
    n12 = case.get("natural_12_always_succeeds", False)
    n1 = case.get("natural_1_always_fails", False)
    tk = {k: v for k, v in case.items() if k not in ("natural_12_always_succeeds",
                                                      "natural_1_always_fails", "evading")}
    targets = brute.shooting_targets(**tk)
    wounds = brute.wound_pmf(brute.per_attack_successes([targets], n12, n1))
    removed = brute.removed_pmf(wounds, W, models)
    width = models + 1 if models else 1 // W + 1
    out = changes.shooting(**case, shots=1, wounds=W, models=models)
    close(out.pmf, brute.as_list(removed, width))
    expect = brute.stage_counts(targets, n12, n1)
    for name, value in expect.items():
        assert math.isclose(out.effects[name], float(value), abs_tol=TOL)
    assert out.per_attack == expect["unsaved_wounds"]


def test_two_shots_equal_brute_force_every_face():
    case = dict(bs=4, s=6, ap=5, t=1, sv=2, inv=2, cover=1)
    targets = brute.shooting_targets(**case)
    joint = brute.per_attack_successes([targets, targets])     # 12**6 face tuples
    wounds = brute.wound_pmf(joint)
    for W, models in [(1, None), (1, 1), (2, None), (2, 1), (1, 5), (3, None)]:
        out = changes.shooting(**case, shots=2, wounds=W, models=models)
        width = models + 1 if models else 2 // W + 1
        close(out.pmf, brute.as_list(brute.removed_pmf(wounds, W, models), width))
        if models is not None:
            wasted = sum(p * max(0, w - models * W) for w, p in wounds.items())
            destroyed = sum(p for w, p in wounds.items() if w >= models * W)
            assert math.isclose(out.effects["wasted_wounds"], float(wasted), abs_tol=TOL)
            assert math.isclose(out.effects["destroyed"], float(destroyed), abs_tol=TOL)
        else:
            assert "wasted_wounds" not in out.effects
        assert math.isclose(out.effects["unsaved_wounds"],
                            float(sum(w * p for w, p in wounds.items())), abs_tol=TOL)


def test_zero_shots_remove_nothing():
    out = changes.shooting(bs=5, s=5, ap=5, shots=0, models=3)
    close(out.pmf, [1, 0, 0, 0])
    assert out.effects["unsaved_wounds"] == 0


# -- icepool cross-checks ------------------------------------------------------------
def _icepool_shot(h, p, w):
    d = icepool.d12
    return icepool.map(lambda a, b, c: int(a >= h and b >= p and c >= w), d, d, d)


@pytest.mark.parametrize("case,W,models", [
    (dict(bs=5, s=5, ap=5, t=2, sv=3), 1, None),
    (dict(bs=5, s=5, ap=5, t=2, sv=3, shots=10), 1, 3),
    (dict(bs=3, s=4, ap=6, t=1, sv=2, inv=4, cover=1, weapon="heavy", action="shot"), 2, 4),
    (dict(bs=4, s=4, ap=4, t=1, sv=1, cover=1, go_to_ground=True), 3, None),
])
def test_ten_shots_against_icepool(case, W, models):
    case = dict(case)
    case["shots"] = 10
    h, p, w = brute.shooting_targets(**case)
    for stage, target in zip(changes.shooting(**case).stages, (h, p, w)):
        assert stage.probability == (icepool.d12 >= target).probability(True)
    total = 10 @ _icepool_shot(h, p, w)
    removed = total.map(lambda x: x // W if models is None else min(models, x // W))
    width = models + 1 if models else 10 // W + 1
    expected = [removed.probability(k) for k in range(width)]
    out = changes.shooting(**case, wounds=W, models=models)
    close(out.pmf, expected)
    if models:
        wasted = total.map(lambda x: max(0, x - models * W)).mean()
        assert math.isclose(out.effects["wasted_wounds"], float(wasted), abs_tol=TOL)


def test_volley_against_icepool():
    attackers = [dict(bs=5, s=5, ap=5, shots=6), dict(bs=3, s=7, ap=3, shots=4, weapon="heavy", action="shot"),
                 dict(bs=4, s=4, ap=4, shots=5, weapon="heavy", action="aimed")]
    t, sv, inv, cover, models, W = 2, 3, 0, 1, 4, 2
    dice = [_icepool_shot(*brute.shooting_targets(**a, t=t, sv=sv, inv=inv, cover=cover)) for a in attackers]
    units = [a["shots"] @ d for a, d in zip(attackers, dice)]
    total = units[0] + units[1] + units[2]
    removed = total.map(lambda x: min(models, x // W))
    out = changes.volley(attackers, t=t, sv=sv, inv=inv, cover=cover, models=models, wounds=W)
    close(out.pmf, [removed.probability(k) for k in range(models + 1)])
    need = models * W
    assert math.isclose(out.effects["wasted_wounds"], float(total.map(lambda x: max(0, x - need)).mean()), abs_tol=TOL)
    assert math.isclose(out.effects["destroyed"], float(total.probability(">=", need)), abs_tol=TOL)
    # a later unit is "not needed" when the units declared before it already destroyed the target
    not_needed = units[0].probability(">=", need) + (units[0] + units[1]).probability(">=", need)
    assert math.isclose(out.effects["units_not_needed"], float(not_needed), abs_tol=TOL)
    assert out.effects["return_fire_models"] == models
    assert math.isclose(out.effects["surviving_models"], models - float(removed.mean()), abs_tol=TOL)
    assert out.attacks == 15 and out.stages == ()


# -- volley and melee brute force ----------------------------------------------------
def test_volley_two_single_shots_brute_force():
    a = [dict(bs=5, s=5, ap=5, shots=1), dict(bs=3, s=6, ap=4, shots=1, weapon="heavy", action="shot")]
    t, sv, cover = 1, 2, 1
    targets = [brute.shooting_targets(**x, t=t, sv=sv, cover=cover) for x in a]
    joint = brute.per_attack_successes(targets)
    wounds = brute.wound_pmf(joint)
    for models, W in [(1, 1), (2, 1), (1, 2)]:
        out = changes.volley(a, t=t, sv=sv, cover=cover, models=models, wounds=W)
        close(out.pmf, brute.as_list(brute.removed_pmf(wounds, W, models), models + 1))
        need = models * W
        assert math.isclose(out.effects["wasted_wounds"],
                            float(sum(p * max(0, w - need) for w, p in wounds.items())), abs_tol=TOL)
        first_alone = sum(p for k, p in joint.items() if k[0] >= need)
        assert math.isclose(out.effects["units_not_needed"], float(first_alone), abs_tol=TOL)
        assert math.isclose(out.effects["unsaved_wounds[1]"],
                            float(sum(p for k, p in joint.items() if k[1])), abs_tol=TOL)


def test_volley_of_one_unit_is_shooting():
    one = changes.volley([dict(bs=4, s=5, ap=6, shots=7)], t=2, sv=1, models=3, wounds=2)
    ref = changes.shooting(bs=4, s=5, ap=6, shots=7, t=2, sv=1, models=3, wounds=2)
    close(one.pmf, ref.pmf)
    assert [s.probability for s in one.stages] == [s.probability for s in ref.stages]
    assert one.effects["units_not_needed"] == 0


def test_melee_with_furious_charge_brute_force():
    # one attack plus one free Furious Charge attack: 6 dice, every face
    case = dict(ws=4, s=6, ap=5, d=2, inv=3, t=2, sv=2)
    targets = (case["ws"] + max(case["d"], case["inv"]), case["ap"] + case["sv"], case["s"] + case["t"])
    wounds = brute.wound_pmf(brute.per_attack_successes([targets, targets]))
    out = changes.melee(**case, attacks=1, furious_charge=True, charging_models=1, models=2)
    close(out.pmf, brute.as_list(brute.removed_pmf(wounds, 1, 2), 3))
    assert out.attacks == 2 and out.effects["free_attacks"] == 1
    assert out.stages[0].detail == "WS 4+ against invulnerable +3 needs 7+ on a d12: goes on 6/12"
    # Block denies the free attacks: one attack left
    blocked = changes.melee(**case, attacks=1, furious_charge=True, charging_models=1, blocked=True)
    one = brute.wound_pmf(brute.per_attack_successes([targets]))
    close(blocked.pmf, brute.as_list(one, 2))
    assert blocked.effects["free_attacks"] == 0
    # only the free attacks
    free_only = changes.melee(**case, attacks=0, furious_charge=True, charging_models=1)
    close(free_only.pmf, brute.as_list(one, 2))


# -- leadership and distances ------------------------------------------------------------
def test_leadership_every_face():
    for ld, mod in [(5, 0), (5, 2), (9, -3), (1, 0), (12, 3)]:
        out = changes.leadership(ld, mod)
        p = Fraction(sum(f >= ld + mod for f in brute.FACES), 12)
        assert out.stages[0].probability == p
        close(out.pmf, [1 - p, p])
    assert changes.leadership(5).stages[0].detail == "Ld 5+ with modifier +0 needs 5+ on a D12"


def test_distances_every_face():
    desperate = {}
    for f in range(1, 7):
        desperate[6 + f] = desperate.get(6 + f, Fraction(0)) + Fraction(1, 6)
    assert changes.distance_pmf("desperate_charge") == desperate
    close(changes.charge_distance("desperate").pmf, brute.as_list(desperate, 13))
    move = {9 + f: Fraction(1, 3) for f in range(1, 4)}
    close(changes.move_distance().pmf, brute.as_list(move, 13))
    close(changes.charge_distance("furious").pmf, brute.as_list({5: Fraction(1)}, 6))
    for dist in [0, 6.5, 7, 8, 9.5, 12, 12.5]:
        p = sum((q for d, q in desperate.items() if d >= dist), Fraction(0))
        out = changes.reach_probability(dist, "desperate")
        assert out.stages[0].probability == p
        close(out.pmf, [1 - p, p])
    assert changes.reach_probability(10.5, "move_9_d3").stages[0].probability == Fraction(2, 3)
    assert changes.reach_probability(4.5, "evade").stages[0].probability == 0
    assert changes.reach_probability(9).stages[0].detail == 'Desperate Charge 6+D6" reaches 9" on a D6 roll of 3+'


# -- actions, go to ground, notes -------------------------------------------------------
def test_heavy_shot_is_a_plus_four_penalty_not_a_flat_four_plus():
    out = changes.shooting(bs=2, s=5, ap=5, cover=1, weapon="heavy", action="shot")
    assert out.stages[0].probability == Fraction(13 - (2 + 4 + 1), 12)
    assert out.stages[0].detail == "BS 2+ +4 (heavy weapon, shot action) against cover +1 needs 7+ on a d12: goes on 6/12"
    assert any("U+4" in n for n in out.notes)
    aimed = changes.shooting(bs=2, s=5, ap=5, cover=1, weapon="heavy", action="aimed")
    assert aimed.stages[0].probability == Fraction(13 - 3, 12)


def test_go_to_ground_cover():
    a = changes.shooting(bs=5, s=5, ap=5, cover=1, go_to_ground=True)
    b = changes.shooting(bs=5, s=5, ap=5, cover=3)
    assert a.stages[0].probability == b.stages[0].probability == Fraction(5, 12)
    assert a.stages[0].detail == "BS 5+ against cover +3 (gone to ground) needs 8+ on a d12: goes on 5/12"
    # firer gone to ground: target cover becomes max(cover, firer cover + 2)
    c = changes.shooting(bs=5, s=5, ap=5, cover=1, firer_gone_to_ground=True, firer_cover=2, action="snap")
    assert c.stages[0].probability == Fraction(13 - (5 + 4), 12)
    d = changes.shooting(bs=5, s=5, ap=5, cover=5, firer_gone_to_ground=True, firer_cover=0, action="snap",
                         firer_cover_rule="better")
    assert d.stages[0].probability == Fraction(13 - (5 + 5), 12)
    assert any("firer" in n for n in c.notes)


def test_better_of_cover_and_invulnerable():
    out = changes.shooting(bs=5, s=5, ap=5, cover=1, inv=3)
    assert out.stages[0].detail == "BS 5+ against invulnerable +3 needs 8+ on a d12: goes on 5/12"
    out = changes.shooting(bs=5, s=5, ap=5, cover=3, inv=3)
    assert out.stages[0].probability == Fraction(5, 12)


# -- the vectorised table ------------------------------------------------------------------
def test_table_cells_equal_scalar_calls():
    bs = np.array([2, 5, 9])[:, None, None]
    t = np.array([0, 2])[None, :, None]
    shots = np.array([1, 4, 7])[None, None, :]
    tab = changes.shooting_table(bs=bs, s=5, ap=5, t=t, sv=3, shots=shots, models=3, wounds=2, cover=1)
    assert tab["pmf"].shape == (3, 2, 3, 4)
    for i, j, k in itertools.product(range(3), range(2), range(3)):
        one = changes.shooting(bs=int(bs[i, 0, 0]), s=5, ap=5, t=int(t[0, j, 0]), sv=3,
                               shots=int(shots[0, 0, k]), models=3, wounds=2, cover=1)
        close(tab["pmf"][i, j, k], one.pmf)
        for name, value in one.effects.items():
            assert math.isclose(tab["effects"][name][i, j, k], value, abs_tol=TOL)


def test_table_varying_wounds_and_models():
    W = np.array([1, 2, 3])[:, None]
    models = np.array([1, 4])[None, :]
    tab = changes.shooting_table(bs=4, s=4, ap=4, shots=6, wounds=W, models=models)
    assert tab["pmf"].shape == (3, 2, 5)
    for i, j in itertools.product(range(3), range(2)):
        one = changes.shooting(bs=4, s=4, ap=4, shots=6, wounds=int(W[i, 0]), models=int(models[0, j]))
        close(tab["pmf"][i, j, : one.pmf.size], one.pmf)
        assert np.all(tab["pmf"][i, j, one.pmf.size:] == 0)
    no_cap = changes.shooting_table(bs=4, s=4, ap=4, shots=np.array([3, 7]), wounds=np.array([2, 3]))
    assert no_cap["pmf"].shape == (2, 7 // 2 + 1)
    close(no_cap["pmf"][1, :3], changes.shooting(bs=4, s=4, ap=4, shots=7, wounds=3).pmf)


def test_benchmark_grid_shape_and_per_shot():
    bs = np.arange(1, 13)[:, None, None, None]
    ap = np.arange(1, 13)[None, :, None, None]
    t = np.arange(0, 7)[None, None, :, None]
    shots = np.array([1, 5, 10, 20])[None, None, None, :]
    tab = changes.shooting_table(bs=bs, s=5, ap=ap, t=t, sv=3, shots=shots)
    assert tab["pmf"].shape == (12, 12, 7, 4, 21)
    assert np.allclose(tab["pmf"].sum(-1), 1, atol=1e-12) and tab["pmf"].min() >= 0
    # one-shot column: P(1) = product of clamp((13 - target) / 12) per stage (RULES.md)
    clamp = lambda x: np.clip((13 - x) / 12, 0, 1)
    expect = clamp(bs[..., 0]) * clamp(ap[..., 0] + 3) * clamp(5 + t[..., 0])
    assert np.allclose(tab["pmf"][..., 0, 1], expect, atol=TOL)


def test_melee_table():
    tab = changes.melee_table(ws=np.array([3, 6]), s=5, ap=5, attacks=4, d=2, furious_charge=True,
                              charging_models=2, models=5)
    for i, ws in enumerate([3, 6]):
        one = changes.melee(ws=ws, s=5, ap=5, attacks=4, d=2, furious_charge=True, charging_models=2, models=5)
        close(tab["pmf"][i], one.pmf)


# -- sampled against exact ------------------------------------------------------------------
def assert_sampled_matches(exact, sampled):
    n = sampled.samples
    assert sampled.method == "sampled" and n > 0
    width = max(exact.pmf.size, sampled.pmf.size)
    e = np.pad(exact.pmf, (0, width - exact.pmf.size))
    s = np.pad(sampled.pmf, (0, width - sampled.pmf.size))
    se = np.sqrt(e * (1 - e) / n)
    assert np.all(np.abs(s - e) <= Z * se + 1e-12), (s, e, se)
    assert abs(sampled.mean - exact.mean) <= Z * sampled.mean_stderr + 1e-12
    assert set(sampled.effects) == set(exact.effects)
    for name, value in exact.effects.items():
        bound = Z * sampled.effects_stderr[name] + 3 / n
        assert abs(sampled.effects[name] - value) <= bound, (name, sampled.effects[name], value)
    assert [x.probability for x in sampled.stages] == [x.probability for x in exact.stages]


SAMPLED_CALLS = [
    (changes.shooting, (), dict(bs=5, s=5, ap=5, t=2, sv=3, shots=10, models=3, wounds=2)),
    (changes.shooting, (), dict(bs=4, s=3, ap=6, t=1, sv=2, shots=7, weapon="heavy", action="shot",
                                natural_12_always_succeeds=True)),
    (changes.shooting, (), dict(bs=2, s=2, ap=2, shots=5, wounds=2, go_to_ground=True, cover=1,
                                natural_1_always_fails=True)),
    (changes.volley, ([dict(bs=5, s=5, ap=5, shots=6), dict(bs=3, s=6, ap=4, shots=4)],),
     dict(t=2, sv=2, models=3)),
    (changes.melee, (), dict(ws=4, s=5, ap=5, attacks=5, d=2, t=2, sv=3, furious_charge=True,
                             charging_models=3, models=4)),
    (changes.leadership, (5, 1), {}),
    (changes.charge_distance, ("desperate",), {}),
    (changes.move_distance, (), {}),
    (changes.action_distance, ("hold_ground",), {}),
    (changes.reach_probability, (9.5, "desperate"), {}),
]


@pytest.mark.parametrize("fn,args,kwargs", SAMPLED_CALLS, ids=lambda x: getattr(x, "__name__", None))
def test_sampled_agrees_with_exact(fn, args, kwargs):
    exact = fn(*args, **kwargs)
    sampled = fn(*args, **kwargs, method="sampled", samples=40_000, seed=2024)
    assert_sampled_matches(exact, sampled)
    again = fn(*args, **kwargs, method="sampled", samples=40_000, seed=2024)
    assert np.array_equal(again.pmf, sampled.pmf)  # a fixed seed is reproducible


def test_sampled_rolls_the_same_dice_as_the_tests_roll():
    # the per-face lookup used by the sampled path gives exactly the test's roll results
    for target in (-1, 1, 5, 12, 13):
        for n12, n1 in itertools.product([False, True], repeat=2):
            tst = changes.test(target, natural_12_always_succeeds=n12, natural_1_always_fails=n1)
            a = tst.roll_success(np.random.default_rng(7), (50, 9))
            b = tst.is_success(tst.roll(np.random.default_rng(7), (50, 9)))
            assert np.array_equal(a, b)


def test_sampled_accepts_a_generator():
    rng = np.random.default_rng(3)
    out = changes.shooting(bs=5, s=5, ap=5, shots=3, method="sampled", samples=1000, seed=rng)
    assert out.samples == 1000


# -- hypothesis properties -------------------------------------------------------------------
roll = st.integers(1, 13)
mod = st.integers(-3, 8)


@st.composite
def shooting_kwargs(draw):
    weapon = draw(st.sampled_from(changes.WEAPONS))
    action = draw(st.sampled_from(("shot", "aimed") if weapon == "heavy" else changes.ACTIONS))
    return dict(bs=draw(roll), s=draw(roll), ap=draw(roll), t=draw(mod), sv=draw(mod), inv=draw(mod),
                cover=draw(mod), shots=draw(st.integers(0, 40)),
                models=draw(st.one_of(st.none(), st.integers(1, 12))), wounds=draw(st.integers(1, 4)),
                weapon=weapon, action=action, go_to_ground=draw(st.booleans()),
                natural_12_always_succeeds=draw(st.booleans()), natural_1_always_fails=draw(st.booleans()))


@settings(max_examples=100, deadline=None)
@given(shooting_kwargs())
def test_property_pmf_valid_and_capped(kw):
    out = changes.shooting(**kw)
    assert np.all(out.pmf >= 0) and math.isclose(out.pmf.sum(), 1.0, abs_tol=1e-9)
    assert np.all(np.isfinite(out.pmf))
    if kw["models"] is not None:
        assert out.pmf.size == kw["models"] + 1
        assert 0 <= out.effects["destroyed"] <= 1 + 1e-12 and out.effects["wasted_wounds"] >= 0
    else:
        assert out.pmf.size == kw["shots"] // kw["wounds"] + 1
    assert out.mean <= kw["shots"] / kw["wounds"] + 1e-9


@settings(max_examples=100, deadline=None)
@given(shooting_kwargs(), st.sampled_from(["bs", "s", "ap"]))
def test_property_better_roll_stat_never_lowers_mean(kw, stat):
    if kw[stat] == 1:
        kw[stat] = 2
    worse = changes.shooting(**kw)
    better = changes.shooting(**{**kw, stat: kw[stat] - 1})
    assert better.mean >= worse.mean - 1e-12
    assert np.all(better.at_least_curve >= worse.at_least_curve - 1e-12)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.fixed_dictionaries({"bs": roll, "s": roll, "ap": roll, "shots": st.integers(0, 8)}),
                min_size=1, max_size=4), st.integers(1, 6), st.integers(1, 3), mod)
def test_property_volley(attackers, models, W, t):
    out = changes.volley(attackers, t=t, models=models, wounds=W)
    assert np.all(out.pmf >= 0) and math.isclose(out.pmf.sum(), 1.0, abs_tol=1e-9)
    assert out.pmf.size == models + 1
    assert 0 <= out.effects["units_not_needed"] <= len(attackers) - 1 + 1e-9
    assert out.effects["return_fire_models"] == models
    # one unit more never lowers the expected removals
    more = changes.volley(attackers + [dict(bs=5, s=5, ap=5, shots=2)], t=t, models=models, wounds=W)
    assert more.mean >= out.mean - 1e-12


# -- errors --------------------------------------------------------------------------------
def test_error_heavy_snap():
    with pytest.raises(InputError, match=re.escape(
            "a SNAP SHOT fires light weapons only (action, weapon: 'weapon == 1 and action == 0' is true for "
            "action='snap', weapon='heavy')")):
        changes.shooting(bs=5, s=5, ap=5, weapon="heavy", action="snap")


def test_error_evading_needs_snap():
    with pytest.raises(InputError, match=re.escape(
            "enemy units can only fire at an EVADING unit with SNAP SHOTS (action, evading: 'evading and "
            "action != 0' is true for action='aimed', evading=True)")):
        changes.shooting(bs=5, s=5, ap=5, evading=True)
    with pytest.raises(InputError, match=r"^attackers\[1\]\.action: expected 'snap' at an EVADING target"):
        changes.volley([dict(bs=5, s=5, ap=5, action="snap"), dict(bs=5, s=5, ap=5)], models=2, evading=True)


def test_error_firer_gone_to_ground_snap_only():
    with pytest.raises(InputError, match=r"^a unit with a GO TO GROUND marker may only make SNAP SHOTS \(action, "
                                         r"firer_gone_to_ground: .* is true for action='shot', firer_gone_to_ground=True\)$"):
        changes.shooting(bs=5, s=5, ap=5, firer_gone_to_ground=True, action="shot")


@pytest.mark.parametrize("kwargs,message", [
    (dict(bs=0), "bs: expected a whole number from 1 to 13, got 0"),
    (dict(bs="5+"), "bs: expected a whole number from 1 to 13, got '5+' (write the roll stat 5+ as the number 5)"),
    (dict(t="+2"), "t: expected a whole number from -12 to 12, got '+2' (write the modifier +2 as the number 2)"),
    (dict(bs=float("nan")), "bs: expected a whole number from 1 to 13, got nan"),
    (dict(shots=-1), "shots: expected a whole number from 0 to 10000, got -1"),
    (dict(shots=2.5), "shots: expected a whole number from 0 to 10000, got 2.5"),
    (dict(wounds=0), "wounds: expected a whole number from 1 to 100, got 0"),
    (dict(models=0), "models: expected None or a whole number from 1 to 10000, got 0"),
    (dict(weapon="Heavy"), "weapon: expected one of 'light', 'heavy', got 'Heavy' (did you mean 'heavy'?)"),
    (dict(action="aimed shot"), "action: expected one of 'snap', 'shot', 'aimed', got 'aimed shot' (did you mean 'aimed'?)"),
    (dict(go_to_ground=1), "go_to_ground: expected True or False, got 1"),
    (dict(method="monte carlo"), "method: expected one of 'exact', 'sampled', got 'monte carlo'"),
    (dict(method="sampled", samples=0), "samples: expected a whole number from 1 to 50000000, got 0"),
])
def test_error_messages(kwargs, message):
    base = dict(bs=5, s=5, ap=5)
    with pytest.raises(InputError, match="^" + re.escape(message)):
        changes.shooting(**{**base, **kwargs})


def test_error_unknown_keyword():
    with pytest.raises(UnknownArgumentError, match=r"did you mean 'bs'\?"):
        changes.shooting(BS=5, s=5, ap=5)
    with pytest.raises(TypeError, match=r"argument name: expected one of ws, s, ap"):
        changes.melee(ws=5, s=5, ap=5, furious=True)


def test_error_table_arrays():
    with pytest.raises(InputError, match=r"^bs: expected whole numbers from 1 to 13, got nan$"):
        changes.shooting_table(bs=np.array([5.0, np.nan]), s=5, ap=5)
    with pytest.raises(InputError, match=r"^shots: expected whole numbers from 0 to 10000, got -2$"):
        changes.shooting_table(bs=5, s=5, ap=5, shots=np.array([3, -2]))
    with pytest.raises(InputError, match=r"^t: expected whole numbers from -12 to 12, got 1.5$"):
        changes.shooting_table(bs=5, s=5, ap=5, t=[1.5, 2])


def test_error_volley_attackers():
    with pytest.raises(InputError, match=r"^attackers\[1\]\.bs: expected a whole number from 1 to 13, got 0$"):
        changes.volley([dict(bs=5, s=5, ap=5), dict(bs=0, s=5, ap=5)], models=3)
    with pytest.raises(InputError, match=r"^attackers\[0\]\.ap: expected a whole number from 1 to 13 \(a required key\), got 'missing'$"):
        changes.volley([dict(bs=5, s=5)], models=3)
    with pytest.raises(InputError, match=r"^attackers\[0\] key: expected one of bs, s, ap, .*got 'BS' \(did you mean 'bs'\?\)$"):
        changes.volley([dict(BS=5, s=5, ap=5)], models=3)
    with pytest.raises(InputError, match=r"^attackers: expected a non-empty list of dicts"):
        changes.volley([], models=3)
    with pytest.raises(InputError, match=r"^attackers\[0\]\.action: expected 'shot' or 'aimed' for a heavy weapon"):
        changes.volley([dict(bs=5, s=5, ap=5, weapon="heavy", action="snap")], models=3)
    with pytest.raises(UnknownArgumentError, match=r"^arguments: "):
        changes.volley([dict(bs=5, s=5, ap=5)])  # models is required


def test_error_melee_and_others():
    with pytest.raises(InputError, match=re.escape(
            "BLOCK denies a unit performing a FURIOUS CHARGE its free attacks: a unit that did not charge "
            "furiously cannot be blocked (blocked, furious_charge: 'blocked and not furious_charge' is true for "
            "blocked=True, furious_charge=False)")):
        changes.melee(ws=5, s=5, ap=5, blocked=True)
    with pytest.raises(InputError, match=r"^attacks: expected a whole number from 0 to 10000, got -1$"):
        changes.melee(ws=5, s=5, ap=5, attacks=-1)
    with pytest.raises(InputError, match=r"^kind: expected one of 'tactical', 'furious', 'desperate', got 'despo'"):
        changes.charge_distance("despo")
    with pytest.raises(InputError, match=r"^distance: expected a finite number from 0 to 1000, got inf$"):
        changes.reach_probability(float("inf"))
    with pytest.raises(InputError, match=r"^ld: expected a whole number from 1 to 13, got 14$"):
        changes.leadership(14)
    with pytest.raises(InputError, match=r"^target: expected a whole number"):
        changes.test(float("nan"))


def test_scalar_functions_take_numpy_scalars_and_refuse_arrays():
    a = changes.shooting(bs=np.int64(5), s=np.array(5), ap=5, t=np.int8(2), sv=3, shots=np.array(10))
    b = changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, shots=10)
    close(a.pmf, b.pmf)
    with pytest.raises(InputError, match=r"^bs: expected a whole number from 1 to 13, got \[5, 6\]$"):
        changes.shooting(bs=[5, 6], s=5, ap=5)
    with pytest.raises(InputError, match=r"^ws: expected a whole number from 1 to 13, got array"):
        changes.melee(ws=np.array([5, 6]), s=5, ap=5)


# -- one status marker, and the seed's readings as variant switches -------------------
def test_one_status_marker_go_to_ground_and_evading_refused():
    """Seed: "Every unit may only have one status marker": a target cannot be
    both gone to ground and EVADING."""
    msg = r"^go_to_ground: expected False with evading=True, got True \(Every unit may only have one status marker"
    file = r"^every unit may only have one status marker: .*\(evading, go_to_ground: .* evading=True, go_to_ground=True\)$"
    with pytest.raises(InputError, match=file):
        changes.shooting(bs=5, s=5, ap=5, go_to_ground=True, evading=True, action="snap")
    with pytest.raises(InputError, match=file):
        changes.shooting_table(bs=np.array([4, 5]), s=5, ap=5, go_to_ground=True, evading=True, action="snap")
    with pytest.raises(InputError, match=msg):
        changes.volley([dict(bs=5, s=5, ap=5, action="snap")], models=2, go_to_ground=True, evading=True)


@pytest.mark.parametrize("rule", ["same", "better", None])
@pytest.mark.parametrize("cover,firer_cover", [(5, 0), (0, 3), (1, 2)])
def test_firer_gone_to_ground_cover_rule(rule, cover, firer_cover):
    """Seed: "Any unit it fires at receives the same cover modifier this unit
    currently has": the default gives the target the firer's cover (+2 for
    going to ground); the variant "better" keeps the target's if better."""
    kw = dict(bs=5, s=5, ap=5, cover=cover, firer_gone_to_ground=True, firer_cover=firer_cover, action="snap")
    if rule is not None:
        kw["firer_cover_rule"] = rule
    out = changes.shooting(**kw, shots=1)
    targets = brute.shooting_targets(**kw)
    expect = brute.stage_counts(targets)
    assert out.per_attack == expect["unsaved_wounds"]
    assert out.stages[0].probability == Fraction(len([f for f in range(1, 13) if f >= targets[0]]), 12)
    assert any(("same cover modifier" in n) for n in out.notes)
    v = changes.volley([dict(bs=5, s=5, ap=5, action="snap", firer_gone_to_ground=True, firer_cover=firer_cover)],
                       cover=cover, models=1, **({"firer_cover_rule": rule} if rule else {}))
    assert v.stages[0].probability == out.stages[0].probability


@pytest.mark.parametrize("rule", ["bs_plus_4", "flat_4"])
@pytest.mark.parametrize("bs,cover,inv", [(2, 1, 0), (6, 0, 2), (9, 3, 1)])
def test_heavy_shot_reading_switch(rule, bs, cover, inv):
    """Seed: "the unit shoots heavy weapons with BALLISTIC SKILL U+4 (cover or
    invulnerable modifiers to hit still apply)": BS + 4 (default) or a flat 4+."""
    kw = dict(bs=bs, s=5, ap=5, cover=cover, inv=inv, weapon="heavy", action="shot")
    out = changes.shooting(**kw, heavy_shot=rule, shots=1)
    targets = brute.shooting_targets(**kw, heavy_shot=rule)
    assert out.per_attack == brute.stage_counts(targets)["unsaved_wounds"]
    assert any("U+4" in n for n in out.notes)
    v = changes.volley([dict(bs=bs, s=5, ap=5, weapon="heavy", action="shot")], cover=cover, inv=inv, models=1,
                       heavy_shot=rule)
    assert v.per_attack == out.per_attack
    tab = changes.shooting_table(**kw, heavy_shot=rule, shots=np.array([1, 2]))
    assert tab["effects"]["unsaved_wounds"][0] == pytest.approx(float(out.per_attack), abs=TOL)


def test_notes_are_the_files_under_their_conditions():
    """The interpretations an outcome relies on are the rule files' notes, each shown only where its
    condition holds: the heavy shot's reading in force (not the other), the target and the firer gone
    to ground, Furious Charge, the natural 12 / 1 variants; a volley shows a note one of its units needs."""
    def has(o, *words):
        return [any(w in n for n in o.notes) for w in words]
    plain = changes.shooting(bs=5, s=5, ap=5)
    assert has(plain, "Ballistic Skill vs Cover or Invulnerable", "8+ roll", "wounds left on a damaged model") == \
        [True, True, True]
    assert has(plain, "U+4", "gone to ground", "natural 12 passes", "natural 1 fails") == [False] * 4
    heavy = changes.shooting(bs=5, s=5, ap=5, weapon="heavy", action="shot")
    flat = changes.shooting(bs=5, s=5, ap=5, weapon="heavy", action="shot", heavy_shot="flat_4")
    assert has(heavy, "+4 penalty", "flat 4+ (the reading") == [True, False]
    assert has(flat, "+4 penalty", "flat 4+ (the reading") == [False, True]
    assert has(changes.shooting(bs=5, s=5, ap=5, weapon="heavy", action="aimed"), "U+4") == [False]
    gtg = changes.shooting(bs=5, s=5, ap=5, go_to_ground=True, natural_12_always_succeeds=True)
    assert has(gtg, "target has gone to ground", "firer has gone to ground", "natural 12 passes", "natural 1 fails") == \
        [True, False, True, False]
    melee = changes.melee(ws=5, s=5, ap=5, natural_1_always_fails=True)
    assert has(melee, "Weapons Skill vs Dodge or Invulnerable", "Furious Charge", "natural 1 fails") == [True, False, True]
    assert has(changes.melee(ws=5, s=5, ap=5, furious_charge=True), "Furious Charge") == [True]
    v = changes.volley([dict(bs=5, s=5, ap=5), dict(bs=5, s=5, ap=5, weapon="heavy", action="shot")], models=3)
    assert v.notes[0].startswith("Simultaneous allocation") and has(v, "+4 penalty", "flat 4+ (the reading") == \
        [True, False]
    assert has(changes.leadership(5, natural_12_always_succeeds=True), "natural 12 passes", "natural 1 fails") == [True, False]


@pytest.mark.parametrize("kw", [dict(shots=1030), dict(shots=10_000, models=10_000, wounds=3)])
def test_ten_thousand_dice_are_computed(kw):
    """Up to the documented 10,000 dice: no OverflowError from the binomial
    coefficients, the pmf sums to 1 and the mean is shots x per shot."""
    out = changes.shooting(bs=5, s=5, ap=5, t=2, sv=3, **kw)
    assert out.pmf.sum() == pytest.approx(1.0, abs=1e-9)
    per = Fraction(8, 12) * Fraction(5, 12) * Fraction(6, 12)
    expected = kw["shots"] * float(per) / kw.get("wounds", 1)
    assert out.mean == pytest.approx(expected, rel=1e-3)
    # melee's attacks and Furious Charge's free attacks share the 10,000 dice of one resolution
    melee = changes.melee(ws=5, s=5, ap=5, attacks=5_000, furious_charge=True, charging_models=5_000)
    assert melee.mean == pytest.approx(10_000 * float(Fraction(8, 12) * Fraction(8, 12) * Fraction(8, 12)),
                                       rel=1e-9)
    with pytest.raises(InputError) as exc:
        changes.melee(ws=5, s=5, ap=5, attacks=10_000, furious_charge=True, charging_models=1)
    assert exc.value.field == "attacks" and "10,001 attacks" in str(exc.value)


def test_sweep_volley_over_lists_of_units():
    """compare.sweep sweeps changes.volley: a list of dicts is one volley, a
    list of such lists several; each cell equals the direct call."""
    from workbench import compare
    a = dict(bs=5, s=5, ap=5, shots=4)
    b = dict(bs=4, s=6, ap=5, shots=2, weapon="heavy")
    df = compare.sweep("changes", "volley", progress=False, attackers=[[a], [a, b]], models=[3, 6], t=2, sv=3)
    assert len(df) == 4 and df.attrs["path"] == "loop"
    for _, row in df.iterrows():
        direct = changes.volley(row["attackers"], models=row["models"], t=2, sv=3)
        assert row["mean"] == pytest.approx(direct.mean, abs=1e-12)
        assert row["destroyed"] == pytest.approx(direct.effects["destroyed"], abs=1e-12)
    one = compare.sweep("changes", "volley", progress=False, attackers=[a, b], models=3, t=2, sv=3)
    assert len(one) == 1 and one["mean"][0] == pytest.approx(changes.volley([a, b], models=3, t=2, sv=3).mean)
