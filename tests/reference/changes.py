"""The hand-written 40k Changes shooting and melee resolvers, kept as reference oracles.

These are ``workbench.systems.changes.shooting``, ``shooting_table``,
``melee`` and ``melee_table`` as they were written by hand before the
system's shooting resolved through its rule file (``rules/changes/shooting.toml``)
and its melee through its second one (``rules/changes/melee.toml``): their
own D12 rates, the binomial of unsaved wounds (folded into models removed,
wasted wounds and the destroyed probability by the module's fold, which a
volley's total still uses) and their own dice rolling. Tests prove the
public functions equal to them.
"""
from __future__ import annotations

import numpy as np

from workbench import engine, pipeline
from workbench import validate as v
from workbench.dice import faces_text
from .dice import RollHigh, rates
from workbench.outcome import Outcome, Stage
from workbench.rules.die import need_text

# the argument checks are the module's own, the notes the rule files' (tested on their own in
# tests/test_changes.py); the target numbers, the stages' words, the rates, binomials, the fold of wounds
# into models removed, the volley's and dice rolling below are the hand-written resolver's
from workbench.systems import ownfile
from workbench.systems.changes import DIE, KEY, MELEE_PART, _checked_args, _melee_setup
from workbench.systems.changes_volley import NOTE_SIMULTANEOUS, _volley_setup


def _aim(unit, cover, go_to_ground, firer_cover_rule: str, heavy_shot: str):
    """``(the BS penalty, the target's cover)`` of a unit's shots at a target of ``cover``: a heavy weapon
    in a SHOT action fires at BS + 4 or a flat 4+ ("BALLISTIC SKILL U+4"); a target gone to ground has
    cover + 2; when the firer has gone to ground, the target's cover is the firer's cover + 2, or the
    better of that and its own (``firer_cover_rule="better"``)."""
    bs = unit["bs"]
    penalty = bs - bs
    if unit["weapon"] == "heavy" and unit["action"] == "shot":
        penalty = penalty + 4 if heavy_shot == "bs_plus_4" else 4 - bs
    cover = cover + 2 if go_to_ground else cover
    if unit["firer_gone_to_ground"]:
        mine = unit["firer_cover"] + 2
        cover = mine if firer_cover_rule == "same" else np.maximum(cover, mine)
    return penalty, cover


def _shooting_setup(given, table: bool = False):
    """Shooting's arguments checked by the module: ``(args, BS penalty, the target's cover)``."""
    args = _checked_args(None, dict(given), table)
    penalty, eff_cover = _aim(args, args["cover"], args["go_to_ground"], args["firer_cover_rule"], args["heavy_shot"])
    return args, penalty, eff_cover


def _stage(name: str, target: int, n12: bool, n1: bool, words: str) -> Stage:
    """A stage as the engine words it: ``words`` (the rule file's ``says``), what the roll needs (the target
    number as the file clamps it: at least 2 when a natural 1 always fails, at most 12 when a natural 12
    always succeeds, else the rule's own sum) and the faces it goes on."""
    p = _test(target, n12, n1).success
    need = min(max(target, 1 + n1), 12 if n12 else target)
    return Stage(name, p, f"{words} {need_text(need, DIE, True, 'd12', 'any roll of a d12 succeeds')}: "
                          f"goes on {faces_text(p, DIE)}", faces=DIE)


def _against(inv, other, name: str, why: str = "") -> str:
    """What a hit roll is made against: the invulnerable modifier, or ``name`` ``other`` when as good."""
    return f"invulnerable {inv:+d}" if inv > other else f"{name} {int(other):+d}{why}"


def _stages(args, hit_words: str, hit_target) -> tuple[Stage, Stage, Stage]:
    """The three stages: to hit at ``hit_target``, to pierce AP + Sv, to wound S + T."""
    n12, n1 = args["natural_12_always_succeeds"], args["natural_1_always_fails"]
    ap, sv, s, t = args["ap"], args["sv"], args["s"], args["t"]
    return (_stage("to hit", int(hit_target), n12, n1, hit_words),
            _stage("to pierce", ap + sv, n12, n1, f"AP {ap}+ against armour {sv:+d}"),
            _stage("to wound", s + t, n12, n1, f"S {s}+ against T {t:+d}"))


