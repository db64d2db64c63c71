"""The shipped rule file rules/changes_file.toml equals the hand-written module
(workbench.systems.changes.shooting) over grids of stats, to 1e-12, for the
parts the format expresses (the file's notes list what it cannot).
rules/gunfire.toml is Gunfire's own file: tests/test_rules_gunfire.py."""
from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from pmfcheck import assert_pmf_equal
from workbench import rules
from workbench.errors import InputError
from workbench.systems import changes

TOL = 1e-12
RULES = Path(__file__).resolve().parents[1] / "rules"


@pytest.fixture(scope="module")
def changes_file():
    return rules.load(RULES / "changes_file.toml")


def _same(a, b, effects: dict[str, str]):
    assert_pmf_equal(a.pmf, b.pmf, TOL)
    assert abs(a.mean - b.mean) <= TOL
    for mine, theirs in effects.items():
        assert a.effects[mine] == pytest.approx(b.effects[theirs], abs=TOL), (mine, theirs)
    assert [s.probability for s in a.stages] == [s.probability for s in b.stages]


CHANGES_EFFECTS = {"to hit": "hits", "to pierce": "pierced", "to wound": "unsaved_wounds",
                   "wasted_damage": "wasted_wounds"}


def test_changes_grid_of_roll_stats_and_modifiers(changes_file):
    grid = itertools.product((1, 4, 7, 12, 13), (3, 9), (2, 6, 11), (-3, 0, 2), (-2, 1, 5), (0, 3), (-1, 4))
    for bs, s, ap, t, sv, inv, cover in grid:
        kw = dict(bs=bs, s=s, ap=ap, t=t, sv=sv, inv=inv, cover=cover, shots=6, models=3, wounds=2)
        _same(changes_file.attack(**kw), changes.shooting(**kw), CHANGES_EFFECTS)


def test_changes_grid_of_units_actions_and_variants(changes_file):
    actions = [("light", "snap"), ("light", "shot"), ("light", "aimed"), ("heavy", "shot"), ("heavy", "aimed")]
    for (weapon, action), gtg, n12, n1, shots, models, wounds, heavy_shot in itertools.product(
            actions, (False, True), (False, True), (False, True), (0, 1, 9), (1, 4), (1, 3),
            ("bs_plus_4", "flat_4")):
        kw = dict(bs=6, s=4, ap=8, t=2, sv=3, cover=1, inv=2, shots=shots, models=models, wounds=wounds,
                  weapon=weapon, action=action, go_to_ground=gtg, natural_12_always_succeeds=n12,
                  natural_1_always_fails=n1, heavy_shot=heavy_shot)
        _same(changes_file.attack(**kw), changes.shooting(**kw), CHANGES_EFFECTS)
    for firer_cover, evading, gtg, rule in itertools.product((-2, 0, 3, 6), (False, True), (False, True),
                                                             ("same", "better")):
        if evading and gtg:  # one status marker per unit
            continue
        kw = dict(bs=3, s=10, ap=2, t=5, sv=-1, cover=2, shots=5, models=2, wounds=2, action="snap",
                  firer_gone_to_ground=True, firer_cover=firer_cover, evading=evading, go_to_ground=gtg,
                  firer_cover_rule=rule)
        _same(changes_file.attack(**kw), changes.shooting(**kw), CHANGES_EFFECTS)


@pytest.mark.parametrize("kw", [dict(weapon="heavy", action="snap"), dict(evading=True, action="aimed"),
                                dict(firer_gone_to_ground=True, action="shot"),
                                dict(go_to_ground=True, evading=True, action="snap")])
def test_changes_forbidden_combinations_are_forbidden_in_both(changes_file, kw):
    with pytest.raises(InputError):
        changes.shooting(bs=4, s=4, ap=4, **kw)
    with pytest.raises(InputError):
        changes_file.attack(bs=4, s=4, ap=4, **kw)


def test_changes_sweep_table_equals_the_module_table(changes_file):
    bs = np.array([2, 5, 8, 11, 13, 4])
    shots = np.array([0, 3, 10, 25, 7, 40])
    models = np.array([1, 2, 5, 10, 3, 20])
    mine = changes_file.attack_table(bs=bs, s=5, ap=6, t=1, sv=2, shots=shots, models=models, wounds=2)
    theirs = changes.shooting_table(bs=bs, s=5, ap=6, t=1, sv=2, shots=shots, models=models, wounds=2)
    for i in range(bs.size):
        assert_pmf_equal(mine["pmf"][i], theirs["pmf"][i], TOL)
    np.testing.assert_allclose(mine["effects"]["wasted_damage"], theirs["effects"]["wasted_wounds"], atol=TOL)


def test_the_shipped_changes_file_does_not_clash_with_the_builtin_key_and_says_what_it_leaves_out():
    sysm = rules.load(RULES / "changes_file.toml")
    assert sysm.key != "changes" and "(rule file)" in sysm.name
    assert any("Not expressed by the file format" in n for n in sysm.notes)
