"""The Forgotten's shooting in a playtester's words: the modifiers of a shot with their labels,
the stages of :func:`workbench.systems.forgotten.shooting` (to hit, to kill, the heroic save) and
the notes that say the rules as read for its arguments. Seed 002, RULES.md section 2.
"""
from __future__ import annotations

from ..outcome import Stage
from ..rules.die import DieRoll
from .forgotten_rules import (ARMOUR, COVER_LEVEL, DAMAGE_V1_DIE, DIE, MOVED, RANGES, _MINUS, _mod_words, _mods,
                              _ratio, _signed, _v1_need)

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


def _cover_level(a: dict) -> int:
    """The cover level taken off the damage roll: none when flanked ("if the
    firer is in its rear 180 the cover does not count")."""
    return 0 if a["flanked"] else COVER_LEVEL[a["cover_level"]]


def _damage_mod(a: dict) -> int:
    return sum(m for m, _ in _mods(a, _DAMAGE))


def _every_kill_on_a_wounded_model(a: dict) -> bool:
    """Every kill of the volley lands on a model that already carries the red
    token (kills go to the wounded models first): there are at least as many
    of them as shots, or the whole unit is wounded."""
    k = a["target_wounded"]
    return k > 0 and (k >= a["shots"] or (a["models"] is not None and k >= a["models"]))


def _per_shot_exists(a: dict, saves) -> bool:
    """Whether one chance per shot of downing a model exists: not when a kill's
    effect depends on the shots before it (a fresh tough model absorbs it, a
    wounded hero saves worse than a fresh one), unless every kill lands on a
    wounded model."""
    stateful = a["tough"] or (a["target_wounded"] > 0 and saves is not None)
    return not stateful or _every_kill_on_a_wounded_model(a)


def _shooting_stages(a: dict, to_hit: DieRoll, to_kill: DieRoll, saves) -> tuple[Stage, ...]:
    mods = _hit_mods(a)
    shown = [f"{_signed(m)} {label}" for m, label in mods if m or label.startswith("cover ignored")]
    with_text = (" with " + ", ".join(shown)) if shown else " unmodified"
    p_hit = to_hit.success
    p_near = to_hit.p("near_miss")
    hit_detail = (f"SHOOT {a['shoot']}{with_text} {to_hit.describe('d10')}: {_ratio(p_hit, DIE)}"
                  f" (near miss on {int(to_hit.target) - 1}: {_ratio(p_near, DIE)})")
    stages = [Stage("to hit", p_hit, hit_detail, faces=to_hit.sides)]
    dmod = _damage_mod(a)
    extra = _mod_words(_mods(a, _DAMAGE))
    p_kill = to_kill.success
    if a["damage_rule"] == "v2":
        word = "above" if a["kill_on"] == "above" else "at or above"
        parts = ([f"{_MINUS}{ARMOUR[a['armour']]} {a['armour']} armour"] if ARMOUR[a["armour"]] else []) \
            + ([f"{_MINUS}{COVER_LEVEL[a['cover_level']]} {a['cover_level']} cover"]
               if _cover_level(a) else []) + extra
        ignored = (" (cover level ignored: firer in the target's rear 180)"
                   if a["flanked"] and COVER_LEVEL[a["cover_level"]] else "")
        detail = (f"d10{''.join(' ' + x for x in parts)} must roll {word} ATTACK POWER {a['attack_power']}"
                  f"{ignored}: {to_kill.describe('d10')}: {_ratio(p_kill, DIE)}")
    else:
        defence = a["defence"] + int(a["shield"])
        base = _v1_need(a["damage"], defence)
        sh = " (+1 shield)" if a["shield"] else ""
        mod = f" with {', '.join(extra)}" if dmod else ""
        detail = (f"damage v1: Damage {a['damage']} against Defence {defence}{sh} kills on {base}+{mod}: "
                  f"{to_kill.describe('d6')}: {_ratio(p_kill, DAMAGE_V1_DIE)}")
    on_wounded = _every_kill_on_a_wounded_model(a)
    if on_wounded and a["tough"]:
        detail += " (every model hit already carries the red token: a kill downs it)"
    stages.append(Stage("to kill", p_kill, detail, faces=to_kill.sides))
    if saves is not None and _per_shot_exists(a, saves):
        save = saves[1] if on_wounded else saves[0]
        s = save.success
        minus = [w for on, w in ((on_wounded, "wounded: red token"), (a["target_shocked"], "shocked")) if on]
        at = f" at {_MINUS}{len(minus)} ({', '.join(minus)})" if minus else ""
        stages.append(Stage("heroic save fails", 1 - s,
                            f"heroic save d10 >= {a['heroic_save']}{at} ignores the kill: {save.describe('d10')}: "
                            f"saves {_ratio(s, DIE)}, fails {_ratio(1 - s, DIE)}", faces=save.sides))
    return tuple(stages)


