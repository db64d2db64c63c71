"""What every test shares: the markers of what is slow by nature.

pyproject.toml registers them (``--strict-markers``): a test that starts a
dashboard server is marked ``server``; one that drives a browser ``browser``
(and ``server``); one that starts a Jupyter kernel ``notebook``; one that
builds a wheel, an sdist or a virtual environment ``packaging``. ``make
test-fast`` leaves those four out; ``make test`` runs everything, on every
core (pytest-xdist), with the tests of one server in one worker
(``--dist loadgroup``, groups by :func:`serial_group`) so that they share it.

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


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory):
    """The project's wheel (built from its sdist, which lies beside it), built once
    per session for every packaging test that installs it (``wheelkit.build_wheel``)."""
    from wheelkit import build_wheel

    return build_wheel(tmp_path_factory.mktemp("dist"))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    # before any fixture of the test is set up (a module-scoped server starts there)
    serverkit.RUNNING_MARKERS = frozenset(m.name for m in item.iter_markers())



#: what is slow by nature runs in groups (``--dist loadgroup``): each group in one worker, one test
#: after another, while the other worker runs other groups
SERIAL_MARKERS = ("server", "browser", "notebook", "packaging")
#: session-scoped fixtures that start something expensive: pytest-xdist makes a session fixture
#: once per worker, so every module using one of them goes into that fixture's group (one start)
SHARED_FIXTURES = {"server": "session-server", "prefix_token_server": "session-server",
                   "built_wheel": "wheel"}


def serial_group(module_fixtures: set[str], module: str) -> str:
    """The group of a slow-by-nature test: the group of the first shared session
    fixture its module uses (:data:`SHARED_FIXTURES`), else its module (whose
    module-scoped servers are then started once)."""
    return next((SHARED_FIXTURES[f] for f in sorted(SHARED_FIXTURES) if f in module_fixtures), module)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Keep each server's tests in one worker, and make ``--dist loadgroup``
    work under pytest 9.

    pytest-xdist (3.8) names an item's group by assigning ``item._nodeid``
    (``...::test@group``), which its scheduler reads back from the node id;
    pytest 9 computes ``nodeid`` from ``item._id`` instead, so the assignment
    is ignored and every test is scheduled on its own (a module's shared server
    was started once per worker). The group goes into ``_id`` here: a
    slow-by-nature test's is :func:`serial_group` (by module: a test may reach
    a fixture through ``request.getfixturevalue``, which no item lists, so a
    module's tests stay together), the others keep their own."""
    if not getattr(config.option, "loadgroup", False):  # set in xdist's workers by --dist loadgroup
        return
    from _pytest.nodeid import NodeId

    used: dict[str, set[str]] = {}
    for item in items:
        used.setdefault(item.nodeid.split("::")[0], set()).update(getattr(item, "fixturenames", ()))
    for item in items:
        plain = str(item._id).split("@")[0]
        if any(item.get_closest_marker(m) for m in SERIAL_MARKERS):
            module = plain.split("::")[0]
            grouped = f"{plain}@{serial_group(used[module], module)}"
        else:
            grouped = item.__dict__.get("_nodeid")
        if isinstance(grouped, str) and item.nodeid != grouped:
            item._id = NodeId.parse(grouped)
