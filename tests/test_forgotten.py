"""The Forgotten (seed 002, RULES.md section 2).

Expected numbers come from the brute-force enumerations in
tests/brute_forgotten.py (every die face, itertools.product, Fractions),
from icepool, or from the worked example in the task brief; never from the
module under test.
"""
from __future__ import annotations

from fractions import Fraction

import icepool
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import brute_forgotten as brute
from workbench.errors import InputError, UnknownArgumentError
from workbench.systems import forgotten as fg

TOL = 1e-12


def _assert_shooting(out, expected):
    pmf = [float(x) for x in expected["pmf"]]
    got = list(out.pmf)
    # trailing zeros in either are allowed (the width follows shots / models)
    width = max(len(pmf), len(got))
    pmf += [0.0] * (width - len(pmf))
    got += [0.0] * (width - len(got))
    assert got == pytest.approx(pmf, abs=TOL)
    for name in ("shock", "hits", "near_misses", "non_damaging_hits"):
        if name in expected:
            assert out.effects[name] == pytest.approx(float(expected[name]), abs=TOL), name


# ---------------------------------------------------------------------------
# module constants
# ---------------------------------------------------------------------------
def test_constants():
    assert (fg.KEY, fg.NAME, fg.SEED, fg.DIE) == ("forgotten", "The Forgotten", "002_7c145f285029c8b2.txt", 10)
    assert fg.TABLES["shooting"] is fg.shooting_table


# ---------------------------------------------------------------------------
# shooting against brute force
# ---------------------------------------------------------------------------
SHOOTING_CASES = [
    dict(shoot=6, attack_power=5, shots=1),
    dict(shoot=6, attack_power=5, shots=2, moved="stationary", cover=True, armour="light"),
    dict(shoot=6, attack_power=5, shots=3, moved="normal", range="long", facing_away=True, cover_level="hard"),
    dict(shoot=7, attack_power=4, shots=3, cover=True, flanked=True, blind_fire=True, models=2),
    dict(shoot=5, attack_power=3, shots=3, range="close", shock_rule="pooled"),
    dict(shoot=8, attack_power=6, shots=2, shock_rule="pooled", armour="heavy", cover_level="soft"),
    dict(shoot=6, attack_power=5, shots=1, aimed="hit", moved="stationary"),
    dict(shoot=6, attack_power=5, shots=1, aimed="damage"),
    dict(shoot=6, attack_power=5, shots=2, kill_on="at_or_above", firer_wounded=True),
    dict(shoot=4, attack_power=9, shots=3, firer_shocked=True, shock_rule="pooled"),
    dict(shoot=1, attack_power=0, shots=2),        # everything hits and kills
    dict(shoot=13, attack_power=5, shots=3),        # nothing hits, no near miss possible
    dict(shoot=11, attack_power=5, shots=3),        # a 10 is a near miss
    # damage v1
    dict(shoot=6, attack_power=5, shots=3, damage_rule="v1", damage=3, defence=3),
    dict(shoot=6, attack_power=5, shots=3, damage_rule="v1", damage=2, defence=4, shock_rule="pooled"),
    dict(shoot=6, attack_power=5, shots=2, damage_rule="v1", damage=8, defence=4, aimed=None, shield=True),
    dict(shoot=6, attack_power=5, shots=1, damage_rule="v1", damage=5, defence=4, aimed="damage"),
    dict(shoot=6, attack_power=5, shots=2, damage_rule="v1", damage=1, defence=7, models=1),
    # special models
    dict(shoot=5, attack_power=3, shots=3, heroic_save=6),
    dict(shoot=5, attack_power=3, shots=3, tough=True),
    dict(shoot=5, attack_power=3, shots=3, tough=True, heroic_save=7, shock_rule="pooled"),
    dict(shoot=4, attack_power=2, shots=3, tough=True, heroic_save=8, models=1),
    dict(shoot=5, attack_power=3, shots=2, heroic_save=6, shock_rule="pooled"),
]


