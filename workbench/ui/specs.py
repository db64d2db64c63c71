"""The dashboard's modes and controls of a system.

What a system's dashboard shows comes from its description
(:mod:`workbench.systems`): its modes, each a stat-level function with its
controls (kind, range, default, label, help). :func:`modes_for` puts them in
the function's argument order. Argument names are the stat-level names of the
system, so the same names are used in the URL query string
(``?bs=4&ap=6&shots=10``).
"""
from __future__ import annotations

import inspect

import attrs

from ..controls import NONE_TOKEN, RESERVED, Control
from ..systems.description import Mode, SystemDescription

__all__ = ["Control", "Mode", "modes_for", "NONE_TOKEN", "RESERVED"]


def modes_for(system: SystemDescription) -> tuple[Mode, ...]:
    """The modes of ``system``'s description, each with the controls of the
    arguments its function accepts, in the function's argument order. A mode
    with its own ``call`` (changes' volley), or whose function takes any
    keyword (a rule file's ``attack``), keeps its controls as described."""
    out = []
    for mode in system.modes:
        fn = getattr(system.module, mode.function, None)
        if fn is None:
            continue
        params = list(inspect.signature(fn).parameters.values())
        if mode.call is not None or any(p.kind is p.VAR_KEYWORD for p in params):
            out.append(mode)
            continue
        spec = {c.name: c for c in mode.controls}
        controls = tuple(spec[p.name] for p in params if p.name in spec and p.name not in RESERVED
                         and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD))
        out.append(attrs.evolve(mode, controls=controls))
    return tuple(out)
