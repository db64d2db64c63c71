"""The shipped rule files rules/changes_file.toml and rules/gunfire_file.toml
equal the hand-written modules (workbench.systems.changes.shooting and
workbench.systems.gunfire.shooting) over grids of stats, to 1e-12, for the
parts the format expresses (each file's notes list what it cannot)."""
from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from pmfcheck import assert_pmf_equal
from workbench import rules
from workbench.errors import InputError
from workbench.systems import changes, gunfire

TOL = 1e-12
RULES = Path(__file__).resolve().parents[1] / "rules"


@pytest.fixture(scope="module")
def changes_file():
    return rules.load(RULES / "changes_file.toml")


@pytest.fixture(scope="module")
def gunfire_file():
    return rules.load(RULES / "gunfire_file.toml")


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
    for (weapon, action), gtg, n12, n1, shots, models, wounds in itertools.product(
            actions, (False, True), (False, True), (False, True), (0, 1, 9), (1, 4), (1, 3)):
        kw = dict(bs=6, s=4, ap=8, t=2, sv=3, cover=1, inv=2, shots=shots, models=models, wounds=wounds,
                  weapon=weapon, action=action, go_to_ground=gtg, natural_12_always_succeeds=n12,
                  natural_1_always_fails=n1)
        _same(changes_file.attack(**kw), changes.shooting(**kw), CHANGES_EFFECTS)
    for firer_cover, evading in itertools.product((-2, 0, 3, 6), (False, True)):
        kw = dict(bs=3, s=10, ap=2, t=5, sv=-1, cover=2, shots=5, models=2, wounds=2, action="snap",
                  firer_gone_to_ground=True, firer_cover=firer_cover, evading=evading)
        _same(changes_file.attack(**kw), changes.shooting(**kw), CHANGES_EFFECTS)


@pytest.mark.parametrize("kw", [dict(weapon="heavy", action="snap"), dict(evading=True, action="aimed"),
                                dict(firer_gone_to_ground=True, action="shot")])
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


GUNFIRE_EFFECTS = {"to hit": "hits", "to penetrate": "penetrating_hits"}


def test_gunfire_grid_of_opposed_tests_and_division(gunfire_file):
    for bs, ev, ap, av, s, t in itertools.product((0, 3, 8), (1, 4, 12), (2, 5), (0, 6), (0, 1, 2, 5), (1, 2, 3)):
        kw = dict(bs=bs, ev=ev, ap=ap, av=av, s=s, t=t, shots=5, models=4)
        _same(gunfire_file.attack(**kw), gunfire.shooting(**kw), GUNFIRE_EFFECTS)


def test_gunfire_grid_of_modifiers_explosive_base_and_variants(gunfire_file):
    for hit_mod, pen_mod, explosive, base, nmax, n1, models in itertools.product(
            (-3, 0, 4), (-1, 2), (None, 1, 2, 5), (4, 6, 9), (False, True), (False, True), (1, 3, 20)):
        kw = dict(bs=4, ev=3, ap=3, av=5, s=6, t=2, shots=7, models=models, hit_mod=hit_mod, pen_mod=pen_mod,
                  base=base, natural_max_always_succeeds=nmax, natural_1_always_fails=n1)
        mine = gunfire_file.attack(**kw, explosive=1 if explosive is None else explosive)
        _same(mine, gunfire.shooting(**kw, explosive=explosive), GUNFIRE_EFFECTS)


def test_gunfire_sweep_table_equals_the_module_table(gunfire_file):
    s = np.array([0, 1, 2, 3, 6, 9])
    t = np.array([1, 2, 2, 3, 2, 4])
    shots = np.array([1, 4, 9, 12, 30, 2])
    mine = gunfire_file.attack_table(bs=4, ev=3, ap=5, av=2, s=s, t=t, shots=shots, models=10, explosive=3)
    theirs = gunfire.shooting_table(bs=4, ev=3, ap=5, av=2, s=s, t=t, shots=shots, models=10, explosive=3)
    for i in range(s.size):
        assert_pmf_equal(mine["pmf"][i], theirs["pmf"][i], TOL)
    np.testing.assert_allclose(mine["effects"]["to penetrate"], theirs["effects"]["penetrating_hits"], atol=TOL)


@pytest.mark.parametrize("name, builtin", [("changes_file.toml", "changes"), ("gunfire_file.toml", "gunfire")])
def test_shipped_files_do_not_clash_with_builtin_keys_and_say_what_they_leave_out(name, builtin):
    sysm = rules.load(RULES / name)
    assert sysm.key != builtin and "(rule file)" in sysm.name
    assert any("Not expressed by the file format" in n for n in sysm.notes)
