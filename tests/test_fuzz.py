"""Every public function of the systems, validate and compare, called with bad
input of every kind: each call returns a valid result (an Outcome whose pmf is
finite and sums to 1) or raises the workbench's own error, never a Python or
numpy error, never a NaN, and never runs past a per-call guard.

The random calls come from :mod:`fuzzkit` (values of random types, often a
valid call with one or two arguments changed); the number of examples is
bounded (``WORKBENCH_FUZZ_EXAMPLES``, default 300) so that the suite stays
fast; run with more to search harder.
"""
from __future__ import annotations

import inspect
import os
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import fuzzkit as fk
from workbench import compare
from workbench.errors import InputError, UnknownArgumentError
from workbench.systems import antares, changes, forgotten, gunfire

EXAMPLES = int(os.environ.get("WORKBENCH_FUZZ_EXAMPLES", "300"))
GUARD_S = 10.0
FUNCTIONS = fk.public_functions()


def _call(fn, kwargs):
    """Call under the guard; a WorkbenchError is a fine answer."""
    return fk.checked_call(fn, kwargs, GUARD_S)


def test_the_fuzz_reaches_every_module():
    names = {(k, n) for k, n, _ in FUNCTIONS}
    for mod in ("changes", "forgotten", "gunfire", "antares", "validate", "compare"):
        assert any(k == mod for k, _ in names), mod
    # the functions named in the brief are all introspected
    for must in [("changes", "test"), ("changes", "volley"), ("forgotten", "v1_target"),
                 ("forgotten", "close_combat"), ("gunfire", "models_removed"), ("antares", "test"),
                 ("compare", "sweep"), ("validate", "integer")]:
        assert must in names, must


@settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(fk.calls(FUNCTIONS))
def test_random_calls_return_a_valid_result_or_a_workbench_error(call):
    key, name, fn, kwargs = call
    _call(fn, kwargs)


BAD_VALUES = list(fk.HUGE) + [[[1], [1, 2]], [1, [2]], "5+", None, np.array([1, 2, 3]), [], {}, [{}],
                              np.float64("nan"), np.int64(-1)]


@pytest.mark.parametrize("key,name", sorted((k, n) for k, n, _ in FUNCTIONS
                                            if (k, n) in fk.BASE and (k, n) not in fk.SLOW))
def test_every_argument_with_every_bad_value(key, name):
    """Deterministic: each argument of a valid call replaced by each bad value
    (huge numbers, inf, nan, ragged lists, arrays of another shape, strings...)."""
    fn = dict(((k, n), f) for k, n, f in FUNCTIONS)[(key, name)]
    params = [p.name for p in inspect.signature(fn).parameters.values()
              if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name != "progress"]
    user = fk.USER_ARGS.get((key, name))
    if user is not None:
        params = [p for p in params if p in user]
    for p in params:
        for bad in BAD_VALUES:
            kwargs = dict(fk.BASE[(key, name)], **{p: bad})
            if "progress" in inspect.signature(fn).parameters:
                kwargs["progress"] = False
            _call(fn, kwargs)


# -- the cases the fuzzing of the library found, by name ---------------------------------
@pytest.mark.parametrize("call", [
    lambda: changes.reach_probability(distance=10 ** 400),
    lambda: gunfire.shooting(bs=5, ev=4, ap=5, av=3, s=2, t=1, models=4, suppression_fraction=10 ** 400),
    lambda: changes.shooting(bs=Fraction(10 ** 400), s=5, ap=5),
    lambda: forgotten.shooting(shoot=Fraction(10 ** 400), attack_power=5),
    lambda: antares.shooting(acc=1e400, res=5),
    lambda: gunfire.models_removed([[1], [1, 2]], 1, 2),
    lambda: changes.shooting_table(bs=[[5], [5, 6]], s=5, ap=5),
    lambda: forgotten.shooting_table(shoot=np.array([5, 6]), attack_power=np.array([1, 2, 3])),
    lambda: forgotten.v1_target(-5, True),
    lambda: changes.shooting(bs=5, s=5, ap=5, samples=0),
    lambda: changes.shooting(bs=5, s=5, ap=5, seed="x"),
    # costs bounded by the checks: what used to run for minutes or allocate gigabytes
    lambda: changes.volley([dict(bs=5, s=5, ap=5, shots=1)] * 101, models=5),
    lambda: changes.volley([dict(bs=5, s=5, ap=5, shots=5_000)] * 3, models=5),
    lambda: changes.shooting_table(bs=np.arange(1, 14)[:, None, None], s=np.arange(1, 14)[None, :, None],
                                   ap=np.arange(1, 14)[None, None, :], shots=10_000),
    lambda: forgotten.shooting_table(shoot=np.arange(20), attack_power=3, shots=1000, tough=True),
    lambda: changes.shooting(bs=5, s=5, ap=5, shots=10, method="sampled", samples=50_000_000),
    lambda: compare.sweep("changes", "shooting", progress=False, bs=list(range(1, 14)), s=list(range(1, 14)),
                          ap=list(range(1, 14)), t=list(range(-12, 13)), sv=list(range(-12, 13)), shots=[1, 2]),
])
def test_found_by_fuzzing_now_input_errors(call):
    with pytest.raises(InputError):
        call()


@pytest.mark.parametrize("fn,good", [
    (changes.test, dict(target=7)), (changes.shooting_table, dict(bs=5, s=5, ap=5)),
    (changes.melee_table, dict(ws=5, s=5, ap=5)), (changes.distance_pmf, dict(kind="move")),
    (forgotten.v1_target, dict(attack=3, defence=4)), (gunfire.models_removed, dict(pens=3, s=1, t=2)),
    (antares.test, dict(value=5)),
])
def test_unknown_or_missing_keywords(fn, good):
    """The seven public functions that had no argument check."""
    fn(**good)
    with pytest.raises(UnknownArgumentError, match=r"^argument name: expected one of"):
        fn(**good, bogus=1)
    first = next(iter(good))
    if inspect.signature(fn).parameters[first].default is inspect.Parameter.empty:
        with pytest.raises(UnknownArgumentError, match=r"^arguments: expected keyword arguments as in"):
            fn(**{k: v for k, v in good.items() if k != first})


def test_v1_target_checks_its_numbers_and_keeps_the_table():
    """Seed: "Defence is 2x or more better = 6+ kills; Defence is better = 5+
    kills; Both equal = 4+ kills; Attack is better = 3+ kills; Attack is 2x or
    more better = 2+ kills"."""
    assert [forgotten.v1_target(3, d) for d in (6, 4, 3, 2, 1)] == [6, 5, 4, 3, 2]
    assert list(forgotten.v1_target(np.array([3, 3]), np.array([6, 1]))) == [6, 2]
    with pytest.raises(InputError, match=r"^attack: expected a whole number from 1 to 80, got -5"):
        forgotten.v1_target(-5, 3)
    with pytest.raises(InputError, match=r"^defence: expected a whole number from 1 to 80, got True"):
        forgotten.v1_target(3, True)
