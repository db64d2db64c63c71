"""Unit and weapon profiles as TOML files, one per unit (``profiles/<system>/<key>.toml``, the
format in docs/rules.md, "Profiles: the file format"), and their turn into stat-level arguments.

``source`` says where a profile's numbers come from: ``"seed"`` (the forum post in
``shared/seeds/``), ``"rules"`` (a RULES.md reference example) or ``"illustrative"`` (invented
for the workbench). Each system's fields and ranges, the mapping of a profile pair to stat-level
arguments and the basic matchup are in its description (``systems.get(key).profiles``). Every
problem with a file raises :class:`~workbench.errors.ProfileError` naming the file, the field,
what was expected and what was found.
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping, cast

from . import systems
from .errors import InputError, ProfileError
from .systems.description import MISSING, ProfileField, Profiles
from .validate import did_you_mean, integer

__all__ = [
    "Unit", "Weapon", "SOURCES", "PROFILES_ENV", "profiles_dir", "profiles_dirs", "load_unit", "list_units",
    "get_unit", "checked_pair", "profile_kwargs", "matchup_kwargs", "basic_matchup", "profile_systems",
]

SOURCES = ("seed", "rules", "illustrative")


def profile_systems() -> tuple[str, ...]:
    """The systems whose description has unit profiles."""
    return tuple(k for k in systems.keys() if systems.get(k).profiles is not None)


def _schema(system: str):
    return systems.get(_system(system)).profiles


#: the fields every unit has (and ``system``, one of :func:`profile_systems`)
_UNIT_COMMON = {
    "name": ProfileField("str"),
    "source": ProfileField("choice", allowed=SOURCES),
    "note": ProfileField("str", default=""),
    "models": ProfileField("int", 1, 1000, doc="unit size"),
    "points": ProfileField("int", 1, 10_000, default=None, doc="points cost per model"),
}
_WEAPON_COMMON = {k: _UNIT_COMMON[k] for k in ("name", "source", "note")}


@dataclass(frozen=True)
class Weapon:
    """One weapon of a unit: its name, its stats (a read-only mapping), where
    the numbers come from, and which of them are invented."""

    name: str
    stats: Mapping[str, Any]
    source: str
    note: str = ""
    illustrative: tuple[str, ...] = ()

    def __getitem__(self, key: str) -> Any:
        return self.stats[key]

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.stats.items())), self.source))


@dataclass(frozen=True)
class Unit:
    """A unit profile loaded from ``path``: ``stats`` is read-only, ``weapons`` a tuple."""

    system: str
    key: str
    name: str
    source: str
    models: int
    stats: Mapping[str, Any]
    weapons: tuple[Weapon, ...]
    note: str = ""
    illustrative: tuple[str, ...] = ()
    path: str = field(default="", compare=False)
    #: points cost per model (None: the file gives none)
    points: int | None = None

    def __getitem__(self, key: str) -> Any:
        return self.stats[key]

    def __hash__(self) -> int:
        return hash((self.system, self.key, self.name, tuple(sorted(self.stats.items())), self.weapons))

    def weapon(self, name: str) -> Weapon:
        """A weapon by name (case-insensitive)."""
        for w in self.weapons:
            if w.name.lower() == str(name).lower():
                return w
        raise InputError("weapon", "one of " + ", ".join(repr(w.name) for w in self.weapons)
                         + f" (the weapons of {self.name})", name)


# -- loading ---------------------------------------------------------------
def profiles_dir() -> Path:
    """The shipped profiles folder: ``profiles/`` of the checkout, or its copy
    inside an installed wheel (:func:`workbench.resources.data_dir`)."""
    from .resources import data_dir
    return data_dir("profiles")


#: the environment variable naming the designer's own profile folders
PROFILES_ENV = "WORKBENCH_PROFILES"


def profiles_dirs() -> list[Path]:
    """The profile folders, searched in order: each folder of
    ``$WORKBENCH_PROFILES`` (separated by ``os.pathsep``, ``:`` or ``;`` on
    Windows, as in ``PATH``), then the shipped :func:`profiles_dir`.

    A designer's folder ADDS to the shipped profiles; it has the same layout
    (``<folder>/<system>/<key>.toml``). When two folders hold a unit of the
    same system with the same file name, the one found first wins, so a
    designer's ``changes/space_marine.toml`` replaces the shipped Space
    Marine. A named folder that does not exist raises
    :class:`~workbench.errors.ProfileError` (a typo is not silently ignored).
    """
    out: list[Path] = []
    for entry in os.environ.get(PROFILES_ENV, "").split(os.pathsep):
        if not entry.strip():
            continue
        folder = Path(entry).expanduser()
        if not folder.is_dir():
            raise ProfileError(folder, PROFILES_ENV, "an existing folder of profiles "
                               "(<folder>/<system>/<unit>.toml)", "no such folder")
        out.append(folder)
    shipped = profiles_dir()
    if all(shipped.resolve() != f.resolve() for f in out):
        out.append(shipped)
    return out


def _check_table(path: Path, where: str, table: Any, specs: Mapping[str, ProfileField],
                 stat_names: list[str]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The table's fields checked against ``specs``, and its ``illustrative`` stats (among ``stat_names``)."""
    if not isinstance(table, dict):
        raise ProfileError(path, where, "a table", table)
    known = list(specs) + ["illustrative"]
    for key in table:
        if key not in known:
            hint = did_you_mean(key, known)
            raise ProfileError(path, f"{where}.{key}", "one of the keys " + ", ".join(known)
                               + (f"; {hint}" if hint else ""), key)
    out = {}
    for key, spec in specs.items():
        value = table.get(key, spec.default)
        if value is MISSING or (key in table and not spec.check(value)):   # missing without a default, or wrong
            raise ProfileError(path, f"{where}.{key}", spec.expected(), value)
        out[key] = value
    invented = table.get("illustrative", [])
    expected = "a list of stat names among " + ", ".join(stat_names)
    if not isinstance(invented, list) or not all(isinstance(x, str) for x in invented):
        raise ProfileError(path, f"{where}.illustrative", expected, invented)
    for x in invented:
        if x not in stat_names:
            raise ProfileError(path, f"{where}.illustrative", expected, x)
    return out, tuple(invented)


