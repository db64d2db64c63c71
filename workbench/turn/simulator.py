"""A 40k Changes turn played die by die, following the seed's turn sequence.

Seed ``000_821a3f094c9e3c4f.txt``: "During one turn, one player is the ACTIVE
PLAYER, the other is the PASSIVE PLAYER ... A TURN is divided into PHASES.
During a single PHASE, one or two PASSIVE UNITS are attacked by any number of
ACTIVE UNITS." :meth:`Battle.turn` plays the EARLY COMBATS, the ACTIVE PLAYER
PHASES (each in the seed's nine steps, numbered as in the comments of
:meth:`Battle._phase`), the REMAINING UNITS PHASE and the LATE COMBATS.
``docs/rules/changes_turn.md`` ("The turn sequence, rule by rule") quotes the
seed for every step with the method that models it and the test that checks it; where the seed
leaves a step open, the reading taken is named in :class:`~workbench.turn.state.Rules`.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from .. import validate as v
from ..validate import stat_function
from ..errors import InputError
from ..dice import roll_faces
from ..systems import changes
from .forces import UnitSpec, shot_of
from .policies import get_policy
from .state import (ATTACK_ACTIONS, CHARGES, ENGAGED, EVADING, FIGHTING, GONE_TO_GROUND, OCCUPIED,
                    POSTPONED, READY, RESPONSES, SIDES, UNDER_FIRE, Tally, Unit)
from .table import Table

__all__ = ["Battle", "play_turn", "play_igougo"]


class Battle(Table):
    """Two forces on the table; :meth:`turn` plays one Changes turn,
    :meth:`igougo` one plain I-go-you-go round for comparison."""

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

    def _answer(self, unit: Unit, response: str, target: Unit) -> None:
        """Step 3's answer of one attacked unit (``target`` itself, or a unit embarked on
        it): UNDER FIRE, or ENGAGED (to go to ground is ENGAGED too), counted in the tally."""
        tally = self.tally
        if unit is not target:
            unit.took_part = True
            if response == "go_to_ground":
                raise InputError("response", "'engage' or 'under_fire' for an embarked unit", response,
                                 "an embarked unit is off the table: it cannot go to ground")
        if response == "under_fire":
            unit.state = UNDER_FIRE
            tally.under_fire += 1
        else:
            unit.state = ENGAGED
            tally.engaged += 1
        if response == "go_to_ground":  # "may be performed immediately when the unit is attacked"
            unit.place(GONE_TO_GROUND)
            tally.went_to_ground += 1
        self._say(f"{unit.name} answers: {response}" if unit is target
                  else f"{unit.name} (embarked on {target.name}) answers: {response}")

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
        # step 3: the passive player's answer; "a transport with a unit embarked on it counts as
        # 2 units": the unit inside answers too
        for tg, att in plan:
            for u in [tg] + self.passengers(tg):
                if u.status == READY:
                    self._answer(u, v.choice("response", pol_p.response(self, u, att), RESPONSES), tg)
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
                dice = self._act(rng, a, tg, action, fc, locked_now, pol_a)
                t.shots += dice
                if already:  # "if ... the second one manages to kill, the third's shots are wasted"
                    t.units_wasted += 1
                    t.shots_wasted += dice
            t.wounds_wasted += max(0, tg.pending - need)
            if tg.pending >= need:
                t.targets_destroyed += 1
        self._postponed_snaps(rng, plan, active, pol_a)
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
                    continue
                if tg.charged_by and foe not in [c for c, _ in tg.charged_by]:
                    raise InputError("target", "one of the units that charged it", foe.name)
                self._act(rng, tg, foe, action, fc, locked_now, pol_p)
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
             policy: Any = None) -> int:
        """Resolve one unit's action at one enemy unit; returns the dice it shot.

        The shot comes from the bullets in the action's name (:func:`shot_of`);
        a charge locks the two units in close combat ("If at least one model
        touches an enemy model": the workbench has no table, so a declared
        Tactical or Furious Charge always makes contact). A Desperate Charge
        rolls its 6+D6" (``changes.ACTION_DISTANCES``, as
        :func:`workbench.systems.changes.reach_probability`) against the
        inches to the target ``policy`` gives (no policy: always reaches); if it reaches, the two units are locked but wait for the next
        turn ("a unit that started a CC in a desperate charge only begins
        fighting in the next turn"). A FIGHTING unit is never shot at: a
        Tactical Charge into one makes no snap shot, any other shot raises.
        """
        if action == "desperate_charge":
            distance = policy.charge_distance_to(self, unit, target) if policy is not None else 0.0
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

    def _postponed_snaps(self, rng, plan, active: str, pol_a) -> None:
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
            # what the policy sees: the foes the wounds waiting for step 8 do not already destroy
            foes_view = ([a for a in foes if not a.doomed()] or foes) if self.rules.passive_sees_results else foes
            choice = pol_p.remaining(self, u, foes_view)
            if choice is None:
                continue
            action, foe = choice
            action = v.choice("action", action, ("hold_ground", "tactical_charge", "go_to_ground"))
            if action == "go_to_ground":  # "They can only shoot after HOLD GROUND or TACTICAL CHARGE actions"
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
    return {"A": get_policy(policy_a, "policy_a"), "B": get_policy(policy_b, "policy_b")}


def _generator(seed: Any) -> np.random.Generator:
    """The caller's Generator, or a fresh one from a whole number 0 or more."""
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(v.integer("seed", seed, 0))


@stat_function
def play_turn(force_a: Sequence[UnitSpec], force_b: Sequence[UnitSpec], *, policy_a: Any = "focus",
              policy_b: Any = "focus", rules: Any = None, seed: Any = 0, active: str = "A",
              log: bool = False) -> Tally:
    """Play one Changes turn from fresh forces (``active`` is the ACTIVE PLAYER)."""
    rng = _generator(seed)
    b = Battle(force_a, force_b, rules=rules, log=log)
    return b.turn(active, _policies(policy_a, policy_b), rng)


@stat_function
def play_igougo(force_a: Sequence[UnitSpec], force_b: Sequence[UnitSpec], *, policy_a: Any = "focus",
                policy_b: Any = "focus", seed: Any = 0, first: str = "A", log: bool = False) -> Tally:
    """Play one plain I-go-you-go round from fresh forces (see :meth:`Battle.igougo`)."""
    rng = _generator(seed)
    b = Battle(force_a, force_b, log=log)
    return b.igougo(first, _policies(policy_a, policy_b), rng)
