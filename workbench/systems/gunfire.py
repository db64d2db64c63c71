"""Gunfire: attacker stat against defender stat, then damage by division.

Seed 003 ("Reworking Shooting A Bit", Gunfire Shadowgram) gives the sequence
"1. Roll To Hit (BS vs. Ev + Modifiers) 2. Roll To Penetrate (AP vs. AV +
Modifiers) 3. Divide Damage According To Strength/Toughness" but never says
which die is rolled. The workbench's opposed test (RULES.md section 3,
``rules/gunfire.toml``) succeeds on a dX of ``base + defender - attacker`` or
more (d10 and 6 by default: equal stats give 50%), the modifiers added to the
defender's stat; the die, the base and the natural rolls are variant switches.
Damage by division (:func:`models_removed`), Explosive X (the seed's idea:
min(X, S // T) models per penetrating hit when S >= T) and the suppression
marker ("Either you penetrate their armor with at least one shot, or you hit
at least a certain percentage of that unit's models"): docs/rules/gunfire.md.
"""
from __future__ import annotations

import sys
from fractions import Fraction

import numpy as np

from .. import validate as v
from ..controls import dropdown, fine_slider, optional_slider
from ..errors import InputError
from ..outcome import Outcome
from . import ownfile
from .ownfile import checked, grid_table
from .records import SHOTS, ProfileField, Profiles, whole_fields

__all__ = ["KEY", "NAME", "SEED", "DIE", "BASE", "shooting", "shooting_table", "models_removed", "TABLES"]

KEY = "gunfire"
SEED = "003_9fc46742126cc43c.txt"
_FILE = ownfile.load(KEY)
NAME = _FILE.name
#: the seed states no die: rules/gunfire.toml's die stat defaults to a d10 (a variant switch)
DIE = dict(_FILE.stat("die").options)[_FILE.stat("die").default]
#: equal stats need ``BASE``+ on the die (the file's base: 6+ on a d10, 50%)
BASE = _FILE.stat("base").default


# -- the division step ----------------------------------------------------------------
def _removed(pens, s, t, explosive, models):
    """Vectorised models removed (inputs already checked): the file's ``[removal] removed`` of the
    penetrating hits, capped at ``models`` when given."""
    out = _FILE.removal.removed.evaluate(dict(successes=pens, s=s, t=t, explosive=1 if explosive is None
                                              else explosive), "removal.removed")
    return out if models is None else np.minimum(out, np.asarray(models, dtype=np.int64))


@v.stat_function
def models_removed(pens, s, t, explosive=None, models=None):
    """Models removed by ``pens`` penetrating hits of Strength ``s`` on Toughness ``t``.

    * S >= T: one model per penetrating hit, or min(explosive, S // T) per hit
      for an Explosive weapon;
    * S < T: floor(pens x S / T) ("The leftover point is discarded");
    * capped at ``models`` when given.

    Seed examples: ``models_removed(3, 1, 2) == 1`` (Laansguard S1 rifles, 3
    pens on T2 Knights); ``models_removed(4, 2, 1) == 4`` (Knights, S2, 4 pens
    on T1 Laansguard). Scalars give an int; arrays broadcast and give an array.
    """
    a = dict(pens=v.integers("pens", pens, 0, 1_000_000), **checked(
        _FILE, locals(), ("s", "t", "explosive", "models"), True, optional=("explosive", "models")))
    v.broadcastable(a)
    out = _removed(**a)
    return int(out) if out.ndim == 0 else out


# -- the stat-level functions: checked here, resolved by rules/gunfire.toml ----------------
#: the function's effect names -> the rule file's
_EFFECTS = {"suppressed": "suppressed", "hits": "hits", "penetrating_hits": "penetrating_hits"}
#: the dice the rule file's die switch offers, by their faces
DICE = tuple(faces for _, faces in _FILE.stat("die").options)
_GRID = ("bs", "ev", "ap", "av", "s", "t", "shots", "models", "hit_mod", "pen_mod", "explosive", "suppression_hits")
#: the test's variant switches, one value for a whole table
_SWITCHES = ("base", "natural_max_always_succeeds", "natural_1_always_fails")


def _check(kw: dict, arrays: bool) -> dict:
    """The checked arguments, each whole number in its stat's range in ``rules/gunfire.toml``."""
    a = checked(_FILE, kw, _GRID[:-1], arrays, optional=("models", "explosive"))
    a["suppression_fraction"] = v.real("suppression_fraction", kw["suppression_fraction"], 0, 1, lo_open=True)
    a["die"] = v.integer("die", kw["die"], 2, 100)
    a.update(checked(_FILE, kw, _SWITCHES))
    v.broadcastable({k: a[k] for k in _GRID[:-1]})
    return a


