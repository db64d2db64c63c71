"""The hand-written Antares shooting resolver, kept as a reference oracle.

This is ``workbench.systems.antares.shooting`` and ``shooting_table`` as they
were written by hand before the system resolved through its rule file
(``rules/antares.toml``): its own per-die tests (:class:`workbench.dice.RollUnder`),
binomial arithmetic, blast mixtures and dice rolling. Tests prove the public
functions equal to it.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from workbench import engine, pipeline
from workbench import validate as v
from workbench.dice import RollUnder, faces_text, rates, roll_faces
from workbench.outcome import Outcome, Stage

KEY = "antares"
NAME = "Antares-style d10"
SEED = "004_d2632203ddb2a5c8.txt"
DIE = 10

#: a stat (Acc, Res, Ag, Init, Cou, Com): the seed scores them "out of 10 with
#: 1 being the lowest value possible and 10 the highest for this type"; other
#: types may go further, so 0..20 is accepted
STAT_RANGE = (0, 20)
#: a modifier (acc_mod, a test's modifier) may lower or raise the value
MOD_RANGE = (-20, 20)
#: armour, cover and SV are non-negative amounts
BONUS_RANGE = (0, 20)
#: a test value after modifiers: every stat + modifier combination fits; any
#: value below 1 behaves as 0 (1/100) and any value from 9 up as 9 (9/10)
VALUE_RANGE = (-40, 40)
MAX_SHOTS = 1000
MAX_MODELS = 1000

NOTES = (
    "Stat test (seed): d10 equal to or less than the value succeeds; a 10 always fails; a value "
    "below 1 needs a 1 followed by another 1; a 1 is a critical success when the value is 2 or more.",
)
SHOOTING_NOTES = NOTES + (
    "Each shot hits on an Acc test at Acc + acc_mod; each hit makes the target test Res at "
    "Res + armour + cover - SV; a failed Res test removes one model (RULES.md section 4).",
    "Criticals on the hit roll decide who is removed ('In the case of shooting it affects how "
    "casualties are allocated'): they do not change how many by default.",
)


# ---------------------------------------------------------------------------
# plain words
# ---------------------------------------------------------------------------
def _ratio(p: Fraction) -> str:
    return faces_text(p, 10)


def _pass_words(value: int) -> str:
    if value < 1:
        return "below 1: needs a 1 then another 1 on a d10"
    if value >= 10:
        return "needs 9 or less on a d10 (a 10 always fails)"
    return f"needs {value} or less on a d10"


def _fail_words(value: int) -> str:
    if value < 1:
        return "below 1: the target fails unless it rolls a 1 then another 1"
    if value >= 10:
        return "the target fails only on a 10"
    return f"the target fails on {value + 1} or more"


def _value_text(base_name: str, base: int, parts: list[tuple[str, int]]) -> tuple[int, str]:
    """'Res 5 + armour 0 + cover 0 − SV 1 = 4' (parts carry their own sign)."""
    total, text = base, f"{base_name} {base}"
    for name, amount in parts:
        total += amount
        if name.startswith("-"):
            text += f" − {name[1:]} {abs(amount)}"
        else:
            text += f" {'+' if amount >= 0 else '−'} {name} {abs(amount)}"
    if parts:
        text += f" = {total}" if total >= 0 else f" = −{-total}"
    return total, text


# ---------------------------------------------------------------------------
# shooting
# ---------------------------------------------------------------------------
def _check(acc, res, sv, armour, cover, acc_mod, shots, models, critical_ignores_res, arrays: bool,
           where: str = "") -> dict:
    """The checked shooting arguments; ``where`` prefixes the weapon's own
    fields in messages (``"weapons[1]."`` in a volley)."""
    num, opt = v.integer_checks(arrays)
    a = dict(
        acc=num(f"{where}acc", acc, *STAT_RANGE), res=num("res", res, *STAT_RANGE),
        sv=num(f"{where}sv", sv, *BONUS_RANGE), armour=num("armour", armour, *BONUS_RANGE),
        cover=num("cover", cover, *BONUS_RANGE), acc_mod=num(f"{where}acc_mod", acc_mod, *MOD_RANGE),
        shots=num(f"{where}shots", shots, 1, MAX_SHOTS), models=opt("models", models, 1, MAX_MODELS),
        critical_ignores_res=v.boolean("critical_ignores_res", critical_ignores_res),
    )
    v.broadcastable({k: a[k] for k in ("acc", "res", "sv", "armour", "cover", "acc_mod", "shots", "models")})
    return a


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
    a = _check(acc, res, sv, armour, cover, acc_mod, shots, models, critical_ignores_res, arrays=True)
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
    a = _check(acc, res, sv, armour, cover, acc_mod, shots, models, critical_ignores_res, arrays=False)
    method, samples, rng = v.method_args(method, samples, seed)
    hit_t, res_t, stages = _shot_stages(a)
    notes = SHOOTING_NOTES + (CRITICAL_IGNORES_RES_NOTE,) * a["critical_ignores_res"]
    inputs = dict(a, method=method)
    if blast is not None:
        inputs["shots"] = blast
        notes = notes + (BLAST_NOTE + f" {blast}: {BLAST_DICE[blast][1]}.",)

    if method == "exact":
        if blast is None:
            out = _exact(a)
            pmf, effects = out["pmf"], out["effects"]
        else:
            pmf, effects = _blast_exact(a)
        return pipeline.exact_outcome(KEY, "shooting", inputs, pmf, stages,
                                      {k: float(x) for k, x in effects.items()},
                                      attacks=a["shots"] if blast is None else None, notes=notes)

    shots_n, models_n = a["shots"], a["models"]
    width = (shots_n if models_n is None else min(shots_n, models_n)) + 1

    def one_chunk(n: int) -> dict:
        r = _roll_shots(rng, hit_t, res_t, shots_n, blast, a["critical_ignores_res"], n)
        removed = r["failed"] if models_n is None else np.minimum(r["failed"], models_n)
        return {"removed": removed, "critical_hits": r["crits"], "any_critical": r["crits"] > 0, "hits": r["hits"]}

    tally = pipeline.tally_sampled(samples, 2 * hit_t.dice * shots_n + 1, one_chunk, width)
    return pipeline.tally_outcome(KEY, "shooting", inputs, tally, stages,
                                  attacks=shots_n if blast is None else None, notes=notes)


CRITICAL_IGNORES_RES_NOTE = ("Variant critical_ignores_res: a critical hit removes a model without a Res test "
                             "(not in the seed).")


def _shot_stages(a: dict) -> tuple[RollUnder, RollUnder, list[Stage]]:
    """The hit test, the Res test and the stages of one shot, in plain words."""
    hit_v, hit_text = _value_text("Acc", a["acc"], [("modifier", a["acc_mod"])] if a["acc_mod"] else [])
    res_v, res_text = _value_text("Res", a["res"], [("armour", a["armour"]), ("cover", a["cover"]),
                                                    ("-SV", -a["sv"])])
    hit_t, res_t = RollUnder(hit_v), RollUnder(res_v)
    p_hit = hit_t.success
    crit_text = (f" (a 1 is a critical hit: {_ratio(hit_t.p('critical'))})" if hit_v >= 2
                 else " (no critical possible)")
    stages = [Stage("to hit", p_hit, f"{hit_text}: {_pass_words(hit_v)}: {_ratio(p_hit)}{crit_text}", faces=DIE)]
    p_fail = 1 - res_t.success
    if a["critical_ignores_res"]:
        p_crit = hit_t.p("critical")
        p_fail_given_hit = (p_crit + (p_hit - p_crit) * p_fail) / p_hit if p_hit else p_fail
        stages.append(Stage("target fails Res", p_fail_given_hit,
                            f"{res_text}: {_fail_words(res_v)}: {_ratio(p_fail)}; a critical hit "
                            f"skips the Res test: {_ratio(p_fail_given_hit)} of hits remove a model", faces=DIE))
    else:
        stages.append(Stage("target fails Res", p_fail, f"{res_text}: {_fail_words(res_v)}: {_ratio(p_fail)}",
                            faces=DIE))
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


#: blast weapons' random number of hits: "D4s, D6s, D8s and D12s are also used to generate random
#: values, most commonly for weapons with blast effects ... generate 1-8 by re-rolling 9s and 10s ...
#: D3 (half D6 roll) and D5s (half D10 score)": name -> (largest count, how it is rolled)
BLAST_DICE = {
    "D3": (3, "a D6 halved, rounded up"),
    "D4": (4, "a D4"),
    "D5": (5, "a D10 halved, rounded up"),
    "D6": (6, "a D6"),
    "D8": (8, "a D10 re-rolling 9s and 10s"),
    "D12": (12, "a D12"),
}
BLAST_NOTE = ("Blast weapon: the number of shots is rolled first ('most commonly for weapons with blast "
              "effects'), each count 1..N equally likely; the result is the mixture over the count. Rolled as")


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
