"""The hand-written 40k Changes shooting resolver, kept as a reference oracle.

This is ``workbench.systems.changes.shooting`` and ``shooting_table`` as they
were written by hand before the system's shooting resolved through its rule
file (``rules/changes.toml``): its own D12 rates, the binomial of unsaved
wounds, the fold of wounds into models removed (with the wasted wounds and the
destroyed probability) and its own dice rolling. Tests prove the public
functions equal to it.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from workbench import engine, pipeline
from workbench import validate as v
from workbench.dice import RollHigh, percent, rates
from workbench.errors import InputError
from workbench.outcome import Outcome

# the argument checks, target numbers, words and notes are the module's own (tested on their own in
# tests/test_changes.py); the rates, binomials, removal and dice rolling below are the hand-written
# resolver's
from workbench.systems.changes import (DIE, FIRER_COVER_RULES, GO_TO_GROUND_COVER, HEAVY_SHOT_RULES, KEY,
                                       MAX_DICE, MAX_MODELS, MAX_UNITS, MAX_WOUNDS, MODIFIER, NOTE_FIRER_GTG,
                                       NOTE_FIRER_GTG_BETTER, NOTE_GTG, NOTE_HEAVY_SHOT, NOTE_HEAVY_SHOT_FLAT, NOTE_HIT,
                                       NOTE_SIMULTANEOUS, NOTE_WOUND, NOTE_WOUNDS, _attacker, _flag_notes, _flags,
                                       _int, _one_marker, _shooting_setup, _shooting_stages, _shooting_targets,
                                       _unit_notes)


def _test(target: int, n12: bool, n1: bool) -> RollHigh:
    return RollHigh(target=target, sides=DIE, natural_max_always_succeeds=n12, natural_1_always_fails=n1)


def _rate(target, n12: bool, n1: bool):
    """Float P(success) for an int or an int array of targets (targets below 1 as 1, above 13 as 13)."""
    vec = rates(RollHigh(target=np.arange(1, DIE + 2), sides=DIE, natural_max_always_succeeds=n12,
                         natural_1_always_fails=n1))
    return vec[np.clip(target, 1, DIE + 1) - 1]


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


def _resolve(p_hit, p_pierce, p_wound, n, wounds, models):
    """Per-attack stage rates and attack counts -> {"pmf", "effects"} (any broadcast shape)."""
    if all(np.ndim(x) == 0 for x in (p_hit, p_pierce, p_wound, n, wounds, models)):
        p = float(p_hit) * float(p_pierce) * float(p_wound)
        n = int(n)
        pmf, effects = _removal(engine.binomial_pmf(n, p, n + 1), wounds, models)
        return {"pmf": pmf, "effects": {"hits": n * float(p_hit), "pierced": n * float(p_hit) * float(p_pierce),
                                        "unsaved_wounds": n * p, **effects}}
    if models is None:
        p_hit, p_pierce, p_wound, n, wounds = np.broadcast_arrays(p_hit, p_pierce, p_wound, n, wounds)
    else:
        p_hit, p_pierce, p_wound, n, wounds, models = np.broadcast_arrays(
            p_hit, p_pierce, p_wound, n, wounds, models)
    p = p_hit * p_pierce * p_wound
    n_max = int(n.max()) if n.size else 0
    v.table_size(p.shape, n_max + 1, "shots / attacks")
    pmf, effects = _removal(engine.binomial_pmf(n, p, n_max + 1), wounds, models)
    return {"pmf": pmf, "effects": {"hits": n * p_hit, "pierced": n * p_hit * p_pierce, "unsaved_wounds": n * p,
                                    **effects}}


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
    args, (bs_pen, eff_cover, _inv), _notes, _pen, _c = _shooting_setup(
        bs, s, ap, t, sv, inv, cover, shots, models, wounds, weapon, action, go_to_ground, evading,
        firer_gone_to_ground, firer_cover, natural_12_always_succeeds, natural_1_always_fails,
        table=True, firer_cover_rule=firer_cover_rule, heavy_shot=heavy_shot)
    return _core(args, bs_pen, eff_cover)


def _roll_counts(rng, tests, shape):
    """Roll every die of every attack; hits, pierced and wounds per sample."""
    h = tests[0].roll_success(rng, shape)
    p = h & tests[1].roll_success(rng, shape)
    w = p & tests[2].roll_success(rng, shape)
    return (np.count_nonzero(h, axis=-1), np.count_nonzero(p, axis=-1), np.count_nonzero(w, axis=-1))


def _sampled(inputs, tests, n, wounds, models, stages, notes, samples, rng):
    def one_chunk(k):
        h, p, w = _roll_counts(rng, tests, (k, n))
        removed = w // wounds
        effects = {"hits": h, "pierced": p, "unsaved_wounds": w}
        if models is not None:
            removed = np.minimum(removed, models)
            effects["wasted_wounds"] = np.maximum(w - models * wounds, 0)
            effects["destroyed"] = w >= models * wounds
        return {"removed": removed, **effects}

    width = models + 1 if models is not None else n // wounds + 1
    tally = pipeline.tally_sampled(samples, 3 * max(n, 1), one_chunk, width)
    return pipeline.tally_outcome(KEY, "shooting", inputs, tally, stages, attacks=n, notes=notes)


def shooting(*, bs, s, ap, t=0, sv=0, inv=0, cover=0, shots=1, models=None, wounds=1,
             weapon="light", action="aimed", go_to_ground=False, evading=False,
             firer_gone_to_ground=False, firer_cover=0,
             natural_12_always_succeeds=False, natural_1_always_fails=False,
             firer_cover_rule="same", heavy_shot="bs_plus_4",
             method="exact", samples=100_000, seed=0) -> Outcome:
    """The hand-written shooting: exact (binomial, then the fold) or sampled (every die rolled)."""
    args, _targets, notes, penalty, eff_cover = _shooting_setup(
        bs, s, ap, t, sv, inv, cover, shots, models, wounds, weapon, action, go_to_ground, evading,
        firer_gone_to_ground, firer_cover, natural_12_always_succeeds, natural_1_always_fails,
        firer_cover_rule=firer_cover_rule, heavy_shot=heavy_shot)
    method, samples, rng = v.method_args(method, samples, seed)
    eff_cover = int(eff_cover)
    stages = _shooting_stages(args, args["bs"], eff_cover, penalty)
    notes = tuple(notes + _unit_notes(args)) + _flag_notes(args["natural_12_always_succeeds"],
                                                          args["natural_1_always_fails"])
    inputs = dict(args, method=method)
    if method == "exact":
        out = _core(args, args["bs"] + penalty, eff_cover)
        return pipeline.exact_outcome(KEY, "shooting", inputs, out["pmf"], stages, out["effects"],
                                      attacks=args["shots"], notes=notes)
    inputs.update(samples=samples)
    n12, n1 = args["natural_12_always_succeeds"], args["natural_1_always_fails"]
    tests = [_test(int(x), n12, n1) for x in _shooting_targets(args["bs"] + penalty, eff_cover, args["inv"],
                                                                args["ap"], args["sv"], args["s"], args["t"])]
    return _sampled(inputs, tests, args["shots"], args["wounds"], args["models"], stages, notes, samples, rng)


def volley(attackers, *, t=0, sv=0, inv=0, cover=0, models, wounds=1, go_to_ground=False,
           evading=False, natural_12_always_succeeds=False, natural_1_always_fails=False,
           firer_cover_rule="same", heavy_shot="bs_plus_4",
           method="exact", samples=100_000, seed=0) -> Outcome:
    """The hand-written volley: each unit's binomial of unsaved wounds convolved, then the fold.

    Several units declared at one target and resolved together.

    ``attackers``: a sequence of dicts with keys ``bs``, ``s``, ``ap``
    (required) and ``shots`` (1), ``weapon`` ("light"), ``action`` ("aimed"),
    ``firer_gone_to_ground`` (False), ``firer_cover`` (0). The seed's core
    idea: "you have to decide who's shooting at a guy before you know if some
    other guy will not take him down at the same time", and casualties are
    removed only at step 8 of the phase. So the wounds of all units are summed
    (a convolution of each unit's wound distribution) and then turned into
    models removed.

    Effects: ``unsaved_wounds`` (expected), ``wasted_wounds`` = E[max(0,
    wounds - models x W)], ``destroyed`` = P(unit destroyed),
    ``return_fire_models`` = models (the target fires back at full strength),
    ``surviving_models`` = E[models - removed] (what would fire back if
    casualties were removed as they happen), ``units_not_needed`` = expected
    number of attacking units, in the order given, whose whole volley came
    after the earlier units had already destroyed the target (the units a
    remove-as-you-go player would have kept for another target), and
    ``unsaved_wounds[i]`` per unit.

    ``firer_cover_rule`` and ``heavy_shot`` apply to every attacker as in
    :func:`shooting`; ``go_to_ground`` with ``evading`` is refused ("Every
    unit may only have one status marker").
    """
    t = _int("t", t, *MODIFIER)
    sv = _int("sv", sv, *MODIFIER)
    inv = _int("inv", inv, *MODIFIER)
    cover = _int("cover", cover, *MODIFIER)
    models = _int("models", models, 1, MAX_MODELS)
    wounds = _int("wounds", wounds, 1, MAX_WOUNDS)
    go_to_ground = v.boolean("go_to_ground", go_to_ground)
    evading = v.boolean("evading", evading)
    n12, n1 = _flags(natural_12_always_succeeds, natural_1_always_fails)
    firer_cover_rule = v.choice("firer_cover_rule", firer_cover_rule, FIRER_COVER_RULES)
    heavy_shot = v.choice("heavy_shot", heavy_shot, HEAVY_SHOT_RULES)
    _one_marker(go_to_ground, evading)
    if isinstance(attackers, (str, bytes, Mapping)) or not isinstance(attackers, Sequence) or not attackers:
        raise InputError("attackers", "a non-empty list of dicts with keys bs, s, ap, shots, weapon, action",
                         attackers)
    if len(attackers) > MAX_UNITS:
        raise InputError("attackers", f"at most {MAX_UNITS} units", f"{len(attackers)} units")
    method, samples, rng = v.method_args(method, samples, seed)
    cover_eff = cover + GO_TO_GROUND_COVER if go_to_ground else cover
    units, tests, per_unit_stages, notes = [], [], [], [NOTE_SIMULTANEOUS, NOTE_HIT]
    for i, a in enumerate(attackers):
        unit, penalty, c = _attacker(i, a, cover_eff, inv, evading, firer_cover_rule, heavy_shot)
        args = dict(unit, t=t, sv=sv, inv=inv, go_to_ground=go_to_ground, heavy_shot=heavy_shot,
                    natural_12_always_succeeds=n12, natural_1_always_fails=n1)
        st = _shooting_stages(args, unit["bs"], c, penalty)
        units.append(unit)
        per_unit_stages.append(st)
        tests.append([_test(int(x), n12, n1) for x in
                      _shooting_targets(unit["bs"] + penalty, c, inv, unit["ap"], sv, unit["s"], t)])
        per = st[0].probability * st[1].probability * st[2].probability
        notes.append(f"attackers[{i}]: {unit['shots']} shots; " +
                     "; ".join(f"{s.name} {s.detail}: {s.probability}" for s in st) +
                     f"; per shot {per} ({percent(per)})")
        heavy_note = NOTE_HEAVY_SHOT if heavy_shot == "bs_plus_4" else NOTE_HEAVY_SHOT_FLAT
        if unit["weapon"] == "heavy" and unit["action"] == "shot" and heavy_note not in notes:
            notes.append(heavy_note)
        gtg_note = NOTE_FIRER_GTG if firer_cover_rule == "same" else NOTE_FIRER_GTG_BETTER
        if unit["firer_gone_to_ground"] and gtg_note not in notes:
            notes.append(gtg_note)
    if go_to_ground:
        notes.append(NOTE_GTG)
    notes.append(NOTE_WOUND)
    if wounds > 1:
        notes.append(NOTE_WOUNDS)
    all_notes = tuple(notes) + _flag_notes(n12, n1)
    same = all([s.probability for s in st] == [s.probability for s in per_unit_stages[0]]
               for st in per_unit_stages)
    stages = per_unit_stages[0] if same else ()
    total_shots = sum(u["shots"] for u in units)
    if total_shots > MAX_DICE:
        raise InputError("attackers", f"{MAX_DICE:,} shots or fewer in all", f"{total_shots:,} shots",
                         "the documented limit of dice per resolution")
    need = models * wounds
    inputs = dict(attackers=tuple(dict(u) for u in units), t=t, sv=sv, inv=inv, cover=cover,
                  models=models, wounds=wounds, go_to_ground=go_to_ground, evading=evading,
                  natural_12_always_succeeds=n12, natural_1_always_fails=n1,
                  firer_cover_rule=firer_cover_rule, heavy_shot=heavy_shot, method=method)

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
        pmf, eff = _removal(total, wounds, models)
        removed_mean = float(engine.mean_of(pmf))
        effects = {"unsaved_wounds": float(engine.mean_of(total)), **eff,
                   "return_fire_models": models, "surviving_models": models - removed_mean,
                   "units_not_needed": not_needed, **per_unit_mean}
        return pipeline.exact_outcome(KEY, "volley", inputs, pmf, stages, effects,
                                      attacks=total_shots, notes=all_notes)

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
        w = total
        removed = np.minimum(w // wounds, models)
        return {"removed": removed, "unsaved_wounds": w, "wasted_wounds": np.maximum(w - need, 0),
                "destroyed": w >= need, "return_fire_models": np.full(w.shape, models),
                "surviving_models": models - removed, "units_not_needed": not_needed, **out}

    tally = pipeline.tally_sampled(samples, 3 * max(total_shots, 1), one_chunk, models + 1)
    return pipeline.tally_outcome(KEY, "volley", inputs, tally, stages, attacks=total_shots, notes=all_notes)


