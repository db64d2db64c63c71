"""The hand-written Antares shooting resolver, kept as a reference oracle.

This is ``workbench.systems.antares.shooting``, ``shooting_table`` and
``volley`` as they were written by hand before the system resolved through
its rule file (``rules/antares.toml``): its own per-die tests
(:class:`workbench.dice.RollUnder`), binomial arithmetic, blast mixtures, the
volley's convolution and cap, and dice rolling. Tests prove the public
functions equal to it.
"""
from __future__ import annotations


import numpy as np

from workbench import engine, pipeline
from workbench import validate as v
from .dice import RollUnder, rates, roll_faces
from workbench.outcome import Outcome, Stage

# the limits and argument checks are the module's own, the stages' words the rule file's (they are not what
# is compared: the stages' chances are, each against this module's own die)
from workbench.systems.antares import BLAST_DICE, KEY, _check, _volley_setup
from workbench.systems import ownfile

#: the notes every shooting shows: rules/antares.toml's without a condition
SHOOTING_NOTES = ownfile.load(KEY).notes

#: the variant's note and a blast weapon's, each shown only when its stat is on: rules/antares.toml's
#: notes whose when reads it
CRITICAL_IGNORES_RES_NOTE, BLAST_NOTE = (next(n.text for n in ownfile.load(KEY).note_rules
                                              if n.when is not None and stat in n.when.names)
                                         for stat in ("critical_ignores_res", "blast"))


def _tests(a: dict) -> tuple[RollUnder, RollUnder]:
    """The hit test and the Res test of a shot (numpy values for a grid, ints for one cell)."""
    def plain(x):
        return int(x) if x.ndim == 0 else x

    hit = RollUnder(plain(np.asarray(a["acc"]) + np.asarray(a["acc_mod"])))
    resist = RollUnder(plain(np.asarray(a["res"]) + np.asarray(a["armour"]) + np.asarray(a["cover"])
                             - np.asarray(a["sv"])))
    return hit, resist


def _exact(a: dict) -> dict:
    hit_t, res_t = _tests(a)
    shape = np.broadcast_shapes(*[np.shape(a[k]) for k in
                                  ("acc", "res", "sv", "armour", "cover", "acc_mod", "shots", "models")
                                  if a[k] is not None])
    if shape == ():  # one cell: the cached exact Fractions of the same tests
        p_hit, p_crit, p_res = (np.asarray(float(x)) for x in
                                (hit_t.success, hit_t.p("critical"), res_t.success))
    else:
        p_hit = np.broadcast_to(rates(hit_t), shape)
        p_crit = np.broadcast_to(rates(hit_t, "critical"), shape)
        p_res = np.broadcast_to(rates(res_t), shape)
    if a["critical_ignores_res"]:
        p_remove = p_crit + (p_hit - p_crit) * (1.0 - p_res)
    else:
        p_remove = p_hit * (1.0 - p_res)
    n = np.broadcast_to(np.asarray(a["shots"], dtype=np.int64), shape)
    n_max = int(n.max())
    v.table_size(shape, n_max + 1)
    pmf = engine.binomial_pmf(n, p_remove, width=n_max + 1)
    if a["models"] is not None:
        m = np.broadcast_to(np.asarray(a["models"], dtype=np.int64), shape)
        width = min(n_max, int(m.max())) + 1
        k = np.arange(n_max + 1)
        # P(removed = w) = P(count = w) for w < models, P(count >= models) at w = models
        tail = np.cumsum(pmf[..., ::-1], axis=-1)[..., ::-1]  # P(count >= k)
        out = np.where(k < m[..., None], pmf, np.where(k == m[..., None], tail, 0.0))
        pmf = out[..., :width]
    effects = {
        "critical_hits": n * p_crit,
        "any_critical": 1.0 - (1.0 - p_crit) ** n,
        "hits": n * p_hit,
    }
    return {"pmf": pmf, "effects": effects}


@v.stat_function
def shooting_table(*, acc, res, sv=0, armour=0, cover=0, acc_mod=0, shots=1, models=None,
                   critical_ignores_res=False) -> dict:
    """Vectorised twin of :func:`shooting` (exact only).

    ``acc, res, sv, armour, cover, acc_mod, shots, models`` may be numpy
    arrays (broadcast together, shape S). Returns ``{"pmf": array S+(width,),
    "effects": {"critical_hits", "any_critical", "hits": arrays S}}``.
    """
    a = _check(locals(), arrays=True)
    return _exact(a)


TABLES = {"shooting": shooting_table}


