"""The parsed parts of a rule file: plain frozen records, checked by the loader."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import validate as v
from ..errors import InputError
from .expr import Expr
from .says import Says

__all__ = ["RuleStat", "RuleStage", "DamageRoll", "Removal", "Forbid", "Chance", "Volley"]


@dataclass(frozen=True)
class RuleStat:
    """One stat: a keyword argument of the system, a control on its dashboard.

    ``kind`` is "int", "bool" or "choice"; ``default`` an int, a bool or an
    option name; ``min``/``max`` for ints only; ``options`` (name, integer)
    pairs in file order for choices only.
    """

    name: str
    kind: str
    default: Any
    min: int | None = None
    max: int | None = None
    options: tuple[tuple[str, int], ...] = ()
    label: str = ""
    help: str = ""
    #: an int stat that may be "none" (no value): only ``removal.models`` may read it, none = no unit size
    optional: bool = False

    def check(self, x: Any, toml: bool) -> tuple[Any, str]:
        """(``x`` as a value of this stat, "") or (None, what was expected), literals written as a rule
        file writes them (``toml``: "none" for an optional stat's no value) or as Python does (numpy
        scalars and whole floats too, None for no value)."""
        if self.kind == "bool":
            ok = isinstance(x, bool) or (not toml and isinstance(x, np.bool_))
            return (bool(x), "") if ok else (None, "true or false" if toml else "True or False")
        if self.kind == "choice":
            if isinstance(x, str) and x in dict(self.options):
                return str(x), ""
            return None, "one of " + ", ".join(f'"{n}"' if toml else repr(n) for n, _ in self.options)
        none = "none" if toml else None
        if self.optional and type(x) is type(none) and x == none:
            return None, ""
        expected = f"a whole number from {self.min} to {self.max}" + (
            (' or "none"' if toml else " or None") if self.optional else "")
        if toml:
            ok = isinstance(x, int) and not isinstance(x, bool) and self.min <= x <= self.max  # type: ignore[operator]
            return (x, "") if ok else (None, expected)
        try:
            return v.integer("", x.item() if isinstance(x, np.ndarray) and x.ndim == 0 else x, self.min, self.max), ""
        except InputError:
            return None, expected

    def value_of(self, value: Any) -> Any:
        """The integer an expression sees for a checked value."""
        if self.kind == "choice":
            return dict(self.options)[value]
        if self.kind == "bool":
            return int(value)
        return value


@dataclass(frozen=True)
class RuleStage:
    """One ``[[stages]]`` entry (see docs/rulefiles.md for every key)."""

    name: str
    die: int
    target: Expr
    roll: str = "high"
    modifier: Expr | None = None
    always_fail: tuple[int, ...] = ()
    always_succeed: tuple[int, ...] = ()
    critical: tuple[int, ...] = ()
    on_critical: str = "none"
    extra: int = 1
    reroll: str = "none"
    passes_on: str = "success"
    #: where the ``critical`` faces are criticals (None: always)
    critical_when: Expr | None = None
    #: where ``on_critical`` applies (None: always); elsewhere a critical is an ordinary success
    on_critical_when: Expr | None = None
    #: a face that cannot pass the target test needs the best face twice ("a 1, then another 1")
    long_shot: bool = False
    #: names of counts over all attacks: tokens passing this stage, critical rolls at it
    tally: str = ""
    critical_tally: str = ""
    #: the name of the count of near misses at this stage (failed rolls one short of the target)
    near_miss_tally: str = ""
    #: the stage's faces as an expression of the stats (a die switch); ``die`` is then the system's
    die_expr: Expr | None = None
    #: what the roll is made against, in the file's words, before the engine's "needs 8+ on a d12"
    says: Says | None = None


@dataclass(frozen=True)
class DamageRoll:
    """Dice notation "NdX+M": ``dice`` dice of ``sides`` faces plus ``plus``."""

    dice: int
    sides: int
    plus: int
    text: str

    @property
    def high(self) -> int:
        return self.dice * self.sides + self.plus


@dataclass(frozen=True)
class Removal:
    """``[removal]``: per-success damage (``removed`` is None) or a pooled formula."""

    models: Expr | None = None
    wounds: Expr | None = None
    damage: Expr | None = None
    damage_roll: DamageRoll | None = None
    spill: bool = False
    removed: Expr | None = None
    #: model by model (:mod:`workbench.rules.wounds`): the save of the model in front (may read
    #: ``wounded``), the faces of its die (the system's unless the file gives one), tough models, models that start wounded
    save: Expr | None = None
    save_die: int | None = None
    tough: Expr | None = None
    already_wounded: Expr | None = None
    #: the save's name ("heroic save") and what its roll is made against in the file's words
    save_name: str = "save"
    save_says: Says | None = None

    @property
    def by_model(self) -> bool:
        """Is each success a blow to the model in front (a save, tough models or wounded models)?"""
        return self.save is not None or self.tough is not None or self.already_wounded is not None


@dataclass(frozen=True)
class Note:
    """One of ``system.notes``: its ``text``, shown with every resolution, or (with ``when``, an
    expression of the stats) only with those whose stats make ``when`` true; ``index``, its place."""
    text: str
    when: Expr | None
    index: int


@dataclass(frozen=True)
class Forbid:
    when: Expr
    message: str
    index: int


@dataclass(frozen=True)
class Chance:
    """``[[chances]]``: the probability that ``when`` (an expression of the
    stats and one count: a stage's tally, ``successes`` or ``removed``; or two
    or three stage tallies) is true."""

    name: str
    when: Expr
    count: str | tuple[str, ...]
    index: int
    label: str = ""
    #: ``up_to = N``: the condition reads each count as at most N (a count above N is read as N)
    up_to: int | None = None

    @property
    def reads(self) -> tuple[str, ...]:
        """The count or counts ``when`` reads, in its order."""
        return (self.count,) if isinstance(self.count, str) else tuple(self.count)


@dataclass(frozen=True)
class Volley:
    """``[volley]``: several profiles (weapons, units) at one target, one resolution.

    ``profile``: the stats each profile sets (the others are shared: the
    target's and the rules'); ``allocation``: how the profiles' final successes
    meet the removal ("together": summed, then removed once; what passes the
    unit is wasted; "in_order": each profile's own removal, in listed order, on
    what the earlier left); ``each``: the name of the per-profile effect (``each[i]``,
    the expected final successes of profile i); ``not_needed``: the name of the
    effect "profiles, in listed order, whose turn came after the earlier ones
    had removed the whole unit" ("" : none); ``max_profiles``: profiles per
    resolution at most.
    """

    profile: tuple[str, ...]
    allocation: str = "together"
    each: str = "successes"
    not_needed: str = ""
    max_profiles: int = 20