def _shooting_stages(args, eff_cover, penalty) -> tuple[Stage, Stage, Stage]:
    bs, inv = args["bs"], args["inv"]
    heavy = args["weapon"] == "heavy" and args["action"] == "shot"
    if heavy and args["heavy_shot"] == "flat_4":
        bs_words = 'flat 4+ (heavy weapon, shot action: "U+4" read as 4+)'
    elif heavy:
        bs_words = f"BS {bs}+ +4 (heavy weapon, shot action)"
    else:
        bs_words = f"BS {bs}+"
    why = (" (firer gone to ground)" if args["firer_gone_to_ground"] else
           " (gone to ground)" if args["go_to_ground"] else "")
    return _stages(args, f"{bs_words} against {_against(inv, eff_cover, 'cover', why)}",
                   bs + penalty + max(int(eff_cover), inv))


def _melee_stages(args) -> tuple[Stage, Stage, Stage]:
    ws, d, inv = args["ws"], args["d"], args["inv"]
    return _stages(args, f"WS {ws}+ against {_against(inv, d, 'dodge')}", ws + max(d, inv))


def _shooting_targets(bs_pen, eff_cover, inv, ap, sv, s, t):
    """The three target numbers, as RULES.md section 1 writes them: to hit BS + max(cover, Inv), to pierce
    AP + Sv, to wound S + T."""
    return bs_pen + np.maximum(eff_cover, inv), ap + sv, s + t


def _removal(pmf_w: np.ndarray, wounds, models):
    """Wound counts -> models removed, and the wasted-wound / destroyed effects.

    removed = min(models, floor(w / W)); P(removed <= r) = P(w <= (r + 1) W - 1)
    for r < models and 1 from r = models on.
    """
    nw = pmf_w.shape[-1]
    wounds = np.asarray(wounds)
    effects = {}
    if models is not None:
        models = np.asarray(models)
        k = np.arange(nw)
        need = (models * wounds)[..., None]
        effects["wasted_wounds"] = (pmf_w * np.maximum(k - need, 0)).sum(axis=-1)
        effects["destroyed"] = (pmf_w * (k >= need)).sum(axis=-1)
        width = int(models.max()) + 1
    else:
        if (wounds == 1).all():  # W = 1 and no cap: models removed = unsaved wounds
            return pmf_w, effects
        width = (nw - 1) // int(wounds.min()) + 1
    cdf = np.minimum(np.cumsum(pmf_w, axis=-1), 1.0)
    r = np.arange(width)
    idx = (r + 1) * wounds[..., None] - 1
    if models is not None:
        idx = np.where(r >= models[..., None], nw - 1, idx)
    idx = np.minimum(idx, nw - 1)
    at = np.take_along_axis(cdf, np.broadcast_to(idx, cdf.shape[:-1] + (width,)), axis=-1)
    at = np.where(idx >= nw - 1, 1.0, at)
    pmf = np.diff(at, axis=-1, prepend=0.0)
    return pmf, effects


def _test(target: int, n12: bool, n1: bool) -> RollHigh:
    return RollHigh(target=target, sides=DIE, natural_max_always_succeeds=n12, natural_1_always_fails=n1)


def _rate(target, n12: bool, n1: bool):
    """Float P(success) for an int or an int array of targets (targets below 1 as 1, above 13 as 13)."""
    vec = rates(RollHigh(target=np.arange(1, DIE + 2), sides=DIE, natural_max_always_succeeds=n12,
                         natural_1_always_fails=n1))
    return vec[np.clip(target, 1, DIE + 1) - 1]