@v.stat_function
def shooting(*, acc, res, sv=0, armour=0, cover=0, acc_mod=0, shots=1, models=None,
             critical_ignores_res=False, method="exact", samples=100_000, seed=0) -> Outcome:
    """One unit's shots at one target unit.

    Per shot: an Acc test at ``acc + acc_mod`` to hit; each hit makes the
    target test Res at ``res + armour + cover - sv``; each failed Res test
    removes one model (capped at ``models`` when given).

    ``shots`` may also be a blast weapon's random number of shots: "D3",
    "D4", "D5", "D6", "D8" or "D12" (seed: "generate 1-8 by re-rolling 9s and
    10s", "D3 (half D6 roll) and D5s (half D10 score)"), each count equally
    likely; the exact result is the mixture over the count.

    ``effects``: ``critical_hits`` = expected number of critical hits (a 1 on
    the hit roll at a value of 2 or more; they decide who is removed, not how
    many), ``any_critical`` = P(at least one critical hit), ``hits`` =
    expected hits. ``critical_ignores_res=True`` (a variant, not in the seed):
    a critical hit removes a model without a Res test.
    """
    blast = None
    if isinstance(shots, str):
        blast = v.choice("shots", shots, tuple(BLAST_DICE))
        shots = BLAST_DICE[blast][0]
    a = _check(locals(), arrays=False)
    method, samples, rng = v.method_args(method, samples, seed)
    hit_t, res_t, stages = _shot_stages(a)
    notes = SHOOTING_NOTES + (CRITICAL_IGNORES_RES_NOTE,) * a["critical_ignores_res"]
    inputs = dict(a, method=method)
    if blast is not None:
        inputs["shots"] = blast
        notes = notes + (BLAST_NOTE,)

    if method == "exact":
        if blast is None:
            out = _exact(a)
            pmf, effects = out["pmf"], out["effects"]
        else:
            pmf, effects = _blast_exact(a)
        return Outcome(KEY, "shooting", inputs, pmf, stages,
                       {k: float(x) for k, x in effects.items()},
                       attacks=a["shots"] if blast is None else 1, notes=notes)

    shots_n, models_n = a["shots"], a["models"]
    width = (shots_n if models_n is None else min(shots_n, models_n)) + 1

    def one_chunk(n: int) -> dict:
        r = _roll_shots(rng, hit_t, res_t, shots_n, blast, a["critical_ignores_res"], n)
        removed = r["failed"] if models_n is None else np.minimum(r["failed"], models_n)
        return {"removed": removed, "critical_hits": r["crits"], "any_critical": r["crits"] > 0, "hits": r["hits"]}

    tally = pipeline.tally_sampled(samples, 2 * hit_t.dice * shots_n + 1, one_chunk, width)
    return pipeline.tally_outcome(KEY, "shooting", inputs, tally, stages,
                                  attacks=shots_n if blast is None else 1, notes=notes)


def _shot_stages(a: dict) -> tuple[RollUnder, RollUnder, tuple[Stage, ...]]:
    """The hit test, the Res test and the stages of one shot: the rule file's (its words), each
    stage's chance this module's own die's, to hit and the Res test failed (a blast weapon is said
    as one attack: the file fires it once)."""
    hit_t, res_t = RollUnder(a["acc"] + a["acc_mod"]), RollUnder(a["res"] + a["armour"] + a["cover"] - a["sv"])
    stats = {k: a[k] for k in ("acc", "res", "sv", "armour", "cover", "acc_mod", "critical_ignores_res")}
    stages = ownfile.load(KEY).attack(**stats, shots=1).stages
    assert [s.probability for s in stages] == [hit_t.success, 1 - res_t.success], stages
    return hit_t, res_t, stages


def _roll_shots(rng, hit_t: RollUnder, res_t: RollUnder, shots_n: int, blast: str | None,
                critical_ignores_res: bool, n: int) -> dict:
    """``n`` volleys of one weapon, every die rolled: per volley the failed Res
    tests (models removed before any cap), the critical hits and the hits."""
    shape = (n, shots_n)
    codes = hit_t.roll(rng, shape)
    if blast is not None:  # shots beyond the rolled count are not fired
        codes = np.where(np.arange(shots_n) < _roll_blast(rng, blast, n)[:, None], codes,
                         hit_t.labels.index("fail"))
    hit = hit_t.is_success(codes)
    crit = codes == hit_t.labels.index("critical")
    fails = ~res_t.is_success(res_t.roll(rng, shape))
    if critical_ignores_res:
        fails |= crit
    return {"failed": (hit & fails).sum(axis=1), "crits": crit.sum(axis=1), "hits": hit.sum(axis=1)}


