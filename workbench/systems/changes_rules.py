"""40k Changes: the rule pieces its shooting and melee (:mod:`workbench.systems.changes`) and its
volley (:mod:`workbench.systems.changes_volley`) share: the D12 test, the stat ranges and the argument
checks. The notes (the interpretations a resolution relies on) and the stages' words (each stage's
``says``) are the rule files' (``rules/changes/shooting.toml`` and ``melee.toml``).
Seed ``000_821a3f094c9e3c4f.txt``, RULES.md section 1.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

import numpy as np

from .. import validate as v
from ..errors import InputError
from ..outcome import Stage
from ..rules.die import DieRoll, roll_high
from . import ownfile

KEY = "changes"
SEED = "000_821a3f094c9e3c4f.txt"

GO_TO_GROUND_COVER = 2     #: seed: "Its COVER MODIFIER is improved by +2"

# the ranges and choices of the stats, as rules/changes/shooting.toml states them (the turn checks its units by them)
_FILE = ownfile.load(KEY)
NAME, DIE = _FILE.name, _FILE.die
ROLL_STAT = (_FILE.stat("bs").min, _FILE.stat("bs").max)  #: "5+" is written 5 (13+ passes only on a natural 12)
MODIFIER = (_FILE.stat("t").min, _FILE.stat("t").max)     #: "+2" is written 2
MAX_DICE, MAX_WOUNDS, MAX_MODELS = (_FILE.stat(k).max for k in ("shots", "wounds", "models"))  # per resolution
MAX_UNITS = _FILE.volley_spec.max_profiles                #: attacking units in one volley
WEAPONS, ACTIONS = (tuple(o for o, _ in _FILE.stat(k).options) for k in ("weapon", "action"))


# -- argument checks ----------------------------------------------------------
def _hint(value: Any) -> str | None:
    if isinstance(value, str):
        text = value.strip()
        if text.endswith("+") and text[:-1].strip().lstrip("+-").isdigit():
            return f"write the roll stat {text} as the number {int(text[:-1])}"
        if text.lstrip("+-").isdigit():
            return f"write the modifier {text} as the number {int(text)}"
        return "give a number, e.g. bs=5 for BS 5+ or t=2 for T +2"
    return None


def _hinted(check: Callable, unwrap: bool = True, optional: bool = False) -> Callable:
    """``check`` (name, value, lo, hi) with a hint for "5+"-style strings; with ``unwrap`` a 0-d numpy
    array is checked as the value it holds; ``optional``: None passes, and a refusal says so."""
    def run(name: str, value: Any, lo: int, hi: int):
        if optional and value is None:
            return None
        if unwrap and isinstance(value, np.ndarray) and value.ndim == 0:
            value = value.item()
        try:
            return check(name, value, lo, hi)
        except InputError as exc:
            hint = _hint(value)
            if hint or optional:
                raise InputError(name, ("None or " if optional else "") + exc.expected, exc.got, hint or exc.hint) from None
            raise
    return run


_int = _hinted(v.integer, unwrap=False)  #: a scalar whole number
_scalar = _hinted(v.integer)  #: a scalar whole number, a 0-d numpy array counting as one
_ints = _hinted(v.integers)  #: a whole number or a numpy array of whole numbers


def _checked(kw: dict, names: tuple[str, ...], table: bool = False, where: str = "", part: str | None = None,
             optional: tuple[str, ...] | None = None, whole: Callable | None = None) -> dict:
    """The arguments ``names``, checked in that order as the rule folder's ``part`` (None: shooting)
    states its stats (:func:`~workbench.systems.ownfile.checked`): whole numbers by ``whole`` (by default
    :func:`_ints` for a table, else :func:`_scalar`), None too where a stat is optional (a roll stat
    written "5+" gets a hint); each message names ``where`` + the argument."""
    return ownfile.checked(ownfile.load(KEY, part), kw, names, table, optional=optional, where=where,
                           whole=whole or (_ints if table else _scalar),
                           maybe=_hinted(v.integers if table else v.integer, optional=True))


def _flags(n12, n1) -> tuple[bool, bool]:
    return (v.boolean("natural_12_always_succeeds", n12), v.boolean("natural_1_always_fails", n1))


# -- the test ------------------------------------------------------------------
@lru_cache(maxsize=4096)
def _test(target: int, n12: bool, n1: bool) -> DieRoll:
    return roll_high(target, DIE, natural_max_always_succeeds=n12, natural_1_always_fails=n1)


@v.stat_function
def test(target, *, natural_12_always_succeeds=False, natural_1_always_fails=False) -> DieRoll:
    """The D12 test "roll stat + modifier": succeeds on ``target`` or more.

    ``target`` = roll stat + modifier (S 5+ against T +2: ``test(7)``);
    P(success) = clamp((13 - target) / 12, 0, 1) unless a variant switch
    makes a natural 12 always pass or a natural 1 always fail. The test is a
    :class:`workbench.rules.die.DieRoll` (``success``, ``p(label)``,
    ``describe()``, ``roll``/``roll_success``), the rule engine's die.
    """
    target = _int("target", target, -4 * DIE, 4 * DIE)
    n12, n1 = _flags(natural_12_always_succeeds, natural_1_always_fails)
    return _test(target, n12, n1)


def _one_test(function: str, inputs: dict, stage: Stage, die: DieRoll | None, effect: str, method: str, samples: int,
              rng: Any, **fields: Any):
    """The Outcome of one pass/fail roll: pmf = [P(fail), P(pass)], ``stage`` holding P(pass) and the effect
    ``effect`` its chance; sampled, ``die`` rolled (None: the stage's sure result)."""
    p = float(stage.probability)

    def one_chunk(k):
        ok = die.is_success(die.roll(rng, (k,))) if die is not None else np.full(k, bool(p))
        return {"removed": ok.astype(np.int64), effect: ok}

    return ownfile.one_roll(KEY, function, inputs, (stage,), method, samples, np.array([1.0 - p, p]), {effect: p},
                            one_chunk, **fields)


# -- the turn's dice -------------------------------------------------------------
def _roll_counts(rng, tests, shape):
    """Roll every die of every attack; return hits, pierced and wounds per sample.

    Every attack rolls its three dice, in stage order, even after a failed
    stage (the later dice are ignored, which changes no probability).
    """
    h = tests[0].roll_success(rng, shape)
    p = h & tests[1].roll_success(rng, shape)
    w = p & tests[2].roll_success(rng, shape)
    return (np.count_nonzero(h, axis=-1), np.count_nonzero(p, axis=-1), np.count_nonzero(w, axis=-1))