def _resolve(p_hit, p_pierce, p_wound, n, wounds, models):
    """Per-attack stage rates and attack counts -> {"pmf", "effects"} (any broadcast shape)."""
    if all(np.ndim(x) == 0 for x in (p_hit, p_pierce, p_wound, n, wounds, models)):
        # one cell (the scalar functions): the same arithmetic on 0-d values
        p = float(p_hit) * float(p_pierce) * float(p_wound)
        n = int(n)
        pmf_w = engine.binomial_pmf(n, p, n + 1)
        pmf, effects = _removal(pmf_w, wounds, models)
        effects = {"hits": n * float(p_hit), "pierced": n * float(p_hit) * float(p_pierce),
                   "unsaved_wounds": n * p, **effects}
        return {"pmf": pmf, "effects": effects}
    if models is None:
        p_hit, p_pierce, p_wound, n, wounds = np.broadcast_arrays(p_hit, p_pierce, p_wound, n, wounds)
    else:
        p_hit, p_pierce, p_wound, n, wounds, models = np.broadcast_arrays(
            p_hit, p_pierce, p_wound, n, wounds, models)
    p = p_hit * p_pierce * p_wound
    n_max = int(n.max()) if n.size else 0
    v.table_size(p.shape, n_max + 1, "shots / attacks")
    pmf_w = engine.binomial_pmf(n, p, n_max + 1)
    pmf, effects = _removal(pmf_w, wounds, models)
    effects = {"hits": n * p_hit, "pierced": n * p_hit * p_pierce, "unsaved_wounds": n * p, **effects}
    return {"pmf": pmf, "effects": effects}


def _core(args, bs_pen, eff_cover):
    n12, n1 = args["natural_12_always_succeeds"], args["natural_1_always_fails"]
    hit_t, pierce_t, wound_t = _shooting_targets(bs_pen, eff_cover, args["inv"], args["ap"],
                                                 args["sv"], args["s"], args["t"])
    return _resolve(_rate(hit_t, n12, n1), _rate(pierce_t, n12, n1), _rate(wound_t, n12, n1),
                    args["shots"], args["wounds"], args["models"])


def shooting_table(*, bs, s, ap, t=0, sv=0, inv=0, cover=0, shots=1, models=None, wounds=1,
                   weapon="light", action="aimed", go_to_ground=False, evading=False,
                   firer_gone_to_ground=False, firer_cover=0, natural_12_always_succeeds=False,
                   natural_1_always_fails=False, firer_cover_rule="same", heavy_shot="bs_plus_4") -> dict:
    """The hand-written vectorised shooting."""
    args, penalty, eff_cover = _shooting_setup(locals(), table=True)
    return _core(args, args["bs"] + penalty, eff_cover)


def _roll_counts(rng, tests, shape):
    """Roll every die of every attack; hits, pierced and wounds per sample."""
    h = tests[0].roll_success(rng, shape)
    p = h & tests[1].roll_success(rng, shape)
    w = p & tests[2].roll_success(rng, shape)
    return (np.count_nonzero(h, axis=-1), np.count_nonzero(p, axis=-1), np.count_nonzero(w, axis=-1))


def _sampled(inputs, tests, n, wounds, models, stages, notes, samples, rng, function="shooting", free=None):
    def one_chunk(k):
        h, p, w = _roll_counts(rng, tests, (k, n))
        removed = w // wounds
        effects = {"hits": h, "pierced": p, "unsaved_wounds": w}
        if models is not None:
            removed = np.minimum(removed, models)
            effects["wasted_wounds"] = np.maximum(w - models * wounds, 0)
            effects["destroyed"] = w >= models * wounds
        if free is not None:
            effects["free_attacks"] = np.full(h.shape, free)
        return {"removed": removed, **effects}

    width = models + 1 if models is not None else n // wounds + 1
    tally = pipeline.tally_sampled(samples, 3 * max(n, 1), one_chunk, width)
    return pipeline.tally_outcome(KEY, function, inputs, tally, stages, attacks=n, notes=notes)