def load_unit(path: str | os.PathLike) -> Unit:
    """Load and validate one unit file. When the file sits in a folder named
    after a system, its ``unit.system`` must be that system."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_bytes().decode("utf-8"))
    except OSError as exc:
        raise ProfileError(path, "file", "a readable TOML file", exc.strerror or str(exc)) from None
    except UnicodeDecodeError as exc:
        raise ProfileError(path, "toml syntax", "UTF-8 text", str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(path, "toml syntax", "valid TOML", str(exc)) from None
    for key in data:
        if key not in ("unit", "weapons"):
            raise ProfileError(path, key, "only the tables [unit] and [[weapons]]", key)
    unit = data.get("unit", MISSING)
    if not isinstance(unit, dict):
        raise ProfileError(path, "unit", "a [unit] table", unit)
    system = unit.get("system", MISSING)
    known = profile_systems()
    system_field = ProfileField("choice", allowed=known)
    if not system_field.check(system):
        raise ProfileError(path, "unit.system", system_field.expected(), system)
    folder = path.parent.name
    if folder in known and folder != system:
        raise ProfileError(path, "unit.system", f"{folder!r} (the folder the file is in)", system)
    schema = cast(Profiles, systems.get(system).profiles)  # one of profile_systems(), the systems with profiles
    unit_specs, weapon_specs = schema.unit, schema.weapon
    specs = {"system": system_field, **_UNIT_COMMON, **unit_specs}
    checked, ill = _check_table(path, "unit", unit, specs, list(unit_specs) + ["models", "points"])

    weapons_raw = data.get("weapons", MISSING)
    if not isinstance(weapons_raw, list) or not weapons_raw:
        raise ProfileError(path, "weapons", "at least one [[weapons]] table", weapons_raw)
    weapons: list[Weapon] = []
    wspecs = {**_WEAPON_COMMON, **weapon_specs}
    for i, w in enumerate(weapons_raw):
        where = f"weapons[{i}]"
        wc, wil = _check_table(path, where, w, wspecs, list(weapon_specs))
        if any(x.name.lower() == wc["name"].lower() for x in weapons):
            raise ProfileError(path, f"{where}.name", "a weapon name not used twice in the unit", wc["name"])
        weapons.append(Weapon(name=wc["name"], source=wc["source"], note=wc["note"], illustrative=wil,
                              stats=MappingProxyType({k: wc[k] for k in weapon_specs})))
    return Unit(system=system, key=path.stem, name=checked["name"], source=checked["source"],
                models=checked["models"], note=checked["note"], illustrative=ill, points=checked["points"],
                stats=MappingProxyType({k: checked[k] for k in unit_specs}),
                weapons=tuple(weapons), path=str(path))


def list_units(system: str | None = None) -> list[Unit]:
    """Every unit (of one system, or of all), sorted by system then file name:
    the shipped ones plus the designer's (:func:`profiles_dirs`; the first
    folder holding a system/file name wins)."""
    keys = profile_systems() if system is None else (_system(system),)
    folders = profiles_dirs()
    out: list[Unit] = []
    for s in keys:
        found: dict[str, Path] = {}
        for base in folders:
            for p in (base / s).glob("*.toml"):   # nothing from a folder that is not there
                found.setdefault(p.stem, p)
        out.extend(load_unit(found[k]) for k in sorted(found))
    return out


def _system(system: Any) -> str:
    """``system`` if it is a system with profiles, else an InputError naming those systems."""
    known = profile_systems()
    if not isinstance(system, str) or system not in known:
        hint = (f"{system!r} has no unit profiles" if isinstance(system, str) and system in systems.keys()
                else None)
        raise InputError("system", "one of " + ", ".join(repr(k) for k in known) + " (the systems with profiles)",
                         system, hint)
    return system


def get_unit(system: str, name: str) -> Unit:
    """A unit of ``system`` by file name (``space_marine``) or by name
    (``Space Marine``), case-insensitive."""
    units = list_units(system)
    wanted = str(name).lower()
    for u in units:
        if wanted in (u.key.lower(), u.name.lower()):
            return u
    raise InputError("name", "one of " + ", ".join(repr(u.key) for u in units) + f" (units of {system})", name)


# -- matchups ----------------------------------------------------------------
def basic_matchup(system: str) -> tuple[Unit, Weapon, Unit]:
    """(attacker, weapon, target) of the system's basic matchup (a basic
    trooper firing its basic gun at a basic trooper; its description's
    ``profiles.basic``)."""
    a, w, t = _schema(system).basic
    attacker = get_unit(system, a)
    return attacker, attacker.weapon(w), get_unit(system, t)


def checked_pair(system: str, attacker, weapon, target) -> tuple[Unit, Weapon, Unit]:
    """(attacker, weapon, target) of ``system``, each given as itself or by name, checked."""
    if isinstance(attacker, str):
        attacker = get_unit(system, attacker)
    if isinstance(target, str):
        target = get_unit(system, target)
    for role, u in (("attacker", attacker), ("target", target)):
        if not isinstance(u, Unit):
            raise InputError(role, "a Unit or a unit name", u)
        if u.system != system:
            raise InputError(role, f"a unit of {system!r}", f"{u.name} ({u.system})")
    if isinstance(weapon, str):
        weapon = attacker.weapon(weapon)
    if not isinstance(weapon, Weapon):
        raise InputError("weapon", "a Weapon or a weapon name", weapon)
    return attacker, weapon, target


def profile_kwargs(system: str, attacker: Unit | str, weapon: Weapon | str, target: Unit | str,
                   **situation: Any) -> tuple[str, dict[str, Any]]:
    """``(mode, keyword arguments)`` for ``attacker`` using ``weapon`` on
    ``target``, as the system's description maps them (its
    ``profiles.to_kwargs``): the mode is the dashboard mode the weapon loads
    ("shooting"; "melee" for a changes melee weapon). ``models`` is the
    target's unit size."""
    system = _system(system)
    attacker, weapon, target = checked_pair(system, attacker, weapon, target)
    mode, out = _schema(system).to_kwargs(attacker, weapon, target, situation)
    return mode, dict(out, models=target.models)


