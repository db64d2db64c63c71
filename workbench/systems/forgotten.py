"""The Forgotten: d10, roll high (d6 for damage v1). Seed 002, RULES.md section 2.

"I've tried to keep a consistent mechanic - rolling high on d10 is good."
Every stat (SHOOT, CQC, PHYS, ATTACK POWER) is a target number: lower is
better. Shooting, per shot: to hit, d10 + modifiers >= SHOOT (a near miss:
"shots that fail by 1"); to kill, damage v2 (d10 - armour - cover level >
ATTACK POWER) or v1 (d6, "borrowed this off Kill Team": Damage against
Defence); a hero's save against PHYS; tough models, the red token of a
wounded model and shock ("a member of their fire team ... is downed", "2+
near misses or a non-damaging hit"). Every rule, its seed quotation and
the reading of what the seed leaves open: docs/rules/forgotten.md; each
argument: its stat's help in ``rules/forgotten/shooting.toml``.

Close combat: :func:`close_combat`, defined in :mod:`workbench.systems.forgotten_cc`
and re-exported here. The shooting's stages and notes, words included, are the file's (its stages'
``says``). The description (``SYSTEM``) is the rule folder's, with what only this Python says: the
controls of arguments the functions take otherwise than the files state them (None for "not used"
where a file has a number and a switch: a hero's save, a rule v1 number, a second weapon), the
effects the close-combat mechanism and the shooting's Python make, and the unit profiles' fields.
"""
from __future__ import annotations

import sys
from collections.abc import Mapping

import numpy as np

from .. import engine, pipeline
from .. import validate as v
from ..controls import Control, dropdown, optional_slider
from ..errors import InputError
from ..outcome import Outcome
from ..rules.errors import BudgetError
from . import ownfile
from .forgotten_cc import close_combat
from .forgotten_rules import (AIMED, ARMOUR, COVER_LEVEL, DAMAGE_V1_DIE, DIE, KEY, MOVED, NAME, RANGES, SEED,
                              _damage_v1_given, _file_stats, none_options, v1_target)
from .ownfile import checked
from .records import SHOTS, ProfileField, Profiles, whole_fields

__all__ = ["KEY", "NAME", "SEED", "DIE", "DAMAGE_V1_DIE", "shooting", "shooting_table", "close_combat",
           "v1_target", "TABLES", "MOVED", "RANGES", "ARMOUR", "COVER_LEVEL"]


# -- shooting --------------------------------------------------------------------
def _stats(a: dict) -> dict:
    """The checked arguments as the stats of rules/forgotten/shooting.toml, the unit without a size (the
    function caps the models downed itself, and counts the hits that down nobody without it)."""
    return _file_stats(ownfile.load(KEY), a, models=None)


def _check_shooting(kw: dict, arrays: bool) -> dict:
    rs = ownfile.load(KEY)
    a = checked(rs, kw, ("shoot", "attack_power", "shots", "models", "moved", "range", "facing_away", "cover",
                         "flanked", "blind_fire", "tough", "shield", "firer_wounded", "firer_shocked", "blast",
                         "aimed_fire_team", "target_shocked"), arrays)
    a.update(checked(rs, kw, ("target_wounded", "armour", "cover_level")))  # one value for a whole table
    a["aimed"] = v.choice("aimed", kw["aimed"], AIMED)
    a.update(checked(rs, kw, ("damage_rule", "kill_on", "shock_rule")))
    a.update(checked(rs, kw, ("heroic_save",), arrays, optional=("heroic_save",)))
    v.broadcastable({k: a[k] for k in ("shoot", "attack_power", "shots", "models", "heroic_save")})
    if a["models"] is not None and np.any(a["target_wounded"] > np.asarray(a["models"])):
        v.forbid("target_wounded", a["target_wounded"], f"at most models={kw['models']!r}",
                 "the models of the target unit that already carry the red token")
    a.update(checked(rs, kw, ("blind_fire_rule",)))  # the forbidden combinations: the file's [[forbid]]
    if _damage_v1_given(rs, kw, a, ("damage", "defence"), ("damage", "defence"),
                        "damage v1 compares the weapon's Damage with the target's Defence",
                        "Damage and Defence are damage v1 stats; v2 uses attack_power, armour and cover_level"):
        a.update(checked(rs, kw, ("damage", "defence"), arrays))
        v.broadcastable({k: a[k] for k in ("shoot", "attack_power", "shots", "models", "heroic_save",
                                           "damage", "defence")})
    return a