def shooting(*, bs, s, ap, t=0, sv=0, inv=0, cover=0, shots=1, models=None, wounds=1,
             weapon="light", action="aimed", go_to_ground=False, evading=False,
             firer_gone_to_ground=False, firer_cover=0,
             natural_12_always_succeeds=False, natural_1_always_fails=False,
             firer_cover_rule="same", heavy_shot="bs_plus_4",
             method="exact", samples=100_000, seed=0) -> Outcome:
    """The hand-written shooting: exact (binomial, then the fold) or sampled (every die rolled)."""
    args, penalty, eff_cover = _shooting_setup(locals())
    method, samples, rng = v.method_args(method, samples, seed)
    eff_cover = int(eff_cover)
    stages = _shooting_stages(args, eff_cover, penalty)
    notes = ownfile.load(KEY).notes_at(**args)
    inputs = dict(args, method=method)
    if method == "exact":
        out = _core(args, args["bs"] + penalty, eff_cover)
        return Outcome(KEY, "shooting", inputs, out["pmf"], stages, out["effects"],
                       attacks=args["shots"], notes=notes)
    inputs.update(samples=samples)
    n12, n1 = args["natural_12_always_succeeds"], args["natural_1_always_fails"]
    tests = [_test(int(x), n12, n1) for x in _shooting_targets(args["bs"] + penalty, eff_cover, args["inv"],
                                                                args["ap"], args["sv"], args["s"], args["t"])]
    return _sampled(inputs, tests, args["shots"], args["wounds"], args["models"], stages, notes, samples, rng)


def _volley_exact(total, not_needed: float, per_unit: dict, models: int, wounds: int, inputs: dict, stages,
                  total_shots: int, notes) -> Outcome:
    """A volley's outcome from the distribution of all its units' unsaved wounds: the simultaneous fold
    (removed only at the end of the phase, so wounds beyond the unit are wasted)."""
    pmf, eff = _removal(total, wounds, models)
    removed_mean = float(engine.mean_of(pmf))
    effects = {"unsaved_wounds": float(engine.mean_of(total)), **eff,
               "return_fire_models": models, "surviving_models": models - removed_mean,
               "units_not_needed": not_needed, **per_unit}
    return Outcome(KEY, "volley", inputs, pmf, stages, effects, attacks=total_shots, notes=notes)


