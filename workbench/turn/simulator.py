"""A 40k Changes turn played die by die, following the seed's turn sequence.

Seed ``000_821a3f094c9e3c4f.txt``: "During one turn, one player is the ACTIVE
PLAYER, the other is the PASSIVE PLAYER ... A TURN is divided into PHASES.
During a single PHASE, one or two PASSIVE UNITS are attacked by any number of
ACTIVE UNITS." :meth:`Battle.turn` plays:

* **EARLY COMBATS**: units already locked in close combat FIGHT; "If any of
  those units manage to kill all their opponents, place an EVADING marker next
  to them. Otherwise, place a FIGHTING MARKER next to them."
* **ACTIVE PLAYER PHASES**, each: (1) the active player's policy chooses 1 or 2
  READY, EVADING or FIGHTING passive units ("a transport with a unit embarked
  on it counts as 2 units"); (2) declares which READY units attack them;
  (3) each targeted READY passive unit ENGAGEs or stays UNDER FIRE (or goes to
  ground at once: "This action may be performed immediately when the unit is
  attacked"; a unit embarked on a targeted transport answers too); (4) "If one
  of the passive ENGAGED units is embarked on a transport, it may now perform
  a DISEMBARK action" (its •• SHOT at an attacker of its transport); (5) the
  attackers' actions are resolved; (6) the ENGAGED passive units act ("They
  cannot DISEMBARK") (shoot, or, if "just successfully charged", only BLOCK or CHARGE
  at a charger; targeted EVADING units may SNAP SHOOT, "which turns them into
  OCCUPIED"); (7) Furious Charge free attacks; (8) "All casualties suffered in
  this phase are now removed from play"; (9) units locked by a TACTICAL or
  FURIOUS CHARGE are FIGHTING, the other ENGAGED units OCCUPIED, units that
  stayed under fire UNDER FIRE. A DESPERATE CHARGE (6+D6") locks the two units
  too, but they are not FIGHTING: "a unit that started a CC in a desperate
  charge only begins fighting in the next turn" (its early combats).
  A unit POSTPONED in an earlier phase ("Postpone 6\"") may remove its marker
  after step 5 of a later one and SNAP SHOOT at "a PASSIVE UNIT that takes
  part in this phase". Active units never declared are POSTPONED (or
  EVADING, if unseen), except a unit gone to ground, which "cannot move in
  any way": it keeps its GO TO GROUND marker.
* **REMAINING UNITS PHASE**: passive READY, EVADING and UNDER FIRE units act
  "one by one" ("They can only shoot after HOLD GROUND or TACTICAL CHARGE
  actions. He may target any ACTIVE unit"), then POSTPONED and EVADING active
  units SNAP SHOOT at a passive unit "that takes part in this phase"; the
  casualties are removed together.
* **LATE COMBATS**: "Every unit that is still FIGHTING at this point resolves
  its FIGHT action. Perform a close combat morale test for every unit that
  lost a close combat."

Every die is rolled with the per-die rules of :mod:`workbench.systems.changes`
(its D12 tests and its to-hit, to-pierce and to-wound targets), with a numpy
Generator passed in. Where the seed leaves a step open the reading taken is
named in :class:`Rules` and in ``docs/rules/changes_turn.md``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from .. import validate as v
from ..validate import stat_function
from ..errors import InputError
from ..dice import roll_faces
from ..systems import changes
from .forces import UnitSpec, Weapon, force, shot_of, target_count

__all__ = ["Rules", "Unit", "Battle", "STATES", "MARKERS", "ATTACK_ACTIONS", "RESPONSES", "CHARGES",
           "WRECKED_TRANSPORT",
           "play_turn", "play_igougo"]

READY, ENGAGED, UNDER_FIRE, OCCUPIED = "READY", "ENGAGED", "UNDER FIRE", "OCCUPIED"
FIGHTING, POSTPONED, EVADING = "FIGHTING", "POSTPONED", "EVADING"
GONE_TO_GROUND = "GO TO GROUND"
#: the seed's unit states
STATES = (FIGHTING, ENGAGED, READY, UNDER_FIRE, OCCUPIED, POSTPONED, EVADING)
#: the markers ("Every unit may only have one status marker")
MARKERS = (GONE_TO_GROUND, POSTPONED, EVADING, FIGHTING)

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
                 "charged_by", "took_part", "start_models", "transport", "postponed_in")

    def __init__(self, spec: UnitSpec, side: str):
        self.spec = spec
        self.side = side
        self.name = spec.name
        self.models = spec.models
        self.start_models = spec.models
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


@lru_cache(maxsize=4096)
def _tests(roll, against, inv, ap, sv, s, t, n12, n1) -> tuple:
    """The to-hit, to-pierce and to-wound D12 tests of :mod:`workbench.systems.changes`
    (``changes._shooting_targets``: roll + max(against, Inv), AP + Sv, S + T)."""
    return tuple(changes._test(int(x), n12, n1)
                 for x in changes._shooting_targets(roll, against, inv, ap, sv, s, t))


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


class Battle:
    """Two forces on the table; :meth:`turn` plays one Changes turn,
    :meth:`igougo` one plain I-go-you-go round for comparison."""

    def __init__(self, force_a: Sequence[UnitSpec], force_b: Sequence[UnitSpec], *, rules: Any = None,
                 log: bool = False):
        self.rules = _rules(rules)
        self.units = {"A": [Unit(s, "A") for s in force(force_a)],
                      "B": [Unit(s, "B") for s in force(force_b)]}
        self.log = v.boolean("log", log)
        self.tally = Tally()
        self.active = "A"
        #: pairs locked by a DESPERATE CHARGE this turn: they fight from the next turn on
        self.waiting: set[frozenset] = set()
        self._carrying = False  # any unit started embarked (a shortcut for forces without transports)
        for side in SIDES:
            for u in self.units[side]:
                if u.spec.embarked_on is not None:
                    u.transport = self.unit(side, u.spec.embarked_on)
                    self._carrying = True

    # -- looking at the table ------------------------------------------------
    def side(self, side: str) -> list[Unit]:
        return [u for u in self.units[side] if u.alive]

    @staticmethod
    def other(side: str) -> str:
        return "B" if side == "A" else "A"

    def unit(self, side: str, name: str) -> Unit:
        for u in self.units[side]:
            if u.name == name:
                return u
        raise InputError("unit", f"a unit of side {side}", name)

    def lock(self, a_name: str, b_name: str, *, fighting: bool = True) -> None:
        """Set up two units already LOCKED IN CLOSE COMBAT (A's ``a_name`` and B's
        ``b_name``) before a turn, with FIGHTING markers unless ``fighting=False``."""
        a, b = self.unit("A", a_name), self.unit("B", b_name)
        a.locked.add(b)
        b.locked.add(a)
        if fighting:
            a.place(FIGHTING)
            b.place(FIGHTING)

    def passengers(self, transport: Unit) -> list[Unit]:
        """The units still embarked on ``transport``."""
        if not self._carrying:
            return []
        return [u for u in self.units[transport.side] if u.alive and u.transport is transport]

    def count_targets(self, units: Sequence[Unit]) -> int:
        """How many units a choice of targets counts as (:func:`target_count`): "a
        transport with a unit embarked on it counts as 2 units"."""
        return target_count([u.spec for u in units], [u.name for u in units if self.passengers(u)])

    def engaged_with(self, unit: Unit) -> list[Unit]:
        """The enemy units ``unit`` fights: those it is locked with, except a lock
        made by a DESPERATE CHARGE this turn ("only begins fighting in the next turn")."""
        if not self.waiting:
            return [o for o in unit.locked if o.alive]
        return [o for o in unit.locked if o.alive and frozenset((unit, o)) not in self.waiting]

    def models(self, side: str) -> int:
        return sum(u.models for u in self.units[side])

    def _say(self, text: str) -> None:
        if self.log:
            self.tally.events.append(text)

    # -- dice --------------------------------------------------------------
    def _flags(self):
        return self.rules.natural_12_always_succeeds, self.rules.natural_1_always_fails

    def gun_tests(self, firer: Unit, weapon: Weapon, shot: str, target: Unit):
        """The three D12 tests of one shot (changes' own targets: BS + max(cover, Inv),
        AP + Sv, S + T; heavy weapons in a SHOT at BS +4, or a flat 4+ with
        ``Rules(heavy_shot="flat_4")``; go-to-ground cover; a
        firer gone to ground gives the target its own cover + 2, or the better of
        the two with ``Rules(firer_cover_rule="better")``, as ``changes.shooting``)."""
        roll = changes._heavy_bs(firer.spec.bs, weapon.kind, shot, self.rules.heavy_shot)
        cover = target.spec.cover + (changes.GO_TO_GROUND_COVER if target.gone_to_ground else 0)
        if firer.gone_to_ground:
            cover = int(changes._firer_cover(cover, firer.spec.cover, self.rules.firer_cover_rule))
        return _tests(roll, cover, target.spec.inv, weapon.ap, target.spec.sv,
                      weapon.s, target.spec.t, *self._flags())

    def melee_tests(self, attacker: Unit, target: Unit):
        """Melee: "Weapons Skill vs Dodge or Invulnerable" has the shape of the
        shooting to-hit (WS + max(D, Inv)), then pierce and wound as shooting."""
        wpn = attacker.spec.melee_weapon
        return _tests(attacker.spec.ws, target.spec.d, target.spec.inv, wpn.ap, target.spec.sv, wpn.s,
                      target.spec.t, *self._flags())

    @staticmethod
    def weapons_for(unit: Unit, shot: str) -> list[Weapon]:
        """Guns that fire with a shot: SNAP light only; SHOT and AIMED every gun."""
        return [w for w in unit.spec.guns if not (shot == "snap" and w.kind == "heavy")]

    def fire(self, rng: np.random.Generator, firer: Unit, target: Unit, shot: str) -> tuple[int, int]:
        """Roll every die of ``firer``'s shot at ``target``; the wounds wait for
        the end of the phase (``target.pending``). Returns (dice, wounds)."""
        if target.status == FIGHTING:
            raise InputError("target", "a unit that is not FIGHTING",
                             f"{target.side}:{target.name}", "Units that are FIGHTING cannot be shot at")
        for role, who in (("target", target), ("firer", firer)):  # the target first
            if who.transport is not None:  # embarked
                raise InputError(role, "a unit on the table",
                                 f"{who.side}:{who.name} (embarked on {who.transport.name})",
                                 "an embarked unit is off the table until it DISEMBARKs")
        if target.status == EVADING and shot != "snap":
            if self.rules.snap_at_evading == "refuse":
                raise InputError("shot", "'snap' at an EVADING target", shot,
                                 "enemy units can only fire at this unit with SNAP SHOTS")
            shot = "snap"
        if firer.gone_to_ground:
            shot = "snap"  # "may only make SNAP SHOTS"
        dice = wounds = 0
        for wpn in self.weapons_for(firer, shot):
            n = wpn.shots * firer.models
            if n == 0:
                continue
            _h, _p, w = changes._roll_counts(rng, self.gun_tests(firer, wpn, shot, target), (n,))
            dice += n
            wounds += int(w)
        target.pending += wounds
        self._say(f"{firer.side}:{firer.name} {shot} at {target.side}:{target.name}: "
                  f"{dice} dice, {wounds} wounds")
        return dice, wounds

    def strike(self, rng: np.random.Generator, attacker: Unit, target: Unit, attacks: int) -> int:
        if attacks <= 0:
            return 0
        _h, _p, w = changes._roll_counts(rng, self.melee_tests(attacker, target), (attacks,))
        target.pending += int(w)
        self._say(f"{attacker.side}:{attacker.name} {attacks} attacks at {target.side}:{target.name}: "
                  f"{int(w)} wounds")
        return int(w)

    def remove_casualties(self) -> None:
        """Step 8: turn each unit's waiting wounds into models removed (wounds go
        to one model until it is removed)."""
        for side in SIDES:
            for u in self.units[side]:
                if not u.pending or not u.alive:
                    u.pending = 0
                    continue
                total = u.damage + u.pending
                removed = min(u.models, total // u.spec.w)
                self.tally.wounds[side] += u.pending
                u.models -= removed
                u.damage = total % u.spec.w if u.models else 0
                u.pending = 0
                self.tally.lost[side] += removed
                if not u.models:
                    self.tally.destroyed[side] += 1
                    for o in u.locked:
                        o.locked.discard(u)
                    u.locked.clear()
                    self._say(f"{side}:{u.name} destroyed")
                    self._wreck(u)

    def _wreck(self, transport: Unit) -> None:
        """The units still inside a destroyed transport (``Rules.wrecked_transport``)."""
        for p in self.passengers(transport):
            p.transport = None
            if self.rules.wrecked_transport == "lost":
                self.tally.lost[p.side] += p.models
                self.tally.destroyed[p.side] += 1
                p.models = 0
                p.pending = 0
                self._say(f"{p.side}:{p.name} lost with its transport")
            else:
                self._say(f"{p.side}:{p.name} set down from its wrecked transport")

    # -- fights ------------------------------------------------------------
    def _groups(self) -> list[list[Unit]]:
        seen: set[Unit] = set()
        groups = []
        for side in SIDES:
            for u in self.units[side]:
                if u in seen or not u.alive or not self.engaged_with(u):
                    continue
                stack, group = [u], []
                seen.add(u)
                while stack:
                    x = stack.pop()
                    group.append(x)
                    for o in self.engaged_with(x):
                        if o not in seen:
                            seen.add(o)
                            stack.append(o)
                groups.append(group)
        return groups

    def fight(self, rng: np.random.Generator, group: list[Unit]) -> dict[str, int]:
        """One FIGHT of a group of units locked together, in Initiative order.

        Interpretation (the seed lists Initiative in the profile and asks for
        "Initiative order" nowhere in words): units strike from the highest I
        down; units with the same I strike together; the casualties of one
        Initiative step are removed before the next, so a model killed first
        does not strike back. Each model makes A attacks with the unit's melee
        weapon at one locked enemy unit (the one with the most models). "When
        this unit takes part in a FIGHT, remove this marker [go to ground] at
        the start of it."
        """
        self.tally.fights += 1
        suffered = {"A": 0, "B": 0}
        lost = {"A": 0, "B": 0}
        for u in group:
            if u.gone_to_ground:
                u.place(None)
        for ini in sorted({u.spec.i for u in group}, reverse=True):
            strikers = [u for u in group if u.alive and u.spec.i == ini and self.engaged_with(u)]
            for u in strikers:
                foe = max(self.engaged_with(u), key=lambda o: (o.models, o.name))
                suffered[foe.side] += self.strike(rng, u, foe, u.models * u.spec.a)
            before = {s: self.tally.lost[s] for s in SIDES}
            self.remove_casualties()
            for s in SIDES:
                lost[s] += self.tally.lost[s] - before[s]
        return suffered if self.rules.loser == "wounds" else lost

    def early_combats(self, rng: np.random.Generator) -> None:
        for group in self._groups():
            self.fight(rng, group)
            for u in group:
                if not u.alive:
                    continue
                # "If any of those units manage to kill all their opponents, place an EVADING marker"
                u.place(FIGHTING if u.locked else EVADING)
                self._say(f"{u.side}:{u.name} after early combat: {u.status}")

    def late_combats(self, rng: np.random.Generator) -> None:
        n12, n1 = self._flags()
        for group in self._groups():
            if not any(u.status == FIGHTING for u in group):
                continue
            score = self.fight(rng, group)
            if score["A"] == score["B"]:
                continue
            loser = "A" if score["A"] > score["B"] else "B"
            diff = abs(score["A"] - score["B"]) if self.rules.morale == "difference" else 0
            for u in group:
                if u.side != loser or not u.alive or not u.locked:
                    continue
                self.tally.morale_tests += 1
                tst = changes._test(u.spec.ld + diff, n12, n1)
                passed = bool(tst.roll_success(rng, (1,))[0])
                self._say(f"{u.side}:{u.name} morale test Ld {u.spec.ld}+{diff}: "
                          f"{'passed' if passed else 'failed'}")
                if not passed:  # forced to move: it leaves the combat, the marker goes
                    self.tally.broke_off += 1
                    for o in u.locked:
                        o.locked.discard(u)
                        if not o.locked and o.marker == FIGHTING:
                            o.place(None)
                    u.locked.clear()
                    u.place(None)
            for u in group:
                if u.alive and not u.locked and u.marker == FIGHTING:
                    u.place(None)

    # -- a turn -------------------------------------------------------------
    def _begin(self, active: str) -> None:
        self.active = active
        self.waiting = set()  # last turn's desperate charges fight in this turn's early combats
        for side in SIDES:
            for u in self.units[side]:
                u.state = READY
                u.took_part = False
                u.charged_by = []
                u.pending = 0
                if u.marker in (POSTPONED, EVADING):
                    u.place(None)  # a marker "during one of the later PHASES in this TURN"
                u.postponed_in = None
                if u.marker == FIGHTING and not u.locked:
                    u.place(None)

    @staticmethod
    def _answer(unit: Unit, response: str, tally: Tally) -> None:
        """Step 3's answer of one attacked unit: UNDER FIRE, or ENGAGED (to go
        to ground is ENGAGED too), counted in the turn's tally."""
        if response == "under_fire":
            unit.state = UNDER_FIRE
            tally.under_fire += 1
        else:
            unit.state = ENGAGED
            tally.engaged += 1

    def turn(self, active: str, policies: dict, rng: np.random.Generator) -> Tally:
        """Play one Changes turn with ``active`` ("A" or "B") as the ACTIVE PLAYER.

        ``policies`` maps "A" and "B" to policy objects (see
        :mod:`workbench.turn.policies`). Returns the turn's :class:`Tally`.
        """
        active = v.choice("active", active, SIDES)
        passive = self.other(active)
        self.tally = Tally()
        self._begin(active)
        self._say(f"turn: {active} active")
        self.early_combats(rng)
        pol_a, pol_p = policies[active], policies[passive]
        for _ in range(64):
            if not self._phase(rng, active, passive, pol_a, pol_p):
                break
        # units that did not attack are POSTPONED (Postpone 6") or EVADING (Evade 4", if unseen); a unit
        # gone to ground "cannot move in any way": it can do neither and keeps its GO TO GROUND marker
        for u in self.side(active):
            if u.status == READY and not u.embarked and not u.gone_to_ground:
                u.place(POSTPONED if u.spec.visible else EVADING)
        self._remaining(rng, active, passive, pol_a, pol_p)
        self.late_combats(rng)
        return self.tally

    def targetable(self, passive: str) -> list[Unit]:
        """Step 1: "READY, EVADING or FIGHTING passive units"."""
        return [u for u in self.side(passive)
                if u.status in (READY, EVADING, FIGHTING) and not u.embarked]

    def ready(self, side: str) -> list[Unit]:
        """READY units on the table (a unit inside a transport is not declared as an attacker)."""
        return [u for u in self.side(side) if u.status == READY and not u.embarked]

    def check_plan(self, plan, active: str, passive: str) -> list[tuple[Unit, list[Unit]]]:
        """Steps 1 and 2 checked against the seed: 1 or 2 target units (a loaded
        transport counts as 2), each READY, EVADING or FIGHTING; attackers READY
        active units, each declared once."""
        plan = [(t, list(a)) for t, a in plan if a]
        if not plan:
            return []
        targets = [t for t, _ in plan]
        if len(set(targets)) != len(targets):
            raise InputError("targets", "distinct target units", [t.name for t in targets])
        n = self.count_targets(targets)
        if n > 2:
            raise InputError("targets", "1 or 2 passive units (a transport with a unit embarked "
                             "on it counts as 2 units)", [t.name for t in targets],
                             f"that choice counts as {n} units")
        ok = set(self.targetable(passive))
        seen: set[Unit] = set()
        for t, attackers in plan:
            if t not in ok:
                raise InputError("target", "a READY, EVADING or FIGHTING passive unit",
                                 f"{t.side}:{t.name} ({t.status})")
            for a in attackers:
                if a.side != active or a.status != READY or a in seen:
                    raise InputError("attackers", "READY active units, each declared once",
                                     f"{a.side}:{a.name} ({a.status})")
                seen.add(a)
        return plan

    def _phase(self, rng, active, passive, pol_a, pol_p) -> bool:
        if not self.ready(active) or not self.targetable(passive):
            return False
        plan = self.check_plan(pol_a.targets(self, active), active, passive)
        if not plan:
            return False
        t = self.tally
        t.phases += 1
        t.targets += len(plan)
        self._say(f"phase {t.phases}: " + "; ".join(
            f"{', '.join(a.name for a in att)} -> {tg.name}" for tg, att in plan))
        for tg, att in plan:
            tg.took_part = True
            for a in att:
                a.state = ENGAGED
                a.took_part = True
        # step 3: the passive player's answer
        for tg, att in plan:
            if tg.status == READY:
                r = v.choice("response", pol_p.response(self, tg, att), RESPONSES)
                self._answer(tg, r, t)
                if r == "go_to_ground":  # "may be performed immediately when the unit is attacked"
                    tg.place(GONE_TO_GROUND)
                    t.went_to_ground += 1
                self._say(f"{tg.name} answers: {r}")
            # "a transport with a unit embarked on it counts as 2 units": the unit inside answers too
            for p in self.passengers(tg):
                if p.status != READY:
                    continue
                p.took_part = True
                r = v.choice("response", pol_p.response(self, p, att), RESPONSES)
                if r == "go_to_ground":
                    raise InputError("response", "'engage' or 'under_fire' for an embarked unit", r,
                                     "an embarked unit is off the table: it cannot go to ground")
                self._answer(p, r, t)
                self._say(f"{p.name} (embarked on {tg.name}) answers: {r}")
        # step 4: "If one of the passive ENGAGED units is embarked on a transport, it may now
        # perform a DISEMBARK action" (Disembark 6" ••: a SHOT)
        inside = [(p, tg, att) for tg, att in plan for p in self.passengers(tg) if p.state == ENGAGED]
        for p, tg, att in inside:
            foe = pol_p.disembark_at(self, p, att)
            if foe is None:
                continue
            if foe not in att or not foe.alive or foe.status == FIGHTING:
                raise InputError("target", f"one of the units attacking {tg.name} (not FIGHTING)",
                                 getattr(foe, "name", foe))
            p.transport = None
            self._say(f"{p.side}:{p.name} disembarks from {tg.name}")
            self.fire(rng, p, foe, shot_of("disembark"))
        # step 5: the active player's actions, in the order declared
        fc: list[tuple[Unit, Unit]] = []
        locked_now: set[Unit] = set()
        for tg, att in plan:
            need = tg.wounds_left
            t.declared_units += len(att)
            for a in att:
                action = v.choice("action", pol_a.attack_action(self, a, tg), ATTACK_ACTIONS)
                already = tg.pending >= need
                dist = pol_a.charge_distance_to(self, a, tg) if action == "desperate_charge" else 0.0
                dice = self._act(rng, a, tg, action, fc, locked_now, distance=dist)
                t.shots += dice
                if already:  # "if ... the second one manages to kill, the third's shots are wasted"
                    t.units_wasted += 1
                    t.shots_wasted += dice
            t.wounds_wasted += max(0, tg.pending - need)
            if tg.pending >= need:
                t.targets_destroyed += 1
        self._postponed_snaps(rng, plan, active, passive, pol_a)
        # step 6: the passive player's engaged units
        before = dict(self.tally.lost)
        for tg, att in plan:
            if not tg.alive:
                continue
            if tg.state == ENGAGED:
                action, foe = pol_p.reply(self, tg, att)
                if action is None:
                    continue
                action = v.choice("action", action, ATTACK_ACTIONS + ("block",))
                if tg.charged_by and action not in ("block",) + CHARGES:
                    raise InputError("action", "BLOCK or a CHARGE at a unit that charged it", action,
                                     "A unit that has just been successfully charged may only BLOCK or "
                                     "CHARGE at one of the units that charged it")
                if action == "block":
                    chargers = [c for c, kind in tg.charged_by if kind == "furious_charge"]
                    if chargers:  # "deny ONE of the units performing a FURIOUS CHARGE at it"
                        denied = foe if foe in chargers else max(chargers, key=lambda c: c.models)
                        fc = [(c, x) for c, x in fc if not (c is denied and x is tg)]
                        self._say(f"{tg.name} blocks {denied.name}")
                    tg.state = ENGAGED
                    continue
                if tg.charged_by and foe not in [c for c, _ in tg.charged_by]:
                    raise InputError("target", "one of the units that charged it", foe.name)
                dist = pol_p.charge_distance_to(self, tg, foe) if action == "desperate_charge" else 0.0
                self._act(rng, tg, foe, action, fc, locked_now, distance=dist)
            elif tg.status == EVADING and tg.state != UNDER_FIRE:
                foe = pol_p.snap_target(self, tg, [a for a in att if a.status != FIGHTING])
                if foe is not None:  # "Targeted EVADING units may now also SNAP SHOOT"
                    self.fire(rng, tg, foe, "snap")
                    tg.place(None)
                    tg.state = OCCUPIED
        # step 6 for units still embarked: "They cannot DISEMBARK" (and off the table, nothing else)
        for p, tg, att in inside:
            if not p.embarked or not p.alive:
                continue  # disembarked in step 4: that was its action
            action, _foe = pol_p.reply(self, p, att)
            if action == "disembark":
                raise InputError("action", "no DISEMBARK in step 6", action,
                                 "The PASSIVE player performs the actions of his ENGAGED units. "
                                 "They cannot DISEMBARK")
            if action is not None:
                raise InputError("action", f"no action for {p.name}, still embarked on {tg.name}", action,
                                 "an embarked unit is off the table: it may only DISEMBARK, in step 4")
        # step 7: furious charge attacks
        for c, x in fc:
            self.strike(rng, c, x, c.models)  # "Each model ... performs one free close combat attack"
        # step 8
        self.remove_casualties()
        self.tally.return_fire_lost += self.tally.lost[active] - before[active]
        # step 9
        for u in self.units[active] + self.units[passive]:
            if u in locked_now and u.alive and u.locked:
                u.place(FIGHTING)
            if u.state == ENGAGED:
                u.state = OCCUPIED
        return True

    def _act(self, rng, unit: Unit, target: Unit, action: str, fc: list, locked_now: set,
             distance: float = 0.0) -> int:
        """Resolve one unit's action at one enemy unit; returns the dice it shot.

        The shot comes from the bullets in the action's name (:func:`shot_of`);
        a charge locks the two units in close combat ("If at least one model
        touches an enemy model": the workbench has no table, so a declared
        Tactical or Furious Charge always makes contact). A Desperate Charge
        rolls its 6+D6" (``changes.ACTION_DISTANCES``, as
        :func:`workbench.systems.changes.reach_probability`) against
        ``distance``, the inches to the target its policy gives (0: always
        reaches); if it reaches, the two units are locked but wait for the next
        turn ("a unit that started a CC in a desperate charge only begins
        fighting in the next turn"). A FIGHTING unit is never shot at: a
        Tactical Charge into one makes no snap shot, any other shot raises.
        """
        if action == "desperate_charge":
            base, die, _words = changes.ACTION_DISTANCES["desperate_charge"]
            moved = base + int(roll_faces(rng, die, (1,))[0])
            if moved < distance:
                self._say(f"{unit.side}:{unit.name} desperate_charge at {target.side}:{target.name}: "
                          f'{moved}" falls short of {distance:g}"')
                self._check_charge(unit, target, action)
                return 0
        if action in CHARGES:
            self._check_charge(unit, target, action)
            unit.locked.add(target)
            target.locked.add(unit)
            target.charged_by.append((unit, action))
            self._say(f"{unit.side}:{unit.name} {action} at {target.side}:{target.name}")
            if action == "desperate_charge":
                self.waiting.add(frozenset((unit, target)))  # not FIGHTING at step 9
                return 0
            locked_now.update((unit, target))
            if action == "furious_charge":
                fc.append((unit, target))
                return 0
            if target.status == FIGHTING:
                return 0
        elif action == "go_to_ground":
            unit.place(GONE_TO_GROUND)
        elif action == "postpone":
            if unit.gone_to_ground:
                raise InputError("action", "no Postpone 6\" while gone to ground", action,
                                 "As long as the marker is there, the unit cannot move in any way")
            unit.place(POSTPONED)  # replaces no marker: a unit gone to ground cannot postpone
            unit.postponed_in = self.tally.phases
        elif action == "get_up" and unit.gone_to_ground:
            unit.place(None)
        shot = shot_of(action)
        if shot is None:
            return 0
        dice, _ = self.fire(rng, unit, target, shot)
        return dice

    def _postponed_snaps(self, rng, plan, active: str, passive: str, pol_a) -> None:
        """Postpone 6": "You can remove this marker during one of the later PHASES in
        this TURN, at which point the unit may perform a SNAP SHOT at a PASSIVE UNIT
        that takes part in this phase": after step 5 of a later phase, each unit
        POSTPONED in an earlier one may (its policy's ``postponed_snap``) remove
        the marker and snap shoot at a target of this phase, or an embarked unit
        that answered; its casualties go with the phase's, at step 8."""
        part = [tg for tg, _ in plan] + [p for tg, _ in plan for p in self.passengers(tg) if p.took_part]
        part = [p for p in part if p.alive and p.status != FIGHTING and not p.embarked]
        if not part:
            return
        for u in self.side(active):
            if u.status != POSTPONED or u.postponed_in is None or u.postponed_in >= self.tally.phases:
                continue
            view = [p for p in part if not p.doomed()] or part
            foe = pol_a.postponed_snap(self, u, view)
            if foe is None:
                continue
            if foe not in part:
                raise InputError("target", "a passive unit that takes part in this phase",
                                 getattr(foe, "name", foe))
            u.place(None)
            u.postponed_in = None
            dice, _ = self.fire(rng, u, foe, "snap")
            self.tally.shots += dice

    def _check_charge(self, unit: Unit, target: Unit, action: str) -> None:
        if unit.gone_to_ground:
            raise InputError("action", "no charge while gone to ground", action,
                             "As long as the marker is there, the unit cannot move in any way")
        if (self.rules.charge_needs_engaged_target and unit.side == self.active
                and target.state != ENGAGED):
            raise InputError("action", "a charge at an ENGAGED enemy unit "
                             "(charge_needs_engaged_target=True)", f"{target.name} ({target.status})")

    def _remaining(self, rng, active, passive, pol_a, pol_p) -> None:
        """REMAINING UNITS PHASE (steps 1-4)."""
        locked_now: set[Unit] = set()
        fc: list = []
        for u in self.units[passive]:
            u.took_part = False  # "a PASSIVE UNIT that takes part in this phase"
        for u in self.side(passive):
            if u.status not in (READY, EVADING, UNDER_FIRE) or u.embarked:
                continue
            foes = [a for a in self.side(active) if a.status != FIGHTING and not a.embarked]
            if not self.rules.passive_sees_results:
                foes_view = foes
            else:
                foes_view = [a for a in foes if not a.doomed()] or foes
            choice = pol_p.remaining(self, u, foes_view)
            if choice is None:
                continue
            action, foe = choice
            action = v.choice("action", action, ("hold_ground", "tactical_charge", "go_to_ground"))
            if action not in ("hold_ground", "tactical_charge"):
                # "They can only shoot after HOLD GROUND or TACTICAL CHARGE actions"
                if action == "go_to_ground":
                    u.place(GONE_TO_GROUND)
                continue
            u.took_part = True
            self._act(rng, u, foe, action, fc, locked_now)
            u.state = OCCUPIED
            if u.marker == EVADING:
                u.place(None)
        # step 2: "All POSTPONED and EVADING active units may now SNAP SHOOT"
        part = [p for p in self.side(passive) if p.took_part and p.status != FIGHTING]
        for u in self.side(active):
            if u.status in (POSTPONED, EVADING) and part:
                view = [p for p in part if not p.doomed()] or part
                foe = pol_a.snap_target(self, u, view)
                if foe is not None:
                    self.fire(rng, u, foe, "snap")
        self.remove_casualties()
        for u in locked_now:
            if u.alive and u.locked:
                u.place(FIGHTING)

    # -- a plain I-go-you-go round ------------------------------------------
    def igougo(self, first: str, policies: dict, rng: np.random.Generator) -> Tally:
        """The same forces under a plain I-go-you-go turn: ``first`` shoots with
        every unit (HOLD GROUND, aimed), one unit at a time, each seeing the
        previous results and its casualties removed at once; then the other
        side shoots with what is left. No reactions, no simultaneity."""
        first = v.choice("first", first, SIDES)
        self.tally = Tally()
        for side in (first, self.other(first)):
            self.active = side
            for u in self.side(side):
                if u.embarked:
                    continue
                foes = [f for f in self.side(self.other(side)) if not f.embarked]
                if not foes:
                    break
                foe = policies[side].igougo_target(self, u, foes)
                dice, _ = self.fire(rng, u, foe, "aimed")
                self.tally.shots += dice
                self.remove_casualties()
        return self.tally


def _policies(policy_a: Any, policy_b: Any) -> dict:
    from .policies import get_policy
    return {"A": get_policy(policy_a, "policy_a"), "B": get_policy(policy_b, "policy_b")}


@stat_function
def play_turn(force_a: Sequence[UnitSpec], force_b: Sequence[UnitSpec], *, policy_a: Any = "focus",
              policy_b: Any = "focus", rules: Any = None, seed: Any = 0, active: str = "A",
              log: bool = False) -> Tally:
    """Play one Changes turn from fresh forces (``active`` is the ACTIVE PLAYER)."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(
        v.integer("seed", seed, 0))
    b = Battle(force_a, force_b, rules=rules, log=log)
    return b.turn(active, _policies(policy_a, policy_b), rng)


@stat_function
def play_igougo(force_a: Sequence[UnitSpec], force_b: Sequence[UnitSpec], *, policy_a: Any = "focus",
                policy_b: Any = "focus", seed: Any = 0, first: str = "A", log: bool = False) -> Tally:
    """Play one plain I-go-you-go round from fresh forces (see :meth:`Battle.igougo`)."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(
        v.integer("seed", seed, 0))
    b = Battle(force_a, force_b, log=log)
    return b.igougo(first, _policies(policy_a, policy_b), rng)
