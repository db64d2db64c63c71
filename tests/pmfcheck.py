"""Comparing a resolver's pmf with a brute-force one, for the system tests."""
from __future__ import annotations

import numpy as np

#: exact paths agree with enumeration to rounding error
TOL = 1e-12


def _padded(values, n: int) -> np.ndarray:
    arr = np.asarray(values, dtype=float)  # Fractions too (each one's float)
    return np.pad(arr, [(0, 0)] * (arr.ndim - 1) + [(0, n - arr.shape[-1])])


def assert_pmf_equal(pmf, expected, tol: float = TOL) -> None:
    """``pmf`` equals ``expected`` (Fractions or floats) to ``tol``; the shorter
    one is padded with zeros, since a count beyond what can happen has P = 0.
    Two tables (one pmf per row, the same rows) are compared row by row so."""
    n = max(np.shape(pmf)[-1], np.shape(expected)[-1])
    got, want = _padded(pmf, n), _padded(expected, n)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=0, atol=tol)


def assert_same_outcome(got, want, tol: float = TOL) -> None:
    """Two outcomes say the same: pmf (same length) and every effect to ``tol``, the same stages
    (Fractions and words), system, function, attacks, notes, label and inputs (the reference
    resolvers in tests/reference/ say no trial word: a built-in's outcome takes its description's)."""
    assert got.pmf.shape == want.pmf.shape
    np.testing.assert_allclose(got.pmf, want.pmf, rtol=0, atol=tol)
    assert set(got.effects) == set(want.effects)
    for name in want.effects:
        assert abs(got.effects[name] - want.effects[name]) <= tol, name
    assert got.stages == want.stages
    assert (got.system, got.function, got.attacks, got.notes, got.label) == \
        (want.system, want.function, want.attacks, want.notes, want.label)
    assert dict(got.inputs) == dict(want.inputs)
