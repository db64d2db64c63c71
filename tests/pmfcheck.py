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
