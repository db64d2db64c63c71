"""Random calls of every public function of the library, for tests/test_fuzz.py.

Each call gets values of random types (huge ints, Fractions, inf/nan floats,
strings, None, nested and ragged lists, numpy scalars) for random arguments,
often starting from a valid call and changing one or two arguments, so that
both the argument checks and the rule code behind them are reached. A call
must return (an Outcome with a finite pmf summing to 1, or anything else) or
raise :class:`workbench.errors.WorkbenchError`.
"""
from __future__ import annotations

import inspect
import math
import signal
import warnings
from contextlib import contextmanager
from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

from workbench import compare, points, profiles, turn, validate
from workbench.errors import WorkbenchError
from workbench.outcome import Outcome
from workbench.systems import antares, changes, forgotten, gunfire

MODULES = (changes, forgotten, gunfire, antares, validate, compare)
#: the turn simulator and the points ranking (tests/test_fuzz_edges.py)
EDGE_MODULES = (turn, points)

_MARINES = turn.force(turn.from_profile("Space Marine", models=3))
_RANKING = points.rank(systems_=["antares"])

#: a valid call of each function (module key, name) -> kwargs; the fuzz changes some of it
BASE = {
    ("changes", "test"): dict(target=7),
    ("changes", "shooting"): dict(bs=5, s=5, ap=5, shots=3, models=2),
    ("changes", "shooting_table"): dict(bs=np.array([4, 5]), s=5, ap=5, shots=3),
    ("changes", "volley"): dict(attackers=[dict(bs=5, s=5, ap=5, shots=2)], models=2),
    ("changes", "melee"): dict(ws=5, s=5, ap=5, attacks=3),
    ("changes", "melee_table"): dict(ws=np.array([4, 5]), s=5, ap=5),
    ("changes", "leadership"): dict(ld=5),
    ("changes", "distance_pmf"): dict(kind="move_9_d3"),
    ("changes", "action_distance"): dict(kind="evade"),
    ("changes", "charge_distance"): dict(kind="furious"),
    ("changes", "move_distance"): dict(kind="move"),
    ("changes", "reach_probability"): dict(distance=8),
    ("forgotten", "shooting"): dict(shoot=6, attack_power=5, shots=3),
    ("forgotten", "shooting_table"): dict(shoot=np.array([5, 6]), attack_power=5, shots=3),
    ("forgotten", "close_combat"): dict(attacker_cqc=6, defender_cqc=6, attacker_phys=6, defender_phys=6),
    ("forgotten", "v1_target"): dict(attack=3, defence=4),
    ("gunfire", "shooting"): dict(bs=5, ev=4, ap=5, av=3, s=2, t=1, shots=3),
    ("gunfire", "shooting_table"): dict(bs=np.array([4, 5]), ev=4, ap=5, av=3, s=2, t=1),
    ("gunfire", "models_removed"): dict(pens=3, s=1, t=2),
    ("antares", "test"): dict(value=5),
    ("antares", "stat_test"): dict(value=5),
    ("antares", "reaction"): dict(init=6),
    ("antares", "combat_status"): dict(cou=6),
    ("antares", "movement_test"): dict(ag=6),
    ("antares", "shooting"): dict(acc=5, res=5, shots=3),
    ("antares", "shooting_table"): dict(acc=np.array([4, 5]), res=5, shots=3),
    ("antares", "volley"): dict(weapons=[dict(acc=5, sv=1, shots=2), dict(acc=5, sv=4, shots="D3")], res=5,
                                models=3),
    ("validate", "integer"): dict(name="x", value=3, lo=0, hi=5),
    ("validate", "optional_integer"): dict(name="x", value=None),
    ("validate", "real"): dict(name="x", value=0.5, lo=0, hi=1),
    ("validate", "choice"): dict(name="x", value="a", allowed=("a", "b")),
    ("validate", "boolean"): dict(name="x", value=True),
    ("validate", "method_args"): dict(method="sampled", samples=10, seed=1),
    ("validate", "forbid"): dict(name="x", value=1, expected="nothing"),
    ("validate", "integers"): dict(name="x", value=[1, 2], lo=0, hi=5),
    ("validate", "optional_integers"): dict(name="x", value=None, lo=0, hi=5),
    ("validate", "integer_checks"): dict(arrays=True),
    ("validate", "stat_function"): dict(fn=lambda *, a: a),
    ("validate", "broadcastable"): dict(values={"a": np.array([1, 2]), "b": 3}),
    ("validate", "table_size"): dict(shape=(2, 3), width=5),
    ("compare", "evaluate"): dict(system="changes", function="shooting", progress=False, bs=[4, 5], s=5, ap=5),
    ("compare", "sweep"): dict(system="changes", function="shooting", progress=False, bs=[4, 5], s=5, ap=5),
    ("compare", "stat_info"): dict(system="changes", stat="bs"),
    ("compare", "granularity"): dict(system="gunfire"),
    ("compare", "granularity_table"): dict(systems_=["antares"]),
    ("turn", "force"): dict(),
    ("turn", "from_profile"): dict(unit="Space Marine", models=3),
    ("turn", "shot_of"): dict(action="hold_ground"),
    ("turn", "target_count"): dict(units=_MARINES),
    ("turn", "get_policy"): dict(policy="focus"),
    ("turn", "play_turn"): dict(force_a=_MARINES, force_b=_MARINES, seed=1),
    ("turn", "play_igougo"): dict(force_a=_MARINES, force_b=_MARINES, seed=1),
    ("turn", "study"): dict(force_a=_MARINES, force_b=_MARINES, turns=20, block=10),
    ("turn", "design_questions"): dict(force_a=_MARINES, force_b=_MARINES, policies=("focus",), turns=20,
                                       block=10),
    ("turn", "summary"): dict(df=turn.study(_MARINES, _MARINES, turns=20, block=10, progress=False)),
    ("turn", "value_of_engage"): dict(table=turn.design_questions(_MARINES, _MARINES, policies=("focus",),
                                                                  turns=20, block=10, progress=False)),
    ("points", "efficiency"): dict(outcome=changes.shooting(bs=5, s=5, ap=5, shots=2),
                                   attacker=profiles.basic_matchup("changes")[0], firers=2),
    ("points", "matchup"): dict(system="antares", attacker="Rever", weapon="Carbine", target="Rever"),
    ("points", "matchups"): dict(systems_=["antares"]),
    ("points", "rank"): dict(systems_=["antares"]),
    ("points", "table_html"): dict(df=_RANKING, top=3),
}