@pytest.mark.parametrize("case", SHOOTING_CASES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_shooting_equals_brute_force(case):
    _assert_shooting(fg.shooting(**case), brute.brute_shooting(**case))


@pytest.mark.parametrize("case", [
    dict(shoot=6, attack_power=5, shots=2, cover=True, moved="stationary", armour="light"),
    dict(shoot=6, attack_power=4, shots=2, shock_rule="pooled", models=1),
    dict(shoot=7, attack_power=5, shots=2, damage_rule="v1", damage=3, defence=5),
])
def test_shooting_equals_flat_enumeration(case):
    """Every face of every die in one itertools.product (no shot-by-shot factoring)."""
    _assert_shooting(fg.shooting(**case), brute.brute_shooting_flat(**case))


def test_shooting_stage_details_and_fractions():
    out = fg.shooting(shoot=6, attack_power=5, moved="stationary", cover=True, armour="light")
    hit, kill = out.stages
    assert hit.name == "to hit" and kill.name == "to kill"
    # d10 + 1 - 2 >= 6 needs a 7: faces 7..10
    assert hit.probability == Fraction(4, 10)
    assert hit.detail == ("SHOOT 6 with +1 stationary -2 cover needs 7+ on a d10 (target 6, modifier -1); "
                          "a 6 is a near miss: goes on 4/10")
    # d10 - 1 > 5 needs a 7
    assert kill.probability == Fraction(4, 10)
    assert kill.detail == "above ATTACK POWER 5 with -1 light armour needs 7+ on a d10: goes on 4/10"
    assert out.per_attack == Fraction(16, 100)
    assert out.label == "models downed"


def test_flanked_cover_is_ignored_and_said_so():
    flanked = fg.shooting(shoot=6, attack_power=5, cover=True, flanked=True)
    open_ground = fg.shooting(shoot=6, attack_power=5)
    assert flanked.stages[0].probability == open_ground.stages[0].probability == Fraction(5, 10)
    assert "cover ignored" in flanked.stages[0].detail


def test_the_heroic_save_is_a_stage_after_the_kill():
    """To hit and to kill are the file's stages; a hero's save (7+, faces 1..6 fail) is its removal's,
    made on each kill, and a stage of its own where every kill is saved alike: the shot's chance of
    downing a model is the three stages' product, and the models downed the kills thinned by 6/10."""
    out = fg.shooting(shoot=6, attack_power=5, heroic_save=7)
    assert [s.name for s in out.stages] == ["to hit", "to kill", "heroic save failed"]
    assert out.stages[2].probability == Fraction(6, 10)
    assert out.stages[2].detail == "heroic save 7 needs 7+ on a d10: goes on 6/10"
    assert "(a kill, before the heroic save)" in out.stages[1].detail
    assert out.per_attack == Fraction(1, 4) * Fraction(6, 10) and not out.blows_vary
    assert out.pmf[1] == pytest.approx(float(Fraction(1, 4) * Fraction(6, 10)), abs=TOL)
    assert any(n.startswith("Heroic save:") for n in out.notes)


# ---------------------------------------------------------------------------
# icepool cross-check, larger case
# ---------------------------------------------------------------------------
def _icepool_shot(shoot_target, kill_target):
    d = icepool.d10

    def cat(h, k):
        hit = h >= shoot_target
        return icepool.Vector((int(hit and k >= kill_target), int(hit and k < kill_target),
                               int(h == shoot_target - 1)))
    return icepool.map(cat, d, d)


@pytest.mark.parametrize("shock_rule", ["seed", "pooled"])
def test_ten_shots_against_icepool(shock_rule):
    # SHOOT 6, stationary (+1) -> 5+; ATTACK POWER 5, light armour -> d10 - 1 > 5 -> 7+
    total = 10 @ _icepool_shot(5, 7)
    out = fg.shooting(shoot=6, attack_power=5, shots=10, moved="stationary", armour="light",
                      shock_rule=shock_rule)
    kills = total.map(lambda vec: vec[0])
    expected = [float(kills.probability(k)) for k in range(11)]
    assert list(out.pmf) == pytest.approx(expected, abs=TOL)
    if shock_rule == "seed":
        trig = total.map(lambda vec: vec[0] > 0 or vec[1] > 0 or vec[2] >= 2)
    else:
        trig = total.map(lambda vec: vec[0] > 0 or vec[1] + vec[2] >= 2)
    assert out.effects["shock"] == pytest.approx(float(trig.probability(True)), abs=TOL)
    assert out.effects["near_misses"] == pytest.approx(float(total.map(lambda vec: vec[2]).mean()), abs=TOL)


def test_ten_shots_capped_against_icepool():
    total = 10 @ _icepool_shot(6, 6)
    kills = total.map(lambda vec: min(vec[0], 4))
    out = fg.shooting(shoot=6, attack_power=5, shots=10, models=4)
    assert out.pmf.size == 5
    assert list(out.pmf) == pytest.approx([float(kills.probability(k)) for k in range(5)], abs=TOL)


# ---------------------------------------------------------------------------
# the vectorised table
# ---------------------------------------------------------------------------
def test_table_cells_equal_scalar_calls():
    shoot = np.array([3, 6, 9])[:, None, None]
    ap = np.array([2, 5])[None, :, None]
    shots = np.array([1, 3, 4, 2])[None, None, :]
    models = np.array([2, 5, 1, 3])
    t = fg.shooting_table(shoot=shoot, attack_power=ap, shots=shots, models=models, cover=True,
                          shock_rule="pooled", tough=True, heroic_save=np.array([7, 8, 9, 6]))
    assert t["pmf"].shape == (3, 2, 4, 5)
    for i, s in enumerate([3, 6, 9]):
        for j, a in enumerate([2, 5]):
            for k in range(4):
                one = fg.shooting(shoot=s, attack_power=a, shots=int(shots.ravel()[k]), models=int(models[k]),
                                  cover=True, shock_rule="pooled", tough=True, heroic_save=[7, 8, 9, 6][k])
                row = t["pmf"][i, j, k]
                assert row[: one.pmf.size] == pytest.approx(one.pmf, abs=TOL)
                assert row[one.pmf.size:].sum() == pytest.approx(0.0, abs=TOL)
                for name, val in one.effects.items():
                    assert t["effects"][name][i, j, k] == pytest.approx(val, abs=TOL)


def test_table_v1_grid_against_brute():
    damage = np.array([1, 2, 3, 6])[:, None]
    defence = np.array([1, 3, 4])[None, :]
    t = fg.shooting_table(shoot=6, attack_power=5, shots=2, damage_rule="v1", damage=damage, defence=defence)
    for i, d in enumerate([1, 2, 3, 6]):
        for j, df in enumerate([1, 3, 4]):
            exp = brute.brute_shooting(shoot=6, attack_power=5, shots=2, damage_rule="v1", damage=d, defence=df)
            assert list(t["pmf"][i, j]) == pytest.approx([float(x) for x in exp["pmf"]], abs=TOL)
            assert t["effects"]["shock"][i, j] == pytest.approx(float(exp["shock"]), abs=TOL)


def test_table_rejects_bad_array():
    with pytest.raises(InputError, match=r"^shoot: expected whole numbers from 0 to 20, got nan"):
        fg.shooting_table(shoot=np.array([5.0, np.nan]), attack_power=5)


# ---------------------------------------------------------------------------
# sampled against exact
# ---------------------------------------------------------------------------
def _agree(exact, sampled, k=5.0):
    assert sampled.method == "sampled" and sampled.samples > 0
    width = max(exact.pmf.size, sampled.pmf.size)
    e = np.pad(exact.pmf, (0, width - exact.pmf.size))
    s = np.pad(sampled.pmf, (0, width - sampled.pmf.size))
    se = np.sqrt(np.maximum(e * (1 - e), 1e-12) / sampled.samples)
    assert np.all(np.abs(s - e) <= k * se + 1e-9), (s, e)
    assert abs(sampled.mean - exact.mean) <= k * sampled.mean_stderr + 1e-9
    for name, val in exact.effects.items():
        se = max(sampled.effects_stderr[name], 1e-9)
        assert abs(sampled.effects[name] - val) <= k * se + 1e-9, name


@pytest.mark.parametrize("case", [
    dict(shoot=6, attack_power=5, shots=4, moved="stationary", cover=True, armour="light", models=3),
    dict(shoot=5, attack_power=3, shots=5, tough=True, heroic_save=6, models=2, shock_rule="pooled"),
    dict(shoot=6, attack_power=5, shots=3, damage_rule="v1", damage=3, defence=4, shield=True),
])
def test_shooting_sampled_agrees_with_exact(case):
    _agree(fg.shooting(**case), fg.shooting(**case, method="sampled", samples=60_000, seed=2024))


def test_sampled_is_reproducible():
    a = fg.shooting(shoot=6, attack_power=5, shots=3, method="sampled", samples=2000, seed=7)
    b = fg.shooting(shoot=6, attack_power=5, shots=3, method="sampled", samples=2000, seed=7)
    assert np.array_equal(a.pmf, b.pmf)


# ---------------------------------------------------------------------------
# close combat against brute force
# ---------------------------------------------------------------------------
BASE = dict(attacker_cqc=6, defender_cqc=6, attacker_phys=6, defender_phys=6)
CC_CASES = [
    dict(BASE),
    dict(BASE, response="counter"),
    dict(BASE, shield=True),
    dict(BASE, shield=True, response="counter", shield_when_countering=True),
    dict(BASE, dual_weapons="hit"),
    dict(BASE, dual_weapons="damage", response="counter"),
    dict(BASE, power_attack=True, attacker_weapon_bonus=2, defender_armour="light"),
    dict(BASE, response="counter", defender_power_attack=True, defender_weapon_bonus=2, attacker_armour="heavy"),
    dict(BASE, defender_dual_weapons="hit", response="counter"),
    dict(BASE, defender_dual_weapons="damage"),
    dict(BASE, from_rear=True, facing_away=True, outnumbered=True, defender_outnumbered=True),
    dict(attacker_cqc=4, defender_cqc=7, attacker_phys=5, defender_phys=7, response="counter",
         dual_weapons="hit", kill_on="at_or_above"),
    dict(BASE, melee_phys="defender", defender_phys=4, response="counter"),
    dict(BASE, response="counter", defender_tough=True, defender_heroic_save=8, dual_weapons="damage",
         attacker_tough=True, attacker_heroic_save=7),
    dict(BASE, response="counter", defender_wounded=True, defender_tough=True, attacker_wounded=True),
    dict(BASE, response="counter", dual_weapons="hit", defender_tough=True, attacker_phys=3),
    dict(attacker_cqc=6, defender_cqc=6, damage_rule="v1", attacker_damage=3, attacker_strength=2,
         defender_defence=4, attacker_defence=3, defender_damage=2, defender_strength=2, response="counter",
         power_attack=True),
    dict(attacker_cqc=5, defender_cqc=6, damage_rule="v1", attacker_damage=1, attacker_strength=1,
         defender_defence=4, shield=True, dual_weapons="damage"),
]


@pytest.mark.parametrize("case", CC_CASES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()
                                                                   if k not in BASE or c[k] != BASE[k]))
