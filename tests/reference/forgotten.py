"""The hand-written Forgotten shooting resolver, kept as a reference oracle.

This is ``workbench.systems.forgotten.shooting`` and ``shooting_table`` as they
were written by hand before the system resolved through its rule file
(``rules/forgotten/shooting.toml``): the binomial of kills, the per-shot state update of
tough models and wounded heroes (``forgotten_state._absorb_step``), the
multinomial shock sum and the dice rolling. Tests prove the public functions
equal to it; it is itself checked against tests/brute_forgotten.py.
"""
from __future__ import annotations

import builtins

import numpy as np

from workbench import engine, pipeline
from workbench import validate as v
from .dice import RollHigh, rates, roll_faces
# the limits and argument checks are the module's own, the stages and notes its file's (tested in
# tests/test_forgotten.py); the dice, the arithmetic and the dice rolling below are the hand-written resolver's
from workbench.outcome import Outcome
from workbench.systems import ownfile
from workbench.systems.forgotten import DIE, KEY, _check_shooting, _stats
from .forgotten_state import _absorb_step, _judge_both

#: the shooting's modifiers as docs/rules/forgotten.md states them: the firer's move and the range to hit,
#: the armour and cover levels off the kill roll
MOVED = {"stationary": 1, "cautious": 0, "normal": -1}
RANGES = {"close": 1, "medium": 0, "long": -1}
LEVELS = {"none": 0, "light": 1, "heavy": 2, "soft": 1, "hard": 2}
#: damage v1 rolls a d6
DAMAGE_V1_DIE = 6

#: cells x shots x shots a tough-target table may cost (about 2 s)
TOUGH_TABLE_WORK = 20_000_000


def _v1_need(attack, defence):
    """The d6 damage v1 roll needed: "Defence is 2x or more better = 6+ kills; Defence is better = 5+
    kills; Both equal = 4+ kills; Attack is better = 3+ kills; Attack is 2x or more better = 2+ kills"."""
    a, d = np.asarray(attack), np.asarray(defence)
    return np.select([d >= 2 * a, d > a, d == a, a >= 2 * d], [6, 5, 4, 2], default=3)


def _shooting_tests(a: dict):
    """The dice of one shot, by hand (docs/rules/forgotten.md, sections 1 to 3): to hit, to kill,
    heroic save (fresh, wounded) or None, each a RollHigh."""
    hit_mod = (MOVED[a["moved"]] + RANGES[a["range"]] + a["facing_away"] - 2 * (a["cover"] and not a["flanked"])
               - a["blind_fire"] + (a["aimed"] == "hit") - a["firer_wounded"] - a["firer_shocked"])
    to_hit = RollHigh(np.asarray(a["shoot"]) - hit_mod, DIE)
    dmod = (a["aimed"] == "damage") - a["firer_wounded"] - a["firer_shocked"]
    if a["damage_rule"] == "v2":
        cover = 0 if a["flanked"] else LEVELS[a["cover_level"]]
        need = np.asarray(a["attack_power"]) + LEVELS[a["armour"]] + cover + (a["kill_on"] == "above") - dmod
        to_kill = RollHigh(need, DIE)
    else:
        to_kill = RollHigh(_v1_need(a["damage"], np.asarray(a["defence"]) + a["shield"]) - dmod, DAMAGE_V1_DIE)
    if a["heroic_save"] is None:
        return to_hit, to_kill, None
    # a shocked target unit "Has -1 to all rolls": its heroes' saves too
    hs = np.asarray(a["heroic_save"]) + int(a["target_shocked"])
    return to_hit, to_kill, (RollHigh(hs, DIE), RollHigh(hs + 1, DIE))


def _rate(test, label: str):
    """P(label) of a roll-high die (target and sides): the cached Fraction count of the
    oracle's RollHigh for a single cell, rates() for a grid."""
    if np.ndim(test.target) == 0:
        return float(RollHigh(target=int(test.target), sides=test.sides).p(label))
    return rates(RollHigh(target=test.target, sides=test.sides), label)


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
    v.table_size(shape, n_max + 1)
    cells = int(np.prod(shape, dtype=np.int64)) if shape else 1
    wounded_k = a["target_wounded"]
    # a model's state matters when it absorbs a kill (tough) or saves worse once wounded
    stateful = a["tough"] or (wounded_k > 0 and saves is not None)
    if stateful and cells * (n_max + 1) * n_max > TOUGH_TABLE_WORK:
        # a state update per shot: the work grows with cells x shots x shots
        most = int((TOUGH_TABLE_WORK / cells) ** 0.5) - 1
        why = "tough=True" if a["tough"] else "wounded heroes"
        v.forbid("shots", n_max, f"at most {most:,} with {cells:,} cells and {why} (the exact state "
                 f"update per shot costs cells x shots x shots, at most {TOUGH_TABLE_WORK:,})")

    q_kill = p_hit * p_killroll            # per shot: the damage roll kills
    q_nd = p_hit * (1.0 - p_killroll)      # per shot: hit, damage roll fails
    q_near = p_near
    q_miss = np.clip(1.0 - p_hit - p_near, 0.0, 1.0)

    # models downed (uncapped): binomial, or a per-shot state update for tough models
    if not stateful:
        down = engine.binomial_pmf(n, q_kill * (1.0 - s_f), width=n_max + 1)
    else:
        state = np.zeros(shape + (n_max + 1, 2))
        state[..., 0, 1 if wounded_k else 0] = 1.0
        for t in range(n_max):
            new = _absorb_step(state, q_kill, s_f, s_w, tough=a["tough"], wounded_below=wounded_k)
            state = np.where((t < n)[..., None, None], new, state)
        down = state.sum(axis=-1)
    mean_down = engine.mean_of(down)

    pmf = engine.cap(down, a["models"])
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
        # a lone kill lands on the model in front: a wounded one is downed unless it saves
        lone_kill_downs_nobody = s_w if wounded_k else (np.ones(shape) if a["tough"] else s_f)
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
    out = _shooting_exact(a)
    return {"pmf": out["pmf"], "effects": out["effects"]}


