"""Dice helpers shared by the systems, and the close combat's old per-die tests.

:func:`percent` and :func:`faces_text` write a probability the way a player
reads it; :func:`roll_faces` rolls fair dice with a seeded Generator.

The per-die rule of every resolution is :class:`workbench.rules.die.StageDie`
(a single test outside a rule file's stages: :class:`~workbench.rules.die.DieRoll`).
:class:`DieTest` and :class:`RollHigh` stay here only for
``workbench/systems/forgotten_cc.py`` (Forgotten's close combat, its
``Exchange`` and strike tests) and go once that module rolls a StageDie; the
tests' oracles have their own copies in ``tests/reference/dice.py``.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np


__all__ = ["DieTest", "RollHigh", "roll_faces", "percent", "faces_text"]


def percent(p: Fraction | float, digits: int = 1) -> str:
    """``Fraction(5, 36)`` -> ``'13.9%'``."""
    return f"{float(p) * 100:.{digits}f}%"


def roll_faces(rng: np.random.Generator, sides: int, shape: tuple[int, ...]) -> np.ndarray:
    """Roll ``shape`` fair dice with faces 1..sides (uint8, one byte a die)."""
    return rng.integers(1, sides + 1, size=shape, dtype=np.uint8)


@dataclass(frozen=True)
class DieTest:
    """A test decided by ``dice`` fair dice of ``sides`` faces each.

    Subclasses set ``labels`` (the possible results, index = code),
    ``success_labels`` (which of them count as a success) and implement
    :meth:`evaluate`.
    """

    labels: ClassVar[tuple[str, ...]] = ("fail", "success")
    success_labels: ClassVar[frozenset[str]] = frozenset({"success"})
    dice: ClassVar[int] = 1

    @property
    def sides(self) -> int:  # pragma: no cover - every subclass has the field
        raise NotImplementedError

    def evaluate(self, faces: np.ndarray) -> np.ndarray:
        """Result codes (indices into ``labels``) for ``faces[..., i]`` = die i.

        Parameters may be numpy arrays; they broadcast against ``faces[..., 0]``.
        """
        raise NotImplementedError

    # -- exact ------------------------------------------------------------
    def all_faces(self) -> np.ndarray:
        """Every face tuple once: shape ``(sides**dice, dice)``."""
        grids = np.indices((self.sides,) * self.dice).reshape(self.dice, -1).T + 1
        return grids.astype(np.int16)

    @property
    def probabilities(self) -> dict[str, Fraction]:
        """Exact probability of each label, by counting face tuples."""
        return dict(zip(self.labels, _counts(self)))

    @property
    def success(self) -> Fraction:
        """Exact P(success)."""
        return sum((p for k, p in self.probabilities.items() if k in self.success_labels), Fraction(0))

    def p(self, label: str) -> Fraction:
        return self.probabilities[label]

    # -- sampled ----------------------------------------------------------
    def roll(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """Roll the dice ``shape`` times and return the result codes.

        With scalar parameters each rolled face tuple is looked up in a table
        that :meth:`evaluate` filled once for every face tuple (the same rule,
        about four times faster than evaluating every roll)."""
        faces = roll_faces(rng, self.sides, tuple(shape) + (self.dice,))
        try:
            table = _face_table(self)
        except TypeError:  # array-valued parameters are not hashable
            return self.evaluate(faces)
        return table[_face_index(self, faces)]

    def roll_success(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """Roll the dice ``shape`` times and say which rolls succeed: the same
        draws and results as ``is_success(roll(rng, shape))``, one table
        lookup per roll."""
        faces = roll_faces(rng, self.sides, tuple(shape) + (self.dice,))
        try:
            table = _success_table(self)
        except TypeError:  # array-valued parameters are not hashable
            return self.is_success(self.evaluate(faces))
        return table[_face_index(self, faces)]

    def success_codes(self) -> tuple[int, ...]:
        return tuple(i for i, k in enumerate(self.labels) if k in self.success_labels)

    def is_success(self, codes: np.ndarray) -> np.ndarray:
        """Boolean mask of the success codes among ``codes``."""
        ok = self.success_codes()
        if len(ok) == 1:
            return codes == ok[0]
        return np.isin(codes, ok)


@functools.lru_cache(maxsize=4096)
def _counts(test: DieTest) -> tuple[Fraction, ...]:
    codes = np.asarray(test.evaluate(test.all_faces()))
    counts = np.bincount(codes.ravel(), minlength=len(test.labels))
    total = test.sides ** test.dice
    return tuple(Fraction(int(c), total) for c in counts)


def _face_index(test: DieTest, faces: np.ndarray) -> np.ndarray:
    """Rolled face tuples as indices into the face tables (base sides+1)."""
    index = faces[..., 0]
    if test.dice > 1:
        index = index.astype(np.uint32)
        for i in range(1, test.dice):
            index = index * (test.sides + 1) + faces[..., i]
    return index


@functools.lru_cache(maxsize=4096)
def _success_table(test: DieTest) -> np.ndarray:
    """Does each face tuple succeed, indexed like :func:`_face_table`."""
    table = test.is_success(_face_table(test))
    table.setflags(write=False)
    return table


@functools.lru_cache(maxsize=4096)
def _face_table(test: DieTest) -> np.ndarray:
    """Result code of every face tuple, indexed by faces in base sides+1."""
    faces = test.all_faces()
    index = faces[:, 0].astype(np.intp)
    for i in range(1, test.dice):
        index = index * (test.sides + 1) + faces[:, i]
    table = np.zeros((test.sides + 1) ** test.dice, dtype=np.int8)
    table[index] = test.evaluate(faces)
    table.setflags(write=False)
    return table


@dataclass(frozen=True)
class RollHigh(DieTest):
    """Roll one die of ``sides`` faces; ``target`` or more succeeds.

    ``natural_max_always_succeeds``: the highest face succeeds whatever the
    target; ``natural_1_always_fails``: a 1 fails whatever the target. A roll
    exactly one short of the target is labelled ``near_miss`` (a failure).
    """

    target: Any
    sides: int = 6
    natural_max_always_succeeds: Any = False
    natural_1_always_fails: Any = False

    labels: ClassVar[tuple[str, ...]] = ("fail", "success", "near_miss")

    def evaluate(self, faces: np.ndarray) -> np.ndarray:
        f = faces[..., 0]
        ok = f >= self.target
        ok = ok | (np.asarray(self.natural_max_always_succeeds) & (f == self.sides))
        ok = ok & ~(np.asarray(self.natural_1_always_fails) & (f == 1))
        near = ~ok & (f == np.asarray(self.target) - 1)
        # codes 0 fail, 1 success, 2 near miss, built from byte views (no int64 temporaries)
        return ok.view(np.int8) | (near.view(np.int8) << 1)

    def describe(self, die: str | None = None) -> str:
        """'needs 7+ on a D12' and the like."""
        die = die or f"D{self.sides}"
        t = int(self.target)
        extra = []
        if self.natural_max_always_succeeds:
            extra.append(f"a natural {self.sides} always succeeds")
        if self.natural_1_always_fails:
            extra.append("a natural 1 always fails")
        if t <= 1:
            text = f"succeeds on any roll of a {die}"
        elif t > self.sides:
            text = f"needs {t}+ on a {die}, which no roll reaches"
        else:
            text = f"needs {t}+ on a {die}"
        return text + ("; " + ", ".join(extra) if extra else "")


def faces_text(p: Fraction, die: int) -> str:
    """A probability as faces out of the die, the way a player counts them:
    ``Fraction(2, 5)`` on a d10 -> ``'4/10'``; out of die² when one die is not
    enough (``1/100``); reduced otherwise."""
    for d in (die, die * die):
        if (p * d).denominator == 1:
            return f"{int(p * d)}/{d}"
    return str(p)
