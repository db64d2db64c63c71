"""The Forgotten's shooting in a playtester's words: the modifiers of a shot with their labels and
the stages of :func:`workbench.systems.forgotten.shooting` (to hit, to kill, the heroic save), each
die as ``rules/forgotten/shooting.toml`` rolls it; the notes are that file's. Seed 002, RULES.md
section 2.
"""
from __future__ import annotations

from ..outcome import Stage
from ..rules.die import DieRoll, roll_high
from ..rules.engine import stage_dice
from . import ownfile
from .forgotten_rules import (ARMOUR, COVER_LEVEL, DAMAGE_V1_DIE, DIE, KEY, MOVED, RANGES, _MINUS, _env, _file_stats,
                              _mod_words, _mods, _ratio, _signed)

#: a shot's modifiers to hit after the firer's move and the range, and to the kill roll, as
#: :func:`~.forgotten_rules._mods` reads them (cover: none when flanked, :func:`_hit_mods`)
_HIT = (("facing_away", 1, "facing away"), ("cover", -2, "cover"), ("blind_fire", -1, "blind fire"),
        ("aimed=hit", 1, "aimed"), ("firer_wounded", -1, "wounded firer"), ("firer_shocked", -1, "shocked firer"))
_DAMAGE = (("aimed=damage", 1, "aimed"), ("firer_wounded", -1, "wounded firer"), ("firer_shocked", -1, "shocked firer"))
_FLANKED = (0, "cover ignored: firer in the target's rear 180")


def _hit_mods(a: dict) -> list[tuple[int, str]]:
    mods = [(MOVED[a["moved"]], a["moved"] if a["moved"] != "normal" else "normal move"),
            (RANGES[a["range"]], f"{a['range']} range")]
    return mods + [_FLANKED if label == "cover" and a["flanked"] else (m, label) for m, label in _mods(a, _HIT)]


def _stats(a: dict) -> dict:
    """The checked arguments as the stats of rules/forgotten/shooting.toml, the unit without a size (the
    function caps the models downed itself, and counts the hits that down nobody without it)."""
    return _file_stats(ownfile.load(KEY), a, models=None)


def _shot_dice(a: dict) -> tuple[DieRoll, DieRoll, tuple[DieRoll, DieRoll] | None]:
    """The dice of one shot at the (scalar) checked arguments ``a``, as the file rolls them: to hit,
    to kill (the stage of the damage rule in use) and the heroic save (fresh, wounded; None: no hero)."""
    rs = ownfile.load(KEY)
    env = _env(rs, _stats(a))
    to_hit, v2, v1 = (roll_high(int(d.target) - int(d.modifier), d.sides) for d in stage_dice(rs.stages, env))
    fresh, wounded = (roll_high(rs.removal.save.scalar(dict(env, wounded=w), "removal.save"), DIE) for w in (0, 1))
    return to_hit, v2 if a["damage_rule"] == "v2" else v1, None if a["heroic_save"] is None else (fresh, wounded)


def _every_kill_on_a_wounded_model(a: dict) -> bool:
    """Every kill of the volley lands on a model that already carries the red
    token (kills go to the wounded models first): there are at least as many
    of them as shots, or the whole unit is wounded."""
    k = a["target_wounded"]
    return k > 0 and (k >= a["shots"] or (a["models"] is not None and k >= a["models"]))


def _per_shot_exists(a: dict) -> bool:
    """Whether one chance per shot of downing a model exists: not when a kill's
    effect depends on the shots before it (a fresh tough model absorbs it, a
    wounded hero saves worse than a fresh one), unless every kill lands on a
    wounded model."""
    stateful = a["tough"] or (a["target_wounded"] > 0 and a["heroic_save"] is not None)
    return not stateful or _every_kill_on_a_wounded_model(a)


