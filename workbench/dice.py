"""Dice words (:func:`percent`, :func:`faces_text`) and fair rolls (:func:`roll_faces`).

The per-die rule of every resolution is :class:`workbench.rules.die.StageDie`
(a single test outside a rule file's stages: :class:`~workbench.rules.die.DieRoll`).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np


__all__ = ["roll_faces", "percent", "faces_text"]


def percent(p: Fraction | float, digits: int = 1) -> str:
    """``Fraction(5, 36)`` -> ``'13.9%'``."""
    return f"{float(p) * 100:.{digits}f}%"


def roll_faces(rng: np.random.Generator, sides: int, shape: tuple[int, ...]) -> np.ndarray:
    """Roll ``shape`` fair dice with faces 1..sides (uint8, one byte a die)."""
    return rng.integers(1, sides + 1, size=shape, dtype=np.uint8)


def faces_text(p: Fraction, die: int) -> str:
    """A probability as faces out of the die, the way a player counts them:
    ``Fraction(2, 5)`` on a d10 -> ``'4/10'``; out of die² when one die is not
    enough (``1/100``); reduced otherwise."""
    for d in (die, die * die):
        if (p * d).denominator == 1:
            return f"{int(p * d)}/{d}"
    return str(p)