def _volley_sample(w: np.ndarray, not_needed: np.ndarray, per_unit: dict, models: int, wounds: int) -> dict:
    """One chunk of sampled volleys from each sample's total unsaved wounds ``w``: the same fold."""
    need = models * wounds
    removed = np.minimum(w // wounds, models)
    return {"removed": removed, "unsaved_wounds": w, "wasted_wounds": np.maximum(w - need, 0),
            "destroyed": w >= need, "return_fire_models": np.full(w.shape, models),
            "surviving_models": models - removed, "units_not_needed": not_needed, **per_unit}


def volley(attackers, *, t=0, sv=0, inv=0, cover=0, models, wounds=1, go_to_ground=False,
           evading=False, natural_12_always_succeeds=False, natural_1_always_fails=False,
           firer_cover_rule="same", heavy_shot="bs_plus_4",
           method="exact", samples=100_000, seed=0) -> Outcome:
    """The hand-written volley: each unit's binomial of unsaved wounds convolved, then the simultaneous
    fold (the module's argument checks, stages and notes; its own tests, binomials, fold and dice)."""
    units, unit_notes, total_shots, inputs = _volley_setup(attackers, locals())
    method, samples, rng = v.method_args(method, samples, seed)
    # the shooting file's notes that hold for one of the units at this target
    rs = ownfile.load(KEY)
    shared = {k: x for k, x in inputs.items() if k != "attackers"}
    all_notes = (NOTE_SIMULTANEOUS, *rs.notes_for(*(rs._check(dict(shared, **u), arrays=False)[1] for u in units)),
                 *unit_notes)
    inputs["method"] = method
    n12, n1 = inputs["natural_12_always_succeeds"], inputs["natural_1_always_fails"]
    models, wounds = inputs["models"], inputs["wounds"]
    need = models * wounds
    tests, unit_stages = [], []
    for u in units:
        penalty, c = _aim(u, inputs["cover"], inputs["go_to_ground"], inputs["firer_cover_rule"], inputs["heavy_shot"])
        unit_stages.append(_shooting_stages(dict(inputs, **u), c, penalty))
        tests.append([_test(int(x), n12, n1) for x in _shooting_targets(u["bs"] + penalty, c, inputs["inv"], u["ap"],
                                                                         inputs["sv"], u["s"], inputs["t"])])
    stages = unit_stages[0] if all(st == unit_stages[0] for st in unit_stages) else ()
    if method == "exact":
        total = np.ones(1)
        not_needed = 0.0
        per_unit_mean = {}
        for i, (u, ts) in enumerate(zip(units, tests)):
            if i:
                not_needed += float(total[need:].sum())
            p = float(ts[0].success * ts[1].success * ts[2].success)
            total = engine.convolve(total, engine.binomial_pmf(u["shots"], p))
            per_unit_mean[f"unsaved_wounds[{i}]"] = u["shots"] * p
        return _volley_exact(total, not_needed, per_unit_mean, models, wounds, inputs, stages, total_shots, all_notes)

    inputs.update(samples=samples)

    def one_chunk(k):
        total = np.zeros(k, dtype=np.int64)
        not_needed = np.zeros(k, dtype=np.int64)
        out = {}
        for i, (u, ts) in enumerate(zip(units, tests)):
            not_needed += total >= need
            _h, _p, w = _roll_counts(rng, ts, (k, u["shots"]))
            total += w
            out[f"unsaved_wounds[{i}]"] = w
        return _volley_sample(total, not_needed, out, models, wounds)

    tally = pipeline.tally_sampled(samples, 3 * max(total_shots, 1), one_chunk, models + 1)
    return pipeline.tally_outcome(KEY, "volley", inputs, tally, stages, attacks=total_shots, notes=all_notes)




def _melee_core(args, free):
    n12, n1 = args["natural_12_always_succeeds"], args["natural_1_always_fails"]
    hit_t = args["ws"] + np.maximum(args["d"], args["inv"])
    out = _resolve(_rate(hit_t, n12, n1), _rate(args["ap"] + args["sv"], n12, n1),
                   _rate(args["s"] + args["t"], n12, n1), args["attacks"] + free,
                   args["wounds"], args["models"])
    shape = np.shape(out["effects"]["hits"])
    out["effects"]["free_attacks"] = (np.broadcast_to(np.asarray(free, dtype=float), shape)
                                      if shape else float(free))
    return out


def melee_table(*, ws, s, ap, attacks=1, d=0, inv=0, t=0, sv=0, models=None, wounds=1,
                furious_charge=False, charging_models=1, blocked=False,
                natural_12_always_succeeds=False, natural_1_always_fails=False) -> dict:
    """The hand-written vectorised melee."""
    args, free = _melee_setup(locals(), table=True)
    return _melee_core(args, free)


def melee(*, ws, s, ap, attacks=1, d=0, inv=0, t=0, sv=0, models=None, wounds=1,
          furious_charge=False, charging_models=1, blocked=False,
          natural_12_always_succeeds=False, natural_1_always_fails=False,
          method="exact", samples=100_000, seed=0) -> Outcome:
    """The hand-written melee: its own rates and binomials (exact) or dice (sampled)."""
    args, free = _melee_setup(locals())
    method, samples, rng = v.method_args(method, samples, seed)
    n12, n1 = args["natural_12_always_succeeds"], args["natural_1_always_fails"]
    stages = _melee_stages(args)
    notes = ownfile.load(KEY, MELEE_PART).notes_at(**args)
    n = args["attacks"] + free
    inputs = dict(args, method=method)
    if method == "exact":
        out = _melee_core(args, free)
        return Outcome(KEY, "melee", inputs, out["pmf"], stages, out["effects"],
                       attacks=n, notes=notes)
    inputs.update(samples=samples)
    ws_, d_, inv_ = args["ws"], args["d"], args["inv"]
    tests = [_test(ws_ + max(d_, inv_), n12, n1), _test(args["ap"] + args["sv"], n12, n1),
             _test(args["s"] + args["t"], n12, n1)]
    return _sampled(inputs, tests, n, args["wounds"], args["models"], stages, notes, samples, rng,
                    function="melee", free=free)
