"""The profile matchups a change moves most (:func:`movers`), and their rows
as a post's table writes them."""
from __future__ import annotations

from typing import Any, Mapping

import pandas as pd

from ..errors import InputError, WorkbenchError
from .sweep import NOISE
from .variant import Variant, _as_variant, _controls, stat_words

__all__ = ["movers", "MOVER_HEAD", "mover_rows"]


def _situations(v: Variant, fixed: set[str]) -> list[dict[str, Any]]:
    """The situations a dashboard offers, one switch at a time: every other choice of each
    dropdown and each checkbox turned over, the rest at their defaults."""
    out: list[dict[str, Any]] = [{}]
    for c in _controls(v.description, v.function).values():
        if c.name in fixed:
            continue
        if c.kind == "choice":
            out += [{c.name: o} for o in c.options if o != c.default]
        elif c.kind == "bool":
            out.append({c.name: not c.default})
    return out


def _profile_matchups(a: Variant, b: Variant) -> list[tuple[str, str, dict[str, Any]]]:
    """(plain matchup's words, words, keywords) of every profile matchup of the variants' system with profiles, in every situation."""
    from .. import profiles
    system = next((v.description for v in (a, b) if v.description.profiles is not None
                   and v.key in profiles.profile_systems()), None)
    if system is None:
        return []
    fixed = set(_own(a, b)) | set(_own(b, a))
    situations = _situations(a, fixed)
    out = []
    units = profiles.list_units(system.key)
    for attacker in units:
        for weapon in attacker.weapons:
            for target in units:
                try:
                    mode, kw = profiles.profile_kwargs(system.key, attacker, weapon, target)
                except InputError:
                    continue
                if system.mode(mode).function != a.function:
                    continue
                base = f"{attacker.name} ({weapon.name}) at {target.name}"
                for s in situations:
                    if any(kw.get(k) == val for k, val in s.items()):
                        continue
                    words = base + "".join(", " + stat_words(a.description, a.function, k, val)
                                           for k, val in s.items())
                    out.append((base, words, {**kw, **s}))
    return out


def _own(v: Variant, other: Variant) -> dict[str, Any]:
    """The settings of ``v`` that make the change: for the same system, those ``other`` does not
    share (a setting both fix is the grid's context, not the profile's: a Boltgun stays light)."""
    if v.key != other.key or v.path != other.path:
        return dict(v.settings)
    theirs = dict(other.settings)
    return {k: val for k, val in v.settings if k not in theirs or theirs[k] != val}


def _one(v: Variant, kwargs: Mapping[str, Any], settings: Mapping[str, Any]):
    accepted = v.arguments()
    fn = v.description.function(v.function)
    return fn(**{**{k: val for k, val in kwargs.items() if k in accepted}, **settings})


def movers(a: Any, b: Any, df: pd.DataFrame | None = None, top: int = 8) -> pd.DataFrame:
    """The matchups the change from ``a`` to ``b`` moves most (by |change of expected removals|).

    The matchups are the unit profiles of the variants' system (shipped and
    the designer's, :func:`workbench.profiles.list_units`): every attacker
    with each of its weapons at every target, as each dashboard situation
    (one switch or choice at a time) has it, with the settings that make the
    change (those the two variants do not share). A system without profiles (a
    rule file) ranks the cells of the grid of ``df`` (a :func:`diff`)
    instead. A matchup one variant refuses (evading against aimed fire) is
    left out. Only matchups that move are listed. Columns: ``matchup``,
    ``mean_a``, ``mean_b``, ``mean_diff``, ``p_at_least_1_diff``.
    """
    a, b = _as_variant(a, "a"), _as_variant(b, "b")
    rows = []
    plain: dict[str, tuple[float, float]] = {}
    for base, words, kw in _profile_matchups(a, b):
        try:
            oa, ob = _one(a, kw, _own(a, b)), _one(b, kw, _own(b, a))
        except WorkbenchError:
            continue
        numbers = (round(oa.mean, 9), round(ob.mean, 9))
        if words != base and plain.get(base) == numbers:
            continue  # a situation that changes nothing here: the plain matchup's row says it
        plain.setdefault(base, numbers)
        rows.append(dict(matchup=words, mean_a=oa.mean, mean_b=ob.mean, mean_diff=ob.mean - oa.mean,
                         p_at_least_1_diff=ob.at_least(1) - oa.at_least(1)))
    if not rows and df is not None:
        for rec in df.to_dict("records"):
            words = ", ".join(stat_words(a.description, a.function, k, rec[k]) for k in df.attrs["grid"])
            rows.append(dict(rec, matchup=words))  # the columns below pick what the table shows
    out = pd.DataFrame(rows, columns=["matchup", "mean_a", "mean_b", "mean_diff", "p_at_least_1_diff"])
    out["mean_diff"] = out["mean_diff"].where(out["mean_diff"].abs() >= NOISE, 0.0)
    out = out[out["mean_diff"] != 0]
    out = out.reindex(out["mean_diff"].abs().sort_values(ascending=False, kind="stable").index).head(top)
    return out.reset_index(drop=True)


def mover_rows(table: pd.DataFrame) -> list[list[str]]:
    return [[r.matchup, f"{r.mean_a:.2f}", f"{r.mean_b:.2f}", f"{r.mean_diff:+.2f}",
             f"{100 * r.p_at_least_1_diff:+.1f} points"] for r in table.itertuples()]


MOVER_HEAD = ("matchup", "before", "after", "change", "chance of at least one")