def _shooting_notes(a: dict, stages: tuple[Stage, ...], saves) -> tuple[tuple[Stage, ...], list[str]]:
    """The outcome's stages and notes: the rules as read for these arguments; where no per-shot
    chance of downing a model exists the per-die steps go to the notes and no stage is shown."""
    notes = list(SHOOTING_NOTES)
    if a["damage_rule"] == "v2":
        notes.append("Damage v2: 'roll above weapon's ATTACK POWER to kill', minus armour level and cover level"
                     + (" (variant kill_on='at_or_above': equal also kills)." if a["kill_on"] != "above" else "."))
    else:
        notes.append("Damage v1 (d6, Kill Team style): weapon Damage against target Defence; "
                     "attack_power is not used.")
    if a["shock_rule"] == "seed":
        notes.append("Shock (seed morale section): a model downed, or any non-damaging hit, or 2+ near misses.")
    else:
        notes.append("Shock (pooled variant): a model downed, or near misses + non-damaging hits >= 2.")
    if a["heroic_save"] is not None:
        at = [w for on, w in ((a["tough"] or a["target_wounded"], "at -1 once wounded"), (a["target_shocked"],
              "at -1 more while the unit is shocked: 'Has -1 to all rolls'")) if on]
        notes.append(f"Heroic save: each kill is ignored on a d10 >= {a['heroic_save']}"
                     + (f" ({'; '.join(at)})" if at else "") + ".")
    if a["target_wounded"]:
        k = a["target_wounded"]
        notes.append(f"Red token: {k} {'model' if k == 1 else 'models'} of the target already wounded ('A wounded "
                     "model is -1 to all rolls ... and receives a red token under its base'); kills go to the "
                     f"wounded models first, so each of the first {k} unsaved {'kill' if k == 1 else 'kills'} downs "
                     "one (tough or not), and their heroic saves are at -1.")
    if a["target_shocked"] and a["heroic_save"] is None:
        notes.append("Shocked target: 'Has -1 to all rolls'; a shooting target rolls only heroic saves, and it "
                     "has none here, so nothing changes.")
    if a["tough"]:
        notes.append("Tough: each model absorbs its first unsaved kill (wounded, -1 to all rolls) and is "
                     "downed by the next; kills go to the wounded model first.")
    if a["blind_fire"]:
        notes.append("Blind fire / spray: 'firing fully automatic (Rof3+) or blast weapons' 'at medium ranges', "
                     "'All rolls are -1 to hit'"
                     + (" (variant blind_fire_rule='any': range and rate of fire not checked)."
                        if a["blind_fire_rule"] == "any" else "."))
    if a["aimed"] is not None and a["aimed_fire_team"]:
        notes.append("Aimed fire by a fire team (variant aimed_fire_team=True): the seed lets 'a soldier' "
                     "fire 'a single shot'; here each of the shots is one soldier's single aimed shot.")
    if not _per_shot_exists(a, saves):
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


SHOOTING_NOTES = (
    "To hit: d10 + modifiers >= SHOOT; near miss = a modified roll of exactly SHOOT - 1 "
    "('shots that fail by 1').",
    "Cover does not count when flanked, neither the -2 to hit nor the cover level off the damage roll: "
    "'if the firer is in its rear 180 the cover does not count'.",
    "Aimed fire: 'A soldier who is stationary or moving cautiously can choose to fire a single shot', "
    "+1 to hit or +1 to the damage roll.",
)
