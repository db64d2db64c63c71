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


def test_bench_viewers_judges_make_run_on_rss_and_the_second_viewer_on_the_median_ratio():
    """The idle total is judged on RSS (USS printed beside it); the second viewer on the
    median B/A of the runs, and a viewer that never drew misses the target."""
    report = _load("bench_viewers").make_run_report
    idle = {"kernels": 1, "server_rss": 500.0, "server_uss": 300.0, "kernels_rss": 250.0, "kernels_uss": 100.0}
    lines = report(idle, [(1.0, 1.5), (1.0, 3.0), (2.0, 2.0)])
    assert "total 750 MB RSS (400 USS)" in lines[0] and lines[0].endswith("MISSED")  # USS under 700 does not pass it
    assert "B/A 1.50" in lines[1] and "B/A 3.00" in lines[2]
    assert "median B/A 1.50 over 3 run(s)" in lines[-1] and lines[-1].endswith("OK")  # one slow run of three
    assert report(dict(idle, server_rss=400.0), [])[0].endswith("OK")
    assert report(idle, [])[-1].endswith("MISSED")  # no run measured is not a pass
    assert report(idle, [(1.0, 1.2), (1.0, float("nan")), (1.0, 1.1)])[-1].endswith("MISSED")
    assert report(idle, [(1.0, 2.5), (1.0, 2.5), (1.0, 1.0)])[-1].endswith("MISSED")