@v.stat_function
def shooting(*, shoot, attack_power, shots=1, models=None, moved="cautious", range="medium",
             facing_away=False, cover=False, flanked=False, armour="none", cover_level="none", aimed=None,
             blind_fire=False, damage_rule="v2", kill_on="above", shock_rule="seed", damage=None,
             defence=None, heroic_save=None, tough=False, shield=False, firer_wounded=False,
             firer_shocked=False, blast=False, blind_fire_rule="seed", aimed_fire_team=False,
             target_wounded=0, target_shocked=False,
             method="exact", samples=100_000, seed=0) -> Outcome:
    """The hand-written :func:`workbench.systems.forgotten.shooting` (its docstring says every
    rule): the binomial of kills or the per-shot state update, the shock sum, the dice rolled."""
    kw = dict(locals())
    a = _check_shooting(kw, arrays=False)
    method, samples, rng = v.method_args(method, samples, seed)
    to_hit, to_kill, saves = _shooting_tests(a)
    to_hit = RollHigh(int(to_hit.target), DIE)
    to_kill = RollHigh(int(to_kill.target), to_kill.sides)
    if saves is not None:
        saves = (RollHigh(int(saves[0].target), DIE), RollHigh(int(saves[1].target), DIE))
    rs = ownfile.load(KEY)
    stages, notes = rs.stages_at(**dict(_stats(a), models=a["models"])), rs.notes_at(**_stats(a))
    # the stages' chances are the file's dice (to hit, to kill, and the heroic save where every kill
    # is saved alike): each equals the hand-written die's
    hand = (to_hit.p("success"), to_kill.p("success"))
    assert tuple(s.probability for s in stages[:2]) == hand, (stages, hand)
    if len(stages) == 3:
        assert saves is not None and stages[2].probability in {1 - s.p("success") for s in saves}, (stages, saves)
    inputs = dict(a, method=method)

    if method == "exact":
        out = _shooting_exact(a)
        return Outcome(KEY, "shooting", inputs, out["pmf"], stages,
                       {k: float(x) for k, x in out["effects"].items()},
                       attacks=a["shots"], notes=notes, label="models downed")

    if rng is None:  # method_args gives a Generator for every method but "exact"
        raise RuntimeError("no random generator for a sampled resolution")
    n_shots, models = a["shots"], a["models"]
    width = n_shots + 1 if models is None else min(n_shots, models) + 1
    near_code = to_hit.labels.index("near_miss")
    sequential = saves is not None or a["tough"]
    wounded_k = a["target_wounded"]

    def one_chunk(m: int) -> dict:
        hit_codes = to_hit.roll(rng, (m, n_shots))
        hit = to_hit.is_success(hit_codes)
        near = hit_codes == near_code
        kill = hit & to_kill.is_success(to_kill.roll(rng, (m, n_shots)))
        if sequential:
            down = np.zeros(m, dtype=np.int64)
            wounded = np.full(m, wounded_k > 0)
            save_faces = roll_faces(rng, DIE, (m, n_shots, 1))
            if saves is not None:
                ok_f, ok_w = _judge_both(saves, save_faces)
            for t in builtins.range(n_shots):
                k = kill[:, t]
                if saves is not None:
                    k = k & ~np.where(wounded, ok_w[:, t], ok_f[:, t])
                downed_now = k & wounded if a["tough"] else k
                down += downed_now
                # the next model in front: one of the models already wounded while any is left
                wounded = np.where(downed_now, down < wounded_k, wounded | (k & a["tough"]))
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

    tally = pipeline.tally_sampled(samples, 3 * n_shots, one_chunk, width)
    return pipeline.tally_outcome(KEY, "shooting", inputs, tally, stages, attacks=n_shots, notes=notes,
                                  label="models downed")


