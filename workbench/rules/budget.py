"""Budgets: the work of a resolution estimated from the file and the stats before it is done.

A rule file is untrusted input (docs/rulefiles.md, "Budgets"): before any table is built
the engine counts the most tokens one attack can make, the unit states and the
multiply-adds of the unit-state chain, and a resolution past a budget is refused at once
with a :class:`~workbench.rules.errors.BudgetError` naming the field. A value read from the
stats outside its range is refused with an :class:`~workbench.errors.InputError` naming the
stats it came from.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import InputError
from ..validate import _range_text
from .errors import BudgetError
from .expr import Expr, _cells
from .spec import RuleStage
from .loader import MAX_TOKENS_DIE
from .tokens import multiplies, token_bounds

__all__ = ["check_value", "multiplies", "token_bounds", "check_tokens", "check_work", "checked", "unit_values", "RANGES", "MAX_ATTACKS",
           "MAX_SUCCESSES", "MAX_STATES", "MAX_TABLE", "MAX_WORK"]

#: attacks of one resolution (as many as the tokens of one resolution: 40k Changes' 10,000 dice)
MAX_ATTACKS = 10_000
#: tokens one resolution may hold: the most final successes of all its attacks, and the most
#: tokens that can roll at any one stage (attacks x what criticals multiply)
MAX_SUCCESSES = 10_000
#: unit states (models x wounds) of the unit-state chain
MAX_STATES = 20_000
#: numbers held by one distribution table (successes x unit states, cells x successes): about 160 MB
MAX_TABLE = 20_000_000
#: multiply-adds of the unit-state chain or of a rolled damage's totals: well under a second
MAX_WORK = 50_000_000
#: the range each resolution checks a value of the file's attack and unit in: field -> (lowest, highest, what)
RANGES = {"attack.count": (0, MAX_ATTACKS, "a number of attacks"),
          "attack.tokens_die": (1, MAX_TOKENS_DIE, "faces of the tokens die"),
          "removal.models": (0, MAX_STATES, "a number of models"),
          "removal.wounds": (1, MAX_STATES, "wounds per model"),
          "removal.damage": (0, MAX_STATES, "damage per success")}


def check_value(expr: Expr, env: Mapping[str, Any], field: str, lo: int | None, hi: int | None,
                what: str) -> np.ndarray:
    """Evaluate ``expr`` and check every cell lies in ``[lo, hi]``; the error
    names the field, the allowed range, the value and the stats it came from."""
    x = expr.evaluate(env, field)
    if x.size == 1:              # one value, or the same in every cell: Python integers
        one = int(x.item())
        if (lo is None or one >= lo) and (hi is None or one <= hi):
            return x
    elif x.size == 0 or ((lo is None or x.min() >= lo) and (hi is None or x.max() <= hi)):
        return x
    bad = np.zeros(np.shape(x), dtype=bool)   # some cell is out of range: the first one is named
    if lo is not None:
        bad |= x < lo
    if hi is not None:
        bad |= x > hi
    value = int(np.asarray(x)[bad].ravel()[0]) if np.ndim(x) else int(x)
    origin = _cells(env, expr, bad) if expr.names else ""
    got = f"{value} from '{expr.source}'" + (f" with {origin}" if origin else "")
    raise InputError(field, f"{what} {_range_text(lo, hi)}", got)


def checked(expr: Expr, env: Mapping[str, Any], field: str) -> np.ndarray:
    """:func:`check_value` of the field's expression in its range of :data:`RANGES`."""
    return check_value(expr, env, field, *RANGES[field])


def unit_values(removal: Any, read) -> tuple:
    """(models, wounds, damage) of the removal, each ``read(expr, field)`` where the removal has
    it: the unit size where it is given, wounds and damage per success without a pooled formula
    or a removal model by model (damage None with a rolled damage)."""
    per_success = removal.removed is None and not removal.by_model
    return tuple(None if expr is None or (key != "models" and not per_success) else read(expr, f"removal.{key}")
                 for key, expr in (("models", removal.models), ("wounds", removal.wounds),
                                   ("damage", removal.damage)))


def check_tokens(stages: Sequence[RuleStage], attacks: int, path: Any, bounds: tuple[int, int],
                 tokens_die: int) -> None:
    """Refuse, before any work, a resolution whose tokens could pass :data:`MAX_SUCCESSES`
    (exact and sampled alike: the sampled path holds every token of a sample); ``bounds``:
    :func:`token_bounds` of the stages; ``tokens_die``: the most tokens an attack enters as
    (``attack.tokens_die``)."""
    finals, rolling = bounds
    most = max(finals, rolling)
    if most > MAX_SUCCESSES:
        i = next(i for i, st in enumerate(stages) if multiplies(st))
        raise BudgetError(path, f"stages[{i}].extra", f"criticals that make at most {MAX_SUCCESSES:,} tokens "
                          "from one attack (each extra multiplies the tokens of every later stage)",
                          f"{most:,} tokens from one attack")
    most *= max(1, tokens_die)
    if attacks * most > MAX_SUCCESSES:
        raise BudgetError(path, "attack.count", f"at most {MAX_SUCCESSES:,} tokens in one resolution "
                          f"(attacks x {most:,} tokens one attack can make"
                          + (f": up to {tokens_die:,} entering from the tokens die" if tokens_die > 1 else "") + ")",
                          f"{attacks:,} attacks, {attacks * most:,} tokens")


def check_work(path: Any, n_max: int, states: int, per_step: int, what: str) -> None:
    """Refuse a removal whose table (successes x ``states``) or arithmetic (successes x states x
    ``per_step``) would pass :data:`MAX_TABLE` or :data:`MAX_WORK`."""
    if (n_max + 1) * states > MAX_TABLE or n_max * states * per_step > MAX_WORK:
        raise BudgetError(path, "removal", f"at most {MAX_TABLE:,} (successes x {what}) and "
                          f"{MAX_WORK:,} steps of arithmetic to resolve exactly",
                          f"{n_max:,} successes x {states:,} {what}", "method='sampled' has no such limit")
