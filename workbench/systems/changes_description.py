"""40k Changes as the workbench shows it: its dashboard modes (shooting, melee, volley) with
their controls, the stats the diagnostics step through, the compare page's concepts, the seed
matchup, the grids and the unit profiles' fields: :func:`describe` builds the system's
:class:`~workbench.systems.description.SystemDescription`, which :mod:`workbench.systems.changes`
holds as ``SYSTEM``.
"""
from __future__ import annotations

import re
from types import ModuleType
from typing import Any

from ..controls import (dropdown as _dropdown, shots_slider as _shots, slider as _slider, toggle as _toggle,
                        unit_size_slider as _unit_size)
from .changes_rules import ACTIONS, DIE, KEY, NAME, SEED, WEAPONS
from .description import (Mode as _Mode, Sides as _Sides, ProfileField as _Field, Profiles as _Profiles, StatInfo as _Stat,
                          Step as _Step, SystemDescription as _Description)

__all__ = ["describe", "volley_call", "VOLLEY_UNITS"]

_ROLL_HELP = "a D12 roll of this or more (lower is better)"

_DEFENCE_CONTROLS = (
    _slider("t", 2, -2, 8, "T (added to S)", "the target's toughness, added to the S roll needed to wound"),
    _slider("sv", 3, -2, 8, "Sv (added to AP)", "the target's armour save, added to the AP roll needed to pierce"),
    _slider("inv", 0, 0, 8, "Inv (added to BS or WS)",
            "the target's invulnerable modifier; the better of cover (or dodge) and Inv is added to the hit roll"),
    _unit_size(10),
    _slider("wounds", 1, 1, 6, "W (wounds per model)", "wounds each target model takes before it is removed"),
    _toggle("natural_12_always_succeeds", False, "a natural 12 always succeeds",
            "variant: a roll of 12 passes every test, however hard"),
    _toggle("natural_1_always_fails", False, "a natural 1 always fails",
            "variant: a roll of 1 fails every test, however easy"),
)

#: the seed's two readings where the workbench's default could be argued
_READINGS = (
    _dropdown("firer_cover_rule", "same", ("same", "better"), "target cover when the firer has gone to ground",
              "the firer's cover +2, as the rules say, or the better of that and the target's own",
              words={"same": "the firer's cover +2", "better": "the better of the firer's +2 and its own"}),
    _dropdown("heavy_shot", "bs_plus_4", ("bs_plus_4", "flat_4"), "heavy weapon in a SHOT action",
              "BALLISTIC SKILL U+4 read as BS +4 or as a flat 4+",
              words={"bs_plus_4": "BS +4", "flat_4": "a flat 4+"}),
)

#: the target's stats in a forum post's matchup line (shooting and volley)
_TARGET_SIDE = (("t", "T", "mod"), ("sv", "Sv", "mod"), ("inv", "Inv", "mod"), ("cover", "cover", "mod"), ("wounds", "W", "plain"))

_SHOOTING_MODE = _Mode("shooting", "shooting", "Shooting", (
    _slider("bs", 5, 1, 13, "BS (roll needed)", f"ballistic skill: hits on {_ROLL_HELP}"),
    _slider("s", 5, 1, 13, "S (roll needed)", f"weapon strength: wounds on {_ROLL_HELP}, plus the target's T"),
    _slider("ap", 5, 1, 13, "AP (roll needed)",
            f"armour piercing: pierces on {_ROLL_HELP}, plus the target's Sv"),
    _slider("cover", 0, 0, 8, "cover (added to BS)", "the target's cover, added to the BS roll needed"),
    _shots(10),
    _dropdown("weapon", "light", WEAPONS, "weapon class", "a heavy weapon fires at BS +4 in a SHOT action"),
    _dropdown("action", "aimed", ACTIONS, "action", "the firing unit's action this turn: snap, shot or aimed"),
    _toggle("go_to_ground", False, "target gone to ground", "the target has gone to ground: +2 cover"),
    _toggle("evading", False, "target EVADING", "the target is EVADING: only snap shots may be fired at it"),
    _toggle("firer_gone_to_ground", False, "firer gone to ground",
            "the firing unit has gone to ground: it may only take snap shots"),
    _slider("firer_cover", 0, -2, 8, "firer's cover",
            "the firing unit's own cover, given to its target when it has gone to ground"),
) + _READINGS + _DEFENCE_CONTROLS, trial="shot",
   sides=_Sides(firer=(("bs", "BS", "plus"),), weapon=(("s", "S", "plus"), ("ap", "AP", "plus")),
                target=_TARGET_SIDE, always=("action",)))