def test_close_combat_equals_brute_force(case):
    out = fg.close_combat(**case)
    exp = brute.brute_close_combat(**case)
    assert out.label == "defenders downed"
    assert list(out.pmf) == pytest.approx([float(1 - exp["defender_downed"]), float(exp["defender_downed"])],
                                          abs=TOL)
    for name, val in exp.items():
        assert out.effects[name] == pytest.approx(float(val), abs=TOL), name


def test_close_combat_hand_example():
    """Equal troopers, CQC 6 and PHYS 6, defender blocks: P(hit) = 5/10,
    P(not blocked) = 5/10, P(d10 > 6) = 4/10 -> 1/10 downed; pushback:
    only the attacker succeeds 1/4, only the defender 1/4, both succeed 1/4
    (the higher of two faces among 6..10: each wins 10/25 of it, 5/25 ties)."""
    out = fg.close_combat(**BASE)
    assert out.effects["defender_downed"] == pytest.approx(0.1, abs=TOL)
    assert out.effects["attacker_downed"] == 0.0
    assert out.effects["pushback_attacker"] == pytest.approx(0.25 + 0.25 * 0.4, abs=TOL)
    assert out.effects["pushback_none"] == pytest.approx(0.25 + 0.25 * 0.2, abs=TOL)
    # the stages multiply to the chance the attack downs the defender: hit x not blocked x kill
    assert [s.name for s in out.stages] == ["to hit", "not blocked", "to kill"]
    assert out.per_attack == Fraction(5, 10) * Fraction(5, 10) * Fraction(4, 10)


@pytest.mark.parametrize("case", [
    dict(BASE, shield=True, dual_weapons="hit"),
    dict(BASE, response="counter", dual_weapons="damage", defender_tough=True, defender_heroic_save=8,
         attacker_heroic_save=7),
    dict(attacker_cqc=6, defender_cqc=6, damage_rule="v1", attacker_damage=3, attacker_strength=2,
         defender_defence=4, attacker_defence=3, defender_damage=2, defender_strength=2, response="counter"),
])
def test_close_combat_sampled_agrees_with_exact(case):
    _agree(fg.close_combat(**case), fg.close_combat(**case, method="sampled", samples=60_000, seed=11))


# ---------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------
shoot_st = st.integers(0, 14)
ap_st = st.integers(0, 12)


@settings(max_examples=60, deadline=None)
@given(shoot=shoot_st, ap=ap_st, shots=st.integers(1, 12), models=st.one_of(st.none(), st.integers(1, 6)),
       moved=st.sampled_from(list(fg.MOVED)), cover=st.booleans(), tough=st.booleans(),
       heroic=st.one_of(st.none(), st.integers(1, 11)), rule=st.sampled_from(["seed", "pooled"]))
def test_pmf_is_valid_and_capped(shoot, ap, shots, models, moved, cover, tough, heroic, rule):
    out = fg.shooting(shoot=shoot, attack_power=ap, shots=shots, models=models, moved=moved, cover=cover,
                      tough=tough, heroic_save=heroic, shock_rule=rule)
    assert np.all(out.pmf >= 0) and out.pmf.sum() == pytest.approx(1.0, abs=1e-9)
    assert out.max_removed <= (shots if models is None else min(shots, models))
    assert 0.0 <= out.effects["shock"] <= 1.0
    assert all(np.isfinite(list(out.effects.values())))
    # the pooled rule never triggers more often than the seed rule
    other = fg.shooting(shoot=shoot, attack_power=ap, shots=shots, models=models, moved=moved, cover=cover,
                        tough=tough, heroic_save=heroic, shock_rule="seed")
    if rule == "pooled":
        assert out.effects["shock"] <= other.effects["shock"] + 1e-12


@settings(max_examples=60, deadline=None)
@given(shoot=st.integers(1, 14), ap=ap_st, shots=st.integers(1, 10), models=st.one_of(st.none(), st.integers(1, 6)),
       armour=st.sampled_from(list(fg.ARMOUR)), tough=st.booleans())
