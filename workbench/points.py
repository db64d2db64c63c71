"""Points efficiency: what a unit's points buy, comparable across the four systems.

Designers balance by cost. For one matchup (a firing unit, its weapon, a
target unit):

* **points spent** = firing models x the firing unit's points per model
  (``points`` in its profile; a weapon costs nothing extra);
* **models removed per 100 points** = 100 x expected models removed /
  points spent;
* **target points removed per 100 points** = 100 x expected models removed
  x the target's points per model / points spent (how much of the enemy's
  army the shot is worth: 100 means the volley removes, on average, as many
  points as the firers cost).

The expected models removed is ``Outcome.mean`` of the system's own
resolution, so the unit-size cap and every rule of the system count. The
shipped profiles' points are illustrative (the seeds give no costs): each
unit lists ``points`` in its ``illustrative`` stats, and every table here
says so.
"""
from __future__ import annotations

import html
import itertools
import numbers
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any, Iterable, Sequence

import pandas as pd

from . import profiles, systems
from .errors import InputError
from .grid import system_keys
from .outcome import Outcome
from .profiles import Unit, Weapon
from . import validate as v
from .validate import stat_function

__all__ = ["Efficiency", "efficiency", "matchup", "matchups", "rank", "table_html", "BY", "PER"]

#: points the figures are given per
PER = 100
#: the columns of :func:`rank`, in order
RANK_COLUMNS = ("rank", "system", "system_name", "attacker", "weapon", "target", "matchup", "firers", "shots",
                "points_per_model", "points_spent", "expected_removed", "removed_per_100", "target_points_per_model",
                "points_removed_per_100", "illustrative")
#: what :func:`rank` can sort by (column name -> words)
BY = {"removed_per_100": "models removed per 100 points",
      "points_removed_per_100": "target points removed per 100 points"}


@dataclass(frozen=True)
class Efficiency:
    """One matchup's points efficiency (see the module docstring for the definitions)."""

    system: str
    attacker: str
    weapon: str
    target: str
    firers: float
    points_per_model: int
    points_spent: float
    expected_removed: float
    removed_per_100: float
    target_points_per_model: int | None
    points_removed_per_100: float | None
    illustrative: bool

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _points(role: str, unit: Any) -> int:
    if not isinstance(unit, Unit):
        raise InputError(role, "a Unit (a loaded profile)", type(unit).__name__)
    if unit.points is None:
        raise InputError(f"{role}.points", f"a points cost per model (points = N in {unit.path or unit.name})",
                         None, f"{unit.name} has no points cost")
    return unit.points


@stat_function
def efficiency(outcome: Outcome, attacker: Unit, *, firers: int | float | None = None,
               weapon: Weapon | str | None = None, target: Unit | None = None) -> Efficiency:
    """The points efficiency of ``outcome``, fired by ``firers`` models of ``attacker``.

    ``firers`` defaults to the outcome's shots divided by the weapon's shots
    per model (``weapon`` then required), so an outcome of 10 shots of a
    one-shot gun was fired by 10 models. ``target`` (a Unit with points)
    adds the target points removed per 100 points.
    """
    if not isinstance(outcome, Outcome):
        raise InputError("outcome", "a workbench Outcome", type(outcome).__name__)
    cost = _points("attacker", attacker)
    if isinstance(weapon, str):
        weapon = attacker.weapon(weapon)
    if weapon is not None and not isinstance(weapon, Weapon):
        raise InputError("weapon", "a Weapon or a weapon name", type(weapon).__name__)
    if firers is None:
        if weapon is None or outcome.attacks is None:
            raise InputError("firers", "the number of firing models (or a weapon and an outcome with shots)",
                             None)
        firers = outcome.attacks / weapon["shots"]
    if isinstance(firers, bool) or not isinstance(firers, numbers.Real) or not float(firers) > 0:
        raise InputError("firers", "a number of firing models above 0", firers)
    spent = float(firers) * cost
    mean = outcome.mean
    target_cost = None if target is None else _points("target", target)
    illustrative = any("points" in u.illustrative or u.source == "illustrative" for u in (attacker, target)
                       if u is not None)
    return Efficiency(
        system=outcome.system, attacker=attacker.name, weapon=weapon.name if weapon is not None else "",
        target=target.name if target is not None else "", firers=float(firers), points_per_model=cost,
        points_spent=spent, expected_removed=mean, removed_per_100=PER * mean / spent,
        target_points_per_model=target_cost,
        points_removed_per_100=None if target_cost is None else PER * mean * target_cost / spent,
        illustrative=illustrative)


@stat_function
def matchup(system: str, attacker: Unit | str, weapon: Weapon | str, target: Unit | str, *,
            firers: int | None = None, **situation: Any) -> tuple[Outcome, Efficiency]:
    """Resolve ``attacker`` firing ``weapon`` at ``target`` (profiles, see
    :func:`workbench.profiles.matchup_kwargs`) with ``firers`` models (default:
    the whole unit) and read its efficiency: ``(outcome, efficiency)``."""
    attacker, weapon, target = profiles.checked_pair(system, attacker, weapon, target)
    firers = attacker.models if firers is None else firers
    kwargs = profiles.matchup_kwargs(system, attacker, weapon, target, firers=firers, **situation)
    out = systems.get(system).shooting(**kwargs)
    return out, efficiency(out, attacker, firers=firers, weapon=weapon, target=target)