_MELEE_MODE = _Mode("melee", "melee", "Melee", (
    _slider("ws", 5, 1, 13, "WS (roll needed)", f"weapon skill: hits on {_ROLL_HELP}"),
    _slider("s", 5, 1, 13, "S (roll needed)", f"strength: wounds on {_ROLL_HELP}, plus the target's T"),
    _slider("ap", 5, 1, 13, "AP (roll needed)", f"armour piercing: pierces on {_ROLL_HELP}, plus the target's Sv"),
    _slider("attacks", 10, 1, 40, "attacks", "attack dice, all models together"),
    _slider("d", 2, -2, 8, "D (added to WS)", "the target's dodge, added to the WS roll needed"),
    _toggle("furious_charge", False, "Furious Charge", "each charging model makes one free attack"),
    _slider("charging_models", 1, 0, 40, "charging models", "models that charged: one free attack each with "
            "Furious Charge"),
    _toggle("blocked", False, "Blocked", "the target blocked this unit: no free attacks"),
) + _DEFENCE_CONTROLS, trial="attack",
   sides=_Sides(firer=(("ws", "WS", "plus"),), weapon=(("s", "S", "plus"), ("ap", "AP", "plus")),
                target=(("d", "D", "mod"), ("t", "T", "mod"), ("sv", "Sv", "mod"), ("inv", "Inv", "mod"),
                        ("wounds", "W", "plain"))))

#: the volley dashboard: up to three units fire at one target, resolved together
VOLLEY_UNITS = 3
#: each unit's starting values on the volley dashboard
_VOLLEY_DEFAULTS: dict[int, dict[str, Any]] = {
    1: dict(bs=5, s=5, ap=5, shots=5, weapon="light", action="aimed"),
    2: dict(bs=5, s=4, ap=4, shots=3, weapon="heavy", action="aimed"),
    3: dict(bs=5, s=5, ap=5, shots=5, weapon="light", action="aimed")}


def _volley_unit(i: int) -> tuple:
    d = _VOLLEY_DEFAULTS[i]
    return (
        _slider(f"u{i}_bs", d["bs"], 1, 13, f"unit {i} BS (roll needed)", f"unit {i} hits on {_ROLL_HELP}"),
        _slider(f"u{i}_s", d["s"], 1, 13, f"unit {i} S (roll needed)", f"unit {i}'s weapon strength"),
        _slider(f"u{i}_ap", d["ap"], 1, 13, f"unit {i} AP (roll needed)", f"unit {i}'s armour piercing"),
        _slider(f"u{i}_shots", d["shots"], 1, 40, f"unit {i} shots", f"dice unit {i} rolls to hit"),
        _dropdown(f"u{i}_weapon", d["weapon"], WEAPONS, f"unit {i} weapon", "light or heavy weapon"),
        _dropdown(f"u{i}_action", d["action"], ACTIONS, f"unit {i} action", "snap, shot or aimed"),
        _toggle(f"u{i}_firer_gone_to_ground", False, f"unit {i} gone to ground",
                f"unit {i} has gone to ground: snap shots only"),
        _slider(f"u{i}_firer_cover", 0, -2, 8, f"unit {i} cover", f"unit {i}'s own cover"),
    )


def volley_call(fn, values: dict, **extra):
    """:func:`volley` from flat control values: ``units`` firing units, unit
    i's keys written ``u<i>_<key>`` (``u1_bs``, ``u2_action``...)."""
    n = values["units"]
    attackers: list[dict[str, Any]] = [{} for _ in range(n)]
    rest = {}
    for k, value in values.items():
        m = re.match(r"^u(\d+)_(.+)$", k)
        if m:
            if int(m.group(1)) <= n:
                attackers[int(m.group(1)) - 1][m.group(2)] = value
        elif k != "units":
            rest[k] = value
    return fn(attackers, **rest, **extra)


_VOLLEY_MODE = _Mode("volley", "volley", "Volley", (
    _slider("units", 2, 1, VOLLEY_UNITS, "firing units", "units declared at the target, resolved together"),
) + sum((_volley_unit(i) for i in range(1, VOLLEY_UNITS + 1)), ()) + (
    _slider("cover", 0, 0, 8, "cover (added to BS)", "the target's cover, added to every unit's BS roll needed"),
    _slider("models", 10, 1, 40, "models in the target unit", "the target unit's size"),
    _toggle("go_to_ground", False, "target gone to ground", "the target has gone to ground: +2 cover"),
    _toggle("evading", False, "target EVADING", "the target is EVADING: only snap shots may be fired at it"),
) + _READINGS + tuple(c for c in _DEFENCE_CONTROLS if c.name != "models"), trial="shot", call=volley_call,
  sides=_Sides(target=_TARGET_SIDE, unit=(("bs", "BS", "plus"), ("s", "S", "plus"), ("ap", "AP", "plus"))))


