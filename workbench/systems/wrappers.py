"""What the built-in systems' thin wrappers share: each checks its arguments in its own words,
resolves through its rule file (:mod:`workbench.systems.ownfile`) and says the result as its own
Outcome. Here: the arguments checked as the file states its stats; the engine called exact or sampled, with the inputs an Outcome records; a
vectorised table over a grid of stats; the tables a list argument holds (a volley's units or
weapons), checked key by key; and the Outcome of one roll (a test, a distance).
"""
from __future__ import annotations

import difflib
from collections.abc import Callable, Container, Mapping, Sequence
from typing import Any

import numpy as np

from .. import pipeline
from .. import validate as v
from ..errors import InputError
from ..outcome import Outcome, Stage
from . import ownfile

__all__ = ["checked", "resolve", "grid_table", "listed", "keyed", "one_roll"]


def checked(rule_system: Any, given: Mapping[str, Any], names: Sequence[str], arrays: bool = False, *,
            optional: Container[str] | None = None, where: str = "", whole: Callable | None = None,
            maybe: Callable | None = None) -> dict:
    """The arguments ``names`` of ``given``, in that order, each checked as ``rule_system`` states
    its stat: true or false, one of its options, or a whole number in its range (``whole``, by
    default :func:`~workbench.validate.integer`, or ``integers`` with ``arrays``), None too when
    the stat is optional (``maybe``; ``optional``: the names that are, in place of the file's
    word). Each message names ``where`` + the argument (a volley's ``"weapons[1]."``)."""
    integer, optional_integer = v.integer_checks(arrays)
    out = {}
    for name in names:
        stat, value, field = rule_system.stat(name), given[name], where + name
        if stat.kind == "bool":
            out[name] = v.boolean(field, value)
        elif stat.kind == "choice":
            out[name] = v.choice(field, value, [o for o, _ in stat.options])
        elif stat.optional if optional is None else name in optional:
            out[name] = (maybe or optional_integer)(field, value, stat.min, stat.max)
        else:
            out[name] = (whole or integer)(field, value, stat.min, stat.max)
    return out


def resolve(run: Callable[..., Outcome], stats: Mapping[str, Any], method: str, samples: int, rng: Any,
            *args: Any) -> tuple[Outcome, dict]:
    """``run(*args, **stats)``, exact or sampled (``samples`` draws from ``rng``), and the inputs its
    Outcome records: the stats, the method and, when sampled, the samples."""
    if method == "exact":
        return run(*args, **stats), dict(stats, method=method)
    return (run(*args, **stats, method=method, samples=samples, seed=rng),
            dict(stats, method=method, samples=samples))


def grid_table(rule_system: Any, stats: Mapping[str, Any], grid: Sequence[str], shots: Any,
               effects: Mapping[str, str], width: int, name: str = "shots") -> dict:
    """The vectorised table of ``rule_system`` over the stats of ``grid`` (broadcast together; the others
    one value for the whole table), refused past the table budget at ``shots`` dice: the function's
    ``{"pmf": array S + (width,), "effects": {name: array S}}`` (``effects``: its names -> the file's)."""
    shape, flat = ownfile.flat_grid({k: stats[k] for k in grid if k in stats})
    v.table_size(shape, int(np.max(shots)) + 1, name)
    return ownfile.table(rule_system.attack_table(**dict(stats, **flat)), shape, effects, width)


def listed(field: str, value: Any, expected: str) -> Sequence:
    """``value``, a non-empty list (not a text, not a table) of ``expected``."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence) or not value:
        raise InputError(field, expected, value)
    return value


def keyed(where: str, table: Any, keys: Sequence[str], expected: str, required: Mapping[str, str], *,
          any_case: bool = False) -> Mapping:
    """``table``, one entry of a list argument (``where``: "attackers[0]"), checked: a mapping whose
    every key is one of ``keys`` (a misspelt key gets the nearest as a hint, ``any_case``: a key in
    other capitals first) holding each ``required`` key (key -> what it holds)."""
    if not isinstance(table, Mapping):
        raise InputError(where, expected, table)
    for key in table:
        if key not in keys:
            close = [k for k in keys if any_case and isinstance(key, str) and k == key.lower()]
            close = close or (difflib.get_close_matches(key, keys, n=1) if isinstance(key, str) else [])
            raise InputError(f"{where} key", "one of " + ", ".join(keys), key,
                             f"did you mean {close[0]!r}?" if close else None)
    for key, what in required.items():
        if key not in table:
            raise InputError(f"{where}.{key}", f"{what} (a required key)", "missing")
    return table


def one_roll(system: str, function: str, inputs: Mapping[str, Any], stages: Sequence[Stage], method: str,
             samples: int, pmf: np.ndarray, effects: Mapping[str, float], roll: Callable[[int], Mapping],
             dice: int = 1, record_samples: bool = True, **fields: Any) -> Outcome:
    """The Outcome of one roll over ``len(pmf)`` results: exact, ``pmf`` and ``effects``; sampled,
    ``roll(n)`` -> the results of n rolls of ``dice`` dice under "removed", and each effect's values,
    the inputs with the samples when ``record_samples`` (``fields``: attacks, notes, label)."""
    if method == "exact":
        return pipeline.exact_outcome(system, function, inputs, pmf, stages, effects, **fields)
    tally = pipeline.tally_sampled(samples, dice, roll, len(pmf))
    inputs = dict(inputs, samples=samples) if record_samples else inputs
    return pipeline.tally_outcome(system, function, inputs, tally, stages, **fields)
