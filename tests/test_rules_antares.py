"""rules/antares_file.toml resolves Antares shooting exactly as the built-in
``workbench.systems.antares.shooting`` does: every probability of the
removed count and every effect (hits, critical hits, at least one critical)
over stat grids, with and without the critical variant, blast weapons
included; its stages carry the same Fractions; sampled within 5 SE."""
from __future__ import annotations

from itertools import product
from pathlib import Path

import numpy as np
import pytest

from workbench import rules
from workbench.systems import antares

FILE = Path(__file__).resolve().parents[1] / "rules" / "antares_file.toml"
TOL = 1e-12
#: the built-in's effect name -> the file's
EFFECTS = {"hits": "hits", "critical_hits": "critical_hits", "any_critical": "any_critical"}


@pytest.fixture(scope="module")
def system():
    return rules.load(FILE)


def _same_pmf(a: np.ndarray, b: np.ndarray) -> None:
    """Equal at every count (the file's pmf runs to the unit size, the built-in's to min(shots, size))."""
    width = max(a.shape[-1], b.shape[-1])
    pad = lambda x: np.concatenate([x, np.zeros(x.shape[:-1] + (width - x.shape[-1],))], axis=-1)
    np.testing.assert_allclose(pad(a), pad(b), rtol=0, atol=TOL)


@pytest.mark.parametrize("variant", [False, True])
def test_the_file_equals_the_builtin_over_a_stat_grid(system, variant):
    axes = dict(acc=np.arange(0, 13), res=np.arange(-0, 13), sv=np.array([0, 1, 4]), armour=np.array([0, 2]),
                cover=np.array([0, 1]), acc_mod=np.array([-3, 0, 2]), shots=np.array([1, 4, 9]),
                models=np.array([1, 3, 10]))
    grids = np.meshgrid(*axes.values(), indexing="ij")
    flat = {k: g.ravel() for k, g in zip(axes, grids)}
    want = antares.shooting_table(**flat, critical_ignores_res=variant)
    got = system.attack_table(**flat, critical_ignores_res=variant)
    _same_pmf(got["pmf"], want["pmf"])
    for theirs, ours in EFFECTS.items():
        np.testing.assert_allclose(got["effects"][ours], want["effects"][theirs], rtol=0, atol=1e-10)
    # a unit without a size: nothing capped, the pmf runs to the number of shots as the built-in's does
    del flat["models"]
    want = antares.shooting_table(**flat, critical_ignores_res=variant)
    got = system.attack_table(**flat, models=None, critical_ignores_res=variant)
    assert got["pmf"].shape == want["pmf"].shape
    np.testing.assert_allclose(got["pmf"], want["pmf"], rtol=0, atol=TOL)


@pytest.mark.parametrize("blast", ["D3", "D4", "D5", "D6", "D8", "D12"])
def test_blast_weapons_equal_the_builtin(system, blast):
    for acc, mod, res, sv, models, variant in product((0, 1, 2, 6, 11), (-2, 0), (0, 4, 9), (0, 2), (1, 4, 12, None),
                                                      (False, True)):
        kw = dict(acc=acc, acc_mod=mod, res=res, sv=sv, models=models, critical_ignores_res=variant)
        want = antares.shooting(**kw, shots=blast)
        got = system.attack(**kw, blast=blast)
        _same_pmf(got.pmf, want.pmf)
        for theirs, ours in EFFECTS.items():
            assert got.effects[ours] == pytest.approx(want.effects[theirs], abs=1e-10), (theirs, acc, res)


def test_stages_carry_the_builtins_fractions(system):
    for acc, res, sv, acc_mod in product(range(0, 12), range(0, 12, 3), (0, 3), (-2, 0, 3)):
        want = antares.shooting(acc=acc, res=res, sv=sv, acc_mod=acc_mod, shots=2)
        got = system.attack(acc=acc, res=res, sv=sv, acc_mod=acc_mod, shots=2)
        assert [s.probability for s in got.stages] == [s.probability for s in want.stages]


def test_sampled_file_agrees_with_the_builtin_exact(system):
    n = 40_000
    for kw in (dict(acc=5, res=5, sv=1, shots=10, models=10, critical_ignores_res=True),
               dict(acc=0, res=0, sv=0, shots=3, models=3)):
        want = antares.shooting(**kw)
        got = system.attack(**kw, method="sampled", samples=n, seed=4)
        width = max(want.pmf.size, got.pmf.size)
        pe, ps = np.zeros(width), np.zeros(width)
        pe[: want.pmf.size], ps[: got.pmf.size] = want.pmf, got.pmf
        assert np.all(np.abs(ps - pe) <= 5 * np.sqrt(np.clip(pe * (1 - pe), 0, None) / n) + 1 / n)
        assert abs(got.effects["any_critical"] - want.effects["any_critical"]) <= 5 * 0.5 / np.sqrt(n)
    got = system.attack(acc=6, res=3, sv=1, blast="D8", models=5, method="sampled", samples=n, seed=4)
    want = antares.shooting(acc=6, res=3, sv=1, shots="D8", models=5)
    assert abs(got.mean - want.mean) <= 5 * 3 / np.sqrt(n)


def test_stage_words_say_the_roll_under_rules(system):
    low = system.attack(acc=0, res=5, sv=0)
    assert "needs a 1 then another 1" in low.stages[0].detail
    assert "no critical" in system.attack(acc=1, res=5).stages[0].detail
    assert "critical success" in system.attack(acc=5, res=5).stages[0].detail
    assert "_" not in low.stages[0].detail and "None" not in low.stages[0].detail
