"""Many sampled turns, and the seed's design questions answered with numbers.

:func:`study` plays ``turns`` turns from the same starting forces (every die
rolled; blocks of ``block`` turns, each with a ``SeedSequence`` spawned from
``seed``, here or on a Dask cluster: :mod:`workbench.studies`) and returns one
row per turn. :func:`summary` condenses those rows; :func:`design_questions`
runs the scenarios the seed argues about and puts them side by side:

* casualties each side per turn and the **exchange ratio** (models the active
  player removes per model it loses);
* how often **shots are wasted** on a target already destroyed ("if you
  allocate three units and the second one manages to kill, the third's shots
  are wasted");
* the value of **ENGAGE against UNDER FIRE** for the passive player
  (:func:`value_of_engage`);
* the same forces under a plain **I-go-you-go** turn ("In 40k, the whole army
  of the 'active player' gets free shots at the 'passive player'").
"""
from __future__ import annotations

import copy
from dataclasses import fields
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .. import studies
from .. import validate as v
from ..validate import stat_function
from ..errors import InputError
from .forces import UnitSpec, force
from .policies import get_policy
from .simulator import Battle
from .state import SIDES, Tally, _rules

__all__ = ["study", "summary", "design_questions", "value_of_engage", "COLUMNS", "DEFAULT_TURN_BLOCK"]

#: turns per block (one seed, one task on a cluster)
DEFAULT_TURN_BLOCK = 250
MAX_TURNS = 10_000_000

#: the tallies a turn keeps per side (a column each: lost_A, lost_B, ...) and its counts (the
#: other fields of a Tally, but the log of events)
_PER_SIDE = ("lost", "wounds", "destroyed")
_COUNTS = tuple(f.name for f in fields(Tally) if f.name not in _PER_SIDE + ("events",))
#: the per-turn numbers of a study, in column order
COLUMNS = tuple(f"{k}_{side}" for k in _PER_SIDE for side in SIDES) + _COUNTS


def _row(t) -> tuple:
    return tuple(getattr(t, k)[side] for k in _PER_SIDE for side in SIDES) + tuple(getattr(t, k) for k in _COUNTS)


def _turn_block(sc: dict, n: int, seed) -> np.ndarray:
    """``n`` samples of the scenario ``sc`` (:func:`_scenario`) from fresh forces with one Generator;
    an int array (n, len(COLUMNS)).

    A sample is ``game_turns`` turns in a row on the same table, the ACTIVE
    PLAYER alternating from ``active`` (I-go-you-go: that many rounds, ``active``
    first in each); its row sums the turns' tallies.
    """
    rng = np.random.default_rng(seed)
    pols, active = {"A": sc["policy_a"], "B": sc["policy_b"]}, sc["active"]
    out = np.zeros((n, len(COLUMNS)), dtype=np.int64)
    for i in range(n):
        b = Battle(sc["force_a"], sc["force_b"], rules=sc["rules"])
        for k in range(sc["game_turns"]):
            if sc["mode"] == "seed":
                t = b.turn(active if k % 2 == 0 else b.other(active), pols, rng)
            else:
                t = b.igougo(active, pols, rng)
            out[i] += _row(t)
    return out


def _force(name: str, units: Any) -> tuple[UnitSpec, ...]:
    if isinstance(units, UnitSpec):
        return force(units)
    if not isinstance(units, (list, tuple)):
        raise InputError(name, "a list of workbench.turn.UnitSpec", units)
    try:
        return force(*units)
    except InputError as exc:
        field = name + exc.field[len("force"):] if exc.field.startswith("force") else f"{name}: {exc.field}"
        raise InputError(field, exc.expected, exc.got, exc.hint) from None


def _scenario(force_a, force_b, policy_a, policy_b, rules, mode, active, game_turns=1) -> dict:
    return dict(force_a=force_a, force_b=force_b, policy_a=get_policy(policy_a, "policy_a"),
                policy_b=get_policy(policy_b, "policy_b"), rules=_rules(rules),
                mode=v.choice("mode", mode, ("seed", "igougo")), active=v.choice("active", active, SIDES),
                game_turns=v.integer("game_turns", game_turns, 1, 100))


