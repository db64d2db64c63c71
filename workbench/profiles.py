"""Unit and weapon profiles as TOML files, and their turn into stat-level arguments.

Layout: one file per unit, ``profiles/<system>/<key>.toml``::

    [unit]
    system = "changes"            # must match the folder the file is in
    name = "Space Marine"
    source = "seed"               # "seed" | "rules" | "illustrative"
    note = "..."                  # optional free text
    illustrative = ["i"]          # optional: stats invented for the workbench
    models = 5                    # unit size used by matchups (the cap)
    points = 18                   # optional: points cost per model
    bs = 5                        # the system's own stats (see SCHEMAS)
    ...

    [[weapons]]                   # at least one
    name = "Boltgun"
    source = "rules"
    shots = 1
    ...

``source`` says where the numbers come from: ``"seed"`` (the forum post in
``shared/seeds/``), ``"rules"`` (a RULES.md reference example) or
``"illustrative"`` (invented for the workbench, plausible but not the
designer's). ``illustrative`` lists single stats that are invented inside an
otherwise seeded profile (gunfire's Laansguard has the seed's T1 but an
invented BS).

Stat conventions (see :data:`SCHEMAS` for every field and its range):

* changes: a *roll stat* is stored as its target number, ``bs = 5`` means
  "BS 5+" on a D12; a *modifier stat* is stored as the number added,
  ``t = 2`` means "T +2"; W, I, A are plain values.
* forgotten: every stat is a d10 target number (lower is better), armour is a
  word ("none", "light", "heavy").
* gunfire: plain stat values compared by the opposed test.
* antares: stats out of 10 for the roll-under test.

Every problem with a file raises :class:`~workbench.errors.ProfileError`
naming the file, the field, what was expected and what was found.
"""
from __future__ import annotations

import difflib
import inspect
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from .errors import InputError, ProfileError

__all__ = [
    "Unit", "Weapon", "SCHEMAS", "SOURCES", "BASIC_MATCHUPS", "profiles_dir", "load_unit",
    "list_units", "get_unit", "matchup_kwargs", "basic_matchup",
]

SYSTEM_KEYS = ("changes", "forgotten", "gunfire", "antares")
SOURCES = ("seed", "rules", "illustrative")


class _MissingType:
    def __repr__(self) -> str:
        return "nothing (the key is missing)"


MISSING = _MissingType()


@dataclass(frozen=True)
class Spec:
    """What one TOML field may hold."""

    kind: str                      # "int" | "str" | "bool" | "choice"
    lo: int | None = None
    hi: int | None = None
    allowed: tuple = ()
    default: Any = MISSING         # MISSING: required
    doc: str = ""

    def expected(self) -> str:
        if self.kind == "int":
            if self.lo is not None and self.hi is not None:
                text = f"a whole number from {self.lo} to {self.hi}"
            elif self.lo is not None:
                text = f"a whole number {self.lo} or more"
            else:
                text = "a whole number"
        elif self.kind == "str":
            text = "a non-empty string"
        elif self.kind == "bool":
            text = "true or false"
        else:
            text = "one of " + ", ".join(repr(a) for a in self.allowed)
        return text + (f" ({self.doc})" if self.doc else "")

    def check(self, value: Any) -> bool:
        if self.kind == "int":
            return (isinstance(value, int) and not isinstance(value, bool)
                    and (self.lo is None or value >= self.lo) and (self.hi is None or value <= self.hi))
        if self.kind == "str":
            return isinstance(value, str) and value.strip() != ""
        if self.kind == "bool":
            return isinstance(value, bool)
        return isinstance(value, str) and value in self.allowed


def _roll(doc: str) -> Spec:
    return Spec("int", 1, 13, doc=f"{doc}; the D12 target, 5 means 5+")


def _mod(doc: str) -> Spec:
    return Spec("int", -12, 12, doc=f"{doc}; the modifier added, 2 means +2")


def _d10(doc: str) -> Spec:
    return Spec("int", 1, 11, doc=f"{doc}; d10 target number, 6 means 6+")


