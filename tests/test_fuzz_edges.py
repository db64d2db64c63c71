"""Every public function of the turn simulator (``workbench.turn``) and of
the points ranking (``workbench.points``), called with bad input of every
kind (:mod:`fuzzkit`: random types for random arguments, unknown keywords,
often a valid call with one or two arguments changed): each call returns, or
raises the workbench's own error naming the argument; never a plain
``TypeError``, a pandas or numpy error, and never runs past a per-call guard.
"""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

import fuzzkit as fk
from workbench import points, turn
from workbench.errors import InputError, UnknownArgumentError, WorkbenchError

EXAMPLES = int(os.environ.get("WORKBENCH_FUZZ_EXAMPLES", "300"))
GUARD_S = 10.0
FUNCTIONS = fk.public_functions(fk.EDGE_MODULES)
MARINES = fk._MARINES
#: positional arguments of a valid call (force takes its units so)
POSITIONAL = {("turn", "force"): MARINES}


def test_the_fuzz_reaches_every_public_function():
    names = {(k, n) for k, n, _ in FUNCTIONS}
    expected = {("turn", n) for n in turn.__all__ if callable(getattr(turn, n)) and not n.isupper()
                and not isinstance(getattr(turn, n), type)}
    expected |= {("points", n) for n in points.__all__ if callable(getattr(points, n)) and not n.isupper()
                 and not isinstance(getattr(points, n), type)}
    assert names == expected and len(names) >= 15
    assert names <= set(fk.BASE), "each function has a valid call to start the fuzz from"


@pytest.mark.parametrize("key,name,fn", FUNCTIONS, ids=[f"{k}.{n}" for k, n, _ in FUNCTIONS])
def test_the_valid_call_works_and_an_unknown_keyword_is_named(key, name, fn):
    args = POSITIONAL.get((key, name), ())
    fn(*args, **fk.BASE[(key, name)])
    with pytest.raises(WorkbenchError) as info:
        fn(*args, **fk.BASE[(key, name)], progres=1)  # a misspelt keyword
    assert isinstance(info.value, (UnknownArgumentError, InputError))
    assert "progres" in str(info.value)


@pytest.mark.parametrize("call,field", [
    (lambda: turn.play_turn(MARINES, MARINES, progress=1), "argument name"),
    (lambda: points.table_html(fk._RANKING, top=32.000000001), "top"),
    (lambda: points.rank(systems_=5), "systems_"),
    (lambda: points.rank(by=["removed_per_100"]), "by"),
    (lambda: points.matchups(systems_=[5]), "systems_"),
    (lambda: turn.play_turn(MARINES), "arguments"),
])
def test_the_reported_calls_name_their_argument(call, field):
    with pytest.raises(WorkbenchError) as info:
        call()
    assert str(info.value).startswith(f"{field}: expected"), str(info.value)


@settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(fk.calls(FUNCTIONS))
def test_random_calls_return_or_raise_a_workbench_error(call):
    key, name, fn, kwargs = call
    fk.checked_call(fn, kwargs, GUARD_S)
