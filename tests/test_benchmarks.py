"""The benchmark scripts ask only for what the workbench allows, and say what their figures mean.

Figures are never checked here (they belong to the scripts' output); these
tests check that a benchmark's calls pass the argument checks and that its
verdict follows the numbers it is given.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_core_largest_calls_are_allowed_by_the_argument_checks():
    """(d) asks for the largest exact calls the checks allow: a volley's units share the
    10,000-dice limit (3 x 10,000 shots would be refused), every call succeeds, and each
    resolves as many dice as the limit."""
    from workbench.systems import changes
    cases = _load("bench_core").largest_cases()
    assert len(cases) == 3
    for name, fn in cases:
        out = fn()  # an InputError here is a benchmark asking for what the workbench refuses
        assert out.mean >= 0, name
    volley = cases[2][1]()
    assert sum(u["shots"] for u in volley.inputs["attackers"]) == changes.MAX_DICE
    with pytest.raises(Exception, match="10,000 shots or fewer in all"):
        changes.volley([dict(bs=5, s=5, ap=5, shots=changes.MAX_DICE)] * 3, models=10)


def test_bench_sim_says_when_a_cluster_does_not_pay():
    """1 worker at 0.49x one process (the 2-core machine) does not pay; 1.6x does."""
    verdicts = _load("bench_sim").cluster_verdicts(1000.0, {1: 490.0, 2: 1600.0})
    assert "does NOT pay" in verdicts[0] and "0.49x" in verdicts[0] and "client=None" in verdicts[0]
    assert verdicts[1].startswith("a LocalCluster of 2 workers pays: 1.60x")