@v.stat_function
def shooting_table(*, shoot, attack_power, shots=1, models=None, moved="cautious", range="medium",
                   facing_away=False, cover=False, flanked=False, armour="none", cover_level="none",
                   aimed=None, blind_fire=False, damage_rule="v2", kill_on="above", shock_rule="seed",
                   damage=None, defence=None, heroic_save=None, tough=False, shield=False,
                   firer_wounded=False, firer_shocked=False, blast=False, blind_fire_rule="seed",
                   aimed_fire_team=False, target_wounded=0, target_shocked=False) -> dict:
    """Vectorised twin of :func:`shooting` (exact only).

    ``shoot, attack_power, shots, models, damage, defence, heroic_save`` may be
    numpy arrays (broadcast together, shape S); the rest (``target_wounded``
    too) are scalars. Returns
    ``{"pmf": array S+(width,), "effects": {"shock", "hits", "near_misses",
    "non_damaging_hits": arrays S}}``; pmf[..., k] = P(k models downed).
    """
    kw = dict(locals())
    a = _check_shooting(kw, arrays=True)
    stats = _stats(a)
    shape, flat = ownfile.flat_grid({k: stats[k] for k in _GRID if k in stats})
    out = _within_budget(lambda: ownfile.load(KEY).attack_table(**dict(stats, **flat)))
    width = int(np.shape(out["pmf"])[-1])
    down = np.asarray(out["pmf"]).reshape(shape + (width,))
    return {"pmf": _capped(down, a["models"], int(np.max(a["shots"]))),
            "effects": _effects(out["effects"], down, shape)}


def _effects(got: Mapping, down: np.ndarray, shape: tuple = ()) -> dict:
    """The file's effects in the grid's ``shape``, with the hits that down nobody: the hits less the
    models the unit without a size loses."""
    effects = {k: np.asarray(got[k], dtype=float).reshape(shape) for k in ("shock", "hits", "near_misses")}
    effects["non_damaging_hits"] = np.clip(effects["hits"] - down @ np.arange(np.shape(down)[-1]), 0.0, None)
    return effects


TABLES = {"shooting": shooting_table}


@v.stat_function
def shooting(*, shoot, attack_power, shots=1, models=None, moved="cautious", range="medium",
             facing_away=False, cover=False, flanked=False, armour="none", cover_level="none", aimed=None,
             blind_fire=False, damage_rule="v2", kill_on="above", shock_rule="seed", damage=None,
             defence=None, heroic_save=None, tough=False, shield=False, firer_wounded=False,
             firer_shocked=False, blast=False, blind_fire_rule="seed", aimed_fire_team=False,
             target_wounded=0, target_shocked=False,
             method="exact", samples=100_000, seed=0) -> Outcome:
    """One soldier's or fire team's ``shots`` at a target unit of ``models`` models.

    Every rule it applies (to hit, near misses, damage v2 and v1, heroic saves, tough models, the
    red token, shock) is docs/rules/forgotten.md's, each argument's meaning is its stat's help in
    ``rules/forgotten/shooting.toml`` and the combinations it refuses are that file's
    ``[[forbid]]``. ``aimed`` (None, "hit" or "damage") and ``heroic_save`` (None: no hero) say
    "none" with None; ``damage`` and ``defence`` are given with ``damage_rule="v1"`` only.
    The stages are the file's, in its words: to hit and to kill (the kill roll of the damage rule
    in use), their product the chance one shot scores a kill; a hero's save, a tough model and the
    red token act on the kills after them, model by model (docs/rules/forgotten.md).

    ``pmf[k]`` = P(k models downed), capped at ``models``. Effects: ``shock``
    = P(the target must test for shock after this volley), ``hits``,
    ``near_misses``, ``non_damaging_hits`` = expected numbers (a hit that
    downs nobody, overkill beyond the unit not counted separately).
    """
    kw = dict(locals())
    a = _check_shooting(kw, arrays=False)
    method, samples, rng = v.method_args(method, samples, seed)
    inputs = dict(a, method=method)
    rs = ownfile.load(KEY)
    stats = _stats(a)
    n_shots, models = a["shots"], a["models"]
    shown = rs.shown_at(**dict(stats, models=models))   # one chance per shot: read with the unit's size
    fields = dict(attacks=n_shots, notes=rs.notes_at(**stats), label=rs.view.label, blows_vary=shown["blows_vary"],
                  **ownfile.terms(KEY, "shooting"))
    if method == "exact":
        o = _within_budget(lambda: rs.attack(**stats))
        effects = {k: float(x) for k, x in _effects(o.effects, o.pmf).items()}
        out = Outcome(KEY, "shooting", inputs, _capped(o.pmf, models, n_shots), shown["stages"], effects, **fields)
        return out.replace(stage_pmfs=o.stage_pmfs)

    if rng is None:  # method_args gives a Generator for every method but "exact"
        raise RuntimeError("no random generator for a sampled resolution")

    def per_sample(got: dict) -> dict:
        down = got["removed"]                   # the unit without a size: every model downed
        return {"removed": down if models is None else np.minimum(down, models), "shock": got["shock"],
                "hits": got["hits"], "near_misses": got["near_misses"], "non_damaging_hits": got["hits"] - down}

    o = pipeline.tally_outcome(KEY, "shooting", inputs, rs.sample_tally(rng, samples, per_sample, **stats),
                               shown["stages"], **fields)
    width = ownfile.width(n_shots, models)
    return o.replace(pmf=ownfile.fit(o.pmf, width),
                     pmf_stderr=None if o.pmf_stderr is None else ownfile.fit(o.pmf_stderr, width))


#: the numbers of the shooting functions that may be arrays (a sweep's axes)
_GRID = ("shoot", "attack_power", "shots", "damage", "defence", "heroic_save")


