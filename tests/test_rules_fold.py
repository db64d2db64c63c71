"""One fold above a unit size: the rule engine's saturated tallies (every count above
``up_to`` moved to ``up_to``) and its removal fold through :func:`workbench.engine.cap`,
checked against a brute force that moves every entry of a table by hand (Fractions).
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from workbench import engine
from workbench.rules import tally
from workbench.rules.removal import fixed_damage_removal


def brute_saturate(a: np.ndarray, up_to: int) -> dict[tuple[int, ...], Fraction]:
    """Every entry of ``a`` (cells, *counts) moved to its counts each saturated at ``up_to``."""
    out: dict[tuple[int, ...], Fraction] = {}
    for index in itertools.product(*(range(n) for n in a.shape)):
        key = (index[0],) + tuple(min(k, up_to) for k in index[1:])
        out[key] = out.get(key, Fraction(0)) + Fraction(int(a[index]))
    return out


@pytest.mark.parametrize("shape", [(1, 5), (2, 4, 3), (3, 2, 6), (2, 3, 3, 4)])
@pytest.mark.parametrize("up_to", [0, 1, 2, 5])
def test_saturated_tallies_fold_like_moving_every_entry(shape, up_to):
    a = np.random.default_rng(sum(shape) + up_to).integers(0, 50, size=shape)
    got = tally._fold(a.astype(float), up_to)
    want = brute_saturate(a, up_to)
    assert got.shape == (shape[0],) + tuple(min(n, up_to + 1) for n in shape[1:])
    for index in itertools.product(*(range(n) for n in got.shape)):
        assert got[index] == float(want.get(index, 0)), index


@pytest.mark.parametrize("models,wounds,damage,spill", [(3, 1, 1, False), (2, 2, 1, False), (4, 3, 2, False),
                                                        (2, 3, 2, True), (None, 2, 1, False), (1, 5, 2, True)])
def test_fixed_damage_removal_is_min_of_models_and_kills(models, wounds, damage, spill):
    """P(k successes) of 6 fair coins, folded into models removed by hand: each model takes
    ceil(W / D) successes (D x k // W with spill), at most ``models``."""
    n = 6
    p = np.array([float(Fraction(math.comb(n, k), 2 ** n)) for k in range(n + 1)])
    got, _ = fixed_damage_removal(p, models, wounds, damage, spill)
    want: dict[int, float] = {}
    for k in range(n + 1):
        removed = (k * damage) // wounds if spill else k // -(-wounds // damage)
        removed = removed if models is None else min(removed, models)
        want[removed] = want.get(removed, 0.0) + p[k]
    assert np.allclose(got, [want.get(r, 0.0) for r in range(got.size)], atol=1e-15, rtol=0)
    assert np.array_equal(engine.cap(got, models), got)  # nothing is left above the unit size
