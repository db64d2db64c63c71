"""What every test shares: the markers of what is slow by nature.

pyproject.toml registers them (``--strict-markers``): a test that starts a
dashboard server is marked ``server``; one that drives a browser ``browser``
(and ``server``); one that starts a Jupyter kernel ``notebook``; one that
builds a wheel, an sdist or a virtual environment ``packaging``. ``make
test-fast`` leaves those four out; ``make test`` runs everything, on every
core (pytest-xdist), with the tests of one server in one worker
(``xdist_group``, ``--dist loadgroup``) so that they share it.

So that the quick run stays quick as the suite grows, the harness refuses to
start a server (:class:`serverkit.ServerProcess`) or a browser (the
``browser`` fixture) in a test that lacks the marker: the markers of the test
being set up are kept in :data:`serverkit.RUNNING_MARKERS`.

This folder is on ``sys.path`` (pytest puts a conftest's folder there), so
test modules import the shared helpers by name: ``serverkit``, ``wheelkit``,
``fuzzkit``, the ``brute_*`` enumerations.
"""
from __future__ import annotations

import pytest

import serverkit


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    # before any fixture of the test is set up (a module-scoped server starts there)
    serverkit.RUNNING_MARKERS = frozenset(m.name for m in item.iter_markers())

