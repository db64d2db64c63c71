"""The named mechanism ``changes_turn`` (docs/rulefiles.md, "Named mechanisms"): the 40k Changes
turn of seed ``000_821a3f094c9e3c4f.txt`` (docs/rules/changes_turn.md), two forces playing a whole
turn, every die rolled. It is no chain of stages and no one attack, so a file of it is a *page* of
its rule folder (:data:`PAGE`), not a mode: it resolves nothing into an Outcome. The turn is played
by :mod:`workbench.turn`, each shot and strike rolling the stages of the folder's files beside it;
what a playtester sets on the page is this file's.

Every control of the page is a stat of the file, with its range, label and help (:data:`STATS`, one
stat each side and each unit slot repeats, and the readings of the seed a designer may flip,
:data:`READINGS`); the ``[mechanism]`` table (:func:`read`) says what only the page has.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

__all__ = ["PAGE", "STATS", "READINGS", "SIDES", "PLANS", "ANSWERS", "MAX_TURNS", "MAX_MODELS", "MAX_UNITS",
           "Side", "Spec", "read", "check"]

#: a file of this mechanism is a page of its folder, not a dashboard mode
PAGE = True
#: the two sides, as the page's link names them: the active player (declares its attacks first)
#: and the passive one (answers each attack)
SIDES = ("a", "b")
#: the plans a side may follow (workbench.turn.policies) and the passive player's answers
PLANS = ("focus", "spread", "greedy")
ANSWERS = ("engage", "under_fire", "go_to_ground")
#: the page's bounds, checked before anything is played: turns per redraw (four scenarios each),
#: models in one unit, units on one side
MAX_TURNS = 5000
MAX_MODELS = 50
MAX_UNITS = 6
#: the page's stats: name -> (kind, the options a choice must have, (lowest min, highest max))
STATS: Mapping[str, tuple[str, tuple[str, ...], tuple[int, int]]] = {
    "turns": ("int", (), (1, MAX_TURNS)), "dice_seed": ("int", (), (0, 2**31 - 1)),
    "plan": ("choice", PLANS, (0, 0)), "kill": ("int", (), (1, 99)), "units": ("int", (), (1, MAX_UNITS)),
    "models": ("int", (), (1, MAX_MODELS)), "cover": ("int", (), (0, 12)),
    "answer": ("choice", ANSWERS, (0, 0))}
#: the readings of the seed (workbench.turn.Rules' own fields): name -> the options of a choice, () a yes/no
READINGS: Mapping[str, tuple[str, ...]] = {
    "charge_needs_engaged_target": (), "morale": ("plain", "difference"), "loser": ("wounds", "models"),
    "snap_at_evading": ("downgrade", "refuse"), "passive_sees_results": (), "wrecked_transport": ("unharmed", "lost")}


@dataclass(frozen=True)
class Side:
    """One side at the start: its ``title`` and what it ``does`` in a turn (the page's words), its
    ``plan``, and its ``units``: (unit picker key, models, cover) per slot, None where the slot
    takes the stat's default."""

    title: str
    does: str
    plan: str
    units: tuple[tuple[str, int | None, int | None], ...]


@dataclass(frozen=True)
class Spec:
    """A file's ``[mechanism]``: the two sides by link prefix, and the unit picker's words."""

    sides: Mapping[str, Side]
    unit_label: str
    unit_help: str
    path: str = "<rule file>"


def read(r, table: dict, names) -> Spec:
    """Read the ``[mechanism]`` table of a file (``r``: the loader's reader, which names the field and
    its line in every error); :func:`check` then checks the file's stats."""
    r.known(table, "mechanism", ("unit_label", "unit_help", "sides"))
    missing = [n for n in (*STATS, *READINGS) if n not in names]
    if missing:
        r.fail("stats", "a stat for every control of the turn page: " + ", ".join((*STATS, *READINGS)),
               "no stat " + ", ".join(missing))
    sides = r.table(table.get("sides"), "mechanism.sides", SIDES)
    out = {}
    for key in SIDES:
        where = f"mechanism.sides.{key}"
        side = r.table(sides.get(key), where, ("title", "does", "plan", "units"))
        plan = r.string(side, "plan", where)
        if plan not in PLANS:
            r.fail(f"{where}.plan", "one of " + ", ".join(PLANS), plan)
        units = side.get("units")
        if not isinstance(units, list) or not units:
            r.fail(f"{where}.units", "a list of { unit, models, cover } tables, one per unit slot", units)
        slots = []
        for i, u in enumerate(units):
            at = f"{where}.units[{i}]"
            u = r.table(u, at, ("unit", "models", "cover"))
            slots.append((r.string(u, "unit", at), r.integer(u, "models", at, 1, MAX_MODELS, None),
                          r.integer(u, "cover", at, 0, 12, None)))
        out[key] = Side(r.string(side, "title", where), r.string(side, "does", where), plan, tuple(slots))
    return Spec(out, r.string(table, "unit_label", "mechanism", "unit"), r.string(table, "unit_help", "mechanism"),
                str(r.path))


def check(r, spec: Spec, stats: tuple) -> None:
    """The file's stats as the page needs them: each of :data:`STATS` of its kind, a choice with
    exactly the options the turn knows, a range inside the page's bounds; each reading a yes/no or
    a choice of the turn's options; every side with one unit per slot (``units``' max), each slot's
    models and cover inside their stats' ranges."""
    by_name = {s.name: s for s in stats}
    for name, (kind, options, (lo, hi)) in STATS.items():
        stat = by_name[name]
        if stat.kind != kind or (kind == "choice" and tuple(o for o, _ in stat.options) != options):
            r.fail(f"stats.{name}", f"a {kind} stat" + (" of the options " + ", ".join(options) if options else ""),
                   f"a {stat.kind} stat" + (" of " + ", ".join(o for o, _ in stat.options) if stat.options else ""))
        if kind == "int" and not (lo <= stat.min and stat.max <= hi):
            r.fail(f"stats.{name}", f"a range inside {lo}..{hi}", f"{stat.min}..{stat.max}")
    for name, options in READINGS.items():
        stat = by_name[name]
        got = tuple(o for o, _ in stat.options)
        if stat.kind != ("choice" if options else "bool") or got != options:
            r.fail(f"stats.{name}", "a yes/no stat" if not options else "a choice of " + ", ".join(options),
                   f"a {stat.kind} stat" + (" of " + ", ".join(got) if got else ""))
    slots = by_name["units"].max
    for key, side in spec.sides.items():
        if len(side.units) != slots:
            r.fail(f"mechanism.sides.{key}.units", f"{slots} unit slots (the stat units' max)", len(side.units))
        for i, (_unit, models, cover) in enumerate(side.units):
            for value, stat in ((models, by_name["models"]), (cover, by_name["cover"])):
                if value is not None and not stat.min <= value <= stat.max:
                    r.fail(f"mechanism.sides.{key}.units[{i}].{stat.name}",
                           f"a whole number from {stat.min} to {stat.max} (the stat {stat.name})", value)