@stat_function
def matchups(systems_: Iterable[str] | None = None) -> list[tuple[str, Unit, Weapon, Unit]]:
    """Every shipped (system, attacker, ranged weapon, target) of one system
    against its own units, for the units that carry points."""
    out = []
    for key in system_keys(systems_, profiles.profile_systems()):
        units = [u for u in profiles.list_units(key) if u.points is not None]
        out += [(key, attacker, weapon, target) for attacker, target in itertools.product(units, units)
                for weapon in attacker.weapons if weapon.stats.get("class") != "melee"]
    return out


#: the largest denominator of the exact value a measure is ranked on
EXACT_DENOMINATOR = 10**6


def _exact(value: float | None) -> Fraction:
    """The measure as the nearest Fraction with a denominator up to :data:`EXACT_DENOMINATOR`, so
    that equal values a float pipeline leaves 1e-14 apart, either way (29.99999999999999 and
    29.999999999999982), tie on every machine; a measure without a value (no target points) ranks last."""
    if value is None or value != value:  # None or NaN
        return Fraction(-1)
    return Fraction(value).limit_denominator(EXACT_DENOMINATOR)


@stat_function
def rank(pairs: Sequence[tuple[str, Any, Any, Any]] | None = None, *, by: str = "removed_per_100",
         firers: int | None = None, systems_: Iterable[str] | None = None) -> pd.DataFrame:
    """Rank matchups by points efficiency, side by side across systems.

    ``pairs``: (system, attacker, weapon, target) tuples (units and weapons
    as objects or names); default every shipped matchup (:func:`matchups`,
    of ``systems_`` or of all four systems). Each is resolved exactly with
    ``firers`` models (default: the whole firing unit). ``by``: a column of
    :data:`BY`. Returns one row per system x matchup, best first (ties in
    the systems' order, then in the order given; the measure is compared as
    an exact Fraction, so float noise never breaks a tie), in the columns of :data:`RANK_COLUMNS`.
    """
    by = v.choice("by", by, BY)
    if pairs is not None and not isinstance(pairs, (list, tuple)):
        raise InputError("pairs", "a list of (system, attacker, weapon, target) matchups", pairs)
    pairs = matchups(systems_) if pairs is None else list(pairs)
    if not pairs:
        raise InputError("pairs", "at least one (system, attacker, weapon, target) matchup with points", pairs)
    rows = []
    for i, item in enumerate(pairs):
        if not isinstance(item, (tuple, list)) or len(item) != 4:
            raise InputError(f"pairs[{i}]", "a (system, attacker, weapon, target) tuple", item)
        key, attacker, weapon, target = item
        out, eff = matchup(key, attacker, weapon, target, firers=firers)
        row = eff.as_dict()
        row.update(system_name=systems.get(key).name, shots=out.attacks,
                   matchup=f"{eff.firers:g} {eff.attacker} ({eff.weapon}) at {eff.target}", order=i)
        rows.append(row)
    df = pd.DataFrame(rows)
    df["_sys"] = df["system"].map({k: n for n, k in enumerate(systems.keys())})
    df["_exact"] = [_exact(v) for v in df[by]]
    df = df.sort_values(["_exact", "_sys", "order"], ascending=[False, True, True], kind="stable")
    # a tie shows one number: the float noise that the exact comparison ignored would otherwise
    # print a tied pair as 30.000000000000004 above 29.99999999999998
    df[by] = df.groupby("_exact", sort=False)[by].transform("first")
    df["rank"] = range(1, len(df) + 1)
    df = df[list(RANK_COLUMNS)].reset_index(drop=True)  # without the sorting keys
    df.attrs["by"] = by
    return df


@stat_function
def table_html(df: pd.DataFrame, *, top: int | None = None) -> str:
    """The ranking as a small HTML table in a playtester's words (the best
    ``top`` rows, default all), with a note when the points are illustrative."""
    if not isinstance(df, pd.DataFrame) or not set(RANK_COLUMNS) <= set(df.columns):
        raise InputError("df", "a ranking from workbench.points.rank()", type(df).__name__)
    top = v.optional_integer("top", top, 1)
    shown = df if top is None else df.head(top)
    head = ("#", "system", "matchup", "points spent", "expected removed", "removed per 100 pts",
            "target pts removed per 100 pts")
    body = []
    for r in shown.itertuples():
        pts = "–" if pd.isna(r.points_removed_per_100) else f"{r.points_removed_per_100:.1f}"
        cells = (str(r.rank), r.system_name, r.matchup, f"{r.points_spent:g}", f"{r.expected_removed:.2f}",
                 f"{r.removed_per_100:.2f}", pts)
        body.append(f'<tr class="wb-points-{html.escape(r.system)}">'
                    + "".join(f'<td data-label="{html.escape(h)}">{html.escape(c)}</td>'
                              for h, c in zip(head, cells)) + "</tr>")
    note = ""
    if bool(shown["illustrative"].any()):
        note = ("<p class='wb-note'>Points costs are illustrative: the source rules give none "
                "(each profile marks its points as invented).</p>")
    by = BY.get(df.attrs.get("by", "removed_per_100"), "")
    return (f"<table class='wb-table wb-points'><caption>Ranked by {html.escape(by)}</caption><thead><tr>"
            + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>" + "".join(body)
            + "</tbody></table>" + note)
