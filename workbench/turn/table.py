"""Two forces on the table and the dice that change them: the D12 tests of
a shot or a strike, the wounds that wait for step 8, casualties, wrecked
transports and the FIGHTs of units locked in close combat (:class:`Table`,
the ground :class:`workbench.turn.simulator.Battle` plays its turn on).

Every shot and strike rolls the stages of the Changes rule files, ``rules/changes/shooting.toml``
and ``melee.toml`` (their to-hit, to-pierce and to-wound target numbers), or of a copy of the folder
(``Rules(system=...)``), with a numpy Generator passed in: an edit of a target number there is the
turn's too.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from .. import validate as v
from ..errors import InputError
from ..rules.die import DieRoll
from ..rules.engine import stage_dice
from ..systems import changes, changes_rules, ownfile
from .forces import UnitSpec, Weapon, force, target_count
from .state import EVADING, FIGHTING, SIDES, Tally, Unit, _rules

__all__ = ["Table"]


def _files(system: Any) -> dict[str, Any]:
    """The rule files a shot and a strike roll the stages of: the folder ``system``'s (None: the built-in's)."""
    folder = ownfile.system(changes.KEY) if system is None else system
    return {"shot": folder.part("shooting"), "strike": folder.part(changes.MELEE_PART)}


@lru_cache(maxsize=4096)
def _tests(rule_file: Any, stats: tuple) -> tuple[DieRoll, ...]:
    """The D12 tests of one shot or one strike: the stages of its rule file at ``stats``, (name,
    value) pairs of the file's stats (the others at the file's defaults)."""
    _inputs, env = rule_file._check(dict(stats), arrays=False)
    return tuple(DieRoll(die) for die in stage_dice(rule_file.stages, env))


class Table:
    """Two forces on the table, the units' locks and transports, and the dice
    of shots, strikes, casualties and fights."""

    def __init__(self, force_a: Sequence[UnitSpec], force_b: Sequence[UnitSpec], *, rules: Any = None,
                 log: bool = False):
        self.rules = _rules(rules)
        #: the rule files a shot and a strike roll (see :func:`_files`)
        self.files = _files(self.rules.system)
        self.units = {side: [Unit(s, side) for s in force(f)] for side, f in zip(SIDES, (force_a, force_b))}
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
        made by a DESPERATE CHARGE this turn ("only begins fighting in the next turn"), by name: the
        order the fights' dice are rolled in, the same in every run."""
        return [o for o in sorted(unit.locked, key=lambda o: o.name)
                if o.alive and frozenset((unit, o)) not in self.waiting]

    def _say(self, text: str) -> None:
        if self.log:
            self.tally.events.append(text)

    # -- dice --------------------------------------------------------------
    def _target_stats(self, weapon: Weapon, target: Unit) -> tuple:
        """The stats both rule files take from the weapon, the target and the variant switches."""
        spec, rules = target.spec, self.rules
        return (("s", weapon.s), ("ap", weapon.ap), ("t", spec.t), ("sv", spec.sv), ("inv", spec.inv),
                ("natural_12_always_succeeds", rules.natural_12_always_succeeds),
                ("natural_1_always_fails", rules.natural_1_always_fails))

    def gun_tests(self, firer: Unit, weapon: Weapon, shot: str, target: Unit):
        """The three D12 tests of one shot, the stages of ``rules/changes/shooting.toml`` (the
        targets of ``changes.shooting``: BS + max(cover, Inv), AP + Sv, S + T; a heavy weapon in a
        SHOT, the target gone to ground, the firer gone to ground, with the switches
        ``Rules(heavy_shot=...)`` and ``Rules(firer_cover_rule=...)``)."""
        return _tests(self.files["shot"], self._target_stats(weapon, target) + (
            ("bs", firer.spec.bs), ("weapon", weapon.kind), ("action", shot), ("cover", target.spec.cover),
            ("go_to_ground", target.gone_to_ground), ("firer_gone_to_ground", firer.gone_to_ground),
            ("firer_cover", firer.spec.cover), ("firer_cover_rule", self.rules.firer_cover_rule),
            ("heavy_shot", self.rules.heavy_shot)))

    def melee_tests(self, attacker: Unit, target: Unit):
        """Melee: the stages of ``rules/changes/melee.toml`` ("Weapons Skill vs Dodge or
        Invulnerable": WS + max(D, Inv), then pierce and wound as shooting)."""
        return _tests(self.files["strike"], self._target_stats(attacker.spec.melee_weapon, target) + (
            ("ws", attacker.spec.ws), ("d", target.spec.d)))

    @staticmethod
    def shot_at(firer: Unit, target: Unit, shot: str) -> str:
        """The shot ``firer`` makes at ``target``: a snap shot at an EVADING target ("downgrade")
        and from a firer gone to ground ("may only make SNAP SHOTS"), else ``shot``."""
        return "snap" if target.status == EVADING or firer.gone_to_ground else shot

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
        if target.status == EVADING and shot != "snap" and self.rules.snap_at_evading == "refuse":
            raise InputError("shot", "'snap' at an EVADING target", shot,
                             "enemy units can only fire at this unit with SNAP SHOTS")
        shot = self.shot_at(firer, target, shot)
        dice = wounds = 0
        for wpn in self.weapons_for(firer, shot):
            n = wpn.shots * firer.models
            if n == 0:
                continue
            _h, _p, w = changes_rules._roll_counts(rng, self.gun_tests(firer, wpn, shot, target), (n,))
            dice += n
            wounds += int(w)
        target.pending += wounds
        self._say(f"{firer.side}:{firer.name} {shot} at {target.side}:{target.name}: "
                  f"{dice} dice, {wounds} wounds")
        return dice, wounds

    def strike(self, rng: np.random.Generator, attacker: Unit, target: Unit, attacks: int) -> int:
        if attacks <= 0:
            return 0
        _h, _p, w = changes_rules._roll_counts(rng, self.melee_tests(attacker, target), (attacks,))
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
        start = dict(self.tally.lost)
        for u in group:
            if u.gone_to_ground:
                u.place(None)
        for ini in sorted({u.spec.i for u in group}, reverse=True):
            strikers = [u for u in group if u.alive and u.spec.i == ini and self.engaged_with(u)]
            for u in strikers:
                foe = max(self.engaged_with(u), key=lambda o: (o.models, o.name))
                suffered[foe.side] += self.strike(rng, u, foe, u.models * u.spec.a)
            self.remove_casualties()
        if self.rules.loser == "wounds":
            return suffered
        return {s: self.tally.lost[s] - start[s] for s in SIDES}

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
        n12, n1 = self.rules.natural_12_always_succeeds, self.rules.natural_1_always_fails
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
                tst = changes_rules._test(u.spec.ld + diff, n12, n1)
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
