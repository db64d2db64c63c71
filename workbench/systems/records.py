"""The records a system's description is made of, each frozen and checked on
creation: a dashboard mode with its controls and the sides of its matchup
line (:class:`Mode`, :class:`Sides`), a stat the diagnostics step through
(:class:`StatInfo`, :class:`Rung`), a compare-page concept's step
(:class:`Step`) and a unit profile's fields (:class:`ProfileField`,
:class:`Profiles`); and the field checks they share with
:class:`~workbench.systems.description.SystemDescription`. A bad field
raises :class:`~workbench.errors.InputError` naming the record's field, what
is allowed and the value given.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping

import attrs

from ..controls import Control
from ..errors import InputError
from ..validate import _range_text

__all__ = ["Mode", "Sides", "STYLES", "StatInfo", "Rung", "Step", "ProfileField", "Profiles", "CONCEPT_NAMES",
           "OWNERS", "MISSING"]

#: the compare page's shared concepts, in its order
CONCEPT_NAMES = ("accuracy", "penetration", "toughness", "cover")
#: whose stat it is ("either": the system does not say which way helps whom)
OWNERS = ("attacker", "defender", "either")


def _fail(record: Any, attribute: attrs.Attribute, expected: str, value: Any) -> None:
    raise InputError(f"{type(record).__name__}.{attribute.name}", expected, value)


def _text(record, attribute, value) -> None:
    if not isinstance(value, str) or not value.strip():
        _fail(record, attribute, "a non-empty text", value)


def _one_of(*allowed: Any) -> Callable:
    def check(record, attribute, value) -> None:
        if value not in allowed:
            _fail(record, attribute, "one of " + ", ".join(map(repr, allowed)), value)
    return check


def _as_tuple(values: Iterable[Any]) -> tuple:
    """The converter of the tuple fields: ``tuple`` itself would make mypy's attrs plugin type
    the argument as a generic ``Iterable[_T_co]`` that no caller's value matches."""
    return tuple(values)


def _tuple_of(kind: type, what: str) -> Callable:
    def check(record, attribute, value) -> None:
        if not isinstance(value, tuple) or not all(isinstance(x, kind) for x in value):
            _fail(record, attribute, f"a tuple of {what}", value)
    return check


def _frozen_map(value: Any) -> Mapping:
    return MappingProxyType(dict(value))


def _optional_map(value: Any) -> Mapping | None:
    return None if value is None else MappingProxyType(dict(value))


# -- dashboard modes -----------------------------------------------------------------------
#: how a stat's value is written: "plus" a roll needed ("5+"), "mod" a modifier ("+2"), "plain" as it is
STYLES = ("plus", "mod", "plain")


def styled(value: Any, style: str) -> str:
    """``value`` as ``style`` writes it: 5 as "5+" ("plus"), 2 as "+2" ("mod"), else as it is."""
    return f"{value}+" if style == "plus" else f"{value:+d}" if style == "mod" else str(value)


def _shown(value: Any) -> tuple[tuple[str, str, str], ...]:
    return tuple(tuple(x) for x in value)


def _shown_ok(record, attribute, value) -> None:
    for item in value:
        if len(item) != 3 or not all(isinstance(x, str) for x in item) or item[2] not in STYLES:
            _fail(record, attribute, "(keyword, label, style) triples with style one of "
                  + ", ".join(map(repr, STYLES)), item)


@attrs.frozen
class Sides:
    """How a function's keywords read in a forum post's one-line matchup
    ("Space Marine (BS 5+, Boltgun S 5+ AP 5+, 10 shots) at Space Marine (T +2, ...)").

    ``firer``, ``weapon`` and ``target`` are the stats placed with each side,
    each a tuple of ``(keyword, label, style)`` (style: one of :data:`STYLES`);
    the other keywords are the situation, written after the system's name
    when they differ from the function's default, or always when named in
    ``always``. ``unit``: for a function firing several units at once (a
    list of keyword tables, changes.volley's ``attackers``), how each unit's
    stats read.
    """

    firer: tuple = attrs.field(default=(), converter=_shown, validator=_shown_ok)
    weapon: tuple = attrs.field(default=(), converter=_shown, validator=_shown_ok)
    target: tuple = attrs.field(default=(), converter=_shown, validator=_shown_ok)
    always: tuple[str, ...] = attrs.field(default=(), converter=_as_tuple)
    unit: tuple = attrs.field(default=(), converter=_shown, validator=_shown_ok)


@attrs.frozen
class Mode:
    """One stat-level function on a dashboard (``changes.shooting``, ``forgotten.close_combat``).

    ``controls`` are its arguments as a playtester meets them, in order;
    ``trial`` is the word for one attack of it ("shot", "attack").
    ``call(fn, values, **extra) -> Outcome`` turns flat control values into a
    call for a function whose arguments are not flat (changes.volley); None:
    ``fn(**values, **extra)``.
    """

    key: str = attrs.field(validator=_text)
    function: str = attrs.field(validator=_text)
    title: str = attrs.field(validator=_text)
    controls: tuple[Control, ...] = attrs.field(converter=_as_tuple, validator=_tuple_of(Control, "Controls"))
    trial: str = attrs.field(default="attack", validator=_text)
    call: Callable | None = attrs.field(default=None)
    #: how its keywords read in a forum post's matchup line (None: every keyword is the situation)
    sides: Sides | None = attrs.field(default=None)

    def run(self, module, values: dict[str, Any], **extra: Any):
        fn = getattr(module, self.function)
        if self.call is not None:
            return self.call(fn, values, **extra)
        return fn(**values, **extra)