def _out_of_10(doc: str) -> Spec:
    return Spec("int", 0, 10, doc=f"{doc}; out of 10")


def _g(doc: str) -> Spec:
    return Spec("int", 0, 20, doc=doc)


_SHOTS = Spec("int", 1, 100, doc="dice per model")

#: per system: (unit stats, weapon stats). Common keys (name, source, note,
#: illustrative, system, models) are checked for every system.
SCHEMAS: dict[str, tuple[dict[str, Spec], dict[str, Spec]]] = {
    "changes": (
        {"ws": _roll("Weapon Skill"), "bs": _roll("Ballistic Skill"), "s": _roll("Strength"),
         "t": _mod("Toughness"), "w": Spec("int", 1, 100, doc="Wounds"),
         "i": Spec("int", 0, 20, doc="Initiative"), "a": Spec("int", 0, 100, doc="Attacks"),
         "ld": _roll("Leadership"), "sv": _mod("armour Save"), "d": _mod("Dodge"),
         "inv": _mod("Invulnerable")},
        {"s": _roll("Strength"), "ap": _roll("Armour Piercing"), "shots": _SHOTS,
         "class": Spec("choice", allowed=("light", "heavy", "melee"), doc="weapon class")},
    ),
    "forgotten": (
        {"shoot": _d10("SHOOT"), "cqc": _d10("CQC"), "phys": _d10("PHYS"),
         "armour": Spec("choice", allowed=("none", "light", "heavy"), doc="armour level"),
         "defence": Spec("int", 0, 20, default=None, doc="damage v1 Defence"),
         "shield": Spec("bool", default=False, doc="carries a shield")},
        {"shots": _SHOTS, "attack_power": Spec("int", 0, 11, doc="ATTACK POWER, roll above it to kill"),
         "damage": Spec("int", 0, 20, default=None, doc="damage v1 Damage"),
         "class": Spec("choice", allowed=("ranged", "melee"), default="ranged", doc="weapon class")},
    ),
    "gunfire": (
        {"bs": _g("Ballistic Skill"), "ev": _g("Evasion"), "av": _g("Armour Value"),
         "t": Spec("int", 1, 20, doc="Toughness")},
        {"s": Spec("int", 1, 20, doc="Strength"), "ap": _g("Armour Piercing"), "shots": _SHOTS,
         "explosive": Spec("int", 1, 20, default=None, doc="Explosive X")},
    ),
    "antares": (
        {"ag": _out_of_10("Agility"), "acc": _out_of_10("Accuracy"), "res": _out_of_10("Resist"),
         "str": _out_of_10("Strength"), "init": _out_of_10("Initiative"), "cou": _out_of_10("Courage"),
         "tech": _out_of_10("Technology"), "com": _out_of_10("Compute"),
         "armour": Spec("int", 0, 10, default=0, doc="armour bonus to Res")},
        {"sv": Spec("int", 0, 10, doc="strike value, subtracted from Res"), "shots": _SHOTS},
    ),
}

_UNIT_COMMON = {
    "system": Spec("choice", allowed=SYSTEM_KEYS),
    "name": Spec("str"),
    "source": Spec("choice", allowed=SOURCES),
    "note": Spec("str", default=""),
    "models": Spec("int", 1, 1000, doc="unit size"),
    "points": Spec("int", 1, 10_000, default=None, doc="points cost per model"),
}
_WEAPON_COMMON = {
    "name": Spec("str"),
    "source": Spec("choice", allowed=SOURCES),
    "note": Spec("str", default=""),
}


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
    """The profiles folder: ``$WORKBENCH_PROFILES`` or ``profiles/`` of the checkout."""
    env = os.environ.get("WORKBENCH_PROFILES")
    return Path(env) if env else Path(__file__).resolve().parents[1] / "profiles"


