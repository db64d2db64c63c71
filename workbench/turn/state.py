"""The pieces of a Changes turn: the seed's unit states and markers, the
readings of the seed a designer may flip (:class:`Rules`), a unit in play
(:class:`Unit`) and what one turn did (:class:`Tally`).

Seed ``000_821a3f094c9e3c4f.txt``; see ``docs/rules/changes_turn.md``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import validate as v
from ..errors import InputError
from ..systems import changes
from .forces import UnitSpec

__all__ = ["Rules", "Unit", "Tally", "ATTACK_ACTIONS", "RESPONSES", "CHARGES",
           "WRECKED_TRANSPORT", "SIDES"]

READY, ENGAGED, UNDER_FIRE, OCCUPIED = "READY", "ENGAGED", "UNDER FIRE", "OCCUPIED"
FIGHTING, POSTPONED, EVADING = "FIGHTING", "POSTPONED", "EVADING"
GONE_TO_GROUND = "GO TO GROUND"

#: actions a policy may give an attacking or engaged unit (the rest of the seed's
#: list moves units or transports, which a turn without a table does not need)
ATTACK_ACTIONS = ("hold_ground", "move", "go_to_ground", "tactical_charge", "furious_charge",
                  "move_9_d3", "get_up", "desperate_charge", "postpone")
#: the charges ("If at least one model touches an enemy model, the two units are LOCKED IN CLOSE COMBAT")
CHARGES = ("tactical_charge", "furious_charge", "desperate_charge")
#: what becomes of a unit still inside a transport that is destroyed (the seed does not say)
WRECKED_TRANSPORT = ("unharmed", "lost")
RESPONSES = ("engage", "under_fire", "go_to_ground")
SIDES = ("A", "B")


@dataclass(frozen=True)
class Rules:
    """Readings of the seed a designer may flip (see docs/rules/changes_turn.md).

    ``charge_needs_engaged_target``: the charges move "towards an ENGAGED
    enemy unit" (Tactical Charge: "a CURRENT enemy unit", CURRENT being the old
    name of ENGAGED). Default False: any unit taking part in the phase may be
    charged (a target of the active player, an attacker for the passive one);
    True: only a target that chose to ENGAGE, the literal reading, which makes
    staying UNDER FIRE a shelter from charges.
    ``morale``: the close combat morale test of a unit that lost a fight is a
    Leadership test (``changes.leadership``'s reading) with modifier 0
    (``"plain"``) or + the difference in wounds suffered (``"difference"``).
    A unit that fails breaks off ("forced to move", "by failing a MORALE
    test"): it leaves the combat and loses its marker.
    ``loser``: the side of a fight that suffered more unsaved wounds
    (``"wounds"``) or lost more models (``"models"``); a tie has no loser.
    ``snap_at_evading``: a unit that is not making a snap shot fires at an
    EVADING target as a snap shot (light weapons only, "downgrade"), or not at
    all (``"refuse"``: the simulator raises if a policy tries).
    ``passive_sees_results``: the passive player's units in the remaining
    units phase act "one by one", so each one's dice are rolled before the
    next picks a target (True, default) or all are declared first (False).
    ``firer_cover_rule``: the cover of a unit fired at by a unit with a GO TO
    GROUND marker, with the switch name and values of
    :func:`workbench.systems.changes.shooting` (so the two never disagree):
    ``"same"`` (default, the seed: "Any unit it fires at receives the same
    cover modifier this unit currently has", the firer's cover + 2) or
    ``"better"`` (the better of that and the target's own cover).
    ``heavy_shot``: a heavy weapon in a SHOT action ("BALLISTIC SKILL U+4"),
    with the switch name and values of :func:`workbench.systems.changes.shooting`:
    ``"bs_plus_4"`` (default, BS + 4) or ``"flat_4"`` (a flat 4+).
    ``wrecked_transport``: what happens to a unit still embarked on a
    transport that is destroyed. The seed does not say: it counts "a transport
    with a unit embarked on it" as 2 units when targets are chosen, and never
    says whether shots at the transport, or its destruction, touch the unit
    inside. ``"unharmed"`` (default, consistent with shooting only the
    transport): the unit is set down on the table at step 8 with every model,
    without an action or a shot, in the state it had; ``"lost"``: it is
    removed with its transport.
    """

    charge_needs_engaged_target: bool = False
    morale: str = "plain"
    loser: str = "wounds"
    snap_at_evading: str = "downgrade"
    passive_sees_results: bool = True
    natural_12_always_succeeds: bool = False
    natural_1_always_fails: bool = False
    firer_cover_rule: str = "same"
    wrecked_transport: str = "unharmed"
    heavy_shot: str = "bs_plus_4"

    def __post_init__(self):
        v.boolean("charge_needs_engaged_target", self.charge_needs_engaged_target)
        v.choice("morale", self.morale, ("plain", "difference"))
        v.choice("loser", self.loser, ("wounds", "models"))
        v.choice("snap_at_evading", self.snap_at_evading, ("downgrade", "refuse"))
        v.boolean("passive_sees_results", self.passive_sees_results)
        v.boolean("natural_12_always_succeeds", self.natural_12_always_succeeds)
        v.boolean("natural_1_always_fails", self.natural_1_always_fails)
        v.choice("firer_cover_rule", self.firer_cover_rule, changes.FIRER_COVER_RULES)
        v.choice("wrecked_transport", self.wrecked_transport, WRECKED_TRANSPORT)
        v.choice("heavy_shot", self.heavy_shot, changes.HEAVY_SHOT_RULES)


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