# -- the diagnostics' stats and the compare page's concepts --------------------------------
@attrs.frozen
class StatInfo:
    """One stat of a system for the diagnostics (value of +1, sweeps, equivalence sliders).

    ``owner`` is "attacker" or "defender" ("either" when the system does not
    say); ``step`` is the change of the number that helps the owner ("+1" in
    the designer's sense): -1 for a target number ("5+" -> "4+"), +1 for a
    stat that is better when higher. ``values`` is the range the diagnostics
    sweep; ``doc`` says it in a playtester's words.
    """

    name: str = attrs.field(validator=_text)
    owner: str = attrs.field(validator=_one_of(*OWNERS))
    step: int = attrs.field(validator=_one_of(-1, 1))
    values: tuple[int, ...] = attrs.field(converter=_as_tuple, validator=_tuple_of(int, "whole numbers"))
    doc: str = attrs.field(validator=_text)

    @values.validator
    def _two_values(self, attribute, value) -> None:
        if len(value) < 2:
            _fail(self, attribute, "at least two values to step between", value)


@attrs.frozen
class Rung:
    """One setting on a concept's ladder: the arguments it sets and how it reads ("in cover (soft)")."""

    settings: tuple[tuple[str, Any], ...] = attrs.field(converter=lambda s: tuple(tuple(x) for x in s))
    text: str = attrs.field(validator=_text)


@attrs.frozen
class Step:
    """How one compare-page concept moves one system's stat.

    ``stat`` (argument name) changes by ``sign`` per notch; or, with
    ``ladder``, the arguments move along an ordered list of settings.
    ``style``: how the value is written ("plus" = roll stat "5+", "mod" =
    modifier "+2", "plain").
    """

    stat: str = attrs.field(validator=_text)
    label: str = attrs.field(validator=_text)
    sign: int = attrs.field(default=1, validator=_one_of(-1, 1))
    style: str = attrs.field(default="plain", validator=_one_of(*STYLES))
    ladder: tuple[Rung, ...] = attrs.field(default=(), converter=_as_tuple, validator=_tuple_of(Rung, "Rungs"))

    def text(self, value: Any) -> str:
        """How ``value`` of the stat reads: "BS 4+", "T +3", "Res 6"."""
        return f"{self.label} {styled(value, self.style)}"


# -- unit profiles -------------------------------------------------------------------------
class _MissingType:
    def __repr__(self) -> str:
        return "nothing (the key is missing)"


#: a profile field with this default is required
MISSING = _MissingType()


@attrs.frozen
class ProfileField:
    """What one field of a unit or weapon profile (TOML) may hold."""

    kind: str = attrs.field(validator=_one_of("int", "str", "bool", "choice"))
    lo: int | None = None
    hi: int | None = None
    allowed: tuple = attrs.field(default=(), converter=_as_tuple)
    default: Any = MISSING
    doc: str = ""

    def expected(self) -> str:
        if self.kind == "int":
            given = self.lo is not None or self.hi is not None
            text = "a whole number" + (f" {_range_text(self.lo, self.hi)}" if given else "")
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


def whole_fields(lo: int, hi: int, suffix: str = "", **docs: str) -> dict[str, ProfileField]:
    """Whole-number profile fields from ``lo`` to ``hi``: name -> its doc, + ``suffix``."""
    return {name: ProfileField("int", lo, hi, doc=doc + suffix) for name, doc in docs.items()}


#: a weapon's shots, the field every built-in's weapons have
SHOTS = ProfileField("int", 1, 100, doc="dice per model")


@attrs.frozen
class Profiles:
    """A system's unit profiles: the fields of its units and weapons, its
    basic matchup (attacker file, weapon name, target file: a basic trooper
    firing its basic gun at a basic trooper) and ``to_kwargs(attacker,
    weapon, target, situation) -> (mode, kwargs)``, the stat-level arguments
    of one profile pair (mode "shooting", or e.g. "melee" for a melee weapon)."""

    unit: Mapping[str, ProfileField] = attrs.field(converter=_frozen_map)
    weapon: Mapping[str, ProfileField] = attrs.field(converter=_frozen_map)
    basic: tuple[str, str, str] = attrs.field(converter=_as_tuple)
    to_kwargs: Callable = attrs.field()

    @basic.validator
    def _three_names(self, attribute, value) -> None:
        if len(value) != 3 or not all(isinstance(x, str) and x for x in value):
            _fail(self, attribute, "(attacker file, weapon name, target file)", value)

    @to_kwargs.validator
    def _callable(self, attribute, value) -> None:
        if not callable(value):
            _fail(self, attribute, "a function (attacker, weapon, target, situation) -> (mode, kwargs)", value)