def _shooting_stages(a: dict) -> tuple[Stage, ...]:
    """The steps of one shot, whose product is P(one shot downs a model) where one chance per shot exists."""
    to_hit, to_kill, saves = _shot_dice(a)
    mods = _hit_mods(a)
    shown = [f"{_signed(m)} {label}" for m, label in mods if m or label.startswith("cover ignored")]
    with_text = (" with " + ", ".join(shown)) if shown else " unmodified"
    p_hit = to_hit.success
    p_near = to_hit.p("near_miss")
    hit_detail = (f"SHOOT {a['shoot']}{with_text} {to_hit.describe('d10')}: {_ratio(p_hit, DIE)}"
                  f" (near miss on {int(to_hit.target) - 1}: {_ratio(p_near, DIE)})")
    stages = [Stage("to hit", p_hit, hit_detail, faces=to_hit.sides)]
    extra = _mods(a, _DAMAGE)
    dmod = sum(m for m, _ in extra)
    p_kill = to_kill.success
    if a["damage_rule"] == "v2":
        word = "above" if a["kill_on"] == "above" else "at or above"
        parts = ([f"{_MINUS}{ARMOUR[a['armour']]} {a['armour']} armour"] if ARMOUR[a["armour"]] else []) \
            + ([f"{_MINUS}{COVER_LEVEL[a['cover_level']]} {a['cover_level']} cover"]
               if COVER_LEVEL[a["cover_level"]] and not a["flanked"] else []) + _mod_words(extra)
        ignored = (" (cover level ignored: firer in the target's rear 180)"
                   if a["flanked"] and COVER_LEVEL[a["cover_level"]] else "")
        detail = (f"d10{''.join(' ' + x for x in parts)} must roll {word} ATTACK POWER {a['attack_power']}"
                  f"{ignored}: {to_kill.describe('d10')}: {_ratio(p_kill, DIE)}")
    else:
        defence = a["defence"] + int(a["shield"])
        base = int(to_kill.target) + dmod    # the chart's roll, before the modifiers
        sh = " (+1 shield)" if a["shield"] else ""
        mod = f" with {', '.join(_mod_words(extra))}" if dmod else ""
        detail = (f"damage v1: Damage {a['damage']} against Defence {defence}{sh} kills on {base}+{mod}: "
                  f"{to_kill.describe('d6')}: {_ratio(p_kill, DAMAGE_V1_DIE)}")
    on_wounded = _every_kill_on_a_wounded_model(a)
    if on_wounded and a["tough"]:
        detail += " (every model hit already carries the red token: a kill downs it)"
    stages.append(Stage("to kill", p_kill, detail, faces=to_kill.sides))
    if saves is not None and _per_shot_exists(a):
        save = saves[1] if on_wounded else saves[0]
        s = save.success
        minus = [w for on, w in ((on_wounded, "wounded: red token"), (a["target_shocked"], "shocked")) if on]
        at = f" at {_MINUS}{len(minus)} ({', '.join(minus)})" if minus else ""
        stages.append(Stage("heroic save fails", 1 - s,
                            f"heroic save d10 >= {a['heroic_save']}{at} ignores the kill: {save.describe('d10')}: "
                            f"saves {_ratio(s, DIE)}, fails {_ratio(1 - s, DIE)}", faces=save.sides))
    return tuple(stages)


def _shooting_notes(a: dict, stages: tuple[Stage, ...]) -> tuple[tuple[Stage, ...], list[str]]:
    """The outcome's stages and notes: the file's notes for these arguments; where no per-shot
    chance of downing a model exists the per-die steps go to the notes and no stage is shown."""
    notes = list(ownfile.load(KEY).notes_at(**_stats(a)))
    if not _per_shot_exists(a):
        # No per-shot chance of downing a model exists: a tough model's first
        # unsaved kill only wounds it, and a wounded hero saves at -1, so what
        # one shot does depends on the shots before it. The per-die steps go
        # to the notes, not the stages (whose product would read as "the
        # chance one shot downs a model").
        why = (("a kill downs a model with the red token but only wounds a fresh tough model: no single "
                "chance per shot" if a["target_wounded"] else
                "a kill on a tough model wounds it first: no single shot downs a fresh tough model")
               if a["tough"] else "kills on the wounded models are saved at -1, on the others at full: "
               "no single chance per shot")
        notes[:0] = [f"{s.name[:1].upper()}{s.name[1:]}: {s.detail} ({why})" if s.name == "to kill"
                     else f"{s.name[:1].upper()}{s.name[1:]}: {s.detail}" for s in stages]
        stages = ()
    return stages, notes

