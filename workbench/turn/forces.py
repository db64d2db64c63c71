"""The pieces a Changes turn is played with: units (:class:`UnitSpec`, from a ``profiles/changes``
unit by :func:`from_profile`), their weapons, and the seed's actions (:data:`ACTIONS`, the names
the seed prints, bullets included). "The following three actions may be performed right after the
main action, if there are appropriate symbols in its name": one bullet a SNAP SHOT, two a SHOT,
three an AIMED SHOT (:func:`shot_of`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Sequence

from .. import profiles
from .. import validate as v
from ..validate import stat_function
from ..errors import InputError
from ..systems import changes
from ..systems.changes import SEED_ACTIONS

__all__ = ["Weapon", "UnitSpec", "from_profile", "ACTIONS", "SHOTS", "shot_of", "force",
           "target_count", "BARE_HANDS"]

#: the seed's action names, word for word with their bullets (• snap, •• shot, ••• aimed)
ACTIONS: dict[str, str] = {k: name for k, (name, _move) in SEED_ACTIONS.items()}

#: bullets -> the shot they allow ("• SNAP SHOT", "•• SHOT", "••• AIMED SHOT": the rule file's actions)
SHOTS = dict(enumerate(changes.ACTIONS, 1))


@stat_function
def shot_of(action: str) -> str | None:
    """The shot an action allows right after it, from the bullets in its name:
    ``"snap"`` (light weapons only), ``"shot"`` (heavy weapons at BS +4),
    ``"aimed"`` (every weapon at full BS) or None (no shot: the charges, Embark,
    Block, Postpone, Evade, Move 9+d3"). POSTPONED and EVADING units fire their
    snap shot later in the turn, not with the action."""
    action = v.choice("action", action, tuple(ACTIONS))
    bullets = ACTIONS[action].count("•")
    return SHOTS.get(bullets)


#: a weapon's fields and ranges, as the Changes weapon profiles hold them
_WEAPON = changes.SYSTEM.profiles.weapon


@dataclass(frozen=True)
class Weapon:
    """One weapon: ``shots`` dice per model, roll stats ``s`` and ``ap`` (5 means
    5+), ``kind`` "light", "heavy" or "melee" (melee weapons never shoot)."""

    name: str
    s: int
    ap: int
    shots: int = 1
    kind: str = "light"

    def __post_init__(self):
        for k in ("s", "ap"):
            v.integer(f"weapon.{k}", getattr(self, k), _WEAPON[k].lo, _WEAPON[k].hi)
        v.integer("weapon.shots", self.shots, 0, _WEAPON["shots"].hi)  # 0: a weapon left out of a shot
        v.choice("weapon.kind", self.kind, _WEAPON["class"].allowed)


#: the close combat weapon of a unit without a melee profile: the model's own
#: Strength and an AP of 13+ (interpretation: the seed gives no AP for bare hands,
#: so an armoured target is pierced only by a natural 12 with the variant switch)
def BARE_HANDS(s: int) -> Weapon:
    return Weapon("bare hands", s=s, ap=13, shots=1, kind="melee")


#: the stat line's fields and ranges, as the Changes unit profiles hold them
_STATS = changes.SYSTEM.profiles.unit


@dataclass(frozen=True)
class UnitSpec:
    """A unit at the start of a turn: the seed's stat line ("WS BS S T W I A Ld Sv D Inv"), a unit
    size, its weapons, its cover, and what the seed's rules ask but a stat line does not hold
    (``visible``, ``carries``, ``gone_to_ground``, ``embarked_on``: docs/rules/changes_turn.md,
    "Using it")."""

    name: str
    models: int
    ws: int = 5
    bs: int = 5
    s: int = 5
    t: int = 2
    w: int = 1
    i: int = 9
    a: int = 1
    ld: int = 5
    sv: int = 3
    d: int = 2
    inv: int = 0
    weapons: tuple[Weapon, ...] = ()
    cover: int = 0
    visible: bool = True
    carries: int = 0
    gone_to_ground: bool = False
    embarked_on: str | None = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise InputError("unit.name", "a non-empty string", self.name)
        v.integer(f"{self.name}.models", self.models, 1, changes.MAX_MODELS)
        for k, f in _STATS.items():
            v.integer(f"{self.name}.{k}", getattr(self, k), f.lo, f.hi)
        v.integer(f"{self.name}.cover", self.cover, *changes.MODIFIER)
        v.integer(f"{self.name}.carries", self.carries, 0, 10)
        v.boolean(f"{self.name}.visible", self.visible)
        v.boolean(f"{self.name}.gone_to_ground", self.gone_to_ground)
        if self.embarked_on is not None:
            if not isinstance(self.embarked_on, str) or not self.embarked_on.strip() \
                    or self.embarked_on == self.name:
                raise InputError(f"{self.name}.embarked_on", "None or the name of another unit (its transport)",
                                 self.embarked_on)
            if self.gone_to_ground:
                raise InputError(f"{self.name}.gone_to_ground", "False for a unit embarked on a transport",
                                 self.gone_to_ground, "an embarked unit is off the table: it cannot go to ground")
        weapons = tuple(self.weapons)
        for i, wpn in enumerate(weapons):
            if not isinstance(wpn, Weapon):
                raise InputError(f"{self.name}.weapons[{i}]", "a workbench.turn.Weapon", wpn)
        object.__setattr__(self, "weapons", weapons)

    @cached_property
    def guns(self) -> tuple[Weapon, ...]:
        """The weapons that shoot (every weapon but the melee ones)."""
        return tuple(w for w in self.weapons if w.kind != "melee")

    @property
    def melee_weapon(self) -> Weapon:
        """The unit's melee weapon (the first one listed), or :func:`BARE_HANDS`."""
        return next((w for w in self.weapons if w.kind == "melee"), None) or BARE_HANDS(self.s)

    def with_(self, **changes_: Any) -> "UnitSpec":
        """A copy with some fields changed (``unit.with_(models=10, cover=2)``)."""
        return replace(self, **changes_)


@stat_function
def from_profile(unit: Any = "Space Marine", *, name: str | None = None, models: int | None = None,
                 weapons: Sequence[str] | None = None, **overrides: Any) -> UnitSpec:
    """A :class:`UnitSpec` from a ``profiles/changes`` unit (a Unit or its name).

    ``weapons``: the names of the weapons the unit carries (default: every
    weapon of the profile; a melee weapon is only used in a FIGHT).
    ``overrides``: any other field (``cover=2``, ``visible=False``...).
    """
    if not isinstance(unit, profiles.Unit):
        unit = profiles.get_unit(changes.KEY, unit)
    if unit.system != changes.KEY:
        raise InputError("unit", "a 40k Changes profile", unit.system)
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise InputError("name", "a unit name (text), or None for the profile's", name)
    if weapons is not None and (not isinstance(weapons, (list, tuple))
                                or not all(isinstance(w, str) for w in weapons)):
        raise InputError("weapons", "a list of the profile's weapon names, or None for all of them", weapons)
    chosen = unit.weapons if weapons is None else tuple(unit.weapon(w) for w in weapons)
    wpns = tuple(Weapon(w.name, s=w["s"], ap=w["ap"], shots=w["shots"], kind=w["class"]) for w in chosen)
    stats = {k: unit[k] for k in _STATS}
    known = set(UnitSpec.__dataclass_fields__) - {"name", "models", "weapons"}
    for key in overrides:
        if key not in known:
            raise InputError("from_profile keyword", "one of name, models, weapons, "
                             + ", ".join(sorted(known)), key)
    stats.update(overrides)
    return UnitSpec(name=unit.name if name is None else name, models=unit.models if models is None else models,
                    weapons=wpns, **stats)


@stat_function
def force(*units: UnitSpec) -> tuple[UnitSpec, ...]:
    """A force: a tuple of units with distinct names (the names identify them in records)."""
    if len(units) == 1 and isinstance(units[0], (list, tuple)):
        units = tuple(units[0])
    if not units:
        raise InputError("force", "at least one unit", units)
    for i, u in enumerate(units):
        if not isinstance(u, UnitSpec):
            raise InputError(f"force[{i}]", "a workbench.turn.UnitSpec", u)
    names = [u.name for u in units]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InputError("force", "units with distinct names", dup[0],
                         "give each unit its own name, e.g. from_profile(..., name='Marines 2')")
    by_name = {u.name: u for u in units}
    for u in units:
        if u.embarked_on is None:
            continue
        t = by_name.get(u.embarked_on)
        if t is None or t.embarked_on is not None:
            raise InputError(f"{u.name}.embarked_on", "the name of another unit of the same force, "
                             "itself on the table (its transport)", u.embarked_on)
    return tuple(units)


@stat_function
def target_count(units: Sequence[UnitSpec], loaded: Sequence[str] = ()) -> int:
    """How many units a choice of targets counts as: one each, and "a transport
    with a unit embarked on it counts as 2 units" (a transport with ``carries``
    or whose name is in ``loaded``: a unit of its force is inside it)."""
    if not isinstance(units, (list, tuple)) or not all(isinstance(u, UnitSpec) for u in units):
        raise InputError("units", "a list of workbench.turn.UnitSpec", units)
    if not isinstance(loaded, (list, tuple, set, frozenset)) or not all(isinstance(n, str) for n in loaded):
        raise InputError("loaded", "a list of unit names", loaded)
    names = set(loaded)
    return sum(2 if (u.carries or u.name in names) else 1 for u in units)

