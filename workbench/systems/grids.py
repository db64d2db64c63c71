"""The granularity and equivalence grids of a rule file, read from its stats
(docs/rulefiles.md, "Granularity and equivalence"): every whole-number stat
its stages read over its range, the switches and the removal's stats at their
defaults, one attack (the count's stats at 1), the widest range narrowed at its
end farther from the default until the grid fits :data:`GRANULARITY_CELLS` or
:data:`EQUIVALENCE_CELLS`.
"""
from __future__ import annotations

import math
from typing import Any

from ..errors import WorkbenchError

__all__ = ["rule_grids", "GRANULARITY_CELLS", "EQUIVALENCE_CELLS"]

#: at most this many cells in a rule file's granularity grid
GRANULARITY_CELLS = 20_000
#: at most this many cells in a rule file's equivalence search (each cell is a whole distribution)
EQUIVALENCE_CELLS = 2_000


def _bare_name(expr: Any) -> str | None:
    """The stat an expression is, when it is nothing but one stat's name."""
    if expr is None or len(expr.names) != 1:
        return None
    (name,) = expr.names
    return name if expr.source.strip() == name else None


def _read_by_the_rolls(rule_system: Any) -> set[str]:
    exprs = [rule_system.tokens_die] + [e for st in rule_system.stages
                                        for e in (st.target, st.modifier, st.critical_when, st.on_critical_when)]
    return {name for e in exprs if e is not None for name in e.names}


def _narrowed(ranges: dict[str, list[int]], defaults: dict[str, int], budget: int) -> dict[str, list[int]]:
    """Each range cut, the widest first, at its end farther from the default, until the product fits."""
    out = {k: list(v) for k, v in ranges.items()}
    while math.prod(len(vals) for vals in out.values()) > budget:
        name = max(out, key=lambda k: (len(out[k]), k))
        vals, d = out[name], defaults[name]
        if d - vals[0] >= vals[-1] - d:
            vals.pop(0)
        else:
            vals.pop()
    return out


def _one_attack(rule_system: Any) -> dict[str, Any] | None:
    """The count stats' values for one attack: each whole-number stat the count reads at 1, the
    switches at their defaults; None when that is not one attack."""
    by_name = {s.name: s for s in rule_system.stats}
    fixed = {n: 1 for n in rule_system.count.names if by_name[n].kind == "int" and not by_name[n].optional}
    env = {s.name: s.value_of(s.default) for s in rule_system.stats}
    env.update(fixed)
    try:
        one = int(rule_system.count.scalar(env, "attack.count"))
    except WorkbenchError:  # a count the defaults cannot evaluate (refused at resolution): no grid
        return None
    return fixed if fixed and one == 1 else None


def rule_grids(rule_system: Any) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``(granularity_grid, equivalence_search)`` of a loaded rule file (see the module's text);
    ``(None, None)`` when one attack cannot be set from the count's stats or no whole-number stat is
    rolled."""
    if getattr(rule_system, "count", None) is None:  # not a loaded rule file (a stand-in): no grids
        return None, None
    fixed = _one_attack(rule_system)
    if fixed is None:
        return None, None
    by_name = {s.name: s for s in rule_system.stats}
    models, wounds = _bare_name(rule_system.removal.models), _bare_name(rule_system.removal.wounds)
    read = _read_by_the_rolls(rule_system) - set(fixed) - {models, wounds}
    stats = [s for s in rule_system.stats if s.name in read and s.kind == "int" and not s.optional
             and s.min is not None and s.max is not None and s.max > s.min]
    if not stats:
        return None, None
    ranges = {s.name: list(range(s.min, s.max + 1)) for s in stats}
    defaults = {s.name: s.default for s in stats}
    if models is not None and by_name[models].optional:
        fixed[models] = None
    if wounds is not None and by_name[wounds].kind == "int" and by_name[wounds].min is not None \
            and by_name[wounds].min <= 1:
        fixed[wounds] = 1  # one success removes a model: the chance is the dice's
    granularity = {**_narrowed(ranges, defaults, GRANULARITY_CELLS), **fixed}
    search = _narrowed(ranges, defaults, EQUIVALENCE_CELLS)
    return granularity, search