def _run(scenarios: Sequence[dict], turns: int, seed: Any, client: Any, block: int,
         progress: bool) -> list[np.ndarray]:
    turns = v.integer("turns", turns, 1, MAX_TURNS)
    sizes = studies.block_sizes(turns, block)
    seeds = studies.spawn(seed, len(sizes))  # the same dice stream for every scenario
    tasks = [(sc, n, ss) for sc in scenarios for n, ss in zip(sizes, seeds)]
    parts = studies.run(_turn_block, tasks, client=client, progress=progress, desc="turns")
    k = len(sizes)
    return [np.concatenate(parts[i * k:(i + 1) * k]) for i in range(len(scenarios))]


def _frame(sc: dict, arr: np.ndarray, block: int) -> pd.DataFrame:
    turn = np.arange(len(arr))
    head = {"turn": turn, "block": turn // block, "mode": sc["mode"], "active": sc["active"],
            "policy_a": repr(sc["policy_a"]), "policy_b": repr(sc["policy_b"])}
    return pd.DataFrame({**head, **dict(zip(COLUMNS, arr.T))})


@stat_function
def study(force_a: Sequence[UnitSpec], force_b: Sequence[UnitSpec], *, policy_a: Any = "focus",
          policy_b: Any = "focus", rules: Any = None, mode: str = "seed", active: str = "A",
          turns: int = 1000, seed: Any = 0, client: Any = None, block: int = DEFAULT_TURN_BLOCK,
          progress: bool = True, game_turns: int = 1) -> pd.DataFrame:
    """Play ``turns`` turns (each from the starting forces) and return one row per turn.

    ``mode``: "seed" (the Changes seed's turn, ``active`` the ACTIVE PLAYER) or
    "igougo" (``active`` shoots first, then the other side). ``policy_a`` /
    ``policy_b``: a policy name ("focus", "spread", "greedy"), a ``(name,
    options)`` pair or a :class:`~workbench.turn.policies.Policy`. ``rules``: a
    :class:`~workbench.turn.state.Rules` or a dict of its fields.
    ``client``: see :mod:`workbench.studies`; the result depends only on
    ``seed`` and ``block``. Columns: turn, block, mode, active, policy_a,
    policy_b, then :data:`COLUMNS` (models lost by side A and B, ...).
    ``game_turns``: each sample plays that many turns in a row on the same
    table, the active player alternating (close combats carry over: a unit
    locked at the end of a turn fights in the next turn's early combats); the
    row then sums the turns (``turns`` counts samples).
    """
    force_a, force_b = _force("force_a", force_a), _force("force_b", force_b)
    block = v.integer("block", block, 1, MAX_TURNS)
    sc = _scenario(force_a, force_b, policy_a, policy_b, rules, mode, active, game_turns)
    (arr,) = _run([sc], turns, seed, client, block, progress)
    return _frame(sc, arr, block)


