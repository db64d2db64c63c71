"""Named decision policies for a Changes turn, one per player.

The seed's point is the decision a player must make before any die is
rolled: "you have to decide who's shooting at a guy before you know if some
other guy will not take him down at the same time". A policy makes every
decision of one player:

* as ACTIVE PLAYER: the targets and declared attackers of each phase
  (:meth:`Policy.targets`), each attacker's action (:meth:`Policy.attack_action`),
  and the snap shot of its POSTPONED and EVADING units;
* as PASSIVE PLAYER: ENGAGE or stay UNDER FIRE (:meth:`Policy.response`),
  the engaged unit's action (:meth:`Policy.reply`) and the remaining units
  phase (:meth:`Policy.remaining`).

The three named policies differ only in how the active player spreads its
units over targets: ``"focus"`` (:class:`FocusFire`), ``"spread"``
(:class:`SpreadFire`) and ``"greedy"`` (:class:`Greedy`). Their options
(``response``, ``charge``, ``charge_kind``, ``charge_distance``, ``disembark``,
Greedy's ``kill_probability``) are described with their defaults in
``docs/rules/changes_turn.md`` ("Policies").
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Sequence

from .. import validate as v
from ..validate import stat_function
from ..errors import InputError
from ..rules.frozen import remember
from .state import EVADING, FIGHTING, RESPONSES

__all__ = ["Policy", "FocusFire", "SpreadFire", "Greedy", "POLICIES", "get_policy", "expected_wounds"]


@lru_cache(maxsize=4096)
def _rate(tests: tuple) -> float:
    """P(one attack passes all three tests) (the battle's ``gun_tests``)."""
    return math.prod(float(t.success) for t in tests)


#: exact P(destroyed) of a volley, shared by every Greedy policy of the process
_P_DESTROYED: dict = {}
_P_MAX = 200_000


def expected_wounds(battle, unit, target, shot: str = "aimed") -> float:
    """Expected unsaved wounds of ``unit``'s shot at ``target`` (per-die rates of
    :mod:`workbench.systems.changes`, times the dice)."""
    shot = battle.shot_at(unit, target, shot)
    total = 0.0
    for w in battle.weapons_for(unit, shot):
        total += w.shots * unit.models * _rate(battle.gun_tests(unit, w, shot, target))
    return total


def _dice(unit) -> int:
    return sum(w.shots for w in unit.spec.guns) * unit.models


class Policy:
    """The decisions of one player; subclasses choose the targets (docs/rules/changes_turn.md, "Policies")."""

    name = "base"

    def __init__(self, *, response: str = "engage", charge: bool = False, charge_kind: str = "furious",
                 charge_distance: float = 0.0, disembark: bool = True):
        self.response_choice = v.choice("response", response, RESPONSES)
        self.charge = v.boolean("charge", charge)
        self.charge_kind = v.choice("charge_kind", charge_kind, ("furious", "desperate"))
        self.charge_distance = v.real("charge_distance", charge_distance, 0.0, 1000.0)
        self.disembark = v.boolean("disembark", disembark)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.options()})"

    def options(self) -> str:
        text = f"response={self.response_choice!r}, charge={self.charge}"
        # the other options only when they are not the default (docs/rules/changes_turn.md, "Policies")
        if self.charge_kind != "furious":
            text += f", charge_kind={self.charge_kind!r}"
        if self.charge_distance:
            text += f", charge_distance={self.charge_distance:g}"
        if not self.disembark:
            text += ", disembark=False"
        return text

    # -- shared judgements -------------------------------------------------
    def threat(self, battle, unit) -> tuple:
        """Order of preference among enemy units: the most dice thrown, then the
        most models, then the name (so every choice is reproducible)."""
        return (_dice(unit), unit.models, unit.name)

    def can_hurt(self, battle, unit, target) -> bool:
        if target.status == FIGHTING:  # only a Tactical Charge reaches it, and a unit gone to ground cannot charge
            return self.charge and not unit.gone_to_ground
        if self.charge and unit.spec.melee_weapon.name != "bare hands":
            return True
        return expected_wounds(battle, unit, target) > 0

    def _most(self, battle, unit, foes: Sequence, shot: str, hurt_first: bool = False) -> Any:
        """The foe ``unit``'s ``shot`` can hurt that is most threatening (``hurt_first``:
        that it hurts most, then the most threatening), or None."""
        hurt = {f: expected_wounds(battle, unit, f, shot) for f in foes}
        useful = [f for f in foes if hurt[f] > 0]
        return max(useful, key=lambda f: (hurt[f] if hurt_first else 0.0, self.threat(battle, f)), default=None)

    def candidates(self, battle, side) -> list:
        foes = battle.targetable(battle.other(side))
        if not self.charge:
            foes = [f for f in foes if f.status != FIGHTING]
        return foes

    # -- the active player ------------------------------------------------
    def targets(self, battle, side) -> list[tuple[Any, list]]:  # pragma: no cover - abstract
        raise NotImplementedError

    def attack_action(self, battle, unit, target) -> str:
        if self.charge and not unit.gone_to_ground:
            if target.status == FIGHTING:
                return "tactical_charge"
            if unit.spec.melee_weapon.name != "bare hands":
                return f"{self.charge_kind}_charge"
        return "hold_ground"  # "•••": every model fires at full BS (it stays still)

    def charge_distance_to(self, battle, unit, target) -> float:
        """The inches ``unit``'s Desperate Charge (6+D6") must cover to reach ``target``."""
        return self.charge_distance

    def snap_target(self, battle, unit, candidates: Sequence) -> Any:
        """POSTPONED/EVADING units' snap shot (and a targeted EVADING unit's)."""
        return self._most(battle, unit, candidates, "snap")

    def postponed_snap(self, battle, unit, candidates: Sequence) -> Any:
        """A unit POSTPONED in an earlier phase, in a later one: the passive unit
        of this phase it snap shoots at (removing its marker), or None to wait.
        By default it shoots at its first chance, as :meth:`snap_target` picks."""
        return self.snap_target(battle, unit, candidates)

    # -- the passive player -------------------------------------------------
    def response(self, battle, unit, attackers) -> str:
        if unit.embarked and self.response_choice == "go_to_ground":
            return "engage"  # off the table, an embarked unit cannot go to ground
        return self.response_choice

    def disembark_at(self, battle, unit, attackers) -> Any:
        """Step 4: the attacker an ENGAGED unit embarked on a targeted transport
        shoots after disembarking (the one it hurts most with the DISEMBARK
        action's SHOT), or None to stay inside."""
        if not self.disembark:
            return None
        foes = [a for a in attackers if a.alive and a.status != FIGHTING and not a.embarked]
        return self._most(battle, unit, foes, "shot", hurt_first=True)

    def reply(self, battle, unit, attackers) -> tuple[str | None, Any]:
        """Step 6: a charged unit blocks a Furious Charge or charges back; any other
        engaged unit shoots (HOLD GROUND, or a snap shot if gone to ground) at the
        attacker it hurts most. A unit charged only by Desperate Charges blocks
        (it denies nothing, and the pair waits for the next turn's early combats,
        where a charge back would make it fight this turn). A unit still
        embarked does nothing ("They cannot DISEMBARK")."""
        if unit.embarked:
            return None, None
        if unit.charged_by:
            furious = [c for c, kind in unit.charged_by if kind == "furious_charge"]
            if furious:
                return "block", max(furious, key=lambda c: c.models)
            others = [c for c, kind in unit.charged_by if kind != "desperate_charge"]
            if not others:
                return "block", None
            return "tactical_charge", max(others, key=lambda c: c.models)
        foes = [a for a in attackers if a.alive and a.status != FIGHTING]
        if not foes:
            return None, None
        foe = max(foes, key=lambda f: (expected_wounds(battle, unit, f), self.threat(battle, f)))
        return ("go_to_ground" if unit.gone_to_ground else "hold_ground"), foe

    def remaining(self, battle, unit, foes: Sequence) -> tuple[str, Any] | None:
        """Remaining units phase: HOLD GROUND and shoot the most threatening active
        unit it can hurt ("He may target any ACTIVE unit")."""
        foe = self._most(battle, unit, foes, "aimed")
        return None if foe is None else ("hold_ground", foe)

    def igougo_target(self, battle, unit, foes: Sequence) -> Any:
        return max(foes, key=lambda f: self.threat(battle, f))