def _check_table(path: Path, where: str, table: Any, specs: dict[str, Spec],
                 extra_ok: tuple[str, ...] = ()) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise ProfileError(path, where, "a table", table)
    known = list(specs) + list(extra_ok)
    for key in table:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ProfileError(path, f"{where}.{key}", "one of the keys " + ", ".join(known) + hint,
                               key)
    out = {}
    for key, spec in specs.items():
        value = table.get(key, MISSING)
        if value is MISSING:
            if spec.default is MISSING:
                raise ProfileError(path, f"{where}.{key}", spec.expected(), MISSING)
            out[key] = spec.default
            continue
        if not spec.check(value):
            raise ProfileError(path, f"{where}.{key}", spec.expected(), value)
        out[key] = value
    return out


def _illustrative(path: Path, where: str, value: Any, stat_names: list[str]) -> tuple[str, ...]:
    expected = "a list of stat names among " + ", ".join(stat_names)
    if value is MISSING:
        return ()
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ProfileError(path, f"{where}.illustrative", expected, value)
    for x in value:
        if x not in stat_names:
            raise ProfileError(path, f"{where}.illustrative", expected, x)
    return tuple(value)


def load_unit(path: str | os.PathLike) -> Unit:
    """Load and validate one unit file. When the file sits in a folder named
    after a system, its ``unit.system`` must be that system."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ProfileError(path, "file", "a readable TOML file", exc.strerror or str(exc)) from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ProfileError(path, "toml syntax", "UTF-8 text", str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(path, "toml syntax", "valid TOML", str(exc)) from None
    for key in data:
        if key not in ("unit", "weapons"):
            raise ProfileError(path, key, "only the tables [unit] and [[weapons]]", key)
    if "unit" not in data:
        raise ProfileError(path, "unit", "a [unit] table", MISSING)
    unit = data["unit"]
    if not isinstance(unit, dict):
        raise ProfileError(path, "unit", "a [unit] table", unit)
    system = unit.get("system", MISSING)
    if not _UNIT_COMMON["system"].check(system):
        raise ProfileError(path, "unit.system", _UNIT_COMMON["system"].expected(), system)
    folder = path.parent.name
    if folder in SYSTEM_KEYS and folder != system:
        raise ProfileError(path, "unit.system", f"{folder!r} (the folder the file is in)", system)
    unit_specs, weapon_specs = SCHEMAS[system]
    specs = {**_UNIT_COMMON, **unit_specs}
    checked = _check_table(path, "unit", unit, specs, extra_ok=("illustrative",))
    ill = _illustrative(path, "unit", unit.get("illustrative", MISSING), list(unit_specs) + ["models", "points"])

    weapons_raw = data.get("weapons", MISSING)
    if not isinstance(weapons_raw, list) or not weapons_raw:
        raise ProfileError(path, "weapons", "at least one [[weapons]] table", weapons_raw)
    weapons = []
    wspecs = {**_WEAPON_COMMON, **weapon_specs}
    for i, w in enumerate(weapons_raw):
        where = f"weapons[{i}]"
        wc = _check_table(path, where, w, wspecs, extra_ok=("illustrative",))
        wil = _illustrative(path, where, w.get("illustrative", MISSING) if isinstance(w, dict) else MISSING,
                            list(weapon_specs))
        if any(x.name.lower() == wc["name"].lower() for x in weapons):
            raise ProfileError(path, f"{where}.name", "a weapon name not used twice in the unit", wc["name"])
        weapons.append(Weapon(name=wc["name"], source=wc["source"], note=wc["note"], illustrative=wil,
                              stats=MappingProxyType({k: wc[k] for k in weapon_specs})))
    return Unit(system=system, key=path.stem, name=checked["name"], source=checked["source"],
                models=checked["models"], note=checked["note"], illustrative=ill, points=checked["points"],
                stats=MappingProxyType({k: checked[k] for k in unit_specs}),
                weapons=tuple(weapons), path=str(path))


def list_units(system: str | None = None) -> list[Unit]:
    """Every shipped unit (of one system, or of all), sorted by system then file name."""
    if system is None:
        systems = SYSTEM_KEYS
    else:
        systems = (_system(system),)
    out = []
    for s in systems:
        folder = profiles_dir() / s
        if folder.is_dir():
            out.extend(load_unit(p) for p in sorted(folder.glob("*.toml")))
    return out


def _system(system: Any) -> str:
    if system not in SYSTEM_KEYS:
        raise InputError("system", "one of " + ", ".join(repr(k) for k in SYSTEM_KEYS), system)
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
#: the "basic trooper fires at a basic trooper" matchup of each system:
#: (attacker file, weapon name, target file)
BASIC_MATCHUPS: dict[str, tuple[str, str, str]] = {
    "changes": ("space_marine", "Boltgun", "space_marine"),
    "forgotten": ("trooper", "Rifle", "trooper"),
    "gunfire": ("laansguard", "Rifle", "laansguard"),
    "antares": ("rever", "Carbine", "rever"),
}


def basic_matchup(system: str) -> tuple[Unit, Weapon, Unit]:
    """(attacker, weapon, target) of :data:`BASIC_MATCHUPS` for one system."""
    a, w, t = BASIC_MATCHUPS[_system(system)]
    attacker = get_unit(system, a)
    return attacker, attacker.weapon(w), get_unit(system, t)


def _stat_kwargs(system: str, attacker: Unit, weapon: Weapon, target: Unit,
                 situation: Mapping[str, Any]) -> dict[str, Any]:
    if system == "changes":
        if weapon["class"] == "melee":
            raise InputError("weapon", "a light or heavy weapon (shooting)", weapon.name,
                             f"{weapon.name} is a melee weapon")
        return dict(bs=attacker["bs"], s=weapon["s"], ap=weapon["ap"], t=target["t"], sv=target["sv"],
                    inv=target["inv"], wounds=target["w"], weapon=weapon["class"])
    if system == "forgotten":
        if weapon["class"] == "melee":
            raise InputError("weapon", "a ranged weapon (shooting)", weapon.name,
                             f"{weapon.name} is a melee weapon")
        out = dict(shoot=attacker["shoot"], attack_power=weapon["attack_power"])
        if situation.get("damage_rule") == "v1":
            # the d6 damage v1 compares the weapon's Damage with the target's
            # Defence (which already counts its armour): no armour level
            out["damage"] = weapon["damage"]
            out["defence"] = target["defence"]
            if target["shield"]:
                # seed: a shield "adds +1 DEF vs shooting" (damage v1 only)
                out["shield"] = True
        else:
            out["armour"] = target["armour"]
        return out
    if system == "gunfire":
        out = dict(bs=attacker["bs"], ev=target["ev"], ap=weapon["ap"], av=target["av"], s=weapon["s"],
                   t=target["t"])
        if weapon["explosive"] is not None:
            out["explosive"] = weapon["explosive"]
        return out
    return dict(acc=attacker["acc"], res=target["res"], sv=weapon["sv"], armour=target["armour"])


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
    if isinstance(firers, bool) or not isinstance(firers, int) or firers < 1:
        raise InputError("firers", "a whole number 1 or more", firers)
    out = _stat_kwargs(system, attacker, weapon, target, situation)
    out["shots"] = weapon["shots"] * firers
    out["models"] = target.models
    accepted = _shooting_parameters(system)
    if accepted is not None:
        for key in situation:
            if key not in accepted:
                close = difflib.get_close_matches(key, sorted(accepted), n=1)
                raise InputError("situation", f"a keyword of {system}.shooting: " + ", ".join(sorted(accepted)),
                                 key, f"did you mean {close[0]!r}?" if close else None)
    out.update(situation)
    return out


def _shooting_parameters(system: str) -> set[str] | None:
    """Parameter names of ``<system>.shooting``, or None if the module is not there."""
    try:
        from . import systems
        fn = systems.get(system).shooting
    except (ImportError, AttributeError):
        return None
    return set(inspect.signature(fn).parameters)
