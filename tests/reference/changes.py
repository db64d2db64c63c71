"""The hand-written 40k Changes shooting resolver, kept as a reference oracle.

This is ``workbench.systems.changes.shooting`` and ``shooting_table`` as they
were written by hand before the system's shooting resolved through its rule
file (``rules/changes.toml``): its own D12 rates, the binomial of unsaved
wounds (folded into models removed, wasted wounds and the destroyed
probability by the module's fold, which melee still uses) and its own dice
rolling. Tests prove the public functions equal to it.
"""
from __future__ import annotations

import numpy as np

from workbench import engine, pipeline
from workbench import validate as v
from workbench.dice import RollHigh, rates
from workbench.outcome import Outcome

# the argument checks, target numbers, words and notes are the module's own (tested on their own in
# tests/test_changes.py), and so is the fold of wounds into models removed (_resolve, _volley_exact: still the
# module's for melee and a volley's total); the rates, binomials and dice rolling below are the
# hand-written resolver's
from workbench.systems.changes import (DIE, KEY, _flag_notes, _resolve, _shooting_setup,
                                       _shooting_stages, _shooting_targets, _unit_notes, _volley_exact, _volley_sample,
                                       _volley_setup)


def _test(target: int, n12: bool, n1: bool) -> RollHigh:
    return RollHigh(target=target, sides=DIE, natural_max_always_succeeds=n12, natural_1_always_fails=n1)


def _rate(target, n12: bool, n1: bool):
    """Float P(success) for an int or an int array of targets (targets below 1 as 1, above 13 as 13)."""
    vec = rates(RollHigh(target=np.arange(1, DIE + 2), sides=DIE, natural_max_always_succeeds=n12,
                         natural_1_always_fails=n1))
    return vec[np.clip(target, 1, DIE + 1) - 1]


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
    """The hand-written volley: each unit's binomial of unsaved wounds convolved, then the simultaneous
    fold (the module's argument checks, stages and notes; its own tests, binomials, fold and dice)."""
    units, _profiles, stages, all_notes, total_shots, inputs, placed = _volley_setup(
        attackers, t, sv, inv, cover, models, wounds, go_to_ground, evading, natural_12_always_succeeds,
        natural_1_always_fails, firer_cover_rule, heavy_shot)
    method, samples, rng = v.method_args(method, samples, seed)
    inputs["method"] = method
    n12, n1 = inputs["natural_12_always_succeeds"], inputs["natural_1_always_fails"]
    models, wounds = inputs["models"], inputs["wounds"]
    need = models * wounds
    tests = [[_test(int(x), n12, n1) for x in _shooting_targets(u["bs"] + penalty, c, inputs["inv"], u["ap"],
                                                                 inputs["sv"], u["s"], inputs["t"])]
             for u, (penalty, c) in zip(units, placed)]

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