#: functions whose valid calls are costly (plots, searches): only called with broken arguments
SLOW = {("compare", "equivalent"), ("compare", "equivalent_figure"), ("compare", "granularity_figure"),
        ("compare", "value_of_plus_one"), ("compare", "value_of_plus_one_figure"),
        ("compare", "heatmap"), ("compare", "lines"), ("compare", "granularity_table")}


def public_functions(modules=MODULES):
    """(module key, name, function) of every public function of ``modules``."""
    out = []
    for mod in modules:
        key = mod.__name__.rsplit(".", 1)[-1]
        names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
        for name in names:
            obj = getattr(mod, name)
            if inspect.isclass(obj) or not callable(obj) or name.isupper():
                continue
            out.append((key, name, obj))
    return out


HUGE = (10 ** 400, -10 ** 400, Fraction(10 ** 400), Fraction(1, 10 ** 400), float("inf"), float("-inf"),
        float("nan"), 1e400, 2 ** 63, -2 ** 63 - 1, 10 ** 20, 1e300, 5e7, 10_001)
WORDS = ("exact", "sampled", "light", "heavy", "snap", "shot", "aimed", "hit", "damage", "block", "counter",
         "v1", "v2", "medium", "long", "close", "hard", "soft", "seed", "any", "same", "better", "flat_4",
         "changes", "forgotten", "gunfire", "antares", "shooting", "volley", "bs", "5+", "+2", "", "D6",
         "\x00", "nan", "1e400")

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 30), st.integers(),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(HUGE), st.sampled_from(WORDS),
    st.text(max_size=4), st.fractions(max_denominator=12),
    st.builds(np.int64, st.integers(-5, 30)), st.builds(np.float64, st.floats(allow_nan=True)),
    st.builds(np.bool_, st.booleans()),
)
def _object_array(items):
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                            st.dictionaries(st.sampled_from(("bs", "s", "ap", "shots", "weapon", "x")), inner,
                                            max_size=4),
                            st.builds(_object_array, st.lists(inner, max_size=3))),
    max_leaves=6)


