"""Comparing a resolver's pmf with a brute-force one, for the system tests."""
from __future__ import annotations

import numpy as np

#: exact paths agree with enumeration to rounding error
TOL = 1e-12


def assert_pmf_equal(pmf, expected, tol: float = TOL) -> None:
    """``pmf`` equals ``expected`` (Fractions or floats) to ``tol``; the shorter
    one is padded with zeros, since a count beyond what can happen has P = 0."""
    n = max(len(pmf), len(expected))
    got = np.zeros(n)
    got[: len(pmf)] = pmf
    want = np.zeros(n)
    want[: len(expected)] = [float(x) for x in expected]
    np.testing.assert_allclose(got, want, rtol=0, atol=tol)


def assert_same_outcome(got, want, tol: float = TOL) -> None:
    """Two outcomes say the same: pmf (same length) and every effect to ``tol``, the same stages
    (Fractions and words), system, function, attacks, notes, label, trial and inputs."""
    assert got.pmf.shape == want.pmf.shape
    np.testing.assert_allclose(got.pmf, want.pmf, rtol=0, atol=tol)
    assert set(got.effects) == set(want.effects)
    for name in want.effects:
        assert abs(got.effects[name] - want.effects[name]) <= tol, name
    assert got.stages == want.stages
    assert (got.system, got.function, got.attacks, got.notes, got.label, got.trial) == \
        (want.system, want.function, want.attacks, want.notes, want.label, want.trial)
    assert dict(got.inputs) == dict(want.inputs)
