"""The matchup of an outcome in one readable line (:func:`matchup_line`) and
the address of the dashboard that shows it (:func:`dashboard_link`).
"""
from __future__ import annotations

import inspect
from typing import Any, Mapping, Sequence

from ..controls import RESERVED
from ..errors import InputError
from ..outcome import Outcome
from ..systems.records import styled
from .words import _check, _controls, _description, _setting

__all__ = ["matchup_line", "dashboard_link"]

#: counts written in the parentheses: (keyword, side, singular, plural)
_COUNTS = (("shots", 0, "shot", "shots"), ("attacks", 0, "attack", "attacks"),
           ("models", 2, "model", "models"))


def _defaults(o: Outcome) -> dict[str, Any]:
    desc = _description(o)
    try:
        params = inspect.signature(getattr(desc, o.function)).parameters.values()
    except Exception:  # noqa: BLE001 - a system or function defined elsewhere: every setting counts as chosen
        return {}
    return {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}


def _stat_text(items: tuple, values: Mapping[str, Any], defaults: Mapping[str, Any] | None = None) -> list[str]:
    """The stats of one side as read at the table ("BS 5+", "T +2"); a stat at
    its function's default (Inv +0, W 1, armour 0) says nothing and is left out."""
    out = []
    defaults = defaults or {}
    for key, label, style in items:
        value = values.get(key)
        if value is None or key not in values:
            continue
        if key in defaults and defaults[key] == value and type(defaults[key]) is type(value):
            continue
        if label == "armour" and isinstance(value, str):
            out.append(f"{value} armour")
        else:
            out.append(f"{label} {styled(value, style)}")
    return out


def _situation(controls: Mapping[str, Any], key: str, value: Any) -> str:
    """A setting of the matchup line: a checkbox by its label ("target gone to
    ground", "no ..."), anything else as :func:`input_lines` writes it."""
    if isinstance(value, bool):
        words = controls[key].text if key in controls else key.replace("_", " ")
        return words if value else f"no {words}"
    return _setting(controls, key, value)


def matchup_line(outcome: Outcome, names: Sequence[str] | None = None, *, system: bool = True) -> str:
    """The matchup in one readable line, e.g.

    ``Space Marine (BS 5+, Boltgun S 5+ AP 5+, 10 shots) at Space Marine
    (T +2, Sv +3, 5 models) - 40k Changes, shooting, action: aimed``

    A side's stat at its function's default (Inv +0, W 1) is left out.

    ``names``: optional (firer, weapon, target) names, e.g. a profile
    matchup's unit and weapon names; without them the line says "Firer" and
    "target". ``system=False`` leaves out the system's name (the compare post
    writes it in front). Settings the line does not place with a side (range,
    cover, variants...) follow the function's name when they differ from its
    default.
    """
    o = _check(outcome)
    inputs = {k: v for k, v in o.inputs.items() if k not in RESERVED}
    if names is not None and (isinstance(names, str) or len(names) != 3 or not all(isinstance(n, str) for n in names)):
        raise InputError("names", "three names: (firer, weapon, target)", names)
    hand_to_hand = o.function in ("melee", "close_combat")
    firer_name, weapon_name, target_name = names or (("Attacker", "", "defender") if hand_to_hand
                                                     else ("Firer", "", "target"))
    desc = _description(o)  # its mode's Sides say how the keywords read (None: all are the situation)
    sides = None if desc is None else next((m.sides for m in desc.modes if m.function == o.function), None)
    defaults = _defaults(o)
    used: set[str] = set()
    parts_firer: list[str] = []
    parts_target: list[str] = []
    if sides is not None:
        parts_firer = _stat_text(sides.firer, inputs, defaults)
        wtext = _stat_text(sides.weapon, inputs, defaults)
        if wtext or weapon_name:
            parts_firer.append(" ".join(([weapon_name] if weapon_name else []) + wtext))
        parts_target = _stat_text(sides.target, inputs, defaults)
        used |= {k for k, _l, _h in sides.firer + sides.weapon + sides.target}
    if isinstance(inputs.get("attackers"), (list, tuple)):  # several firing units (a volley)
        units = [u for u in inputs["attackers"] if isinstance(u, Mapping)]
        unit = sides.unit if sides is not None else ()
        parts_firer = [" ".join(_stat_text(unit, u) + [f"{u.get('shots')} shots"]) for u in units]
        firer_name = firer_name if names else f"{len(units)} firing units"
        used.add("attackers")
    for key, side, one, many in _COUNTS:
        n = inputs.get(key)
        if n is not None:  # (None: no unit size, no cap, nothing to say)
            (parts_firer if side == 0 else parts_target).append(f"{n} {one if n == 1 else many}")
        if key in inputs:
            used.add(key)
    always = sides.always if sides is not None else ()
    controls = _controls(o)
    situation = [_situation(controls, k, v) for k, v in inputs.items()
                 if k not in used and (k in always or k not in defaults or defaults[k] != v)]
    head = []
    if parts_firer or parts_target:
        head.append(f"{firer_name} ({', '.join(parts_firer)})" if parts_firer else firer_name)
        head.append(f"at {target_name} ({', '.join(parts_target)})" if parts_target else f"at {target_name}")
    tail = ([o.system_name] if system else []) + [o.function.replace("_", " ")] + situation
    line = " ".join(head)
    return f"{line} - {', '.join(tail)}" if line else ", ".join(tail)


def _query_value(c: Any, value: Any) -> str:
    if c is not None:
        return c.format(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return "none" if value is None else (f"{value:g}" if isinstance(value, float) else str(value))


def dashboard_link(outcome: Outcome, base: str = "") -> str | None:
    """The address of the dashboard showing ``outcome``'s matchup, relative to
    the server's root unless ``base`` (e.g. ``"https://host/"``) is given:
    ``voila/render/changes.ipynb?bs=6&s=5`` (the dashboard's link scheme,
    :mod:`workbench.ui.query`: ``mode`` for a function other than the
    first, then every value that differs from the dashboard's default).
    None for an outcome whose system has no dashboard."""
    import urllib.parse

    o = _check(outcome)
    desc = _description(o)
    if desc is None:  # a system no server shows
        return None
    mode = next((m for m in desc.modes if m.function == o.function), None)
    if mode is None:
        return None
    controls = {c.name: c for c in mode.controls}
    values = {k: v for k, v in o.inputs.items() if k not in RESERVED}
    if isinstance(values.get("attackers"), (list, tuple)):  # a volley: its units as the dashboard's u1_bs, ...
        units = [u for u in values.pop("attackers") if isinstance(u, Mapping)]
        values["units"] = len(units)
        for i, unit in enumerate(units, 1):
            values.update({f"u{i}_{k}": v for k, v in unit.items()})
    pairs = [("mode", mode.key)] if mode is not desc.modes[0] else []
    for k, v in values.items():
        c = controls.get(k)
        if c is not None and c.default == v and type(c.default) is type(v):
            continue
        pairs.append((k, _query_value(c, v)))
    query = urllib.parse.urlencode(pairs)
    return f"{base}voila/render/{o.system}.ipynb" + (f"?{query}" if query else "")