def test_better_stats_never_lower_expected_kills(shoot, ap, shots, models, armour, tough):
    kw = dict(shots=shots, models=models, armour=armour, tough=tough)
    worse = fg.shooting(shoot=shoot, attack_power=ap, **kw).mean
    assert fg.shooting(shoot=shoot - 1, attack_power=ap, **kw).mean >= worse - 1e-12
    if ap > 0:
        assert fg.shooting(shoot=shoot, attack_power=ap - 1, **kw).mean >= worse - 1e-12


@settings(max_examples=40, deadline=None)
@given(acqc=st.integers(1, 11), dcqc=st.integers(1, 11), phys=st.integers(0, 11),
       response=st.sampled_from(["block", "counter"]), shield=st.booleans())
def test_close_combat_probabilities_are_valid(acqc, dcqc, phys, response, shield):
    out = fg.close_combat(attacker_cqc=acqc, defender_cqc=dcqc, attacker_phys=phys, defender_phys=phys,
                          response=response, shield=shield)
    assert out.pmf.sum() == pytest.approx(1.0, abs=1e-12)
    e = out.effects
    assert e["pushback_none"] + e["pushback_attacker"] + e["pushback_defender"] == pytest.approx(1.0, abs=1e-12)
    assert e["defender_downed"] + e["attacker_downed"] <= 1.0 + 1e-12
    better = fg.close_combat(attacker_cqc=acqc - 1, defender_cqc=dcqc, attacker_phys=phys, defender_phys=phys,
                             response=response, shield=shield)
    assert better.effects["defender_downed"] >= e["defender_downed"] - 1e-12


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------
def test_aimed_with_three_shots():
    with pytest.raises(InputError, match=r"^aimed fire is 'a single shot' .*\(aimed, aimed_fire_team, shots: "
                                         r"'aimed and shots != 1 and not aimed_fire_team' is true for aimed='hit', "
                                         r"aimed_fire_team=False, shots=3\)$"):
        fg.shooting(shoot=6, attack_power=5, shots=3, aimed="hit")


def test_aimed_after_normal_move():
    with pytest.raises(InputError, match=r"^aimed fire needs a firer who is stationary or moving cautiously \(aimed, moved: "
                                         r"'aimed and moved == -1' is true for aimed='damage', moved='normal'\)$"):
        fg.shooting(shoot=6, attack_power=5, moved="normal", aimed="damage")


def test_v1_without_defence():
    with pytest.raises(InputError, match=r"^defence: expected a whole number from 1 to 40 with "
                                         r"damage_rule='v1', got None"):
        fg.shooting(shoot=6, attack_power=5, damage_rule="v1", damage=3)


def test_v2_with_damage():
    with pytest.raises(InputError, match=r"^damage: expected None with damage_rule='v2', got 3"):
        fg.shooting(shoot=6, attack_power=5, damage=3)


def test_unknown_moved_suggests():
    with pytest.raises(InputError, match=r"^moved: expected one of 'stationary', 'cautious', 'normal', "
                                         r"got 'stationery' \(did you mean 'stationary'\?\)"):
        fg.shooting(shoot=6, attack_power=5, moved="stationery")


def test_nan_and_negative_shots():
    with pytest.raises(InputError, match=r"^shoot: expected a whole number from 0 to 20, got nan"):
        fg.shooting(shoot=float("nan"), attack_power=5)
    with pytest.raises(InputError, match=r"^shots: expected a whole number from 1 to 1000, got -2"):
        fg.shooting(shoot=6, attack_power=5, shots=-2)


def test_unknown_keyword():
    with pytest.raises(UnknownArgumentError, match=r"did you mean 'attack_power'\?"):
        fg.shooting(shoot=6, attackpower=5)


def test_shield_needs_v1_when_shooting():
    with pytest.raises(InputError, match=r"^the seed's shield 'adds \+1 DEF vs shooting'.*\(damage_rule, shield: .* "
                                         r"is true for damage_rule='v2', shield=True\)$"):
        fg.shooting(shoot=6, attack_power=5, shield=True)


def test_close_combat_errors():
    with pytest.raises(InputError, match=r"^defender_phys: expected a whole number from 0 to 20, got None "
                                         r"\(melee damage v2 rolls above the attacker's PHYS \(the counter too\)\)"):
        fg.close_combat(attacker_cqc=6, defender_cqc=6, attacker_phys=6, response="counter")
    with pytest.raises(InputError, match=r"^response: expected one of 'block', 'counter', got 'parry'"):
        fg.close_combat(**BASE, response="parry")
    with pytest.raises(InputError, match=r"^a power attack needs a two-handed weapon, dual weapons take both hands \(dual_weapons, "
                       r"power_attack: 'power_attack and dual_weapons' is true for dual_weapons='hit', power_attack=True\)$"):
        fg.close_combat(**BASE, power_attack=True, dual_weapons="hit")
    with pytest.raises(InputError, match=r"^dual_weapons: expected one of None, 'hit', 'damage', got 'both'"):
        fg.close_combat(**BASE, dual_weapons="both")
    with pytest.raises(InputError, match=r"^attacker_damage: expected a whole number from 1 to 40 with "
                                         r"damage_rule='v1', got None"):
        fg.close_combat(attacker_cqc=6, defender_cqc=6, damage_rule="v1")


def test_illustrative_trooper_numbers_in_the_docs():
    """docs/rules/forgotten.md, worked by hand: trooper (CQC 6, PHYS 6, light
    armour) against trooper. Block: hit 5/10, not blocked 5/10, d10 - 1 > 6
    needs 8+: 3/10 -> 3/40. Counter: 5/10 x 3/10 = 3/20 downed; the standing
    defender (17/20) downs the attacker with 3/20 -> 51/400. Rifle shot,
    stationary: 6/10 x 4/10 = 6/25."""
    troopers = dict(attacker_cqc=6, defender_cqc=6, attacker_phys=6, defender_phys=6,
                    attacker_armour="light", defender_armour="light")
    assert fg.close_combat(**troopers).effects["defender_downed"] == pytest.approx(3 / 40, abs=TOL)
    counter = fg.close_combat(**troopers, response="counter")
    assert counter.effects["defender_downed"] == pytest.approx(3 / 20, abs=TOL)
    assert counter.effects["attacker_downed"] == pytest.approx(51 / 400, abs=TOL)
    assert fg.shooting(shoot=6, attack_power=5, armour="light", moved="stationary").per_attack == Fraction(6, 25)