class FocusFire(Policy):
    """Every READY unit at the single most threatening enemy unit each phase."""

    name = "focus"

    def targets(self, battle, side):
        ready = battle.ready(side)
        for foe in sorted(self.candidates(battle, side), key=lambda f: self.threat(battle, f), reverse=True):
            attackers = [u for u in ready if self.can_hurt(battle, u, foe)]
            if attackers:
                return [(foe, attackers)]
        return []


class SpreadFire(Policy):
    """Fire spread over every targetable enemy unit: two targets a phase, the
    READY units dealt out evenly over all targetable enemies (strongest first)."""

    name = "spread"

    def targets(self, battle, side):
        ready = sorted(battle.ready(side), key=lambda u: (_dice(u), u.name), reverse=True)
        foes = sorted(self.candidates(battle, side), key=lambda f: self.threat(battle, f), reverse=True)
        if not ready or not foes:
            return []
        share = math.ceil(len(ready) / len(foes))
        plan, used = [], set()
        for foe in foes:
            if battle.count_targets([t for t, _ in plan] + [foe]) > 2:
                continue
            mine = [u for u in ready if u not in used and self.can_hurt(battle, u, foe)][:share]
            if mine:
                plan.append((foe, mine))
                used.update(mine)
            if len(plan) == 2:
                break
        return plan