def _within_budget(resolve):
    """``resolve()``, the file's refusal of too much exact work said in the function's words: the
    state of tough or wounded models is stepped once per shot, so the work grows with cells x
    shots x shots."""
    try:
        return resolve()
    except BudgetError as e:
        raise InputError("shots", f"fewer shots or cells: {e.expected}", e.got,
                         "method='sampled' has no such limit") from None


def _capped(down: np.ndarray, models, n_max: int) -> np.ndarray:
    """P(k models downed) of a unit of ``models`` (None: no size) from the downs of a unit
    without a size, up to the most that can be downed."""
    return ownfile.fit(engine.cap(down, models), ownfile.width(n_max, models))


# -- the system's description: dashboards, diagnostics, compare page, profiles and forum posts read it --
def _own(part: str, name: str, none: str | None = "not used") -> Control:
    """The control of the stat ``name`` of the file ``part`` for a function that takes None for it,
    at its leftmost notch: the file's label and help, 1 to 12, starting at None and saying what it
    means (``none``; None: starting at the file's default); a choice's options are the file's, None
    for its "none"."""
    rs = ownfile.load(KEY, part)
    stat = rs.stat(name)
    if stat.kind == "choice":
        return dropdown(name, None, none_options(stat), stat.label, stat.help, words=dict(rs.view.words.get(name, ())))
    return optional_slider(name, None if none else stat.default, 1, 12, stat.label,
                           stat.help + (f"; the leftmost notch means {none}" if none else ""))


#: shooting's arguments whose values are not the file's: none is "not used" / "no hero"
_SHOOTING_OWN = tuple(_own("shooting", k, none) for k, none in (
    ("aimed", None), ("damage", "not used"), ("defence", "not used"), ("heroic_save", "no hero")))
#: close combat's arguments whose values are not the file's
_CC_OWN = tuple(_own("close_combat", f"{side}_{k}", none) for side in ("attacker", "defender") for k, none in (
    ("phys", None), ("heroic_save", "no hero"), ("damage", "not used"), ("strength", "not used"),
    ("defence", "not used"))) + (_own("close_combat", "dual_weapons"), _own("close_combat", "defender_dual_weapons"))
#: the files' hero switches, which the functions' heroic saves hold (none: no hero)
_HEROES = ("hero", "attacker_hero", "defender_hero")


#: where the close-combat page starts that neither the file nor the function start: light armour on
#: both sides (a copy of the file starts at its defaults, as forgotten.close_combat does)
_CC_START = {"attacker_armour": "light", "defender_armour": "light"}


def profile_kwargs(attacker, weapon, target, situation) -> tuple[str, dict]:
    """``("shooting", keyword arguments of :func:`shooting`)`` for ``attacker``
    firing ``weapon`` at ``target``; a melee weapon is an InputError."""
    if weapon["class"] == "melee":
        raise InputError("weapon", "a ranged weapon (shooting)", weapon.name, f"{weapon.name} is a melee weapon")
    out = dict(shoot=attacker["shoot"], attack_power=weapon["attack_power"], shots=weapon["shots"])
    if situation.get("damage_rule") == "v1":
        # the d6 damage v1 compares the weapon's Damage with the target's
        # Defence (which already counts its armour): no armour level
        out["damage"] = weapon["damage"]
        out["defence"] = target["defence"]
        if target["shield"]:
            # seed: a shield "adds +1 DEF vs shooting" (damage v1 only)
            out["shield"] = True
    else:
        out["armour"] = target["armour"]
    return "shooting", out


SYSTEM = ownfile.describe(
    KEY, sys.modules[__name__], title="Forgotten", colour="#DD8452", names={"shock": "shock"}, seed=SEED,
    modes=ownfile.own_controls({**{c.name: c for c in _SHOOTING_OWN + _CC_OWN}, **dict.fromkeys(_HEROES)},
                               start=_CC_START),
    effects={k: "probability" for k in ("defender_downed", "attacker_downed", "defender_newly_wounded",
                                        "attacker_newly_wounded", "pushback_none", "pushback_attacker",
                                        "pushback_defender", "downed")},
    effect_words={"downed": "the model is downed", "non_damaging_hits": "hits that do no damage"},
    profiles=Profiles(
        unit={**whole_fields(1, 11, "; d10 target number, 6 means 6+", shoot="SHOOT", cqc="CQC", phys="PHYS"),
              "armour": ProfileField("choice", allowed=tuple(ARMOUR), doc="armour level"),
              "defence": ProfileField("int", 0, 20, default=None, doc="damage v1 Defence"),
              "shield": ProfileField("bool", default=False, doc="carries a shield")},
        weapon={"shots": SHOTS,
                "attack_power": ProfileField("int", 0, 11, doc="ATTACK POWER, roll above it to kill"),
                "damage": ProfileField("int", 0, 20, default=None, doc="damage v1 Damage"),
                "class": ProfileField("choice", allowed=("ranged", "melee"), default="ranged", doc="weapon class")},
        basic=("trooper", "Rifle", "trooper"),
        to_kwargs=profile_kwargs),
)