def _roll(doc: str) -> _Field:
    return _Field("int", 1, 13, doc=f"{doc}; the D12 target, 5 means 5+")


def _modifier(doc: str) -> _Field:
    return _Field("int", -12, 12, doc=f"{doc}; the modifier added, 2 means +2")


def profile_kwargs(attacker, weapon, target, situation) -> tuple[str, dict]:
    """``(mode, keyword arguments)`` of ``attacker`` using ``weapon`` on
    ``target``: :func:`shooting` for a light or heavy weapon, :func:`melee`
    (WS, the weapon's S and AP, the attacker's A, the target's D) for a melee
    weapon."""
    if weapon["class"] == "melee":
        return "melee", dict(ws=attacker["ws"], s=weapon["s"], ap=weapon["ap"], d=target["d"], inv=target["inv"],
                             t=target["t"], sv=target["sv"], wounds=target["w"],
                             attacks=attacker["a"] * weapon["shots"])
    return "shooting", dict(bs=attacker["bs"], s=weapon["s"], ap=weapon["ap"], t=target["t"], sv=target["sv"],
                            inv=target["inv"], wounds=target["w"], weapon=weapon["class"], shots=weapon["shots"])


def describe(module: ModuleType) -> _Description:
    """The description of 40k Changes, whose stat-level functions are ``module``'s."""
    return _Description(
        key=KEY, name=NAME, module=module, die=DIE, seed=SEED,
        title="Changes",
        blurb="D12 shooting: BS, S against T, AP against SV, cover, actions and volleys.",
        colour="#4C72B0",
        modes=(_SHOOTING_MODE, _MELEE_MODE, _VOLLEY_MODE),
        effects={"destroyed": "probability", "passed": "probability", "reached": "probability"},
        effect_words={
            "destroyed": "the whole unit is destroyed",
            "pierced": "hits that beat the armour roll",
            "unsaved_wounds": "unsaved wounds",
            "wasted_wounds": "wounds wasted beyond the unit",
            "free_attacks": "free attacks (Furious Charge)",
            "return_fire_models": "models left to fire back (removed at the end)",
            "surviving_models": "models left standing",
            "units_not_needed": "firing units not needed",
            "passed": "the test is passed",
            "reached": "the charge reaches its target",
        },
        stats=(
            _Stat("bs", "attacker", -1, range(2, 13), "BS N+ on a D12: lower is better, +1 = BS 5+ -> 4+"),
            _Stat("ap", "attacker", -1, range(2, 13), "AP N+ on a D12: lower is better, +1 = AP 5+ -> 4+"),
            _Stat("s", "attacker", -1, range(2, 13), "S N+ on a D12: lower is better, +1 = S 5+ -> 4+"),
            _Stat("cover", "defender", +1, range(0, 7), "cover modifier: added to BS, higher is better for the target"),
            _Stat("sv", "defender", +1, range(0, 7), "armour modifier: added to AP, higher is better for the target"),
            _Stat("t", "defender", +1, range(0, 7), "toughness modifier: added to S, higher is better for the target"),
        ),
        # RULES.md reference: space marine, S5+ AP5+ gun, aimed, at a space marine in the open
        seed_matchup=dict(bs=5, s=5, ap=5, t=2, sv=3, shots=10),
        # the three target numbers with the target's modifiers at 0 (a modifier only shifts a target number)
        granularity_grid=dict(bs=list(range(1, 14)), s=list(range(1, 14)), ap=list(range(1, 14)), shots=1),
        equivalence_search=dict(bs=list(range(2, 13)), s=list(range(2, 13)), ap=list(range(2, 13))),
        concepts={"accuracy": _Step("bs", "BS", -1, "plus"), "penetration": _Step("ap", "AP", -1, "plus"),
                  "toughness": _Step("t", "T", +1, "mod"), "cover": _Step("cover", "cover", +1, "mod")},
        profiles=_Profiles(
            unit={"ws": _roll("Weapon Skill"), "bs": _roll("Ballistic Skill"), "s": _roll("Strength"),
                  "t": _modifier("Toughness"), "w": _Field("int", 1, 100, doc="Wounds"),
                  "i": _Field("int", 0, 20, doc="Initiative"), "a": _Field("int", 0, 100, doc="Attacks"),
                  "ld": _roll("Leadership"), "sv": _modifier("armour Save"), "d": _modifier("Dodge"),
                  "inv": _modifier("Invulnerable")},
            weapon={"s": _roll("Strength"), "ap": _roll("Armour Piercing"), "shots": _Field("int", 1, 100,
                                                                                             doc="dice per model"),
                    "class": _Field("choice", allowed=("light", "heavy", "melee"), doc="weapon class")},
            basic=("space_marine", "Boltgun", "space_marine"),
            to_kwargs=profile_kwargs),
    )