class Greedy(Policy):
    """The fewest units that destroy a target with probability >= ``kill_probability``
    (exact: the shooting file's ``[volley]``, as :func:`workbench.systems.changes.volley` resolves
    it); see docs/rules/changes_turn.md, "Policies"."""

    name = "greedy"

    def __init__(self, kill_probability: float = 0.8, **kw: Any):
        super().__init__(**kw)
        self.kill_probability = v.real("kill_probability", kill_probability, 0.0, 1.0)

    def options(self) -> str:
        return f"kill_probability={self.kill_probability}, " + super().options()

    def p_destroyed(self, battle, attackers: Sequence, target) -> float:
        """P(the declared ``attackers`` destroy ``target`` this phase), exact.

        A target with a damaged model is treated as undamaged (the exact volley
        knows whole models only), which under-states the chance slightly.
        """
        entries = []
        for u in attackers:
            shot = battle.shot_at(u, target, "aimed")
            for w in battle.weapons_for(u, shot):
                entries.append((u.spec.bs, w.s, w.ap, w.shots * u.models, w.kind, shot,
                                u.gone_to_ground, u.spec.cover))
        if not entries:
            return 0.0
        spec, rules = target.spec, battle.rules
        shared = dict(t=spec.t, sv=spec.sv, inv=spec.inv, cover=spec.cover, models=target.models, wounds=spec.w,
                      go_to_ground=target.gone_to_ground, evading=target.status == EVADING,
                      natural_12_always_succeeds=rules.natural_12_always_succeeds,
                      natural_1_always_fails=rules.natural_1_always_fails, firer_cover_rule=rules.firer_cover_rule,
                      heavy_shot=rules.heavy_shot)
        keys = ("bs", "s", "ap", "shots", "weapon", "action", "firer_gone_to_ground", "firer_cover")
        shooting = battle.files["shot"]  # the shooting file's [volley], as changes.volley resolves it
        return remember(_P_DESTROYED, (shooting, tuple(entries), *shared.values()), lambda: float(
            shooting.volley([dict(zip(keys, e)) for e in entries], **shared).effects["destroyed"]), _P_MAX)

    def _fewest(self, battle, ready, foe):
        shooters = sorted((u for u in ready if expected_wounds(battle, u, foe) > 0),
                          key=lambda u: (expected_wounds(battle, u, foe), u.name), reverse=True)
        p = 0.0
        for k in range(1, len(shooters) + 1):
            p = self.p_destroyed(battle, shooters[:k], foe)
            if p >= self.kill_probability:
                return True, p, shooters[:k]
        return False, p, shooters

    def targets(self, battle, side):
        ready = list(battle.ready(side))
        foes = [f for f in self.candidates(battle, side) if f.status != FIGHTING]
        plan = []
        while ready and foes and len(plan) < 2:
            options = []
            for foe in foes:
                if battle.count_targets([t for t, _ in plan] + [foe]) > 2:
                    continue
                reached, p, units = self._fewest(battle, ready, foe)
                if units:
                    options.append((reached, -len(units) if reached else p, self.threat(battle, foe),
                                    foe, units))
            if not options:
                break
            reached, _, _, foe, units = max(options, key=lambda o: o[:3])
            if not reached and plan:
                break  # the units left cannot make a second sure kill: keep them for a later phase
            # (no sure kill anywhere: every unit that can hurt it goes at the likeliest one)
            plan.append((foe, list(units)))
            ready = [u for u in ready if u not in units]
            foes = [f for f in foes if f is not foe]
        return plan


POLICIES = {"focus": FocusFire, "spread": SpreadFire, "greedy": Greedy}


@stat_function
def get_policy(policy: Any, field: str = "policy") -> Policy:
    """A policy from its name ("focus", "spread", "greedy"), a ``(name, options)``
    pair, or a :class:`Policy` instance (returned as is)."""
    if isinstance(policy, Policy):
        return policy
    opts: dict = {}
    if isinstance(policy, tuple) and len(policy) == 2 and isinstance(policy[1], dict):
        policy, opts = policy
    name = v.choice(field, policy, tuple(POLICIES))
    try:
        return POLICIES[name](**opts)
    except TypeError:
        raise InputError(f"{field} options", "keywords among kill_probability (greedy), response, charge, "
                         "charge_kind, charge_distance, disembark",
                         opts) from None