# ---------------------------------------------------------------------------
# fixes: flanked cover, explain() agreeing with its numbers, variant switches
# ---------------------------------------------------------------------------
def test_flanked_cover_level_does_not_count():
    """Seed: "if the firer is in its rear 180 the cover does not count": the
    hard cover level comes off the damage roll only when the cover counts.
    SHOOT 6: 5/10 to hit; ATTACK POWER 5: d10 > 5, 5/10 -> 1/4 (not 5/10 x 3/10)."""
    case = dict(shoot=6, attack_power=5, cover=True, cover_level="hard", flanked=True)
    out = fg.shooting(**case)
    exp = brute.brute_shooting(**case)
    assert exp["pmf"][1] == Fraction(1, 4)
    _assert_shooting(out, exp)
    assert out.per_attack == Fraction(1, 4)
    text = out.explain()
    assert "hard cover" not in text.split("Rules as read")[0].replace("cover ignored", "")
    # not flanked: the cover counts, both on the to-hit and on the damage roll
    covered = fg.shooting(shoot=6, attack_power=5, cover=True, cover_level="hard")
    assert covered.per_attack == Fraction(3, 10) * Fraction(3, 10)


@pytest.mark.parametrize("case", [
    dict(shoot=6, attack_power=5, tough=True),
    dict(shoot=6, attack_power=5, tough=True, heroic_save=7),
    dict(shoot=6, attack_power=5, heroic_save=7),
    dict(shoot=6, attack_power=5, cover=True, cover_level="soft"),
    dict(shoot=6, attack_power=5, damage_rule="v1", damage=3, defence=4, shield=True),
    dict(shoot=6, attack_power=5, tough=True, target_wounded=1),
    dict(shoot=6, attack_power=5, tough=True, target_wounded=1, heroic_save=7, target_shocked=True),
    dict(shoot=6, attack_power=5, heroic_save=7, target_shocked=True),
    dict(shoot=6, attack_power=5, heroic_save=7, target_wounded=1),
])
def test_per_shot_is_the_chance_one_shot_downs_a_model(case):
    """explain() prints "Per shot: <product of the stages>": where one chance per shot exists (the
    heroic save a stage, every kill saved alike) that product is the chance one shot downs a model,
    by brute force; where it does not (a fresh tough model absorbs a kill, a wounded hero saves worse
    than a fresh one) the line says so, and the product is one shot's chance of a kill."""
    out = fg.shooting(**case)
    from workbench import teach
    (line,) = [x for x in out.explain().splitlines() if x.startswith("Per shot: ")]
    assert line == teach.per_attack_line(out)
    if not out.blows_vary:
        downed = sum(brute.brute_shooting(**case)["pmf"][1:], Fraction(0))
        assert out.per_attack == downed and line.endswith(f"({teach.pct(downed)}).")
        return
    assert case.get("tough") or (case.get("target_wounded") and case.get("heroic_save"))
    after = {k: case[k] for k in ("heroic_save", "tough", "target_wounded", "target_shocked") if k in case}
    kill = sum(brute.brute_shooting(**{k: x for k, x in case.items() if k not in after})["pmf"][1:], Fraction(0))
    assert out.per_attack == kill
    assert line.endswith("so there is no one chance per shot of a model downed.")


CC_PER_ATTACK = [
    dict(BASE),
    dict(BASE, shield=True),
    dict(BASE, defender_dual_weapons="hit"),
    dict(BASE, dual_weapons="hit"),
    dict(BASE, dual_weapons="damage", shield=True),
    dict(BASE, defender_heroic_save=7),
    dict(BASE, defender_tough=True, dual_weapons="damage"),
    dict(BASE, defender_tough=True),
    dict(BASE, defender_wounded=True, defender_tough=True, defender_heroic_save=8),
    dict(BASE, response="counter", shield=True, shield_when_countering=True),
    dict(attacker_cqc=6, defender_cqc=6, damage_rule="v1", attacker_damage=3, attacker_strength=2,
         defender_defence=4, power_attack=True),
]


@pytest.mark.parametrize("case", CC_PER_ATTACK, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()
                                                                        if k not in BASE or c[k] != BASE[k]))
def test_close_combat_per_attack_is_the_chance_the_defender_is_downed(case):
    """The "Per attack" line of explain() is the product of the stages; it
    must equal the brute-force chance that the attack downs the defender
    (a blocking defender cancels hits, so "to hit x to kill" alone overstates it)."""
    out = fg.close_combat(**case)
    exp = brute.brute_close_combat(**case)
    assert out.per_attack == exp["defender_downed"]
    assert out.attacks == 1
    per_line = [line for line in out.explain().splitlines() if line.startswith("Per attack")]
    assert len(per_line) == 1 and f"{exp['defender_downed'].numerator}/{exp['defender_downed'].denominator}" \
        in per_line[0]


def test_close_combat_v1_power_attack_is_explained():
    """Damage v1 with a power attack: the d6 roll gets the +2 (attack 5 vs
    Defence 4 kills on 3+, +2: 1+ -> every face), and the notes describe v1,
    not v2's PHYS roll."""
    case = dict(attacker_cqc=6, defender_cqc=6, damage_rule="v1", attacker_damage=3, attacker_strength=2,
                defender_defence=4, power_attack=True)
    out = fg.close_combat(**case)
    kill = [s for s in out.stages if s.name == "to kill"][0]
    assert "+2 (power attack)" in kill.detail
    assert kill.probability == Fraction(1)
    assert not any("Melee damage v2" in n for n in out.notes)
    assert any("damage v1" in n.lower() for n in out.notes)
    v2 = fg.close_combat(**BASE)
    assert any("Melee damage v2" in n for n in v2.notes)


def test_blind_fire_only_at_medium_range_with_rof_3_or_a_blast():
    """Seed: "This is firing fully automatic (Rof3+) or blast weapons and may
    be used against a not fully-visible target at medium ranges"."""
    with pytest.raises(InputError, match=r"^the seed allows blind fire 'at medium ranges'.*range='long'\)$"):
        fg.shooting(shoot=6, attack_power=5, shots=3, blind_fire=True, range="long")
    with pytest.raises(InputError, match=r"^blind fire is 'firing fully automatic \(Rof3\+\) or blast weapons'.*shots=1\)$"):
        fg.shooting(shoot=6, attack_power=5, shots=1, blind_fire=True)
    blast = fg.shooting(shoot=6, attack_power=5, shots=1, blind_fire=True, blast=True)
    assert blast.stages[0].probability == Fraction(4, 10)
    # the variant lifts the check
    case = dict(shoot=6, attack_power=5, shots=2, blind_fire=True, range="close")
    out = fg.shooting(**case, blind_fire_rule="any")
    _assert_shooting(out, brute.brute_shooting(**case))


