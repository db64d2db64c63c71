"""The Forgotten: d10, roll high (d6 for damage v1). Seed 002, RULES.md section 2.

"I've tried to keep a consistent mechanic - rolling high on d10 is good."
Every stat (SHOOT, CQC, PHYS, ATTACK POWER) is a target number: lower is
better.

Shooting, per shot
------------------
* **To hit**: d10 + modifiers >= SHOOT ("You must roll equal or above the stat
  to hit a target"). Modifiers: firer +1 stationary, -1 normal move, 0 moving
  cautiously; target +1 close range, -1 long range, +1 facing away, -2 in
  cover/obscured ("if the firer is in its rear 180 the cover does not count":
  ``flanked=True`` cancels the -2); blind fire / spray -1 ("All rolls are -1 to
  hit"); aimed fire "+1 to hit"; a wounded or shocked firer -1 ("-1 to all
  rolls"). The die is a :class:`~workbench.dice.RollHigh` with target
  SHOOT - modifiers.
* **Near miss**: "shots that fail by 1": a modified roll of exactly SHOOT - 1
  (RollHigh's ``near_miss`` label).
* **Damage v2** (default, d10): "roll above weapon's ATTACK POWER to kill",
  "- defender armour level", "- cover level": kills if d10 - armour - cover
  level (+1 aimed for damage, -1 wounded/shocked firer) > ATTACK POWER;
  variant ``kill_on="at_or_above"`` uses >=.
* **Damage v1** (``damage_rule="v1"``, d6, "borrowed this off Kill Team"):
  weapon Damage against the target's Defence (+1 with a shield, "adds +1 DEF
  vs shooting"): Defence >= 2 x attack 6+, Defence > attack 5+, equal 4+,
  attack > Defence 3+, attack >= 2 x Defence 2+. Aimed for damage is +1 to the
  d6 roll.
* **Heroic save** (``heroic_save=PHYS``): "Some heroes ... may roll an extra
  'save' to avoid being 'killed' This is tested against PHYS": read as a d10
  >= the given stat, rolled for each kill; it ignores the kill.
* **Tough** (``tough=True``): "can be 'wounded' - absorbing damage that would
  incapacitate or kill a lesser being. A wounded model is -1 to all rolls":
  each model absorbs its first unsaved kill and is downed by the next; kills
  go to the wounded model first; a wounded hero saves at -1.

Shock ("A unit must test for shock if: 1. A member of their fire team ... is
downed 2. It receives 2+ near misses or a non-damaging hit"): default
``shock_rule="seed"``: any model downed, or any non-damaging hit, or two or
more near misses. Variant ``"pooled"`` follows the shooting section ("Two or
more near-misses ... or non-damaging hits may trigger a SHOCK test"): near
misses and non-damaging hits counted together, two or more triggers (a downed
model still triggers). A hit that downs nobody (damage roll failed, heroic
save made, or absorbed as a wound) counts as a non-damaging hit.

Close combat: see :func:`close_combat`.
"""
from __future__ import annotations

import builtins
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import numpy as np

from .. import engine, pipeline
from .. import validate as v
from ..dice import DieTest, RollHigh, rates, roll_faces, faces_text
from ..outcome import Outcome, Stage

__all__ = ["KEY", "NAME", "SEED", "DIE", "DAMAGE_V1_DIE", "shooting", "shooting_table", "close_combat",
           "v1_target", "Exchange", "TABLES", "MOVED", "RANGES", "ARMOUR", "COVER_LEVEL"]

KEY = "forgotten"
NAME = "The Forgotten"
SEED = "002_7c145f285029c8b2.txt"
DIE = 10
#: damage v1 rolls a d6 ("Original DAMAGE v1 (using d6s)")
DAMAGE_V1_DIE = 6

MOVED = {"stationary": 1, "cautious": 0, "normal": -1}
RANGES = {"close": 1, "medium": 0, "long": -1}
ARMOUR = {"none": 0, "light": 1, "heavy": 2}
COVER_LEVEL = {"none": 0, "soft": 1, "hard": 2}
AIMED = (None, "hit", "damage")
DUAL = (None, "hit", "damage")

STAT_RANGE = (0, 20)      # SHOOT, CQC, PHYS, ATTACK POWER, heroic save stat
V1_RANGE = (1, 40)        # Damage, Defence, Strength
BONUS_RANGE = (-10, 10)   # melee ATTACK BONUS
MAX_SHOTS = 1000
MAX_MODELS = 1000

_MINUS = "\u2212"


def _signed(x: int) -> str:
    return f"+{x}" if x >= 0 else f"{_MINUS}{-x}"


_ratio = faces_text


