"""The dashboard's modes and controls of a system, with inference for the rest.

What a system's dashboard shows comes from its description
(:mod:`workbench.systems`): its modes, each a stat-level function with its
controls (kind, range, default, label, help). :func:`modes_for` completes
them: an argument a function accepts but its description does not list still
gets a control, inferred from its default (a checkbox for a yes/no, a slider
for a number, a dropdown whose options are read from the function's own
error message for a word), so every argument a function accepts is on the
dashboard. Argument names are the stat-level names of the system, so the same
names are used in the URL query string (``?bs=4&ap=6&shots=10``).
"""
from __future__ import annotations

import ast
import inspect
import re
from typing import Any, Callable

import attrs

from ..controls import NONE_TOKEN, RESERVED, Control, dropdown, fine_slider, optional_slider, slider, toggle
from ..errors import InputError
from ..systems.description import Mode, SystemDescription

__all__ = ["Control", "Mode", "modes_for", "NONE_TOKEN", "RESERVED"]

#: the help of a control inferred from a function's signature
_INFERRED_HELP = "no help written for this setting yet"


# ---------------------------------------------------------------------------
# inference for arguments without a spec
# ---------------------------------------------------------------------------
_ONE_OF = re.compile(r"^one of (.*)$")


def _options_from_error(fn: Callable, name: str, kwargs: dict) -> tuple | None:
    """Ask ``fn`` which values ``name`` allows, by giving it a bad one and
    reading ``InputError.expected`` ("one of 'a', 'b'")."""
    try:
        fn(**{**kwargs, name: "\x00not-a-value"})
    except InputError as exc:
        if exc.field != name:
            return None
        m = _ONE_OF.match(exc.expected)
        if not m:
            return None
        try:
            opts = ast.literal_eval("(" + m.group(1) + ",)")
        except (ValueError, SyntaxError):
            return None
        return tuple(opts)
    except Exception:  # noqa: BLE001 - any other failure: no options learnt
        return None
    return None


def _infer(fn: Callable, param: inspect.Parameter, known: dict[str, Any]) -> Control:
    name, default = param.name, param.default
    label, help = name.replace("_", " "), _INFERRED_HELP
    if default is inspect.Parameter.empty:
        return slider(name, 5, 0, 12, label, help)
    if isinstance(default, bool):
        return toggle(name, default, label, help)
    if isinstance(default, int):
        return slider(name, default, min(0, default), max(10, 2 * default), label, help)
    if isinstance(default, float):
        return fine_slider(name, default, min(0.0, default), max(1.0, 2 * default), 0.05, label, help)
    opts = _options_from_error(fn, name, known)
    if isinstance(default, str) or (opts and default is None):
        opts = opts or (default,)
        if default not in opts:
            opts = (default,) + opts
        return dropdown(name, default, opts, label, help)
    # no default value and no known choice list: an optional whole number
    return optional_slider(name, None, 1, 12, label, help)


def modes_for(system: SystemDescription) -> tuple[Mode, ...]:
    """The modes of ``system``'s description, each with a control for every
    argument its function accepts (described first, else inferred), in the
    function's argument order. A mode
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
        params = [p for p in params if p.name not in RESERVED and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
        known = {p.name: spec[p.name].default for p in params if p.name in spec}
        controls = []
        for p in params:
            if p.name in spec:
                controls.append(spec[p.name])
            else:
                c = _infer(fn, p, known)
                known[p.name] = c.default
                controls.append(c)
        out.append(attrs.evolve(mode, controls=tuple(controls)))
    return tuple(out)