def _roll_blast(rng, blast: str, n: int) -> np.ndarray:
    """The number of shots of ``n`` blast attacks, rolled as a player does."""
    if blast == "D3":
        return (roll_faces(rng, 6, (n,)).astype(np.int64) + 1) // 2
    if blast == "D5":
        return (roll_faces(rng, 10, (n,)).astype(np.int64) + 1) // 2
    if blast == "D8":
        faces = roll_faces(rng, 10, (n,)).astype(np.int64)
        again = faces > 8
        while again.any():  # re-roll 9s and 10s
            faces[again] = roll_faces(rng, 10, (int(again.sum()),))
            again = faces > 8
        return faces
    return roll_faces(rng, BLAST_DICE[blast][0], (n,)).astype(np.int64)


def _blast_exact(a: dict):
    """The mixture over the count: each of 1..N shots with probability 1/N."""
    top = a["shots"]
    counts = np.arange(1, top + 1)
    out = _exact(dict(a, shots=counts))
    pmf = out["pmf"].mean(axis=0)
    effects = {k: float(np.mean(x)) for k, x in out["effects"].items()}
    return pmf, effects


def volley(weapons, *, res, armour=0, cover=0, models=None, critical_ignores_res=False,
           method="exact", samples=100_000, seed=0) -> Outcome:
    """The hand-written volley of mixed weapons: each weapon's failed Res tests (binomial, or the mixture
    over a blast die's count) convolved, then capped at the unit size; sampled, every weapon's dice rolled
    (the module's argument checks, stages and notes)."""
    groups, notes, inputs, total_shots = _volley_setup(weapons, res, armour, cover, models, critical_ignores_res)
    # the weapons' stages when all are the same, and then their shots when none is a blast weapon
    shot_stages = [_shot_stages(g)[2] for g in groups]
    same = all(st == shot_stages[0] for st in shot_stages)
    stages = shot_stages[0] if same else ()
    attacks = total_shots if same and not any(g["blast"] for g in groups) else None
    models = inputs["models"]
    method, samples, rng = v.method_args(method, samples, seed)
    inputs["method"] = method
    if method == "exact":
        total = np.ones(1)
        effects = {"hits": 0.0, "critical_hits": 0.0}
        no_critical = 1.0
        per_weapon = {}
        for i, g in enumerate(groups):
            if g["blast"] is None:
                out = _exact(g)
                pmf, eff = out["pmf"], {k: float(x) for k, x in out["effects"].items()}
            else:
                pmf, eff = _blast_exact(g)
            total = engine.convolve(total, pmf)
            effects["hits"] += eff["hits"]
            effects["critical_hits"] += eff["critical_hits"]
            no_critical *= 1.0 - eff["any_critical"]
            per_weapon[f"failed_res[{i}]"] = float(engine.mean_of(pmf))
        k = np.arange(total.size)
        if models is None:
            pmf, overkill = total, 0.0
        else:
            pmf = total[: min(total.size - 1, models) + 1].copy()
            pmf[-1] = total[pmf.size - 1:].sum()
            overkill = float(np.maximum(k - models, 0) @ total)
        effects.update(any_critical=1.0 - no_critical, overkill=overkill, **per_weapon)
        return Outcome(KEY, "volley", inputs, pmf, stages, effects, attacks=attacks,
                       notes=notes).replace(trial="shot")
    inputs["samples"] = samples
    width = (total_shots if models is None else min(total_shots, models)) + 1
    tests = [_tests(g) for g in groups]

    def one_chunk(n: int) -> dict:
        failed = np.zeros(n, dtype=np.int64)
        crits = np.zeros(n, dtype=np.int64)
        hits = np.zeros(n, dtype=np.int64)
        per_weapon = {}
        for i, (g, (hit_t, res_t)) in enumerate(zip(groups, tests)):
            r = _roll_shots(rng, hit_t, res_t, g["shots"], g["blast"], g["critical_ignores_res"], n)
            failed += r["failed"]
            crits += r["crits"]
            hits += r["hits"]
            per_weapon[f"failed_res[{i}]"] = r["failed"]
        removed = failed if models is None else np.minimum(failed, models)
        overkill = np.zeros(n, dtype=np.int64) if models is None else np.maximum(failed - models, 0)
        return {"removed": removed, "hits": hits, "critical_hits": crits, "any_critical": crits > 0,
                "overkill": overkill, **per_weapon}

    tally = pipeline.tally_sampled(samples, sum(4 * g["shots"] + 1 for g in groups), one_chunk, width)
    return pipeline.tally_outcome(KEY, "volley", inputs, tally, stages, attacks=attacks,
                                  notes=notes).replace(trial="shot")