def _se(x: pd.Series) -> float:
    return float(x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else float("nan")


@stat_function
def summary(df: pd.DataFrame) -> pd.DataFrame:
    """One row per scenario (mode, active, policies) of a :func:`study` frame.

    ``lost_A``/``lost_B``: mean models lost per turn (``_se``: standard error);
    ``exchange_ratio``: mean models lost by the other side per model lost by
    the active side (inf when it loses none); ``p_shots_wasted``: share of
    turns with at least one unit's whole volley after its target was already
    destroyed; ``shots_wasted_share``: wasted dice / dice shot by the active
    player in its phases; ``destroyed_B`` etc.: mean units destroyed.
    """
    if not isinstance(df, pd.DataFrame) or not set(COLUMNS) <= set(df.columns):
        raise InputError("df", "a DataFrame returned by workbench.turn.study()", type(df).__name__)
    keys = [k for k in ("scenario", "mode", "active", "policy_a", "policy_b", "response") if k in df.columns]
    rows = []
    for key, g in df.groupby(keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        act = g["active"].iloc[0]
        lost_act, lost_oth = g[f"lost_{act}"].mean(), g[f"lost_{Battle.other(act)}"].mean()
        shots = g["shots"].sum()
        rows.append({**dict(zip(keys, key)), "turns": len(g),
                     "lost_A": g["lost_A"].mean(), "lost_A_se": _se(g["lost_A"]),
                     "lost_B": g["lost_B"].mean(), "lost_B_se": _se(g["lost_B"]),
                     "exchange_ratio": (lost_oth / lost_act) if lost_act else float("inf"),
                     "destroyed_A": g["destroyed_A"].mean(), "destroyed_B": g["destroyed_B"].mean(),
                     "p_shots_wasted": float((g["shots_wasted"] > 0).mean()),
                     "shots_wasted_share": float(g["shots_wasted"].sum() / shots) if shots else 0.0,
                     "units_wasted": g["units_wasted"].mean(), "wounds_wasted": g["wounds_wasted"].mean(),
                     "phases": g["phases"].mean(), "return_fire_lost": g["return_fire_lost"].mean()})
    return pd.DataFrame(rows)


@stat_function
def design_questions(force_a: Sequence[UnitSpec], force_b: Sequence[UnitSpec], *,
                     policies: Sequence[Any] = ("focus", "spread", "greedy"), policy_b: Any = "focus",
                     rules: Any = None, turns: int = 1000, seed: Any = 0, client: Any = None,
                     block: int = DEFAULT_TURN_BLOCK, progress: bool = True) -> pd.DataFrame:
    """The seed's questions for two forces, A active, as one :func:`summary` table.

    Scenarios: for each active policy, the Changes turn with the passive
    player (``policy_b``) always answering ENGAGE, and always staying UNDER
    FIRE; then the plain I-go-you-go round (A first). Every scenario uses the
    same seeds (common random numbers), so differences are sharper than
    independent runs would give. All scenarios' blocks go to ``client`` at once.
    """
    force_a, force_b = _force("force_a", force_a), _force("force_b", force_b)
    block = v.integer("block", block, 1, MAX_TURNS)
    if isinstance(policies, (str, bytes)) or not isinstance(policies, (list, tuple)) or not policies:
        raise InputError("policies", "a non-empty list of policies (names such as 'focus')", policies)
    base_b = get_policy(policy_b, "policy_b")
    scenarios, labels = [], []
    for pol in policies:
        pa = get_policy(pol, "policies")
        for response in ("engage", "under_fire"):
            pb = copy.copy(base_b)
            pb.response_choice = response
            scenarios.append(_scenario(force_a, force_b, pa, pb, rules, "seed", "A"))
            labels.append((f"changes, {pa.name}, passive {response}", response))
    scenarios.append(_scenario(force_a, force_b, get_policy(policies[0], "policies"), base_b, rules,
                               "igougo", "A"))
    labels.append(("I-go-you-go, A first", ""))
    arrs = _run(scenarios, turns, seed, client, block, progress)
    frames = []
    for sc, arr, (label, response) in zip(scenarios, arrs, labels):
        f = _frame(sc, arr, block)
        f.insert(0, "scenario", label)
        f.insert(1, "response", response)
        frames.append(f)
    return summary(pd.concat(frames, ignore_index=True))


@stat_function
def value_of_engage(table: pd.DataFrame) -> pd.DataFrame:
    """From :func:`design_questions`: per active policy, what answering ENGAGE
    instead of staying UNDER FIRE changes for the passive side B (models it
    loses, models it removes, and the active side's exchange ratio)."""
    if "response" not in getattr(table, "columns", ()):
        raise InputError("table", "a DataFrame returned by design_questions()", type(table).__name__)
    rows = []
    t = table[table["mode"] == "seed"]
    for pol, g in t.groupby("policy_a", sort=False):
        e = g[g["response"] == "engage"].iloc[0]
        u = g[g["response"] == "under_fire"].iloc[0]
        rows.append({"policy_a": pol,
                     "B_lost_engage": e["lost_B"], "B_lost_under_fire": u["lost_B"],
                     "B_removes_engage": e["lost_A"], "B_removes_under_fire": u["lost_A"],
                     "gain_for_B": (e["lost_A"] - e["lost_B"]) - (u["lost_A"] - u["lost_B"]),
                     "exchange_ratio_engage": e["exchange_ratio"],
                     "exchange_ratio_under_fire": u["exchange_ratio"]})
    return pd.DataFrame(rows)