#: validate's helpers are called by the library with the argument's name and
#: its bounds as constants: only the value a user gave is fuzzed there
USER_ARGS = {
    ("validate", "integer"): ("value",), ("validate", "optional_integer"): ("value",),
    ("validate", "real"): ("value",), ("validate", "choice"): ("value",), ("validate", "boolean"): ("value",),
    ("validate", "method_args"): ("method", "samples", "seed"), ("validate", "forbid"): ("value",),
    ("validate", "integers"): ("value",), ("validate", "optional_integers"): ("value",),
    ("validate", "integer_checks"): ("arrays",), ("validate", "stat_function"): ("fn",),
    ("validate", "broadcastable"): ("values",), ("validate", "table_size"): ("width",),
}
#: modules whose functions check argument names (a wrong or missing keyword is a WorkbenchError)
NAMED = ("changes", "forgotten", "gunfire", "antares", "turn", "points")


@st.composite
def calls(draw, functions):
    key, name, fn = draw(st.sampled_from(functions))
    params = [p for p in inspect.signature(fn).parameters.values()
              if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    base = BASE.get((key, name), {})
    slow = (key, name) in SLOW
    user = USER_ARGS.get((key, name))
    if user is not None:
        params = [p for p in params if p.name in user]
    if (base and not slow and draw(st.booleans())) or user is not None:
        kwargs = dict(base)
        for _ in range(draw(st.integers(1, 2))):
            if params:
                kwargs[draw(st.sampled_from(params)).name] = draw(values)
    else:
        kwargs = {}
        for p in params:
            required = p.default is inspect.Parameter.empty
            if draw(st.integers(0, 3)) > 0 or ((slow or key not in NAMED) and required):
                kwargs[p.name] = draw(values)
        if slow and params:  # a costly function: always one broken argument
            kwargs[params[0].name] = draw(st.sampled_from(HUGE + (None, "\x00", ((1,), (1, 2)))))
    if key in NAMED and draw(st.integers(0, 9)) == 0:
        kwargs[draw(st.sampled_from(("bss", "Shots", "method_", "x1", "progress", "systems")))] = draw(values)
    if "progress" in inspect.signature(fn).parameters:
        kwargs["progress"] = False
    return key, name, fn, kwargs


class Overrun(Exception):
    """A call ran past the per-call guard."""


@contextmanager
def guard(seconds: float):
    """Raise :class:`Overrun` in the calling thread after ``seconds`` (SIGALRM, main thread)."""
    def on_alarm(signum, frame):
        raise Overrun(f"ran past {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def checked_call(fn, kwargs, seconds: float = 10.0):
    """``fn(**kwargs)`` under the guard; a WorkbenchError is a fine answer
    (``None``), anything returned must pass :func:`check_result`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with guard(seconds):
                result = fn(**kwargs)
        except WorkbenchError:
            return None
    check_result(result)
    return result


def check_result(result) -> None:
    """An Outcome's pmf is finite and sums to 1; a table's pmf is finite."""
    if isinstance(result, Outcome):
        assert np.all(np.isfinite(result.pmf)) and math.isclose(float(result.pmf.sum()), 1.0, abs_tol=1e-9)
        for value in result.effects.values():
            assert math.isfinite(value) or math.isnan(value) is False
    elif isinstance(result, dict) and "pmf" in result:
        pmf = np.asarray(result["pmf"], dtype=float)
        assert np.all(np.isfinite(pmf))
        assert np.allclose(pmf.sum(axis=-1), 1.0, atol=1e-9)
