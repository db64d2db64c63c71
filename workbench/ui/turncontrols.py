"""What a playtester sets on the Changes turn page: the plans, the answers,
the unit pickers (a profile of ``profiles/changes`` with one of its guns)
and every control with its range, its help and the words of its choices,
and how a link's value is read against its control's steps.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import profiles
from ..controls import Control
from ..errors import InputError
from ..systems import changes

__all__ = ["PLANS", "ANSWERS", "DEFAULT_TURNS", "TURNS_RANGE", "SIDES", "MAX_UNITS", "UnitChoice",
           "unit_choices", "controls"]

#: a plan as the page names it -> the policy of workbench.turn.policies
PLANS = {"focus": "Focus fire", "spread": "Spread fire", "greedy": "Just enough"}
#: what each plan does, in a playtester's words (the plan control's help)
PLAN_HELP = ("Focus fire: every unit at the enemy unit that throws the most dice. Spread fire: units shared "
             "out over two enemy units. Just enough: for each target, the fewest units that destroy it with "
             "at least the chance set below, then a second target with the units left.")
#: the passive player's answer when its units are attacked -> how the page says it
ANSWERS = {"engage": "Engage (fire back at once)",
           "under_fire": "Stay under fire (act later)",
           "go_to_ground": "Go to ground (+2 cover)"}
#: the two sides: link prefix -> (title, what it does in the turn)
SIDES = {"a": ("Active player", "declares its attacks first"),
         "b": ("Passive player", "answers each attack")}
MAX_UNITS = 3
#: the number of simulated turns: default, and (lowest, highest, step). A redraw
#: plays four scenarios of that many turns; the default keeps it under ~2 s
#: on a 2-core machine, the highest a few seconds (docs/dashboards.md).
DEFAULT_TURNS = 500
TURNS_RANGE = (100, 2000, 100)
SEED_RANGE = (0, 9999)
KILL_RANGE = (50, 95, 5)  # "just enough": the target chance to destroy a unit, in percent

#: the starting forces: (models, gun, cover) per unit
_DEFAULT_FORCES = {"a": [(5, "boltgun", 0), (10, "boltgun", 0), (5, "boltgun", 0)],
                   "b": [(5, "boltgun", 0), (10, "heavy-bolter", 2), (5, "boltgun", 0)]}


def _slug(text: str) -> str:
    import re
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


@dataclass(frozen=True)
class UnitChoice:
    """One entry of a unit picker: a profile of ``profiles/changes`` with one of its guns."""

    key: str  # "space-marine.boltgun": what the link holds
    unit: str  # the profile's name
    gun: str  # the gun's name
    melee: tuple[str, ...]  # the profile's melee weapons (used in fights)
    label: str  # what the picker shows


def unit_choices() -> dict[str, UnitChoice]:
    """Every (profile, gun) pair of the 40k Changes profiles, by link key."""
    out: dict[str, UnitChoice] = {}
    for u in profiles.list_units(changes.KEY):
        melee = tuple(w.name for w in u.weapons if w["class"] == "melee")
        for w in u.weapons:
            if w["class"] == "melee":
                continue
            key = f"{_slug(u.key)}.{_slug(w.name)}"
            out[key] = UnitChoice(key, u.name, w.name, melee, f"{u.name}, {w.name} ({_shots(w)})")
    if not out:  # pragma: no cover - the project ships the Space Marine
        raise InputError("profiles/changes", "at least one unit with a gun", "none")
    return out


def _gun_text(ch: UnitChoice) -> str:
    """"Boltgun: light, 1 shot, S 5+, AP 5+" from the unit's profile."""
    w = profiles.get_unit(changes.KEY, ch.unit).weapon(ch.gun)
    return f"{w.name}: {w['class']}, {_shots(w)} a model, S {w['s']}+, AP {w['ap']}+"


def _shots(w) -> str:
    return f"{w['shots']} shot{'s' if w['shots'] != 1 else ''}"


def _default_choice(choices: dict[str, UnitChoice], gun: str) -> str:
    return next((k for k in choices if k.endswith("." + gun)), next(iter(choices)))


def controls(choices: dict[str, UnitChoice] | None = None) -> dict[str, Control]:
    """Every control of the page by link key, with its range and its help in a playtester's words."""
    choices = choices or unit_choices()
    keys = tuple(choices)
    lo, hi, step = TURNS_RANGE
    out = {
        "turns": Control("turns", "int", DEFAULT_TURNS, lo, hi, step, label="turns simulated",
                         help=f"how many turns are played for each row of the table ({lo} to {hi}, "
                              f"by {step}); more turns give steadier numbers but take longer"),
        "seed": Control("seed", "int", 1, *SEED_RANGE, label="dice seed",
                        help="which dice are rolled: the same seed always gives the same numbers"),
    }
    for side, (title, _what) in SIDES.items():
        other = "passive" if side == "a" else "active"
        out[f"{side}_plan"] = Control(f"{side}_plan", "choice", "greedy" if side == "a" else "focus",
                                      options=tuple(PLANS), words=tuple(PLANS.items()), label="plan",
                                      help=f"how the {title.lower()} chooses targets. " + PLAN_HELP)
        out[f"{side}_kill"] = Control(f"{side}_kill", "int", 80, *KILL_RANGE[:2], KILL_RANGE[2],
                                      label="'just enough' aims at (%)",
                                      help="with the 'just enough' plan: the chance of destroying the target "
                                           "that the fewest committed units must reach")
        out[f"{side}_units"] = Control(f"{side}_units", "int", MAX_UNITS, 1, MAX_UNITS, label="units",
                                       help=f"how many units the {title.lower()} has on the table")
        for i, (models, gun, cover) in enumerate(_DEFAULT_FORCES[side], start=1):
            out[f"{side}{i}_unit"] = Control(f"{side}{i}_unit", "choice", _default_choice(choices, gun),
                                             options=keys, label=f"unit {i}",
                                             words=tuple((k, ch.label) for k, ch in choices.items()),
                                             help="the unit's army-list entry and the gun its models carry: "
                                                  + "; ".join(sorted({_gun_text(ch) for ch in choices.values()})))
            out[f"{side}{i}_models"] = Control(f"{side}{i}_models", "int", models, 1, 20, label="models",
                                               help="models in the unit")
            out[f"{side}{i}_cover"] = Control(f"{side}{i}_cover", "int", cover, 0, 4, label="cover",
                                              help=f"the unit's cover: added to the roll the {other} "
                                                   "player needs to hit it (0 = in the open)")
    out["b_answer"] = Control("b_answer", "choice", "engage", options=tuple(ANSWERS), words=tuple(ANSWERS.items()),
                              label="answer",
                              help="what a passive unit does when it is attacked: engage (fire back at the "
                                   "attackers at once), stay under fire (act in the remaining units phase), or "
                                   "go to ground (+2 cover, then only snap shots)")
    return out


def _on_step(c: Control, value: Any) -> Any:
    """A link's value of a stepped control: refused unless it is on a step."""
    if c.kind == "int" and c.step and c.step != 1 and (value - c.lo) % c.step:
        raise InputError(c.name, f"a number from {c.lo:g} to {c.hi:g} in steps of {c.step:g}", value)
    return value
