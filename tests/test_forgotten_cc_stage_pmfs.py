"""Outcome.stage_pmfs of The Forgotten's close combat: over the whole fight, how many of the
attacker's dice pass each of its stages (hits, hits not blocked, kills, kills not saved, or the
defender downed), against the brute force of tests/brute_forgotten.py (every face of every die
of a round with itertools and Fractions, the rounds chained at the fighters' states), and the
fight's ends from the rule file's two-sided close-combat mechanism against it too."""
from __future__ import annotations

import pickle
from fractions import Fraction

import numpy as np
import pytest

from brute_forgotten import brute_fight_passes, brute_rounds
from pmfcheck import assert_pmf_equal
from workbench.systems import forgotten as fg
from workbench.systems import ownfile

BASE = dict(attacker_cqc=6, defender_cqc=6, attacker_phys=5, defender_phys=5)
CASES = [
    dict(),
    dict(shield=True, defender_heroic_save=7, attacker_weapon_bonus=1),
    dict(response="counter", attacker_tough=True, defender_tough=True, attacker_heroic_save=8),
    dict(dual_weapons="hit", defender_armour="light", defender_outnumbered=True),
    dict(response="counter", shield=True, shield_when_countering=True, defender_wounded=True,
         defender_tough=True, attacker_shocked=True),
    dict(damage_rule="v1", attacker_phys=None, defender_phys=None, attacker_damage=3, attacker_strength=3,
         defender_defence=4, defender_heroic_save=6, defender_shocked=True, facing_away=True),
    dict(response="counter", defender_power_attack=True, power_attack=True, attacker_wounded=True,
         attacker_tough=True, kill_on="at_or_above", from_rear=True),
]


def _steps(case: dict) -> dict[str, str]:
    """Each stage shown -> what it counts: the seed's steps of one attack, where a stage "to kill"
    that stands for several hits or a tough defender is the defender downed."""
    p = dict(BASE, **case)
    steps = {"to hit": "hits"}
    if p.get("response", "block") == "block" or p.get("shield_when_countering"):
        steps["not blocked"] = "unblocked"
    simple = p.get("dual_weapons") is None and not p.get("defender_tough")
    steps["to kill"] = "kills" if simple else "downed"
    if simple and p.get("defender_heroic_save") is not None:
        steps["heroic save fails"] = "unsaved"
    return steps


@pytest.mark.parametrize("rounds", [1, 2, 3])
@pytest.mark.parametrize("case", CASES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "plain")
def test_stage_pmfs_equal_brute_force(case, rounds):
    p = dict(BASE, **case)
    o = fg.close_combat(rounds=rounds, **p)
    want = brute_fight_passes(rounds, **p)
    steps = _steps(case)
    assert list(o.stage_pmfs) == list(steps)
    for name, step in steps.items():
        assert o.stage_pmfs[name].sum() == pytest.approx(1.0, abs=1e-12)
        assert_pmf_equal(o.stage_pmfs[name], want[step], 1e-12)
    # the last step's passes: at least one is the defender downed, whatever the rounds
    assert 1 - o.stage_pmfs[list(steps)[-1]][0] == pytest.approx(o.effects["defender_downed"], abs=1e-12)
    if rounds == 1:
        assert [st.name for st in o.stages] == list(steps)
        assert max(len(o.stage_pmfs[n]) for n in steps) <= 3  # one round: at most two dice per step


def test_over_rounds_the_hits_add_up_round_after_round():
    p = dict(BASE, response="counter", attacker_tough=True, defender_tough=True)
    one = fg.close_combat(rounds=1, **p).stage_pmfs["to hit"]
    three = fg.close_combat(rounds=3, **p).stage_pmfs["to hit"]
    assert len(one) == 2 and len(three) == 4
    mean = float(three @ np.arange(4))
    fought = fg.close_combat(rounds=3, **p).effects["rounds_fought"]
    # the attacker rolls one die a round; a wounded attacker hits less, so the mean is below P(hit) x rounds
    assert 0 < mean <= float(one[1]) * fought + 1e-12


@pytest.mark.parametrize("rounds", [1, 4])
@pytest.mark.parametrize("case", CASES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "plain")
def test_the_files_fight_equals_a_brute_force(case, rounds):
    """The rule file's mechanism, in Fractions: who is downed or wounded equals the brute force."""
    p = dict(BASE, **case)
    stats = {k: x for k, x in p.items() if x is not None}
    for side in ("attacker", "defender"):
        if f"{side}_heroic_save" in stats:
            stats[f"{side}_hero"] = True
    got = ownfile.load("forgotten", "close_combat").fractions(rounds=rounds, **stats)["effects"]
    brute = brute_rounds(rounds, **p)
    for name in ("defender_downed", "attacker_downed", "defender_newly_wounded", "attacker_newly_wounded"):
        assert got[name] == brute.get(name, Fraction(0)), name
    assert got["rounds_fought"] == brute["rounds_fought"]


def test_stage_pmfs_pickle():
    o = fg.close_combat(rounds=2, defender_heroic_save=6, **BASE)
    back = pickle.loads(pickle.dumps(o.stage_pmfs))
    assert isinstance(back, dict) and list(back) == ["to hit", "not blocked", "to kill", "heroic save fails"]
    assert_pmf_equal(back["to kill"], brute_fight_passes(2, defender_heroic_save=6, **BASE)["kills"], 1e-12)
