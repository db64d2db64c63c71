"""A rule file's ``[view]``: how the workbench shows the system, beside what it computes.

Nothing in ``[view]`` changes a number: it holds what a system's description
shows (every key is in docs/rulefiles.md, "How the workbench shows a system").
Every key is optional; :func:`read` checks them with the loader's
:class:`~workbench.rules.reader.Reader`, so a mistake is a ``RuleFileError``
naming the file, the field, what is allowed, what was found and the line.

A range is written ``"lo..hi"`` (both ends included), as on the command line.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any, Mapping

from .reader import Reader
from .spec import RuleStat

__all__ = ["View", "read", "KEYS", "SIDES", "BETTER", "STYLES", "CONCEPTS"]

#: whose stat a diagnostics stat is
SIDES = ("attacker", "defender")
#: which way of a diagnostics stat helps its side
BETTER = ("lower", "higher")
#: how a stat's value is written: "plus" a roll needed ("5+"), "mod" a modifier ("+2"), "plain" as it is
STYLES = ("plus", "mod", "plain")
#: the compare page's shared concepts
CONCEPTS = ("accuracy", "penetration", "toughness", "cover")
_MATCHUP = ("firer", "weapon", "target", "always")
_DIAGNOSTIC = ("side", "better", "values", "help")
_CONCEPT = ("stat", "label", "sign", "style", "ladder")
_RANGE = re.compile(r"^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*$")
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


@dataclass(frozen=True)
class View:
    """The checked ``[view]`` of one file (see the module docstring); empty when the file has none.

    ``controls``: the stats the dashboard shows, in order (empty: every stat, in file order);
    ``start``: stat -> the dashboard's starting value (a stat not listed: its default);
    ``sliders``: stat -> (lo, hi); ``steps``: stat -> its slider's step (from its lowest value;
    a link's value off the steps is refused); ``words``: choice stat -> ((option, words), ...);
    ``matchup``: side -> ((stat, label, style), ...) and ``"always"`` -> stat names;
    ``seed``, ``granularity`` and ``equivalence``: stat -> a value or a list of values;
    ``diagnostics``: (stat, side, better, values, help) in file order;
    ``concepts``: concept -> (stat, label, sign, style, ((settings, text), ...)).
    """

    title: str = ""
    blurb: str = ""
    colour: str = ""
    trial: str = "attack"
    token: str = "hit"
    #: what an attack's distribution counts, in the outcome's words ("" : the engine's "models removed")
    label: str = ""
    controls: tuple[str, ...] = ()
    start: Mapping[str, Any] = field(default_factory=dict)
    sliders: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    steps: Mapping[str, int] = field(default_factory=dict)
    words: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    matchup: Mapping[str, tuple] | None = None
    seed: Mapping[str, Any] | None = None
    diagnostics: tuple[tuple[str, str, str, tuple[int, ...], str], ...] = ()
    granularity: Mapping[str, Any] | None = None
    equivalence: Mapping[str, Any] | None = None
    concepts: Mapping[str, tuple] = field(default_factory=dict)
    effects: Mapping[str, str] = field(default_factory=dict)


#: the keys of ``[view]``: the fields of :class:`View`
KEYS = tuple(f.name for f in fields(View))


def effect_labels(chances: Any, view: View) -> dict[str, str]:
    """How a playtester reads a file's side effects: each chance's ``label`` (where it says more than
    its name), then the ``[view.effects]`` words."""
    return {**{c.name: c.label for c in chances if c.label and c.label != c.name}, **view.effects}


def _range(r: Reader, x: Any, where: str, lo: int | None = None, hi: int | None = None) -> tuple[int, int]:
    within = f" within {lo}..{hi}" if lo is not None else ""
    m = _RANGE.match(x) if isinstance(x, str) else None
    a, b = (int(m.group(1)), int(m.group(2))) if m else (1, 0)   # no range: refused as lo > hi
    if a > b or (lo is not None and hi is not None and not lo <= a <= b <= hi):
        r.fail(where, f'a range "lo..hi" with lo <= hi{within}', x)
    return a, b


def _value(r: Reader, stat: RuleStat, x: Any, where: str, many: bool) -> Any:
    """One value of ``stat`` (a range or a list of values too when ``many``)."""
    if many and stat.kind == "int" and isinstance(x, str) and _RANGE.match(x):
        a, b = _range(r, x, where, stat.min, stat.max)
        return list(range(a, b + 1))
    if many and isinstance(x, list):
        return [_value(r, stat, v, f"{where}[{i}]", False) for i, v in enumerate(x)]
    value, wrong = stat.check(x, toml=True)
    if wrong:
        r.fail(where, wrong + (' (or a list of them, or a range "lo..hi")' if many else ""), x)
    return value


def _stat(r: Reader, by_name: Mapping[str, RuleStat], name: Any, where: str, kinds=("int", "bool", "choice")
          ) -> RuleStat:
    stat = by_name.get(name) if isinstance(name, str) else None
    if stat is None or stat.kind not in kinds:
        r.fail(where, "the name of a stat of the file" + ("" if len(kinds) == 3 else f" ({' or '.join(kinds)})"),
               name)
    return stat


def _values(r: Reader, data: Any, where: str, by_name, many: bool) -> dict[str, Any]:
    table = r.table(data, where)
    return {k: _value(r, _stat(r, by_name, k, f"{where}.{k}"), x, f"{where}.{k}", many) for k, x in table.items()}


def _matchup(r: Reader, data: Any, by_name) -> dict[str, tuple]:
    table = r.table(data, "view.matchup", _MATCHUP)
    out: dict[str, tuple] = {}
    for side in _MATCHUP:
        items = table.get(side, [])
        where = f"view.matchup.{side}"
        if not isinstance(items, list):
            r.fail(where, "a list" + (" of stat names" if side == "always" else ' of ["stat", "label", "style"]'),
                   items)
        if side == "always":
            out[side] = tuple(_stat(r, by_name, x, f"{where}[{i}]").name for i, x in enumerate(items))
            continue
        for i, item in enumerate(items):
            if not (isinstance(item, list) and len(item) == 3 and all(isinstance(x, str) for x in item)
                    and item[2] in STYLES):
                r.fail(f"{where}[{i}]", '["stat", "label", "style"] with style one of '
                       + ", ".join(f'"{s}"' for s in STYLES), item)
            _stat(r, by_name, item[0], f"{where}[{i}]")
        out[side] = tuple(map(tuple, items))
    return out


def _diagnostics(r: Reader, data: Any, by_name, sliders) -> tuple:
    out = []
    for name, d in r.table(data, "view.diagnostics").items():
        where = f"view.diagnostics.{name}"
        stat = _stat(r, by_name, name, where, ("int",))
        d = r.table(d, where, _DIAGNOSTIC)
        side, better = r.option(d, "side", where, SIDES), r.option(d, "better", where, BETTER)
        lo, hi = sliders.get(name, (stat.min, stat.max))
        if "values" in d:
            lo, hi = _range(r, d["values"], f"{where}.values", stat.min, stat.max)
        if hi <= lo:
            r.fail(f"{where}.values", 'a range "lo..hi" of two values or more', f"{lo}..{hi}")
        help_ = r.string(d, "help", where, stat.help or stat.label or name)
        out.append((name, side, better, tuple(range(lo, hi + 1)), help_))
    return tuple(out)


def _concepts(r: Reader, data: Any, by_name) -> dict[str, tuple]:
    table = r.table(data, "view.concepts", CONCEPTS)
    out = {}
    for name, d in table.items():
        where = f"view.concepts.{name}"
        d = r.table(d, where, _CONCEPT)
        label = r.string(d, "label", where)
        sign = d.get("sign", 1)
        if sign not in (-1, 1) or isinstance(sign, bool):
            r.fail(f"{where}.sign", "-1 or 1 (the stat's change per notch of the concept)", sign)
        style = r.option(d, "style", where, STYLES, "plain")
        ladder = []
        rungs = d.get("ladder", [])
        if not isinstance(rungs, list):
            r.fail(f"{where}.ladder", 'a list of { set = { stat = value }, text = "..." }', rungs)
        for i, rung in enumerate(rungs):
            rw = f"{where}.ladder[{i}]"
            rung = r.table(rung, rw, ("set", "text"))
            settings = tuple(_values(r, rung.get("set", {}), f"{rw}.set", by_name, False).items())
            if not settings:
                r.fail(f"{rw}.set", "a table of one or more stat = value", rung.get("set", "nothing"))
            ladder.append((settings, r.string(rung, "text", rw)))
        stat = _stat(r, by_name, d.get("stat", ladder[0][0][0][0] if ladder else None), f"{where}.stat").name
        out[name] = (stat, label, sign, style, tuple(ladder))
    return out


def read(r: Reader, data: Any, stats: tuple[RuleStat, ...]) -> View:
    """The checked ``[view]`` table ``data`` of a file of ``stats`` (None: the file has none)."""
    if data is None:
        return View()
    data = r.table(data, "view", KEYS)
    by_name = {s.name: s for s in stats}
    colour = r.string(data, "colour", "view", "")
    if colour and not _COLOUR.match(colour):
        r.fail("view.colour", "a colour written #rrggbb", colour)
    sliders = {}
    for name, x in r.table(data.get("sliders", {}), "view.sliders").items():
        stat = _stat(r, by_name, name, f"view.sliders.{name}", ("int",))
        sliders[name] = _range(r, x, f"view.sliders.{name}", stat.min, stat.max)
    steps = {}
    for name in r.table(data.get("steps", {}), "view.steps"):
        stat = _stat(r, by_name, name, f"view.steps.{name}", ("int",))
        lo, hi = sliders.get(name) or (stat.min or 0, stat.max or 0)  # (the loader gives an int stat both)
        steps[name] = step = r.integer(data["steps"], name, "view.steps", 1, max(1, hi - lo))
        start = r.table(data.get("start", {}), "view.start").get(name, stat.default)
        if (hi - lo) % step or not isinstance(start, int) or (start - lo) % step:
            r.fail(f"view.steps.{name}", f"a step from {lo} that reaches {hi} and the starting value {start}",
                   step)
    words = {}
    for name, x in r.table(data.get("words", {}), "view.words").items():
        stat = _stat(r, by_name, name, f"view.words.{name}", ("choice",))
        table = r.table(x, f"view.words.{name}", tuple(n for n, _ in stat.options))
        words[name] = tuple((o, r.string(table, o, f"view.words.{name}")) for o in table)
    shown = data.get("controls", [])
    if not isinstance(shown, list) or len(set(map(str, shown))) != len(shown):
        r.fail("view.controls", "a list of the stats the dashboard shows, each once", shown)
    controls = tuple(_stat(r, by_name, x, f"view.controls[{i}]").name for i, x in enumerate(shown))
    effects_table = r.table(data.get("effects", {}), "view.effects")
    effects = {k: r.string(effects_table, k, "view.effects") for k in effects_table}
    # stat -> a value (the seed's matchup) or values (a range or a list: the grids searched)
    grids: dict[str, Any] = {k: _values(r, data[k], f"view.{k}", by_name, k != "seed") if k in data else None
                             for k in ("seed", "granularity", "equivalence")}
    texts: dict[str, Any] = {k: r.string(data, k, "view", getattr(View, k)) for k in ("title", "blurb", "trial", "token", "label")}
    return View(
        **texts, colour=colour, controls=controls,
        start=_values(r, data.get("start", {}), "view.start", by_name, False), sliders=sliders, steps=steps,
        words=words, matchup=_matchup(r, data["matchup"], by_name) if "matchup" in data else None,
        diagnostics=_diagnostics(r, data.get("diagnostics", {}), by_name, sliders),
        concepts=_concepts(r, data.get("concepts", {}), by_name), effects=effects, **grids)
