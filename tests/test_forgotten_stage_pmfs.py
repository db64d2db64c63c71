"""Outcome.stage_pmfs of The Forgotten's shooting, from the rule engine: the distribution of
how many shots pass each stage shown (hits, kills, kills the heroic save does not stop) over
the volley, against the brute force of tests/brute_forgotten.py (every face, Fractions)."""
from __future__ import annotations

import pickle

import pytest

from brute_forgotten import brute_shooting
from pmfcheck import assert_pmf_equal
from workbench.systems import forgotten as fg

CASES = [
    dict(shoot=6, attack_power=5, shots=3),
    dict(shoot=4, attack_power=7, shots=2, models=1, armour="light", cover=True),
    dict(shoot=7, attack_power=3, shots=3, heroic_save=6, target_shocked=True, models=2),
    dict(shoot=5, attack_power=4, shots=2, damage_rule="v1", damage=4, defence=3, shield=True),
    dict(shoot=6, attack_power=2, shots=3, heroic_save=5, target_wounded=3, models=3, tough=True),
    dict(shoot=6, attack_power=5, shots=1, aimed="damage", moved="stationary", kill_on="at_or_above"),
]


#: the brute force's names of the stages the engine names otherwise
BRUTE_NAMES = {"heroic save failed": "heroic save fails"}


@pytest.mark.parametrize("case", CASES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_stage_pmfs_equal_brute_force(case):
    o = fg.shooting(**case)
    want = brute_shooting(**case)["stage_pmfs"]
    assert list(o.stage_pmfs) == [s.name for s in o.stages]
    for name in o.stage_pmfs:
        assert o.stage_pmfs[name].sum() == pytest.approx(1.0, abs=1e-12)
        assert_pmf_equal(o.stage_pmfs[name], want[BRUTE_NAMES.get(name, name)], 1e-12)


def test_the_stage_pmfs_are_the_stages_shown_and_pickle_as_a_dict():
    # a fresh tough model: each kill only wounds it, but the shots still pass to hit and to kill
    o = fg.shooting(shoot=6, attack_power=5, shots=3, tough=True)
    assert list(o.stage_pmfs) == ["to hit", "to kill"]
    assert_pmf_equal(o.stage_pmfs["to kill"], brute_shooting(shoot=6, attack_power=5, shots=3)["stage_pmfs"]["to kill"],
                     1e-12)
    o = fg.shooting(shoot=6, attack_power=5, shots=3, heroic_save=6)
    back = pickle.loads(pickle.dumps(o.stage_pmfs))
    assert isinstance(back, dict) and set(back) == {"to hit", "to kill", "heroic save failed"}
    assert_pmf_equal(back["to kill"], brute_shooting(shoot=6, attack_power=5, shots=3, heroic_save=6)
                     ["stage_pmfs"]["to kill"], 1e-12)
