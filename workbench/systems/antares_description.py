"""Antares-style d10 as the workbench shows it: its dashboard mode (shooting) with its controls,
the stats the diagnostics step through, the compare page's concepts, the seed matchup, the grids
and the unit profiles' fields: :func:`describe` builds the system's
:class:`~workbench.systems.description.SystemDescription`, which :mod:`workbench.systems.antares`
holds as ``SYSTEM``.
"""
from __future__ import annotations

from types import ModuleType

from ..controls import shots_slider as _shots, slider as _slider, toggle as _toggle, unit_size_slider as _unit_size
from .description import (Mode as _Mode, Sides as _Sides, ProfileField as _Field, Profiles as _Profiles, StatInfo as _Stat,
                          Step as _Step, SystemDescription as _Description)
from .antares_rules import DIE, KEY, NAME, SEED

_SHOOTING_MODE = _Mode("shooting", "shooting", "Shooting", (
    _slider("acc", 5, 0, 10, "Acc (accuracy)", "the firer's accuracy: hits on a d10 roll of Acc or under (higher is better)"),
    _slider("res", 5, 0, 10, "Res (resist)", "the target's resist: a hit fails to harm on a d10 roll of Res or under"),
    _slider("sv", 1, 0, 8, "SV (strike value)", "the weapon's strike value, taken off the target's Res"),
    _slider("armour", 0, 0, 8, "armour", "the target's armour, added to its Res"),
    _slider("cover", 0, 0, 8, "cover", "the target's cover, added to its Res"),
    _slider("acc_mod", 0, -6, 6, "Acc modifier", "added to the firer's Acc"),
    _shots(10),
    _unit_size(10),
    _toggle("critical_ignores_res", False, "critical hit ignores Res",
            "variant: a critical hit (a roll of 1) removes a model without a Res test"),
), trial="shot",
   sides=_Sides(firer=(("acc", "Acc", "plain"),), weapon=(("sv", "SV", "plain"),),
                target=(("res", "Res", "plain"), ("armour", "armour", "plain"), ("cover", "cover", "plain"))))


def _out_of_10(doc: str) -> _Field:
    return _Field("int", 0, 10, doc=f"{doc}; out of 10")


def profile_kwargs(attacker, weapon, target, situation) -> tuple[str, dict]:
    """``("shooting", keyword arguments of :func:`shooting`)`` for ``attacker``
    firing ``weapon`` at ``target``."""
    return "shooting", dict(acc=attacker["acc"], res=target["res"], sv=weapon["sv"], armour=target["armour"],
                            shots=weapon["shots"])


def describe(module: ModuleType) -> _Description:
    """The description of Antares-style d10, whose stat-level functions are ``module``'s."""
    return _Description(
        key=KEY, name=NAME, module=module, die=DIE, seed=SEED,
        title="Antares",
        blurb="Roll-under d10: Acc, Res, armour and cover, critical hits.",
        colour="#C44E52",
        modes=(_SHOOTING_MODE,),
        effects={"any_critical": "probability", "critical": "probability"},
        effect_words={
            "any_critical": "at least one critical hit",
            "critical_hits": "critical hits",
            "critical": "the test is a critical success",
        },
        stats=(
            _Stat("acc", "attacker", +1, range(0, 11), "Acc: roll under, higher is better for the firer"),
            _Stat("sv", "attacker", +1, range(0, 7), "strike value: subtracted from Res, higher is better for the firer"),
            _Stat("res", "defender", +1, range(0, 11), "Res: roll under, higher is better for the target"),
            _Stat("armour", "defender", +1, range(0, 7), "armour: added to Res, higher is better for the target"),
            _Stat("cover", "defender", +1, range(0, 7), "cover: added to Res, higher is better for the target"),
        ),
        # RULES.md reference: Rever Acc 5 shoots Rever Res 5 with an SV 1 weapon
        seed_matchup=dict(acc=5, res=5, sv=1, shots=10),
        granularity_grid=dict(acc=list(range(0, 11)), res=list(range(0, 11)), sv=[0, 1], shots=1),
        equivalence_search=dict(acc=list(range(0, 11)), res=list(range(0, 11))),
        concepts={"accuracy": _Step("acc", "Acc", +1), "penetration": _Step("sv", "SV", +1),
                  "toughness": _Step("res", "Res", +1), "cover": _Step("cover", "cover", +1)},
        profiles=_Profiles(
            unit={"ag": _out_of_10("Agility"), "acc": _out_of_10("Accuracy"), "res": _out_of_10("Resist"),
                  "str": _out_of_10("Strength"), "init": _out_of_10("Initiative"), "cou": _out_of_10("Courage"),
                  "tech": _out_of_10("Technology"), "com": _out_of_10("Compute"),
                  "armour": _Field("int", 0, 10, default=0, doc="armour bonus to Res")},
            weapon={"sv": _Field("int", 0, 10, doc="strike value, subtracted from Res"),
                    "shots": _Field("int", 1, 100, doc="dice per model")},
            basic=("rever", "Carbine", "rever"),
            to_kwargs=profile_kwargs),
    )