def test_aimed_fire_for_a_fire_team_is_a_switch():
    """Seed: "A soldier ... can choose to fire a single shot": by default a
    fire team cannot aim; aimed_fire_team=True lets each soldier fire one
    aimed shot (shots = soldiers)."""
    with pytest.raises(InputError, match=r"^aimed fire is 'a single shot' .*shots=3\)$"):
        fg.shooting(shoot=6, attack_power=5, shots=3, aimed="hit")
    case = dict(shoot=6, attack_power=5, shots=3, aimed="hit")
    out = fg.shooting(**case, aimed_fire_team=True)
    _assert_shooting(out, brute.brute_shooting(**case))
    assert any("fire team" in n for n in out.notes)


ROUND_CASES = [
    dict(BASE, response="counter", defender_tough=True, attacker_tough=True),
    dict(BASE, defender_tough=True, defender_heroic_save=8),
    dict(BASE, response="counter", attacker_tough=True, defender_phys=4, melee_phys="defender",
         attacker_heroic_save=7),
    dict(attacker_cqc=5, defender_cqc=6, damage_rule="v1", attacker_damage=2, attacker_strength=1,
         defender_defence=4, attacker_defence=3, defender_damage=2, defender_strength=2, response="counter",
         defender_tough=True),
]


@pytest.mark.parametrize("rounds", [1, 2, 3])
@pytest.mark.parametrize("case", ROUND_CASES, ids=range(len(ROUND_CASES)))
def test_close_combat_rounds_equal_brute_force(case, rounds):
    """Seed: "otherwise they remain in CQC for their next activation": up to
    ``rounds`` exchanges or until one side is downed; a model wounded in one
    round is -1 to all rolls in the next."""
    out = fg.close_combat(**case, rounds=rounds)
    exp = brute.brute_rounds(rounds, **case)
    assert out.effects["defender_downed"] == pytest.approx(float(exp.get("defender_downed", 0)), abs=TOL)
    assert out.pmf[1] == pytest.approx(float(exp.get("defender_downed", 0)), abs=TOL)
    for name in ("attacker_downed", "defender_newly_wounded", "attacker_newly_wounded"):
        assert out.effects[name] == pytest.approx(float(exp.get(name, 0)), abs=TOL), name
    if rounds > 1:
        assert out.effects["rounds_fought"] == pytest.approx(float(exp["rounds_fought"]), abs=TOL)
    single = brute.brute_close_combat(**case)
    if rounds == 1:
        assert out.effects["defender_downed"] == pytest.approx(float(single["defender_downed"]), abs=TOL)
    else:  # more rounds can only down more
        assert out.effects["defender_downed"] >= float(single["defender_downed"]) - TOL


@pytest.mark.parametrize("rounds", [2, 3, 5])
@pytest.mark.parametrize("case", ROUND_CASES + [dict(attacker_cqc=5, defender_cqc=4, attacker_phys=6, defender_phys=8,
                                                     response="block", defender_tough=True)],
                         ids=range(len(ROUND_CASES) + 1))
def test_close_combat_rounds_per_attack_is_the_chance_the_defender_is_downed(case, rounds):
    """docs/rules/forgotten.md: the stages multiply to exactly P(defender downed), so
    "Per attack" is that chance, over every round fought (brute force of every round)."""
    from workbench import teach
    exp = brute.brute_rounds(rounds, **case).get("defender_downed", Fraction(0))
    for method in ("exact", "sampled"):
        out = fg.close_combat(**case, rounds=rounds, method=method, samples=2000, seed=1)
        assert out.per_attack == exp, method
        assert teach.per_attack_line(out).endswith(f"({teach.pct(exp)}).")
    assert f"P(at least 1) = {teach.pct(exp)}" in fg.close_combat(**case, rounds=rounds).explain()


def test_close_combat_rounds_sampled_agrees_with_exact():
    case = dict(ROUND_CASES[0], rounds=3)
    _agree(fg.close_combat(**case), fg.close_combat(**case, method="sampled", samples=60_000, seed=5))


def test_close_combat_rounds_checked():
    with pytest.raises(InputError, match=r"^rounds: expected a whole number from 1 to 20, got 0"):
        fg.close_combat(**BASE, rounds=0)


# ---------------------------------------------------------------------------
# a shocked fighter in close combat: "A unit who has received a shock token
# ... 2. Has -1 to all rolls"
# ---------------------------------------------------------------------------
SHOCK_CASES = [
    dict(BASE, attacker_shocked=True),
    dict(BASE, defender_shocked=True, shield=True),
    dict(BASE, response="counter", defender_shocked=True, attacker_shocked=True, defender_tough=True,
         defender_heroic_save=7, attacker_heroic_save=8),
    dict(BASE, response="counter", defender_shocked=True, defender_wounded=True, dual_weapons="damage",
         attacker_tough=True),
    dict(attacker_cqc=6, defender_cqc=6, damage_rule="v1", attacker_damage=3, attacker_strength=2,
         defender_defence=4, attacker_defence=3, defender_damage=2, defender_strength=2, response="counter",
         attacker_shocked=True, defender_power_attack=True, defender_shocked=True),
]


@pytest.mark.parametrize("case", SHOCK_CASES, ids=range(len(SHOCK_CASES)))
def test_close_combat_shocked_equals_brute_force(case):
    out = fg.close_combat(**case)
    exp = brute.brute_close_combat(**case)
    assert list(out.pmf) == pytest.approx([float(1 - exp["defender_downed"]), float(exp["defender_downed"])],
                                          abs=TOL)
    for name, val in exp.items():
        assert out.effects[name] == pytest.approx(float(val), abs=TOL), name
    assert any(n.startswith("Shocked:") for n in out.notes)


@pytest.mark.parametrize("rounds", [2, 3])
@pytest.mark.parametrize("case", SHOCK_CASES[2:4], ids=range(2))
def test_close_combat_shocked_rounds_equal_brute_force(case, rounds):
    """The shock token stays for every round (it is removed only by actions
    outside close combat); a wound taken in a round adds its own -1."""
    out = fg.close_combat(**case, rounds=rounds)
    exp = brute.brute_rounds(rounds, **case)
    for name in ("defender_downed", "attacker_downed", "defender_newly_wounded", "attacker_newly_wounded",
                 "rounds_fought"):
        assert out.effects[name] == pytest.approx(float(exp.get(name, 0)), abs=TOL), name