def _judge_both(pair, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One rolled die judged by two tests (e.g. a save before and after the
    model is wounded at -1): which rolls pass each."""
    return tuple(t.is_success(t.evaluate(faces)) for t in pair)


# ---------------------------------------------------------------------------
# shared rule pieces
# ---------------------------------------------------------------------------
def v1_target(attack, defence):
    """Damage v1 (d6, Kill Team style): the d6 roll needed to kill.

    "Defence is 2x or more better = 6+ kills; Defence is better = 5+ kills;
    Both equal = 4+ kills; Attack is better = 3+ kills; Attack is 2x or more
    better = 2+ kills". Works on ints and numpy arrays.
    """
    a = np.asarray(attack)
    d = np.asarray(defence)
    out = np.select([d >= 2 * a, d > a, d == a, a >= 2 * d], [6, 5, 4, 2], default=3)
    return int(out) if out.ndim == 0 else out


def _absorb_step(state, kill, save_fresh, save_wounded, tough: bool):
    """One possible kill on the target, as a state update.

    ``state[..., d, w]`` = P(d models downed so far, w = the model in front is
    wounded). With probability ``kill`` a kill lands; the hero saves with
    ``save_fresh`` (unwounded) or ``save_wounded`` (wounded: -1); an unsaved
    kill wounds a fresh tough model, otherwise downs the model (d + 1, the next
    model is fresh). The last count absorbs overflow. Works on float arrays and
    on object arrays of Fractions alike.
    """
    p0 = state[..., 0]
    p1 = state[..., 1]
    k = kill[..., None] if np.ndim(kill) else kill
    sf = save_fresh[..., None] if np.ndim(save_fresh) else save_fresh
    sw = save_wounded[..., None] if np.ndim(save_wounded) else save_wounded
    hit_fresh = k * (1 - sf)       # unsaved kill on a fresh model
    hit_wounded = k * (1 - sw)     # unsaved kill on a wounded model
    new = np.zeros_like(state)
    if tough:
        down_from_fresh = p0 * 0
        new[..., 1] = p1 * (1 - hit_wounded) + p0 * hit_fresh
        new[..., 0] = p0 * (1 - hit_fresh)
    else:
        down_from_fresh = p0 * hit_fresh
        new[..., 1] = p1 * (1 - hit_wounded)
        new[..., 0] = p0 * (1 - hit_fresh)
    downs = down_from_fresh + p1 * hit_wounded   # move to d + 1, fresh
    new[..., 1:, 0] = new[..., 1:, 0] + downs[..., :-1]
    new[..., -1, 0] = new[..., -1, 0] + downs[..., -1]
    return new


def _cap_cells(pmf: np.ndarray, models) -> np.ndarray:
    """Fold counts above ``models`` (an int or an array of shape S) into ``models``."""
    if models is None:
        return pmf
    m = np.asarray(models)[..., None]
    k = np.arange(pmf.shape[-1])
    over = np.sum(np.where(k > m, pmf, 0.0), axis=-1, keepdims=True)
    return np.where(k < m, pmf, 0.0) + np.where(k == m, pmf + over, 0.0)


# ---------------------------------------------------------------------------
# shooting
# ---------------------------------------------------------------------------
def _check_shooting(kw: dict, arrays: bool) -> dict:
    num, opt = v.integer_checks(arrays)
    a = {}
    a["shoot"] = num("shoot", kw["shoot"], *STAT_RANGE)
    a["attack_power"] = num("attack_power", kw["attack_power"], *STAT_RANGE)
    a["shots"] = num("shots", kw["shots"], 1, MAX_SHOTS)
    a["models"] = opt("models", kw["models"], 1, MAX_MODELS)
    a["moved"] = v.choice("moved", kw["moved"], tuple(MOVED))
    a["range"] = v.choice("range", kw["range"], tuple(RANGES))
    for b in ("facing_away", "cover", "flanked", "blind_fire", "tough", "shield",
              "firer_wounded", "firer_shocked"):
        a[b] = v.boolean(b, kw[b])
    a["armour"] = v.choice("armour", kw["armour"], tuple(ARMOUR))
    a["cover_level"] = v.choice("cover_level", kw["cover_level"], tuple(COVER_LEVEL))
    a["aimed"] = v.choice("aimed", kw["aimed"], AIMED)
    a["damage_rule"] = v.choice("damage_rule", kw["damage_rule"], ("v2", "v1"))
    a["kill_on"] = v.choice("kill_on", kw["kill_on"], ("above", "at_or_above"))
    a["shock_rule"] = v.choice("shock_rule", kw["shock_rule"], ("seed", "pooled"))
    a["heroic_save"] = opt("heroic_save", kw["heroic_save"], *STAT_RANGE)
    if a["aimed"] is not None:
        if a["moved"] == "normal":
            v.forbid("aimed", a["aimed"], "None when moved='normal'",
                     "aimed fire needs a firer who is stationary or moving cautiously")
        if np.any(np.asarray(a["shots"]) != 1):
            v.forbid("aimed", a["aimed"], "None when shots is not 1",
                     f"aimed fire is 'a single shot', got shots={kw['shots']!r}")
        if a["blind_fire"]:
            v.forbid("aimed", a["aimed"], "None with blind_fire=True",
                     "blind fire is fully automatic or blast fire, not a single aimed shot")
    if a["damage_rule"] == "v1":
        for name in ("damage", "defence"):
            if kw[name] is None:
                v.forbid(name, None, "a whole number from 1 to 40 with damage_rule='v1'",
                         "damage v1 compares the weapon's Damage with the target's Defence")
        a["damage"] = num("damage", kw["damage"], *V1_RANGE)
        a["defence"] = num("defence", kw["defence"], *V1_RANGE)
        if a["armour"] != "none":
            v.forbid("armour", a["armour"], "'none' with damage_rule='v1'",
                     "damage v1 uses the target's Defence instead of armour levels")
        if a["cover_level"] != "none":
            v.forbid("cover_level", a["cover_level"], "'none' with damage_rule='v1'",
                     "cover levels belong to damage v2")
        if a["kill_on"] != "above":
            v.forbid("kill_on", a["kill_on"], "'above' with damage_rule='v1'",
                     "kill_on is a damage v2 switch")
    else:
        for name in ("damage", "defence"):
            if kw[name] is not None:
                v.forbid(name, kw[name], "None with damage_rule='v2'",
                         "Damage and Defence are damage v1 stats; v2 uses attack_power, armour and cover_level")
        a["damage"] = a["defence"] = None
        if a["shield"]:
            v.forbid("shield", True, "False with damage_rule='v2'",
                     "the seed's shield 'adds +1 DEF vs shooting', and DEF exists only in damage v1")
    return a


def _hit_mods(a: dict) -> list[tuple[int, str]]:
    mods = [(MOVED[a["moved"]], a["moved"] if a["moved"] != "normal" else "normal move"),
            (RANGES[a["range"]], f"{a['range']} range")]
    if a["facing_away"]:
        mods.append((1, "facing away"))
    if a["cover"]:
        mods.append((0, "cover ignored: firer in the target's rear 180") if a["flanked"] else (-2, "cover"))
    if a["blind_fire"]:
        mods.append((-1, "blind fire"))
    if a["aimed"] == "hit":
        mods.append((1, "aimed"))
    if a["firer_wounded"]:
        mods.append((-1, "wounded firer"))
    if a["firer_shocked"]:
        mods.append((-1, "shocked firer"))
    return mods


def _damage_mod(a: dict) -> int:
    return (1 if a["aimed"] == "damage" else 0) - int(a["firer_wounded"]) - int(a["firer_shocked"])


def _shooting_tests(a: dict):
    """The DieTest objects of one shot: to hit, to kill, heroic save (fresh, wounded)."""
    hit_mod = sum(m for m, _ in _hit_mods(a))
    to_hit = RollHigh(target=np.asarray(a["shoot"]) - hit_mod, sides=DIE)
    dmod = _damage_mod(a)
    if a["damage_rule"] == "v2":
        need = (np.asarray(a["attack_power"]) + ARMOUR[a["armour"]] + COVER_LEVEL[a["cover_level"]]
                + (1 if a["kill_on"] == "above" else 0) - dmod)
        to_kill = RollHigh(target=need, sides=DIE)
    else:
        defence = np.asarray(a["defence"]) + int(a["shield"])
        to_kill = RollHigh(target=np.asarray(v1_target(a["damage"], defence)) - dmod, sides=DAMAGE_V1_DIE)
    if a["heroic_save"] is None:
        saves = None
    else:
        hs = np.asarray(a["heroic_save"])
        saves = (RollHigh(target=hs, sides=DIE), RollHigh(target=hs + 1, sides=DIE))
    return to_hit, to_kill, saves


def _rate(test: RollHigh, label: str):
    """P(label) of a RollHigh: the cached Fraction count for a single cell, rates() for a grid."""
    if np.ndim(test.target) == 0:
        return float(RollHigh(target=int(test.target), sides=test.sides).p(label))
    return rates(test, label)


def _shooting_exact(a: dict) -> dict:
    """The one exact rule path (arrays of any broadcast shape S)."""
    to_hit, to_kill, saves = _shooting_tests(a)
    numeric = [a[k] for k in ("shoot", "attack_power", "shots", "models", "damage", "defence", "heroic_save")
               if a[k] is not None]
    shape = np.broadcast_shapes(*(np.shape(x) for x in numeric))
    p_hit = np.broadcast_to(_rate(to_hit, "success"), shape)
    p_near = np.broadcast_to(_rate(to_hit, "near_miss"), shape)
    p_killroll = np.broadcast_to(_rate(to_kill, "success"), shape)
    if saves is None:
        s_f = s_w = np.zeros(shape)
    else:
        s_f = np.broadcast_to(_rate(saves[0], "success"), shape)
        s_w = np.broadcast_to(_rate(saves[1], "success"), shape)
    n = np.broadcast_to(np.asarray(a["shots"], dtype=np.int64), shape)
    n_max = int(n.max())

    q_kill = p_hit * p_killroll            # per shot: the damage roll kills
    q_nd = p_hit * (1.0 - p_killroll)      # per shot: hit, damage roll fails
    q_near = p_near
    q_miss = np.clip(1.0 - p_hit - p_near, 0.0, 1.0)

    # models downed (uncapped): binomial, or a per-shot state update for tough models
    if not a["tough"]:
        down = engine.binomial_pmf(n, q_kill * (1.0 - s_f), width=n_max + 1)
    else:
        state = np.zeros(shape + (n_max + 1, 2))
        state[..., 0, 0] = 1.0
        for t in range(n_max):
            new = _absorb_step(state, q_kill, s_f, s_w, tough=True)
            state = np.where((t < n)[..., None, None], new, state)
        down = state.sum(axis=-1)
    mean_down = engine.mean_of(down)

    pmf = _cap_cells(down, a["models"])
    width = n_max + 1 if a["models"] is None else min(n_max, int(np.max(a["models"]))) + 1
    pmf = pmf[..., :width]

    # shock: multinomial over the per-shot categories kill / non-damaging hit / near miss / miss.
    # seed rule: no test only if no shot hits and at most one is a near miss;
    # pooled: no model downed and at most one shot among near misses and hits that down nobody.
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        all_miss = q_miss ** n
        one_other = n * q_miss ** np.maximum(n - 1, 0)
    if a["shock_rule"] == "seed":
        no_test = all_miss + one_other * q_near
    else:
        lone_kill_downs_nobody = np.ones(shape) if a["tough"] else s_f
        no_test = all_miss + one_other * (q_nd + q_near + q_kill * lone_kill_downs_nobody)
    effects = {
        "shock": np.clip(1.0 - no_test, 0.0, 1.0),
        "hits": n * p_hit,
        "near_misses": n * q_near,
        "non_damaging_hits": np.clip(n * q_nd + n * q_kill - mean_down, 0.0, None),
    }
    return {"pmf": pmf, "effects": effects, "tests": (to_hit, to_kill, saves)}


@v.stat_function
def shooting_table(*, shoot, attack_power, shots=1, models=None, moved="cautious", range="medium",
                   facing_away=False, cover=False, flanked=False, armour="none", cover_level="none",
                   aimed=None, blind_fire=False, damage_rule="v2", kill_on="above", shock_rule="seed",
                   damage=None, defence=None, heroic_save=None, tough=False, shield=False,
                   firer_wounded=False, firer_shocked=False) -> dict:
    """Vectorised twin of :func:`shooting` (exact only).

    ``shoot, attack_power, shots, models, damage, defence, heroic_save`` may be
    numpy arrays (broadcast together, shape S); the rest are scalars. Returns
    ``{"pmf": array S+(width,), "effects": {"shock", "hits", "near_misses",
    "non_damaging_hits": arrays S}}``; pmf[..., k] = P(k models downed).
    """
    kw = dict(locals())
    a = _check_shooting(kw, arrays=True)
    out = _shooting_exact(a)
    return {"pmf": out["pmf"], "effects": out["effects"]}


TABLES = {"shooting": shooting_table}


def _shooting_stages(a: dict, to_hit: RollHigh, to_kill: RollHigh, saves) -> tuple[Stage, ...]:
    mods = _hit_mods(a)
    shown = [f"{_signed(m)} {label}" for m, label in mods if m or label.startswith("cover ignored")]
    with_text = (" with " + ", ".join(shown)) if shown else " unmodified"
    p_hit = to_hit.success
    p_near = to_hit.p("near_miss")
    hit_detail = (f"SHOOT {a['shoot']}{with_text} {to_hit.describe('d10')}: {_ratio(p_hit, DIE)}"
                  f" (near miss on {int(to_hit.target) - 1}: {_ratio(p_near, DIE)})")
    stages = [Stage("to hit", p_hit, hit_detail, faces=to_hit.sides)]
    dmod = _damage_mod(a)
    extra = []
    if a["aimed"] == "damage":
        extra.append("+1 aimed")
    if a["firer_wounded"]:
        extra.append(f"{_MINUS}1 wounded firer")
    if a["firer_shocked"]:
        extra.append(f"{_MINUS}1 shocked firer")
    p_kill = to_kill.success
    if a["damage_rule"] == "v2":
        word = "above" if a["kill_on"] == "above" else "at or above"
        parts = ([f"{_MINUS}{ARMOUR[a['armour']]} {a['armour']} armour"] if ARMOUR[a["armour"]] else []) \
            + ([f"{_MINUS}{COVER_LEVEL[a['cover_level']]} {a['cover_level']} cover"]
               if COVER_LEVEL[a["cover_level"]] else []) + extra
        detail = (f"d10{''.join(' ' + x for x in parts)} must roll {word} ATTACK POWER {a['attack_power']}: "
                  f"{to_kill.describe('d10')}: {_ratio(p_kill, DIE)}")
    else:
        defence = a["defence"] + int(a["shield"])
        base = v1_target(a["damage"], defence)
        sh = " (+1 shield)" if a["shield"] else ""
        mod = f" with {', '.join(extra)}" if dmod else ""
        detail = (f"damage v1: Damage {a['damage']} against Defence {defence}{sh} kills on {base}+{mod}: "
                  f"{to_kill.describe('d6')}: {_ratio(p_kill, DAMAGE_V1_DIE)}")
    stages.append(Stage("to kill", p_kill, detail, faces=to_kill.sides))
    if saves is not None and not a["tough"]:
        s = saves[0].success
        stages.append(Stage("heroic save fails", 1 - s,
                            f"heroic save d10 >= {a['heroic_save']} ignores the kill: saves "
                            f"{_ratio(s, DIE)}, fails {_ratio(1 - s, DIE)}", faces=saves[0].sides))
    return tuple(stages)


SHOOTING_NOTES = (
    "To hit: d10 + modifiers >= SHOOT; near miss = a modified roll of exactly SHOOT - 1 "
    "('shots that fail by 1').",
    "Cover (-2) does not count when flanked: 'if the firer is in its rear 180 the cover does not count'.",
    "Aimed fire: 'A soldier who is stationary or moving cautiously can choose to fire a single shot', "
    "+1 to hit or +1 to the damage roll.",
)


@v.stat_function
def shooting(*, shoot, attack_power, shots=1, models=None, moved="cautious", range="medium",
             facing_away=False, cover=False, flanked=False, armour="none", cover_level="none", aimed=None,
             blind_fire=False, damage_rule="v2", kill_on="above", shock_rule="seed", damage=None,
             defence=None, heroic_save=None, tough=False, shield=False, firer_wounded=False,
             firer_shocked=False, method="exact", samples=100_000, seed=0) -> Outcome:
    """One soldier's or fire team's ``shots`` at a target unit of ``models`` models.

    To hit: d10 + modifiers >= ``shoot`` (see the module docstring for every
    modifier). To kill, damage v2 (default): d10 - armour level - cover level
    (+1 ``aimed="damage"``) above ``attack_power`` (``kill_on="at_or_above"``:
    equal also kills); damage v1 (``damage_rule="v1"``): d6 from the table of
    weapon ``damage`` against target ``defence``. ``attack_power`` is not used
    by v1.

    Options: ``heroic_save`` (None or the stat a killed hero rolls d10 >= to
    ignore the kill, PHYS in the seed), ``tough`` (every model absorbs its
    first unsaved kill; kills go to the wounded model first), ``shield`` (v1
    only: +1 Defence), ``firer_wounded`` / ``firer_shocked`` (-1 to all the
    firer's rolls: to hit and to kill).

    ``pmf[k]`` = P(k models downed), capped at ``models``. Effects: ``shock``
    = P(the target must test for shock after this volley), ``hits``,
    ``near_misses``, ``non_damaging_hits`` = expected numbers (a hit that
    downs nobody, overkill beyond the unit not counted separately).
    """
    kw = dict(locals())
    a = _check_shooting(kw, arrays=False)
    method, samples, rng = v.method_args(method, samples, seed)
    to_hit, to_kill, saves = _shooting_tests(a)
    to_hit = RollHigh(int(to_hit.target), DIE)
    to_kill = RollHigh(int(to_kill.target), to_kill.sides)
    if saves is not None:
        saves = (RollHigh(int(saves[0].target), DIE), RollHigh(int(saves[1].target), DIE))
    stages = _shooting_stages(a, to_hit, to_kill, saves)
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
        notes.append(f"Heroic save: each kill is ignored on a d10 >= {a['heroic_save']}"
                     + (" (a wounded hero saves at -1)." if a["tough"] else "."))
    if a["tough"]:
        notes.append("Tough: each model absorbs its first unsaved kill (wounded, -1 to all rolls) and is "
                     "downed by the next; kills go to the wounded model first.")
    inputs = dict(a, method=method)

    if method == "exact":
        out = _shooting_exact(a)
        return pipeline.exact_outcome(KEY, "shooting", inputs, out["pmf"], stages,
                                      {k: float(x) for k, x in out["effects"].items()},
                                      attacks=a["shots"], notes=notes, label="models downed")

    n_shots, models = a["shots"], a["models"]
    width = n_shots + 1 if models is None else min(n_shots, models) + 1
    near_code = to_hit.labels.index("near_miss")
    sequential = saves is not None or a["tough"]

    def one_chunk(m: int) -> dict:
        hit_codes = to_hit.roll(rng, (m, n_shots))
        hit = to_hit.is_success(hit_codes)
        near = hit_codes == near_code
        kill = hit & to_kill.is_success(to_kill.roll(rng, (m, n_shots)))
        if sequential:
            down = np.zeros(m, dtype=np.int64)
            wounded = np.zeros(m, dtype=bool)
            save_faces = roll_faces(rng, DIE, (m, n_shots, 1))
            if saves is not None:
                ok_f, ok_w = _judge_both(saves, save_faces)
            for t in builtins.range(n_shots):
                k = kill[:, t]
                if saves is not None:
                    k = k & ~np.where(wounded, ok_w[:, t], ok_f[:, t])
                if a["tough"]:
                    downed_now = k & wounded
                    wounded = (wounded & ~downed_now) | (k & ~wounded)
                else:
                    downed_now = k
                down += downed_now
        else:
            down = kill.sum(axis=1)
        hits = hit.sum(axis=1)
        nears = near.sum(axis=1)
        nd = hits - down
        if a["shock_rule"] == "seed":
            shock = (down > 0) | (nd > 0) | (nears >= 2)
        else:
            shock = (down > 0) | (nd + nears >= 2)
        removed = down if models is None else np.minimum(down, models)
        return {"removed": removed, "shock": shock, "hits": hits, "near_misses": nears,
                "non_damaging_hits": nd}

    res = pipeline.run_sampled(samples, 3 * n_shots, one_chunk)
    return pipeline.sampled_outcome(KEY, "shooting", inputs, res["removed"], width, stages,
                                    {k: res[k] for k in ("shock", "hits", "near_misses", "non_damaging_hits")},
                                    attacks=n_shots, notes=notes, label="models downed")


# ---------------------------------------------------------------------------
# close combat
# ---------------------------------------------------------------------------
_WINNERS = ("none", "attacker", "defender")


@dataclass(frozen=True)
class Exchange(DieTest):
    """The dice both fighters throw when the attacker makes contact.

    Die i of the attacker hits if face + ``attack_mods[i]`` >= ``attacker_cqc``;
    the defender's blocking dice succeed if face + ``block_mods[j]`` >=
    ``defender_cqc``; its counter dice hit if face + ``counter_mods[j]`` >=
    ``defender_cqc`` (and, for a defender newly wounded by this attack, with a
    further -1). The result code packs (unblocked hits h, counter hits c,
    counter hits at -1 cw, pushback winner) as ((h*3 + c)*3 + cw)*3 + winner.

    Pushback: "The successful fighter (or the one with the highest roll if
    they both succeeded)": a fighter succeeded if any of its dice succeeded
    (hit, block or counter hit); both: the higher best modified roll; a tie or
    no success: nobody.
    """

    attacker_cqc: int
    defender_cqc: int
    attack_mods: tuple
    block_mods: tuple = ()
    counter_mods: tuple = ()
    sides: int = DIE

    labels: ClassVar[tuple[str, ...]] = tuple(
        f"h{h}_c{c}_cw{cw}_{w}" for h in range(3) for c in range(3) for cw in range(3) for w in _WINNERS)
    success_labels: ClassVar[frozenset[str]] = frozenset(
        f"h{h}_c{c}_cw{cw}_{w}" for h in (1, 2) for c in range(3) for cw in range(3) for w in _WINNERS)

    @property
    def dice(self) -> int:
        return len(self.attack_mods) + len(self.block_mods) + len(self.counter_mods)

    def evaluate(self, faces: np.ndarray) -> np.ndarray:
        f = np.asarray(faces).astype(np.int16)
        na, nb = len(self.attack_mods), len(self.block_mods)
        low = np.int16(-100)
        a = f[..., :na] + np.array(self.attack_mods, dtype=np.int16)
        a_ok = a >= self.attacker_cqc
        hits = a_ok.sum(axis=-1)
        a_best = np.where(a_ok, a, low).max(axis=-1)
        d_best = np.full(hits.shape, low, dtype=np.int16)
        blocks = np.zeros_like(hits)
        if nb:
            b = f[..., na:na + nb] + np.array(self.block_mods, dtype=np.int16)
            b_ok = b >= self.defender_cqc
            blocks = b_ok.sum(axis=-1)
            d_best = np.maximum(d_best, np.where(b_ok, b, low).max(axis=-1))
        c_fresh = np.zeros_like(hits)
        c_wound = np.zeros_like(hits)
        if self.counter_mods:
            c = f[..., na + nb:] + np.array(self.counter_mods, dtype=np.int16)
            c_ok = c >= self.defender_cqc
            c_fresh = c_ok.sum(axis=-1)
            c_wound = (c - 1 >= self.defender_cqc).sum(axis=-1)
            d_best = np.maximum(d_best, np.where(c_ok, c, low).max(axis=-1))
        h = np.maximum(hits - blocks, 0)
        a_succ = hits > 0
        d_succ = (blocks + c_fresh) > 0
        both = a_succ & d_succ
        winner = np.where(a_succ & ~d_succ, 1, np.where(d_succ & ~a_succ, 2, 0))
        winner = np.where(both & (a_best > d_best), 1, np.where(both & (d_best > a_best), 2, winner))
        return (((h * 3 + c_fresh) * 3 + c_wound) * 3 + winner).astype(np.int16)


def _decode(code):
    code = np.asarray(code)
    return code // 27, (code // 9) % 3, (code // 3) % 3, code % 3


def _melee_kill_test(damage_rule, kill_on, phys, bonus, roll_mod, armour, v1_attack, v1_defence) -> RollHigh:
    """One melee damage die. v2: d10 + ATTACK BONUS + roll_mod - armour > PHYS; v1: d6 table + roll_mod."""
    if damage_rule == "v2":
        need = phys + (1 if kill_on == "above" else 0) - bonus - roll_mod + ARMOUR[armour]
        return RollHigh(target=need, sides=DIE)
    return RollHigh(target=v1_target(v1_attack, v1_defence) - roll_mod, sides=DAMAGE_V1_DIE)


def _chain_down(hits: int, kill: Fraction, save_f: Fraction, save_w: Fraction, tough: bool,
                start_wounded: bool) -> tuple[Fraction, Fraction]:
    """(P(downed), P(newly wounded and standing)) of one model taking ``hits`` hits
    that kill with probability ``kill`` each (same update as shooting)."""
    state = np.zeros((2, 2), dtype=object)
    state[:] = Fraction(0)
    state[0, 1 if start_wounded else 0] = Fraction(1)
    for _ in range(hits):
        state = _absorb_step(state, kill, save_f, save_w, tough)
    downed = state[1, 0] + state[1, 1]
    newly = Fraction(0) if start_wounded else state[0, 1]
    return Fraction(downed), Fraction(newly)


def _chain_sample(kills: np.ndarray, save_ok_f, save_ok_w, tough: bool, start_wounded: bool):
    """Sampled twin: ``kills[:, i]`` = die i kills; returns (downed, newly wounded) per sample."""
    m = kills.shape[0]
    downed = np.zeros(m, dtype=bool)
    wounded = np.full(m, start_wounded)
    for i in range(kills.shape[1]):
        k = kills[:, i] & ~downed
        if save_ok_f is not None:
            k &= ~np.where(wounded, save_ok_w[:, i], save_ok_f[:, i])
        if tough:
            downed |= k & wounded
            wounded = wounded | k
        else:
            downed |= k
    return downed, wounded & ~downed & (not start_wounded)


def _check_cc(kw: dict) -> dict:
    a = {}
    for name in ("attacker_cqc", "defender_cqc"):
        a[name] = v.integer(name, kw[name], *STAT_RANGE)
    for name in ("attacker_phys", "defender_phys", "attacker_heroic_save", "defender_heroic_save"):
        a[name] = v.optional_integer(name, kw[name], *STAT_RANGE)
    for name in ("attacker_weapon_bonus", "defender_weapon_bonus"):
        a[name] = v.integer(name, kw[name], *BONUS_RANGE)
    for name in ("attacker_armour", "defender_armour"):
        a[name] = v.choice(name, kw[name], tuple(ARMOUR))
    a["response"] = v.choice("response", kw["response"], ("block", "counter"))
    for name in ("shield", "shield_when_countering", "power_attack", "defender_power_attack", "from_rear",
                 "facing_away", "outnumbered", "defender_outnumbered", "attacker_wounded",
                 "defender_wounded", "attacker_tough", "defender_tough"):
        a[name] = v.boolean(name, kw[name])
    a["dual_weapons"] = v.choice("dual_weapons", kw["dual_weapons"], DUAL)
    a["defender_dual_weapons"] = v.choice("defender_dual_weapons", kw["defender_dual_weapons"], DUAL)
    a["damage_rule"] = v.choice("damage_rule", kw["damage_rule"], ("v2", "v1"))
    a["kill_on"] = v.choice("kill_on", kw["kill_on"], ("above", "at_or_above"))
    a["melee_phys"] = v.choice("melee_phys", kw["melee_phys"], ("attacker", "defender"))
    if a["power_attack"] and a["dual_weapons"] is not None:
        v.forbid("power_attack", True, "False with dual_weapons",
                 "a power attack needs a two-handed weapon, dual weapons take both hands")
    if a["defender_power_attack"] and (a["defender_dual_weapons"] is not None or a["shield"]):
        v.forbid("defender_power_attack", True, "False with defender_dual_weapons or shield",
                 "a power attack needs a two-handed weapon")
    if a["shield"] and a["defender_dual_weapons"] is not None:
        v.forbid("shield", True, "False with defender_dual_weapons", "dual weapons take both hands")
    if a["response"] == "block" and a["defender_power_attack"]:
        v.forbid("defender_power_attack", True, "False with response='block'",
                 "a power attack is a counter option")
    if a["shield_when_countering"] and not a["shield"]:
        v.forbid("shield_when_countering", True, "False without shield=True")
    counter = a["response"] == "counter"
    v1_names = ("attacker_damage", "attacker_strength", "defender_defence",
                "defender_damage", "defender_strength", "attacker_defence")
    if a["damage_rule"] == "v2":
        for name in v1_names:
            if kw[name] is not None:
                v.forbid(name, kw[name], "None with damage_rule='v2'",
                         "Damage, Strength and Defence are damage v1 stats")
            a[name] = None
        strike_phys = "attacker_phys" if a["melee_phys"] == "attacker" else "defender_phys"
        counter_phys = "defender_phys" if a["melee_phys"] == "attacker" else "attacker_phys"
        needed = [strike_phys] + ([counter_phys] if counter else [])
        for name in needed:
            if a[name] is None:
                v.forbid(name, None, f"a whole number from {STAT_RANGE[0]} to {STAT_RANGE[1]}",
                         f"melee damage v2 rolls above the {a['melee_phys']}'s PHYS"
                         + (" (the counter too)" if counter else ""))
    else:
        needed = v1_names[:3] + (v1_names[3:] if counter else ())
        for name in v1_names:
            if kw[name] is None and name in needed:
                v.forbid(name, None, f"a whole number from {V1_RANGE[0]} to {V1_RANGE[1]} with damage_rule='v1'",
                         "melee damage v1 compares weapon Damage + Strength with the target's Defence")
            a[name] = v.optional_integer(name, kw[name], *V1_RANGE)
        for name in ("attacker_weapon_bonus", "defender_weapon_bonus"):
            if a[name]:
                v.forbid(name, a[name], "0 with damage_rule='v1'", "ATTACK BONUS is a damage v2 stat")
        for name in ("attacker_armour", "defender_armour"):
            if a[name] != "none":
                v.forbid(name, a[name], "'none' with damage_rule='v1'",
                         "damage v1 uses Defence instead of armour levels")
        if a["kill_on"] != "above":
            v.forbid("kill_on", a["kill_on"], "'above' with damage_rule='v1'", "kill_on is a damage v2 switch")
    return a


def _cc_dice(a: dict):
    """The exchange and damage tests of one close combat, with plain-words pieces."""
    att_hit = (1 if a["facing_away"] else 0) - int(a["outnumbered"]) - int(a["power_attack"]) \
        - int(a["dual_weapons"] == "hit") - int(a["attacker_wounded"])
    n_att = 2 if a["dual_weapons"] is not None else 1
    def_roll = -int(a["defender_outnumbered"]) - int(a["defender_wounded"])
    def_weapon = def_roll - int(a["defender_dual_weapons"] == "hit")
    n_def_weapon = 2 if a["defender_dual_weapons"] is not None else 1
    if a["response"] == "block":
        block = (def_weapon,) * n_def_weapon + ((def_roll,) if a["shield"] else ())
        counter = ()
    else:
        block = (def_roll,) if a["shield_when_countering"] else ()
        counter = (def_weapon - int(a["defender_power_attack"]),) * n_def_weapon
    exchange = Exchange(attacker_cqc=a["attacker_cqc"], defender_cqc=a["defender_cqc"],
                        attack_mods=(att_hit,) * n_att, block_mods=block, counter_mods=counter)

    v2 = a["damage_rule"] == "v2"
    strike_phys = a["attacker_phys"] if a["melee_phys"] == "attacker" else a["defender_phys"]
    counter_phys = a["defender_phys"] if a["melee_phys"] == "attacker" else a["attacker_phys"]
    att_dmg_mod = 2 * int(a["power_attack"]) - int(a["dual_weapons"] == "damage") + int(a["from_rear"]) \
        - int(a["attacker_wounded"])
    strike = _melee_kill_test(a["damage_rule"], a["kill_on"], strike_phys, a["attacker_weapon_bonus"],
                              att_dmg_mod, a["defender_armour"],
                              None if v2 else a["attacker_damage"] + a["attacker_strength"],
                              None if v2 else a["defender_defence"])
    counters = None
    if a["response"] == "counter":
        c_mod = 2 * int(a["defender_power_attack"]) - int(a["defender_dual_weapons"] == "damage") \
            - int(a["defender_wounded"])
        args = (a["damage_rule"], a["kill_on"], counter_phys, a["defender_weapon_bonus"])
        v1 = (None if v2 else a["defender_damage"] + a["defender_strength"],
              None if v2 else a["attacker_defence"])
        counters = (_melee_kill_test(*args, c_mod, a["attacker_armour"], *v1),
                    _melee_kill_test(*args, c_mod - 1, a["attacker_armour"], *v1))
    return exchange, strike, counters, att_hit


def _saves(stat):
    """(unwounded, wounded) heroic save tests of a model, or None: d10 >= stat, at -1 when wounded."""
    if stat is None:
        return None
    return RollHigh(target=stat, sides=DIE), RollHigh(target=stat + 1, sides=DIE)


CC_NOTES = (
    "Close combat: the attacker hits on d10 + modifiers >= its CQC (+1 target facing away, -1 outnumbered, "
    "-1 power attack, -1 dual weapons for hit, -1 wounded).",
    "Block: each defender success (d10 + modifiers >= its own CQC) cancels one hit; a shield adds a die "
    "'only used to block'; dual weapons add a second weapon die (blocking too).",
    "Counter: 'rolling to hit and damage - AFTER the attacker': it lands only if the defender is still "
    "standing; a defender wounded by this attack counters at -1 ('-1 to all rolls').",
    "Melee damage v2: d10 + ATTACK BONUS (+2 power attack, +1 from the rear, -1 dual for damage) - armour "
    "level must roll above PHYS ('Roll above attacker's PHYS to kill': the striker's PHYS by default; "
    "melee_phys='defender' uses the struck model's PHYS).",
    "Pushback: the fighter with a success (or the higher modified successful roll if both succeeded); "
    "a tie or no success: nobody.",
)


@v.stat_function
def close_combat(*, attacker_cqc, defender_cqc, attacker_phys=None, defender_phys=None,
                 attacker_weapon_bonus=0, defender_weapon_bonus=0, attacker_armour="none",
                 defender_armour="none", response="block", shield=False, shield_when_countering=False,
                 dual_weapons=None, defender_dual_weapons=None, power_attack=False,
                 defender_power_attack=False, from_rear=False, facing_away=False, outnumbered=False,
                 defender_outnumbered=False, attacker_wounded=False, defender_wounded=False,
                 attacker_tough=False, defender_tough=False, attacker_heroic_save=None,
                 defender_heroic_save=None, damage_rule="v2", kill_on="above", melee_phys="attacker",
                 attacker_damage=None, attacker_strength=None, attacker_defence=None,
                 defender_damage=None, defender_strength=None, defender_defence=None,
                 method="exact", samples=100_000, seed=0) -> Outcome:
    """One attacker moves into base contact with one defender.

    * Attacker: one die (two with ``dual_weapons="hit"|"damage"``: both at -1
      to hit or both at -1 to damage), hits on d10 + modifiers >= ``attacker_cqc``;
      modifiers +1 ``facing_away`` (the target faces away), -1 ``outnumbered``
      (the attacker is outnumbered), -1 ``power_attack`` (two-handed: +2 to the
      damage roll), -1 ``attacker_wounded``.
    * Defender, chosen before the roll (``response``): ``"block"``: one die
      (two with dual weapons, plus one with a ``shield``), each d10 + modifiers
      >= ``defender_cqc`` cancels one hit; ``"counter"``: one die (two with
      dual weapons) to hit the attacker, then damage, only if the defender is
      still standing (``shield_when_countering=True``: the shield die still
      blocks). Defender modifiers: -1 ``defender_outnumbered``, -1
      ``defender_wounded``, -1 dual weapons for hit, -1 its power attack.
    * Damage v2: d10 + weapon ATTACK BONUS (+2 power attack, +1 ``from_rear``,
      -1 dual for damage, -1 wounded) - the struck model's armour level >
      PHYS (the striker's PHYS, ``melee_phys="attacker"``, as the seed says;
      ``kill_on="at_or_above"`` variant). Damage v1: d6 table with attack =
      weapon Damage + wielder Strength against the struck model's Defence,
      the same roll modifiers on the d6.
    * ``*_wounded``: the model already carries a wound (-1 to all rolls; if
      also ``*_tough``, its next unsaved kill downs it). ``*_tough``: absorbs
      one unsaved kill. ``*_heroic_save``: the stat a kill is saved against
      (d10 >= it; -1 when wounded).

    ``pmf`` = [P(defender standing), P(defender downed)]. Effects:
    ``defender_downed``, ``attacker_downed`` (by a counter),
    ``defender_newly_wounded``, ``attacker_newly_wounded``,
    ``pushback_attacker``, ``pushback_defender``, ``pushback_none``.
    """
    kw = dict(locals())
    a = _check_cc(kw)
    method, samples, rng = v.method_args(method, samples, seed)
    exchange, strike, counters, att_hit = _cc_dice(a)
    d_saves = _saves(a["defender_heroic_save"])
    a_saves = _saves(a["attacker_heroic_save"])
    stages = _cc_stages(a, exchange, strike, att_hit)
    notes = list(CC_NOTES)
    inputs = dict(a, method=method)
    label = "defenders downed"

    if method == "exact":
        zero = Fraction(0)
        p_def_down = p_att_down = p_def_new = p_att_new = zero
        push = [zero, zero, zero]
        cache: dict = {}

        def chain(n, test, saves, tough, start):
            key = (n, id(test), id(saves), tough, start)
            if key not in cache:
                sf, sw = (zero, zero) if saves is None else (saves[0].success, saves[1].success)
                cache[key] = _chain_down(n, test.success, sf, sw, tough, start)
            return cache[key]

        for label_i, p in exchange.probabilities.items():
            if p == 0:
                continue
            code = exchange.labels.index(label_i)
            h, c, cw, w = (int(x) for x in _decode(code))
            push[w] += p
            d_down, d_new = chain(h, strike, d_saves, a["defender_tough"], a["defender_wounded"])
            p_def_down += p * d_down
            p_def_new += p * d_new
            if counters is not None:
                d_same = 1 - d_down - d_new
                for prob, n_hits, test in ((d_same, c, counters[0]), (d_new, cw, counters[1])):
                    if prob:
                        a_down, a_new = chain(n_hits, test, a_saves, a["attacker_tough"], a["attacker_wounded"])
                        p_att_down += p * prob * a_down
                        p_att_new += p * prob * a_new
        effects = {"defender_downed": p_def_down, "attacker_downed": p_att_down,
                   "defender_newly_wounded": p_def_new, "attacker_newly_wounded": p_att_new,
                   "pushback_none": push[0], "pushback_attacker": push[1], "pushback_defender": push[2]}
        pmf = np.array([float(1 - p_def_down), float(p_def_down)])
        return pipeline.exact_outcome(KEY, "close_combat", inputs, pmf, stages,
                                      {k: float(x) for k, x in effects.items()},
                                      attacks=len(exchange.attack_mods), notes=notes, label=label)

    def one_chunk(m: int) -> dict:
        h, c, cw, w = _decode(exchange.roll(rng, (m,)))
        n_att = len(exchange.attack_mods)
        kills = strike.is_success(strike.roll(rng, (m, n_att))) & (np.arange(n_att) < h[:, None])
        sf = sw = None
        if d_saves is not None:
            faces = roll_faces(rng, DIE, (m, n_att, 1))
            sf, sw = _judge_both(d_saves, faces)
        d_down, d_new = _chain_sample(kills, sf, sw, a["defender_tough"], a["defender_wounded"])
        a_down = np.zeros(m, dtype=bool)
        a_new = np.zeros(m, dtype=bool)
        if counters is not None:
            n_c = len(exchange.counter_mods)
            faces = roll_faces(rng, counters[0].sides, (m, n_c, 1))
            ok_same, ok_new = _judge_both(counters, faces)
            n_hits = np.where(d_new, cw, c)
            ok = np.where(d_new[:, None], ok_new, ok_same)
            ckills = ok & (np.arange(n_c) < n_hits[:, None]) & ~d_down[:, None]
            sf = sw = None
            if a_saves is not None:
                sfaces = roll_faces(rng, DIE, (m, n_c, 1))
                sf, sw = _judge_both(a_saves, sfaces)
            a_down, a_new = _chain_sample(ckills, sf, sw, a["attacker_tough"], a["attacker_wounded"])
        return {"removed": d_down.astype(np.int64), "defender_downed": d_down, "attacker_downed": a_down,
                "defender_newly_wounded": d_new, "attacker_newly_wounded": a_new,
                "pushback_none": w == 0, "pushback_attacker": w == 1, "pushback_defender": w == 2}

    res = pipeline.run_sampled(samples, exchange.dice + 8, one_chunk)
    names = ("defender_downed", "attacker_downed", "defender_newly_wounded", "attacker_newly_wounded",
             "pushback_none", "pushback_attacker", "pushback_defender")
    return pipeline.sampled_outcome(KEY, "close_combat", inputs, res["removed"], 2, stages,
                                    {k: res[k] for k in names}, attacks=len(exchange.attack_mods),
                                    notes=notes, label=label)


def _cc_stages(a: dict, exchange: Exchange, strike: RollHigh, att_hit: int) -> tuple[Stage, ...]:
    one = RollHigh(target=a["attacker_cqc"] - att_hit, sides=DIE)
    mods = []
    for on, m, text in ((a["facing_away"], 1, "target facing away"), (a["outnumbered"], -1, "outnumbered"),
                        (a["power_attack"], -1, "power attack"), (a["dual_weapons"] == "hit", -1, "dual weapons"),
                        (a["attacker_wounded"], -1, "wounded")):
        if on:
            mods.append(f"{_signed(m)} {text}")
    with_text = (" with " + ", ".join(mods)) if mods else ""
    dice = len(exchange.attack_mods)
    hit = Stage("to hit", one.success,
                f"CQC {a['attacker_cqc']}{with_text} {one.describe('d10')}: {_ratio(one.success, DIE)}"
                f" ({dice} attack {'die' if dice == 1 else 'dice'}; defender chose {a['response']})")
    if a["damage_rule"] == "v2":
        phys = a["attacker_phys"] if a["melee_phys"] == "attacker" else a["defender_phys"]
        kdetail = (f"d10 {_signed(a['attacker_weapon_bonus'])} ATTACK BONUS"
                   + (" +2 power attack" if a["power_attack"] else "")
                   + (" +1 from the rear" if a["from_rear"] else "")
                   + (f" {_MINUS}1 dual weapons" if a["dual_weapons"] == "damage" else "")
                   + (f" {_MINUS}1 wounded" if a["attacker_wounded"] else "")
                   + f" {_MINUS}{ARMOUR[a['defender_armour']]} {a['defender_armour']} armour must roll "
                   + ("above" if a["kill_on"] == "above" else "at or above")
                   + f" PHYS {phys} ({a['melee_phys']}'s): {strike.describe('d10')}: {_ratio(strike.success, DIE)}")
    else:
        att = a["attacker_damage"] + a["attacker_strength"]
        kdetail = (f"damage v1: Damage + Strength {att} against Defence {a['defender_defence']}: "
                   f"{strike.describe('d6')}: {_ratio(strike.success, DAMAGE_V1_DIE)}")
    return (hit, Stage("to kill", strike.success, kdetail))


# ---------------------------------------------------------------------------
# the system's description (workbench.systems): dashboards, diagnostics,
# compare page, profiles and forum posts read it
# ---------------------------------------------------------------------------
import sys as _sys

from ..controls import (dropdown as _dropdown, optional_slider as _optional, shots_slider as _shots, slider as _slider,
                        toggle as _toggle, unit_size_slider as _unit_size)
from .description import (Mode as _Mode, Sides as _Sides, ProfileField as _Field, Profiles as _Profiles, Rung as _Rung,
                          StatInfo as _Stat, Step as _Step, SystemDescription as _Description)

_SHOOTING_MODE = _Mode("shooting", "shooting", "Shooting", (
    _slider("shoot", 6, 1, 12, "SHOOT (roll needed)", "hits when a d10 plus modifiers reaches SHOOT (lower is better)"),
    _slider("attack_power", 5, 0, 10, "ATTACK POWER", "the weapon kills when a d10 beats it (lower is stronger)"),
    _shots(5),
    _unit_size(5),
    _dropdown("moved", "cautious", tuple(MOVED), "firer moved", "how far the firer moved: stationary +1, normal -1"),
    _dropdown("range", "medium", tuple(RANGES), "range", "close +1, long -1 to hit"),
    _toggle("facing_away", False, "target facing away", "the target faces away from the firer"),
    _toggle("cover", False, "target in cover", "the target is in cover or obscured: -2 to hit"),
    _toggle("flanked", False, "firer flanks the target", "the firer is in the target's rear half: cover is ignored"),
    _dropdown("armour", "light", tuple(ARMOUR), "armour", "the target's armour, taken off the kill roll"),
    _dropdown("cover_level", "none", tuple(COVER_LEVEL), "cover against damage",
              "soft or hard cover, taken off the kill roll"),
    _dropdown("aimed", None, AIMED, "aimed fire bonus", "aimed fire adds +1 to the hit roll or to the kill roll"),
    _toggle("blind_fire", False, "blind fire / spray", "firing blind or spraying: -1 to hit"),
    _dropdown("damage_rule", "v2", ("v2", "v1"), "damage rule",
              "v2: a d10 against ATTACK POWER; v1: a d6 of Damage against Defence"),
    _dropdown("kill_on", "above", ("above", "at_or_above"), "kill on",
              "whether the kill roll must beat ATTACK POWER or only reach it"),
    _dropdown("shock_rule", "seed", ("seed", "pooled"), "shock rule", "how shock tests are counted over a volley"),
    _optional("damage", None, 1, 12, "Damage (rule v1)", "the weapon's Damage for damage rule v1; the leftmost "
              "notch means not used"),
    _optional("defence", None, 1, 12, "Defence (rule v1)", "the target's Defence for damage rule v1; the leftmost "
              "notch means not used"),
    _optional("heroic_save", None, 1, 12, "heroic save (PHYS)",
              "a downed hero rolls against PHYS to stay up; the leftmost notch means no hero"),
    _toggle("tough", False, "tough", "the target shrugs off the first kill"),
    _toggle("shield", False, "target has a shield", "a shield adds +1 Defence against shooting (damage rule v1)"),
    _toggle("firer_wounded", False, "firer wounded", "a wounded firer has -1 to hit"),
    _toggle("firer_shocked", False, "firer shocked", "a shocked firer shoots worse"),
    _toggle("blast", False, "blast weapon", "a blast weapon may blind fire with fewer than 3 shots"),
    _dropdown("blind_fire_rule", "seed", ("seed", "any"), "blind fire allowed",
              "seed: only at medium range with 3 or more shots or a blast weapon; any: always"),
    _toggle("aimed_fire_team", False, "a fire team may aim", "one aimed shot per soldier of a fire team"),
), trial="shot",
   sides=_Sides(firer=(("shoot", "SHOOT", "plus"),),
                weapon=(("attack_power", "ATTACK POWER", "plain"), ("damage", "Damage", "plain")),
                target=(("armour", "armour", "plain"), ("defence", "Defence", "plain"))))


def _cc_side(side: str) -> tuple:
    return (
        _slider(f"{side}_cqc", 6, 0, 12, f"{side} CQC", f"the {side}'s close-combat roll needed (lower is better)"),
        _optional(f"{side}_phys", 6, 1, 12, f"{side} PHYS", "a damage roll (rule v2) must beat PHYS to down"),
        _slider(f"{side}_weapon_bonus", 0, -3, 4, f"{side} ATTACK BONUS", "sword +1, two-handed axe +2 (rule v2)"),
        _dropdown(f"{side}_armour", "light", tuple(ARMOUR), f"{side} armour", f"the {side}'s armour"),
        _toggle(f"{side}_wounded", False, f"{side} wounded", f"the {side} is wounded: -1"),
        _toggle(f"{side}_tough", False, f"{side} tough", f"the {side} shrugs off the first kill"),
        _optional(f"{side}_heroic_save", None, 1, 12, f"{side} heroic save",
                  "a downed hero rolls this to stay up; the leftmost notch means no hero"),
        _optional(f"{side}_damage", None, 1, 12, f"{side} Damage (rule v1)", "the leftmost notch means not used"),
        _optional(f"{side}_strength", None, 1, 12, f"{side} Strength (rule v1)", "the leftmost notch means not used"),
        _optional(f"{side}_defence", None, 1, 12, f"{side} Defence (rule v1)", "the leftmost notch means not used"),
    )


#: each side's stats in a forum post's close-combat matchup line
_CC_SIDE = (("cqc", "CQC", "plus"), ("phys", "PHYS", "plus"), ("weapon_bonus", "ATTACK BONUS", "mod"),
            ("armour", "armour", "plain"))

_CC_MODE = _Mode("close_combat", "close_combat", "Close combat", _cc_side("attacker") + _cc_side("defender") + (
    _dropdown("response", "block", ("block", "counter"), "defender's response", "the defender blocks or counters"),
    _toggle("shield", False, "defender's shield", "the defender's shield adds a block die"),
    _toggle("shield_when_countering", False, "shield used when countering",
            "the shield's block die also counts when the defender counters"),
    _dropdown("dual_weapons", None, DUAL, "attacker's dual weapons", "a second weapon helps to hit or to kill"),
    _dropdown("defender_dual_weapons", None, DUAL, "defender's dual weapons",
              "a second weapon helps to hit or to kill"),
    _toggle("power_attack", False, "attacker power attack", "the attacker makes a power attack"),
    _toggle("defender_power_attack", False, "defender power attack", "the defender makes a power attack"),
    _toggle("from_rear", False, "attack from the rear", "the attacker strikes from the defender's rear"),
    _toggle("facing_away", False, "defender facing away", "the defender faces away"),
    _toggle("outnumbered", False, "attacker outnumbered", "the attacker is outnumbered"),
    _toggle("defender_outnumbered", False, "defender outnumbered", "the defender is outnumbered"),
    _dropdown("damage_rule", "v2", ("v2", "v1"), "damage rule",
              "v2: a d10 against PHYS; v1: a d6 of Damage against Defence"),
    _dropdown("kill_on", "above", ("above", "at_or_above"), "kill on",
              "whether the damage roll must beat the number or only reach it"),
    _dropdown("melee_phys", "attacker", ("attacker", "defender"), "PHYS rolled against",
              "whose PHYS the damage roll is made against"),
), trial="attack",
   sides=_Sides(firer=tuple((f"attacker_{k}", label, style) for k, label, style in _CC_SIDE),
                target=tuple((f"defender_{k}", label, style) for k, label, style in _CC_SIDE)))


def _d10(doc: str) -> _Field:
    return _Field("int", 1, 11, doc=f"{doc}; d10 target number, 6 means 6+")


def profile_kwargs(attacker, weapon, target, situation) -> tuple[str, dict]:
    """``("shooting", keyword arguments of :func:`shooting`)`` for ``attacker``
    firing ``weapon`` at ``target``; a melee weapon is an InputError."""
    if weapon["class"] == "melee":
        from ..errors import InputError
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


SYSTEM = _Description(
    key=KEY, name=NAME, module=_sys.modules[__name__], die=DIE, seed=SEED,
    title="Forgotten",
    blurb="SHOOT against ATTACK POWER, movement, range, armour, shock, close combat.",
    colour="#DD8452",
    modes=(_SHOOTING_MODE, _CC_MODE),
    effects={"shock": "probability", "defender_downed": "probability", "attacker_downed": "probability",
             "defender_newly_wounded": "probability", "attacker_newly_wounded": "probability",
             "pushback_none": "probability", "pushback_attacker": "probability",
             "pushback_defender": "probability", "downed": "probability"},
    stats=(
        _Stat("shoot", "attacker", -1, range(2, 11),
              "SHOOT: d10 + modifiers >= SHOOT hits; lower is better, +1 = SHOOT 6 -> 5"),
        _Stat("attack_power", "attacker", -1, range(0, 10),
              "ATTACK POWER: d10 - armour - cover > ATTACK POWER kills; lower is stronger, +1 = 5 -> 4"),
    ),
    # profiles/forgotten/trooper.toml (illustrative): SHOOT 6, rifle ATTACK POWER 5, light armour
    seed_matchup=dict(shoot=6, attack_power=5, armour="light", shots=10),
    granularity_grid=dict(shoot=list(range(0, 12)), attack_power=list(range(0, 11)), shots=1),
    equivalence_search=dict(shoot=list(range(2, 11)), attack_power=list(range(0, 10))),
    concepts={
        "accuracy": _Step("shoot", "SHOOT", -1),
        "penetration": _Step("attack_power", "ATTACK POWER", -1),
        "toughness": _Step("armour", "armour", +1, ladder=tuple(
            _Rung((("armour", a),), f"armour {a}") for a in ARMOUR)),
        "cover": _Step("cover_level", "cover", +1, ladder=(
            _Rung((("cover", False), ("cover_level", "none")), "open"),
            _Rung((("cover", True), ("cover_level", "soft")), "in cover (soft)"),
            _Rung((("cover", True), ("cover_level", "hard")), "in cover (hard)"))),
    },
    profiles=_Profiles(
        unit={"shoot": _d10("SHOOT"), "cqc": _d10("CQC"), "phys": _d10("PHYS"),
              "armour": _Field("choice", allowed=tuple(ARMOUR), doc="armour level"),
              "defence": _Field("int", 0, 20, default=None, doc="damage v1 Defence"),
              "shield": _Field("bool", default=False, doc="carries a shield")},
        weapon={"shots": _Field("int", 1, 100, doc="dice per model"),
                "attack_power": _Field("int", 0, 11, doc="ATTACK POWER, roll above it to kill"),
                "damage": _Field("int", 0, 20, default=None, doc="damage v1 Damage"),
                "class": _Field("choice", allowed=("ranged", "melee"), default="ranged", doc="weapon class")},
        basic=("trooper", "Rifle", "trooper"),
        to_kwargs=profile_kwargs),
)
