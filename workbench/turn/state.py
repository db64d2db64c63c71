"""The pieces of a Changes turn: the seed's unit states and markers, the
readings of the seed a designer may flip (:class:`Rules`), a unit in play
(:class:`Unit`) and what one turn did (:class:`Tally`).

Seed ``000_821a3f094c9e3c4f.txt``; see ``docs/rules/changes_turn.md``.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from .. import validate as v
from ..errors import InputError
from ..rules.mechanisms import changes_turn
from ..systems import changes, ownfile
from .forces import UnitSpec

__all__ = ["Rules", "Unit", "Tally", "ATTACK_ACTIONS", "RESPONSES", "CHARGES",
           "SIDES"]

READY, ENGAGED, UNDER_FIRE, OCCUPIED = "READY", "ENGAGED", "UNDER FIRE", "OCCUPIED"
FIGHTING, POSTPONED, EVADING = "FIGHTING", "POSTPONED", "EVADING"
GONE_TO_GROUND = "GO TO GROUND"

#: actions a policy may give an attacking or engaged unit (the rest of the seed's
#: list moves units or transports, which a turn without a table does not need)
ATTACK_ACTIONS = ("hold_ground", "move", "go_to_ground", "tactical_charge", "furious_charge",
                  "move_9_d3", "get_up", "desperate_charge", "postpone")
#: the charges ("If at least one model touches an enemy model, the two units are LOCKED IN CLOSE COMBAT")
CHARGES = ("tactical_charge", "furious_charge", "desperate_charge")
RESPONSES = changes_turn.ANSWERS  # what an attacked passive unit may do (the turn file's answers)
SIDES = ("A", "B")


#: each reading's stat: the turn file's own (rules/changes/turn.toml), and the four the turn shares
#: with shooting (rules/changes/shooting.toml), whose name, values and default they keep
_READINGS = {**{s.name: s for s in ownfile.page(changes.KEY, "turn").stats if s.name in changes_turn.READINGS},
             **{n: ownfile.load(changes.KEY).stat(n) for n in ("natural_12_always_succeeds", "natural_1_always_fails",
                                                             "firer_cover_rule", "heavy_shot")}}


def _default(name: str) -> Any:
    return _READINGS[name].default


@dataclass(frozen=True)
class Rules:
    """Readings of the seed a designer may flip, each a stat of the turn's rule file with its label,
    help and default (``rules/changes/turn.toml``; docs/rules/changes_turn.md, "Readings ... and
    switches"). A switch that is also one of :func:`workbench.systems.changes.shooting`
    (``firer_cover_rule``, ``heavy_shot``, the natural 12 and natural 1) is shooting.toml's stat, so
    the two never disagree. ``system``: the Changes rule folder whose shooting and melee files every
    shot and strike rolls (None: the built-in's, ``rules/changes/``; a designer's copy, edited).
    """

    charge_needs_engaged_target: bool = _default("charge_needs_engaged_target")
    morale: str = _default("morale")
    loser: str = _default("loser")
    snap_at_evading: str = _default("snap_at_evading")
    passive_sees_results: bool = _default("passive_sees_results")
    natural_12_always_succeeds: bool = _default("natural_12_always_succeeds")
    natural_1_always_fails: bool = _default("natural_1_always_fails")
    firer_cover_rule: str = _default("firer_cover_rule")
    wrecked_transport: str = _default("wrecked_transport")
    heavy_shot: str = _default("heavy_shot")
    system: Any = None

    def __post_init__(self):
        if self.system is not None and not {"shooting", "melee"} <= set(getattr(self.system, "parts", ())):
            raise InputError("system", "None (the built-in rules/changes/) or a rule folder with the parts "
                             "shooting and melee", self.system)
        for f in fields(self):
            if f.name == "system":
                continue
            stat = _READINGS[f.name]
            value = getattr(self, f.name)
            if stat.kind == "choice":
                v.choice(f.name, value, [o for o, _ in stat.options])
            else:
                v.boolean(f.name, value)


class Unit:
    """A unit during play: its spec, models left, wounds on the damaged model,
    its state, its one marker, the enemy units it is locked in combat with, and
    the transport it is embarked on (None: on the table)."""

    __slots__ = ("spec", "side", "name", "models", "damage", "state", "marker", "locked", "pending",
                 "charged_by", "took_part", "transport", "postponed_in")

    def __init__(self, spec: UnitSpec, side: str):
        self.spec = spec
        self.side = side
        self.name = spec.name
        self.models = spec.models
        self.damage = 0
        self.state = READY
        self.marker = GONE_TO_GROUND if spec.gone_to_ground else None
        self.locked: set[Unit] = set()
        self.pending = 0
        self.charged_by: list[tuple[Unit, str]] = []
        self.took_part = False
        self.transport: Unit | None = None
        #: the phase whose Postpone 6" placed its POSTPONED marker (None: postponed at the end of the phases)
        self.postponed_in: int | None = None

    @property
    def embarked(self) -> bool:
        return self.transport is not None

    @property
    def alive(self) -> bool:
        return self.models > 0

    @property
    def status(self) -> str:
        """The seed's unit state: a FIGHTING, POSTPONED or EVADING marker, else the state."""
        return self.marker if self.marker in (FIGHTING, POSTPONED, EVADING) else self.state

    @property
    def gone_to_ground(self) -> bool:
        return self.marker == GONE_TO_GROUND

    @property
    def wounds_left(self) -> int:
        return self.models * self.spec.w - self.damage

    def doomed(self) -> bool:
        """True when the wounds waiting for step 8 already destroy the unit."""
        return self.pending >= self.wounds_left

    def place(self, marker: str | None) -> None:
        """"when you are asked to place a marker next to a unit that already has
        one, replace the old marker with a new one"."""
        self.marker = marker

    def __repr__(self) -> str:
        return f"<{self.side}:{self.name} {self.models} models {self.status}>"


def _rules(rules: Any) -> Rules:
    if rules is None:
        return Rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, dict):
        try:
            return Rules(**rules)
        except TypeError:
            bad = [k for k in rules if k not in Rules.__dataclass_fields__]
            raise InputError("rules", "keys among " + ", ".join(Rules.__dataclass_fields__),
                             bad[0] if bad else rules) from None
    raise InputError("rules", "None, a workbench.turn.Rules or a dict of its fields", rules)


@dataclass
class Tally:
    """What one turn did (one row of a study)."""

    lost: dict = field(default_factory=lambda: {"A": 0, "B": 0})
    wounds: dict = field(default_factory=lambda: {"A": 0, "B": 0})
    destroyed: dict = field(default_factory=lambda: {"A": 0, "B": 0})
    phases: int = 0
    targets: int = 0
    targets_destroyed: int = 0
    declared_units: int = 0
    units_wasted: int = 0
    shots: int = 0
    shots_wasted: int = 0
    wounds_wasted: int = 0
    engaged: int = 0
    under_fire: int = 0
    went_to_ground: int = 0
    return_fire_lost: int = 0
    fights: int = 0
    morale_tests: int = 0
    broke_off: int = 0
    events: list = field(default_factory=list)