def test_close_combat_shocked_hand_example():
    """Equal troopers (CQC 6, PHYS 6), the attacker shocked, the defender
    blocks: to hit d10 - 1 >= 6 needs 7+, 4/10; not blocked 5/10; to kill
    d10 - 1 > 6 needs 8+, 3/10: 4/10 x 5/10 x 3/10 = 3/50."""
    out = fg.close_combat(**BASE, attacker_shocked=True)
    assert out.effects["defender_downed"] == pytest.approx(3 / 50, abs=TOL)
    assert out.per_attack == Fraction(3, 50)
    hit, _blocked, kill = out.stages
    assert "-1 (shocked)" in hit.detail and hit.probability == Fraction(4, 10)
    assert "-1 (shocked)" in kill.detail and kill.probability == Fraction(3, 10)


def test_shock_is_not_a_wound():
    """Shock gives the same -1 as a wound but marks no wound: a shocked tough
    defender still absorbs its first kill; a wounded one is downed by it.
    Without toughness, one round against a shocked or a wounded defender is
    the same fight."""
    shocked = fg.close_combat(**BASE, dual_weapons="damage", defender_tough=True, defender_shocked=True)
    wounded = fg.close_combat(**BASE, dual_weapons="damage", defender_tough=True, defender_wounded=True)
    exp_s = brute.brute_close_combat(**BASE, dual_weapons="damage", defender_tough=True, defender_shocked=True)
    exp_w = brute.brute_close_combat(**BASE, dual_weapons="damage", defender_tough=True, defender_wounded=True)
    assert shocked.effects["defender_downed"] == pytest.approx(float(exp_s["defender_downed"]), abs=TOL)
    assert wounded.effects["defender_downed"] == pytest.approx(float(exp_w["defender_downed"]), abs=TOL)
    assert shocked.effects["defender_downed"] < wounded.effects["defender_downed"]
    assert shocked.effects["defender_newly_wounded"] > 0
    plain_s = fg.close_combat(**BASE, response="counter", defender_shocked=True)
    plain_w = fg.close_combat(**BASE, response="counter", defender_wounded=True)
    for name in ("defender_downed", "attacker_downed", "pushback_attacker", "pushback_defender"):
        assert plain_s.effects[name] == pytest.approx(plain_w.effects[name], abs=TOL), name


def test_close_combat_shocked_sampled_agrees_with_exact():
    case = dict(SHOCK_CASES[2], rounds=3)
    _agree(fg.close_combat(**case), fg.close_combat(**case, method="sampled", samples=60_000, seed=31))


def test_close_combat_shocked_checked():
    with pytest.raises(InputError, match=r"^defender_shocked: expected True or False, got 'yes'"):
        fg.close_combat(**BASE, defender_shocked="yes")


# ---------------------------------------------------------------------------
# a shooting target whose models already carry the red token: "A wounded model
# is -1 to all rolls and halves movement permanently and receives a red token
# under its base"; a shocked target unit "Has -1 to all rolls"
# ---------------------------------------------------------------------------
RED_TOKEN_CASES = [
    dict(shoot=5, attack_power=3, shots=3, tough=True, target_wounded=1),
    dict(shoot=5, attack_power=3, shots=3, tough=True, target_wounded=2, heroic_save=7, models=3),
    dict(shoot=5, attack_power=3, shots=3, heroic_save=6, target_wounded=1),
    dict(shoot=5, attack_power=3, shots=3, tough=True, target_wounded=1, heroic_save=8, target_shocked=True,
         shock_rule="pooled"),
    dict(shoot=4, attack_power=2, shots=4, tough=True, target_wounded=3, models=3),
    dict(shoot=5, attack_power=3, shots=2, tough=True, target_wounded=1, models=1, shock_rule="pooled"),
    dict(shoot=5, attack_power=3, shots=3, heroic_save=6, target_shocked=True),
    dict(shoot=6, attack_power=5, shots=2, damage_rule="v1", damage=3, defence=4, tough=True, target_wounded=1,
         heroic_save=7),
]


@pytest.mark.parametrize("case", RED_TOKEN_CASES, ids=range(len(RED_TOKEN_CASES)))
def test_shooting_at_wounded_models_equals_brute_force(case):
    out = fg.shooting(**case)
    _assert_shooting(out, brute.brute_shooting(**case))
    if case.get("target_wounded"):
        assert any(n.startswith("Red token:") for n in out.notes)


def test_red_token_hand_example():
    """A tough target whose model already carries the red token, one shot,
    SHOOT 6 and ATTACK POWER 5: to hit 5/10, to kill d10 > 5 5/10, and the
    kill downs the wounded model: 1/4. A fresh tough model is never downed
    by one shot. explain() says 1/4 per shot and P(at least 1) = 25.0 %."""
    out = fg.shooting(shoot=6, attack_power=5, tough=True, target_wounded=1)
    assert out.pmf[1] == pytest.approx(0.25, abs=TOL)
    assert out.per_attack == Fraction(1, 4)
    text = out.explain()
    assert "Per shot: 5/10 \u00d7 5/10 = 1/4 (25.0 %)" in text and "P(at least 1) = 25.0 %" in text
    fresh = fg.shooting(shoot=6, attack_power=5, tough=True)   # a kill only wounds a fresh tough model
    assert fresh.pmf[0] == 1.0 and fresh.per_attack == Fraction(1, 4) and fresh.blows_vary
    assert "a fresh tough model only takes a wound" in fresh.stages[-1].detail
    # a wounded hero saves at -1, -1 more when shocked: 7+ becomes 9+, fails 8/10; the one shot's
    # kill lands on the wounded hero, so the save is one chance: a stage
    hero = fg.shooting(shoot=6, attack_power=5, tough=True, target_wounded=1, heroic_save=7, target_shocked=True)
    assert hero.stages[-1].probability == Fraction(8, 10) and not hero.blows_vary
    assert hero.stages[-1].detail == "heroic save 7 at -1 (shocked) at -1 (wounded: red token) needs 9+ on a d10: goes on 8/10"
    assert hero.per_attack == Fraction(1, 5)
    assert hero.pmf[1] == pytest.approx(0.2, abs=TOL)


