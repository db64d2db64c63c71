"""What a playtester sets on the Changes turn page, read from the turn's rule file
(``rules/changes/turn.toml``, a page of the folder ``rules/changes/``; docs/rulefiles.md, "Named
mechanisms"): every control, with its range, its help and the words of its choices, is a stat of
the file. A side's ``plan``, ``kill`` and ``units`` and a unit slot's ``models`` and ``cover`` are one
stat each, repeated under the link keys ``a_plan``, ``b_kill``, ``a1_models``...; each slot's unit
picker offers a profile of ``profiles/changes`` with one of its guns; the readings of the seed are
the file's stats and the four the turn shares with shooting.toml's.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from .. import profiles
from ..controls import Control
from ..errors import InputError
from ..rules.mechanisms import changes_turn
from ..systems import changes, ownfile
from ..systems.description import stat_control

__all__ = ["DEFAULT_TURNS", "TURNS_RANGE", "UnitChoice", "unit_choices", "controls", "sides", "folder",
           "readings", "SHARED_READINGS"]

#: the link key of a stat whose name a rule file may not give it
_LINK = {"dice_seed": "seed"}
#: the readings the turn shares with shooting: shooting.toml's stats
SHARED_READINGS = ("natural_12_always_succeeds", "natural_1_always_fails", "firer_cover_rule", "heavy_shot")


def folder(system: Any = None):
    """The Changes rule folder a turn page is made of: None the built-in's (``rules/changes/``), else
    a system's key, its description or its :class:`~workbench.rules.RuleFolder`: a copy of the
    folder, with its page ``turn.toml`` and its part ``shooting.toml``."""
    if system is None:
        return ownfile.system(changes.KEY)
    if isinstance(system, str):
        from .. import systems
        system = systems.get(system)
    found = getattr(system, "module", system)  # a description's module is its folder
    if "turn" not in getattr(found, "pages", {}) or "shooting" not in getattr(found, "parts", {}):
        raise InputError("system", "a copy of the Changes rule folder (its page turn.toml and its part "
                         "shooting.toml)", getattr(found, "path", system))
    return found


_TURNS = ownfile.page(changes.KEY, "turn").stat("turns")
#: the number of simulated turns: default, and (lowest, highest, step). A redraw plays four scenarios
#: of that many turns; the default keeps it under ~2 s on a 2-core machine (docs/dashboards.md).
DEFAULT_TURNS = _TURNS.default
TURNS_RANGE = (_TURNS.min, _TURNS.max, ownfile.page(changes.KEY, "turn").view.steps.get("turns", 1))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


@dataclass(frozen=True)
class UnitChoice:
    """One entry of a unit picker: a profile of ``profiles/changes`` with one of its guns."""

    key: str  # "space-marine.boltgun": what the link holds
    unit: str  # the profile's name
    gun: str  # the gun's name
    melee: tuple[str, ...]  # the profile's melee weapons (used in fights)
    label: str  # what the picker shows


def unit_choices() -> dict[str, UnitChoice]:
    """Every (profile, gun) pair of the 40k Changes profiles, by link key."""
    out: dict[str, UnitChoice] = {}
    for u in profiles.list_units(changes.KEY):
        melee = tuple(w.name for w in u.weapons if w["class"] == "melee")
        for w in u.weapons:
            if w["class"] == "melee":
                continue
            key = f"{_slug(u.key)}.{_slug(w.name)}"
            out[key] = UnitChoice(key, u.name, w.name, melee, f"{u.name}, {w.name} ({_shots(w)})")
    if not out:  # pragma: no cover - the project ships the Space Marine
        raise InputError("profiles/changes", "at least one unit with a gun", "none")
    return out


def _gun_text(ch: UnitChoice) -> str:
    """"Boltgun: light, 1 shot, S 5+, AP 5+" from the unit's profile."""
    w = profiles.get_unit(changes.KEY, ch.unit).weapon(ch.gun)
    return f"{w.name}: {w['class']}, {_shots(w)} a model, S {w['s']}+, AP {w['ap']}+"


def _shots(w) -> str:
    return f"{w['shots']} shot{'s' if w['shots'] != 1 else ''}"


def sides(system: Any = None) -> dict[str, tuple[str, str]]:
    """The two sides of the page: link prefix -> (title, what it does in the turn), the file's words."""
    return {k: (s.title, s.does) for k, s in folder(system).pages["turn"].spec.sides.items()}


def _control(turn: Any, name: str, key: str | None = None, **changes_: Any) -> Control:
    """The control of the turn file's stat ``name`` under the link key ``key``."""
    c = stat_control(turn.stat(name), turn.view)
    return dataclasses.replace(c, name=key or _LINK.get(name, name), **changes_)


def readings(system: Any = None) -> dict[str, Control]:
    """The readings of the seed a designer may flip (workbench.turn.Rules' fields), by link key: the
    turn file's own, then the four shared with shooting, as shooting.toml states them."""
    rules = folder(system)
    turn, shooting = rules.pages["turn"], rules.part("shooting")
    return {**{n: _control(turn, n) for n in changes_turn.READINGS},
            **{n: stat_control(shooting.stat(n), shooting.view) for n in SHARED_READINGS}}


def controls(choices: dict[str, UnitChoice] | None = None, system: Any = None) -> dict[str, Control]:
    """Every control of the page by link key, from the turn file of the folder ``system`` (see
    :func:`folder`): the run, each side's plan, target chance, units and unit slots, the passive
    player's answer, and the readings."""
    turn = folder(system).pages["turn"]
    choices = choices or unit_choices()
    keys = tuple(choices)
    gun_help = "; ".join(sorted({_gun_text(ch) for ch in choices.values()}))
    out = {"turns": _control(turn, "turns"), "seed": _control(turn, "dice_seed")}
    for side, spec in turn.spec.sides.items():
        out[f"{side}_plan"] = _control(turn, "plan", f"{side}_plan", default=spec.plan)
        out[f"{side}_kill"] = _control(turn, "kill", f"{side}_kill")
        out[f"{side}_units"] = _control(turn, "units", f"{side}_units", default=len(spec.units))
        for i, (unit, models, cover) in enumerate(spec.units, start=1):
            if unit not in choices:
                raise InputError(f"{turn.path.name}: mechanism.sides.{side}.units[{i - 1}].unit",
                                 "one of " + ", ".join(keys), unit)
            out[f"{side}{i}_unit"] = Control(f"{side}{i}_unit", "choice", unit, options=keys,
                                             label=f"{turn.spec.unit_label} {i}",
                                             words=tuple((k, ch.label) for k, ch in choices.items()),
                                             help=f"{turn.spec.unit_help}: {gun_help}")
            for name, value in (("models", models), ("cover", cover)):
                out[f"{side}{i}_{name}"] = _control(turn, name, f"{side}{i}_{name}",
                                                    **({} if value is None else {"default": value}))
    out["b_answer"] = _control(turn, "answer", "b_answer")
    return {**out, **readings(system)}
