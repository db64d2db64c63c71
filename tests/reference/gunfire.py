"""The hand-written Gunfire shooting resolver, kept as a reference oracle.

This is ``workbench.systems.gunfire.shooting`` and ``shooting_table`` as they
were written by hand before the system resolved through its rule file
(``rules/gunfire.toml``): its own opposed tests (:func:`opposed`, formerly ``workbench.dice.opposed``),
binomial arithmetic, the remap of penetrating hits to models removed, the
suppression sum and dice rolling. Tests prove the public functions equal to it.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from workbench import engine, pipeline
from workbench import validate as v
from .dice import RollHigh, rates, faces_text
from workbench.outcome import Outcome, Stage

# the notes, limits and argument checks are the module's own (tested on their own in
# tests/test_gunfire.py); the stages' words (what rules/gunfire.toml's says and the engine write),
# the opposed tests, the division, binomials, suppression sum and dice rolling below are the
# hand-written resolver's
from workbench.systems import ownfile
from workbench.systems.gunfire import BASE, DIE, KEY, _check


def _removed(pens, s, t, explosive, models):
    """Vectorised models removed (inputs already checked): S >= T, one model per penetrating hit or
    min(explosive, S // T); S < T, floor(pens x S / T); capped at ``models`` when given."""
    pens = np.asarray(pens, dtype=np.int64)
    s = np.asarray(s, dtype=np.int64)
    t = np.asarray(t, dtype=np.int64)
    x = np.asarray(1 if explosive is None else explosive, dtype=np.int64)
    per_pen = np.minimum(x, s // t)
    out = np.where(s >= t, pens * per_pen, (pens * s) // t)
    if models is not None:
        out = np.minimum(out, np.asarray(models, dtype=np.int64))
    return out


def _fraction_of(value: float) -> Fraction:
    """The suppression fraction as a small rational (0.1 -> 1/10, not the binary float)."""
    return Fraction(value).limit_denominator(1_000_000)


#: the file's notes shown with every shooting, and those under a condition by the condition's text
NOTES = ownfile.load(KEY).notes
_WHEN = {n.when.source: n.text for n in ownfile.load(KEY).note_rules if n.when is not None}


def _damage_notes(s: int, t: int, explosive: int | None) -> tuple[str, ...]:
    """The file's notes on the branch of the division that S against T takes (Explosive None or 1: none)."""
    if s >= t:
        return (_WHEN["s >= t and explosive == 1"] if explosive in (None, 1) else _WHEN["s >= t and explosive > 1"],)
    return (_WHEN["s < t"],) + (() if explosive in (None, 1) else (_WHEN["s < t and explosive > 1"],))


def opposed(attacker, defender, *, die: int = DIE, base: int = BASE, natural_max_always_succeeds: bool = False,
             natural_1_always_fails: bool = False) -> RollHigh:
    """The opposed test as the workbench reads it (RULES.md section 3): success on a dX of
    ``base + defender - attacker`` or more; equal stats with the defaults (d10, base 6) give 50%."""
    return RollHigh(target=base + defender - attacker, sides=die,
                    natural_max_always_succeeds=natural_max_always_succeeds,
                    natural_1_always_fails=natural_1_always_fails)


def passes_all(rng: np.random.Generator, tests, shape: tuple[int, ...]) -> np.ndarray:
    """True where an attack passes every test in order (each test's dice rolled for every attack)."""
    ok = np.ones(shape, dtype=bool)
    for t in tests:
        ok &= t.roll_success(rng, shape)
    return ok


# ---------------------------------------------------------------------------
# exact core (vectorised; the scalar path uses it too)
# ---------------------------------------------------------------------------
def _tests(bs, ev, ap, av, hit_mod, pen_mod, die, base, nat_max, nat_1) -> tuple[RollHigh, RollHigh]:
    """The two opposed tests of a shot (numpy targets for a grid, ints for one cell)."""
    kw = dict(die=die, base=base, natural_max_always_succeeds=nat_max, natural_1_always_fails=nat_1)

    def plain(x):
        x = np.asarray(x)
        return int(x) if x.ndim == 0 else x

    hit = opposed(plain(bs), plain(np.asarray(ev) + np.asarray(hit_mod)), **kw)
    pen = opposed(plain(ap), plain(np.asarray(av) + np.asarray(pen_mod)), **kw)
    return hit, pen


def _exact(bs, ev, ap, av, s, t, shots, models, hit_mod, pen_mod, explosive, frac: Fraction,
           die, base, nat_max, nat_1) -> dict:
    hit_t, pen_t = _tests(bs, ev, ap, av, hit_mod, pen_mod, die, base, nat_max, nat_1)
    shape = np.broadcast_shapes(*[np.shape(a) for a in (bs, ev, ap, av, s, t, shots, hit_mod, pen_mod,
                                                         models, explosive) if a is not None])
    if shape == ():  # one cell: the cached exact Fractions of the same tests
        p_hit, p_pen = np.asarray(float(hit_t.success)), np.asarray(float(pen_t.success))
    else:
        p_hit = np.broadcast_to(rates(hit_t), shape)
        p_pen = np.broadcast_to(rates(pen_t), shape)
    n = np.broadcast_to(np.asarray(shots, dtype=np.int64), shape)
    n_max = int(n.max())
    v.table_size(shape, n_max + 1)
    k = np.arange(n_max + 1)

    pens_pmf = engine.binomial_pmf(n, p_hit * p_pen, width=n_max + 1)
    index = _removed(k, np.asarray(s)[..., None], np.asarray(t)[..., None],
                     None if explosive is None else np.asarray(explosive)[..., None],
                     None if models is None else np.asarray(models)[..., None])
    index = np.broadcast_to(index, shape + (n_max + 1,))
    width = int(index.max()) + 1
    pmf = engine.remap(pens_pmf, index, width)

    # suppression: P(no penetrating hit and hits < needed)
    hits_pmf = engine.binomial_pmf(n, p_hit, width=n_max + 1)
    miss_all_pens = (1.0 - p_pen)[..., None] ** k
    if models is None:
        not_supp = np.sum(hits_pmf * miss_all_pens, axis=-1)  # = (1 - p_hit p_pen)^n
    else:
        needed = np.broadcast_to(-(-(frac.numerator * np.asarray(models)) // frac.denominator), shape)
        not_supp = np.sum(np.where(k < needed[..., None], hits_pmf * miss_all_pens, 0.0), axis=-1)
    effects = {
        "suppressed": np.clip(1.0 - not_supp, 0.0, 1.0),
        "hits": n * p_hit,
        "penetrating_hits": n * p_hit * p_pen,
    }
    return {"pmf": pmf, "effects": effects, "tests": (hit_t, pen_t)}


def _core_args(a: dict) -> tuple:
    return (a["bs"], a["ev"], a["ap"], a["av"], a["s"], a["t"], a["shots"], a["models"], a["hit_mod"],
            a["pen_mod"], a["explosive"], _fraction_of(a["suppression_fraction"]), a["die"], a["base"],
            a["natural_max_always_succeeds"], a["natural_1_always_fails"])


@v.stat_function
def shooting_table(*, bs, ev, ap, av, s, t, shots=1, models=None, hit_mod=0, pen_mod=0, explosive=None,
                   suppression_fraction=0.25, die=DIE, base=BASE, natural_max_always_succeeds=False,
                   natural_1_always_fails=False) -> dict:
    """Vectorised twin of :func:`shooting` (exact only).

    ``bs, ev, ap, av, s, t, shots, models, hit_mod, pen_mod, explosive`` may
    be numpy arrays (broadcast together, shape S); the others are scalars.
    Returns ``{"pmf": array S+(width,), "effects": {"suppressed", "hits",
    "penetrating_hits": arrays S}}``; pmf[..., k] = P(k models removed).
    """
    a = _check(locals(), arrays=True)
    out = _exact(*_core_args(a))
    return {"pmf": out["pmf"], "effects": out["effects"]}


TABLES = {"shooting": shooting_table}


# ---------------------------------------------------------------------------
# the stat-level function
# ---------------------------------------------------------------------------
def _stage(name: str, att_name: str, att: int, def_name: str, dfd: int, mod: int, mod_name: str,
           test: RollHigh) -> Stage:
    """'BS 3 against Ev 3 +2 (hit modifier) needs 8+ on a d10: goes on 3/10': the two stats, the
    modifier and the natural-roll variants where they are set, then what the roll needs: the
    lowest face that passes (the highest face when it alone does; 2 when a 1 alone is kept out),
    the rule's own number when none does."""
    p, die = test.success, test.sides
    said = [f"{att_name} {att} against {def_name} {dfd}"]
    if mod:
        said.append(f"{mod:+d} ({mod_name} modifier)")
    if test.natural_max_always_succeeds:
        said.append(f"(a natural {die} always succeeds)")
    if test.natural_1_always_fails:
        said.append("(a natural 1 always fails)")
    need = int(test.target)
    if test.natural_max_always_succeeds and need > die:
        need = die
    if test.natural_1_always_fails and need < 2:
        need = 2
    if need <= 1:
        needs = f"any roll of a d{die} succeeds"
    else:
        needs = f"needs {need}+ on a d{die}" + (", which no roll reaches" if need > die else "")
    return Stage(name, p, f"{' '.join(said)} {needs}: goes on {faces_text(p, die)}", faces=die)


@v.stat_function
def shooting(*, bs, ev, ap, av, s, t, shots=1, models=None, hit_mod=0, pen_mod=0, explosive=None,
             suppression_fraction=0.25, die=DIE, base=BASE, natural_max_always_succeeds=False,
             natural_1_always_fails=False, method="exact", samples=100_000, seed=0) -> Outcome:
    """One unit's shots at one target unit.

    Per shot: to hit, BS against Ev + ``hit_mod``; to penetrate, AP against
    AV + ``pen_mod`` (opposed tests: a d``die`` roll of ``base + defender -
    attacker`` or more). Then the penetrating hits are divided by S/T (see
    :func:`models_removed`), capped at ``models`` when given.

    ``effects``: ``suppressed`` = P(the target gets a suppression marker:
    at least one penetrating hit, or hits >= ceil(suppression_fraction x
    models); without ``models`` only penetration counts); ``hits`` and
    ``penetrating_hits`` = expected numbers.
    """
    a = _check(locals(), arrays=False)
    method, samples, rng = v.method_args(method, samples, seed)
    core = _core_args(a)
    hit_t, pen_t = _tests(a["bs"], a["ev"], a["ap"], a["av"], a["hit_mod"], a["pen_mod"], a["die"],
                          a["base"], a["natural_max_always_succeeds"], a["natural_1_always_fails"])
    stages = (
        _stage("to hit", "BS", a["bs"], "Ev", a["ev"], a["hit_mod"], "hit", hit_t),
        _stage("to penetrate", "AP", a["ap"], "AV", a["av"], a["pen_mod"], "penetration", pen_t),
    )
    notes: tuple[str, ...] = NOTES + _damage_notes(a["s"], a["t"], a["explosive"])
    if a["models"] is not None:
        frac = _fraction_of(a["suppression_fraction"])
        needed = -(-(frac.numerator * a["models"]) // frac.denominator)
        notes += (f"Suppressed if a shot penetrates or {needed} or more of the {a['shots']} shots hit "
                  f"({a['suppression_fraction']:g} of {a['models']} models, rounded up).",)
    else:
        notes += (_WHEN["suppression_hits == 0"],)
    inputs = dict(a, method=method)

    if method == "exact":
        out = _exact(*core)
        return Outcome(KEY, "shooting", inputs, out["pmf"], stages,
                       {k: float(x) for k, x in out["effects"].items()},
                       attacks=a["shots"], notes=notes)

    if rng is None:  # method_args gives a Generator for every method but "exact"
        raise RuntimeError("no random generator for a sampled resolution")
    shots_n, models_n = a["shots"], a["models"]
    width = int(_removed(shots_n, a["s"], a["t"], a["explosive"], models_n)) + 1
    frac = _fraction_of(a["suppression_fraction"])
    needed = None if models_n is None else -(-(frac.numerator * models_n) // frac.denominator)

    def one_chunk(n: int) -> dict:
        shape = (n, shots_n)
        hit = passes_all(rng, (hit_t,), shape)
        pen = passes_all(rng, (pen_t,), shape)
        hits = hit.sum(axis=1)
        pens = (hit & pen).sum(axis=1)
        suppressed = pens >= 1
        if needed is not None:
            suppressed |= hits >= needed
        return {"removed": _removed(pens, a["s"], a["t"], a["explosive"], models_n),
                "suppressed": suppressed, "hits": hits, "penetrating_hits": pens}

    tally = pipeline.tally_sampled(samples, 2 * shots_n, one_chunk, width)
    return pipeline.tally_outcome(KEY, "shooting", inputs, tally, stages, attacks=shots_n, notes=notes)