def test_wounded_models_take_the_kills_first():
    """Three shots that all kill (SHOOT 1, ATTACK POWER 0) at a tough unit:
    with no red token they down one model (wound, down, wound); with one
    model wounded, two (down, wound, down); with three wounded, three."""
    sure = dict(shoot=1, attack_power=0, shots=3, tough=True)
    assert fg.shooting(**sure).pmf[1] == pytest.approx(1.0)
    assert fg.shooting(**sure, target_wounded=1).pmf[2] == pytest.approx(1.0)
    assert fg.shooting(**sure, target_wounded=3).pmf[3] == pytest.approx(1.0)
    # without toughness and saves, the red token changes nothing
    plain = dict(shoot=5, attack_power=3, shots=4, models=3)
    assert list(fg.shooting(**plain, target_wounded=2).pmf) == pytest.approx(list(fg.shooting(**plain).pmf))


@settings(max_examples=40, deadline=None)
@given(shoot=st.integers(1, 11), ap=st.integers(0, 10), shots=st.integers(1, 8), models=st.integers(1, 6),
       heroic=st.one_of(st.none(), st.integers(1, 11)), k=st.integers(0, 5))
def test_more_wounded_models_never_lower_expected_downs(shoot, ap, shots, models, heroic, k):
    k = min(k, models - 1)
    kw = dict(shoot=shoot, attack_power=ap, shots=shots, models=models, heroic_save=heroic, tough=True)
    fewer = fg.shooting(**kw, target_wounded=k)
    more = fg.shooting(**kw, target_wounded=k + 1)
    assert more.mean >= fewer.mean - 1e-12
    assert np.all(more.at_least_curve >= fewer.at_least_curve - 1e-12)


def test_table_with_wounded_models_equals_scalar_calls():
    shoot = np.array([4, 6])[:, None]
    shots = np.array([1, 3, 5])[None, :]
    t = fg.shooting_table(shoot=shoot, attack_power=3, shots=shots, models=4, tough=True, target_wounded=2,
                          heroic_save=7, target_shocked=True, shock_rule="pooled")
    for i, sh in enumerate([4, 6]):
        for j, n in enumerate([1, 3, 5]):
            one = fg.shooting(shoot=sh, attack_power=3, shots=n, models=4, tough=True, target_wounded=2,
                              heroic_save=7, target_shocked=True, shock_rule="pooled")
            row = t["pmf"][i, j]
            assert row[: one.pmf.size] == pytest.approx(one.pmf, abs=TOL)
            for name, val in one.effects.items():
                assert t["effects"][name][i, j] == pytest.approx(val, abs=TOL)


@pytest.mark.parametrize("case", [RED_TOKEN_CASES[1], RED_TOKEN_CASES[2],
                                  dict(shoot=5, attack_power=3, shots=6, models=4, tough=True, target_wounded=2,
                                       heroic_save=6, target_shocked=True, shock_rule="pooled")])
def test_shooting_at_wounded_models_sampled_agrees_with_exact(case):
    _agree(fg.shooting(**case), fg.shooting(**case, method="sampled", samples=60_000, seed=47))


def test_target_wounded_checked():
    with pytest.raises(InputError, match=r"^target_wounded: expected at most models=3, got 4 \(the models of the "
                                         r"target unit that already carry the red token\)"):
        fg.shooting(shoot=6, attack_power=5, tough=True, models=3, target_wounded=4)
    with pytest.raises(InputError, match=r"^target_wounded: expected a whole number from 0 to 1000, got True"):
        fg.shooting(shoot=6, attack_power=5, tough=True, target_wounded=True)
    with pytest.raises(InputError, match=r"^target_shocked: expected True or False, got 1"):
        fg.shooting(shoot=6, attack_power=5, target_shocked=1)


def test_a_shocked_blocker_is_said_and_counted():
    """Equal troopers, the defender shocked and blocking: its block needs
    d10 - 1 >= 6, 4/10, so a hit gets through 6/10: 5/10 x 6/10 x 4/10 = 3/25,
    and the stage says the -1."""
    out = fg.close_combat(**BASE, defender_shocked=True)
    assert out.per_attack == Fraction(3, 25)
    assert out.effects["defender_downed"] == pytest.approx(float(brute.brute_close_combat(
        **BASE, defender_shocked=True)["defender_downed"]), abs=TOL)
    assert "the defender blocks at CQC 6 -1 (shocked): 1 blocking die (needs 7+ on a d10" in out.stages[1].detail


# ---------------------------------------------------------------------------
# "A unit who has received a shock token 1. Must defend and attempt to
# disengage from CQC": default, any response; variant, block only
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("case", [dict(BASE), dict(BASE, defender_tough=True, shield=True),
                                  dict(BASE, defender_heroic_save=7, attacker_shocked=True)],
                         ids=range(3))
def test_a_shocked_defender_only_blocks_under_the_block_only_reading(case):
    shocked = dict(case, defender_shocked=True)
    asked = dict(shocked, response="counter")
    default = fg.close_combat(**asked)
    variant = fg.close_combat(**asked, shocked_defence="block_only")
    blocked, countered = brute.brute_close_combat(**dict(shocked, response="block")), brute.brute_close_combat(**asked)
    for name in ("defender_downed", "attacker_downed", "pushback_attacker", "pushback_defender"):
        assert variant.effects[name] == pytest.approx(float(blocked.get(name, 0)), abs=TOL), name
        assert default.effects[name] == pytest.approx(float(countered.get(name, 0)), abs=TOL), name
    assert variant.inputs["response"] == "block" and default.inputs["response"] == "counter"
    assert any("block_only" in n and "Must defend" in n for n in variant.notes)
    assert not any("block_only" in n for n in default.notes)
    # an unshocked defender still counters under the variant
    calm = fg.close_combat(**dict(case, response="counter"), shocked_defence="block_only")
    assert calm.inputs["response"] == "counter"


def test_block_only_troopers_worked_example():
    """CQC 6, PHYS 6 troopers, the defender shocked: hit 5/10, the block die at -1
    (d10 >= 7: 4/10) leaves the hit 6/10, kill d10 > 6: 4/10 -> 12/100."""
    out = fg.close_combat(**BASE, response="counter", defender_shocked=True, shocked_defence="block_only")
    assert out.per_attack == Fraction(5, 10) * Fraction(6, 10) * Fraction(4, 10) == Fraction(3, 25)
    with pytest.raises(InputError, match=r"^shocked_defence: expected one of 'any', 'block_only', got 'flee'"):
        fg.close_combat(**BASE, shocked_defence="flee")