def matchup_kwargs(system: str, attacker: Unit | str, weapon: Weapon | str, target: Unit | str,
                   *, firers: int = 1, **situation: Any) -> dict[str, Any]:
    """Keyword arguments of ``<system>.shooting`` for ``attacker`` firing
    ``weapon`` at ``target``.

    Units may be given as loaded :class:`Unit` objects or by name, the weapon
    as a :class:`Weapon` or by name. ``shots`` = the weapon's shots per model
    x ``firers`` (the number of firing models, default 1); ``models`` = the
    target's unit size. Any ``situation`` keyword (``action="snap"``,
    ``cover=1``, ``range="close"``, ``shots=10``, ``models=None``...) is passed
    through and overrides the profile-derived value; a keyword the system's
    ``shooting`` does not take raises :class:`InputError`.
    """
    system = _system(system)
    attacker, weapon, target = checked_pair(system, attacker, weapon, target)
    firers = integer("firers", firers, 1)
    mode, out = profile_kwargs(system, attacker, weapon, target, **situation)
    if mode != "shooting":
        raise InputError("weapon", "a shooting weapon", weapon.name, f"{weapon.name} is a {mode} weapon")
    out["shots"] = weapon["shots"] * firers
    accepted = set(systems.get(system).arguments("shooting"))
    for key in situation:
        if key not in accepted:
            raise InputError("situation", f"a keyword of {system}.shooting: " + ", ".join(sorted(accepted)),
                             key, did_you_mean(key, sorted(accepted)))
    out.update(situation)
    return out