def _suppression_hits(models, fraction: float):
    """Hits that suppress on their own: ceil(fraction x models), exactly (0 without a unit size)."""
    if models is None:
        return 0
    frac = Fraction(fraction).limit_denominator(1_000_000)   # a small rational: 0.1 is 1/10, not the binary float
    return -(-(frac.numerator * np.asarray(models)) // frac.denominator)


def _file_stats(a: dict) -> dict:
    """The checked arguments as the rule file's stats."""
    if a["die"] not in DICE:
        raise InputError("die", "one of " + ", ".join(map(str, DICE)), a["die"], "the dice of the die switch")
    explosive = 1 if a["explosive"] is None else a["explosive"]
    return dict({k: a[k] for k in _GRID + _SWITCHES if k in a}, explosive=explosive,
                suppression_hits=_suppression_hits(a["models"], a["suppression_fraction"]), die=f"d{a['die']}")


def _width(a: dict) -> int:
    """Counts of models removed the pmf runs over: up to what every shot penetrating removes."""
    return int(np.max(_removed(a["shots"], a["s"], a["t"], a["explosive"], a["models"]))) + 1


@v.stat_function
def shooting_table(*, bs, ev, ap, av, s, t, shots=1, models=None, hit_mod=0, pen_mod=0, explosive=None,
                   suppression_fraction=0.25, die=DIE, base=BASE, natural_max_always_succeeds=False,
                   natural_1_always_fails=False) -> dict:
    """Vectorised twin of :func:`shooting` (exact only).

    ``bs, ev, ap, av, s, t, shots, models, hit_mod, pen_mod, explosive`` may
    be numpy arrays (broadcast together, shape S); the others are scalars.
    Returns ``{"pmf": array S+(width,), "effects": {"suppressed", "hits",
    "penetrating_hits": arrays S}}``; pmf[..., k] = P(k models removed).
    """
    a = _check(locals(), arrays=True)
    return grid_table(_FILE, _file_stats(a), _GRID, a["shots"], _EFFECTS, _width(a))


TABLES = {"shooting": shooting_table}


@v.stat_function
def shooting(*, bs, ev, ap, av, s, t, shots=1, models=None, hit_mod=0, pen_mod=0, explosive=None,
             suppression_fraction=0.25, die=DIE, base=BASE, natural_max_always_succeeds=False,
             natural_1_always_fails=False, method="exact", samples=100_000, seed=0) -> Outcome:
    """One unit's shots at one target unit.

    Per shot: to hit, BS against Ev + ``hit_mod``; to penetrate, AP against
    AV + ``pen_mod`` (opposed tests: a d``die`` roll of ``base + defender -
    attacker`` or more; ``die`` is one of 6, 8, 10, 12, 20). Then the
    penetrating hits are divided by S/T (see :func:`models_removed`), capped
    at ``models`` when given.

    ``effects``: ``suppressed`` = P(the target gets a suppression marker:
    at least one penetrating hit, or hits >= ceil(suppression_fraction x
    models); without ``models`` only penetration counts); ``hits`` and
    ``penetrating_hits`` = expected numbers.

    The numbers and the stages' words (its stages' ``says``) come from the system's rule file,
    ``rules/gunfire.toml``.
    """
    a = _check(locals(), arrays=False)
    method = v.method_args(method, samples, seed)[0]
    stats = _file_stats(a)
    o = _FILE.attack(**stats, method=method, samples=samples, seed=seed)
    notes = _FILE.notes_at(**stats)
    if a["models"] is not None:
        notes += (f"Suppressed if a shot penetrates or {stats['suppression_hits']} or more of the {a['shots']} "
                  f"shots hit ({a['suppression_fraction']:g} of {a['models']} models, rounded up).",)
    return ownfile.outcome(o, system=KEY, function="shooting", inputs=dict(a, method=method), effects=_EFFECTS,
                           width=_width(a), attacks=a["shots"], notes=notes)


# -- the system's description: dashboards, diagnostics, compare page, profiles and forum posts read it --
#: the three controls whose values :func:`shooting` takes otherwise than ``rules/gunfire.toml`` states
#: them, by the file's stat: Explosive X or none (the file's 1 is a weapon without Explosive), the
#: suppression threshold as a share of the unit (the file counts hits, the function computes them)
#: and the die by its faces (the file's options are named d6..d20)
_OWN_CONTROLS = {
    "explosive": optional_slider("explosive", None, 1, 6, _FILE.stat("explosive").label,
                                 "an explosive weapon's X; the leftmost notch means not explosive"),
    "suppression_hits": fine_slider("suppression_fraction", 0.25, 0.05, 1.0, 0.05, "suppression fraction",
                                    "the share of the unit that must be hit for it to be suppressed"),
    "die": dropdown("die", DIE, DICE, _FILE.stat("die").label, _FILE.stat("die").help)}


def profile_kwargs(attacker, weapon, target, situation) -> tuple[str, dict]:
    """``("shooting", keyword arguments of :func:`shooting`)`` for ``attacker``
    firing ``weapon`` at ``target``."""
    out = dict(bs=attacker["bs"], ev=target["ev"], ap=weapon["ap"], av=target["av"], s=weapon["s"], t=target["t"],
               shots=weapon["shots"])
    if weapon["explosive"] is not None:
        out["explosive"] = weapon["explosive"]
    return "shooting", out


#: the rule file's (its stats and [view]), with what only this Python says: the controls of
#: :func:`shooting`'s own signature, the unit profiles' fields with the function that reads them
SYSTEM = ownfile.describe(
    KEY, sys.modules[__name__], title="Gunfire", colour="#55A868", names=_EFFECTS, seed=SEED,
    modes=ownfile.own_controls(_OWN_CONTROLS),
    profiles=Profiles(
        unit={**whole_fields(0, 20, bs="Ballistic Skill", ev="Evasion", av="Armour Value"),
              "t": ProfileField("int", 1, 20, doc="Toughness")},
        weapon={"s": ProfileField("int", 1, 20, doc="Strength"),
                "ap": ProfileField("int", 0, 20, doc="Armour Piercing"), "shots": SHOTS, "explosive": ProfileField("int", 1, 20, default=None, doc="Explosive X")},
        basic=("laansguard", "Rifle", "laansguard"),
        to_kwargs=profile_kwargs),
)
