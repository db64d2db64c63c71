"""The per-die tests the built-ins used before they rolled the rule engine's die, kept as
reference oracles: :class:`RollUnder` (the Antares stat test) and :func:`rates` (float
grids of any :class:`DieTest`). Their results are checked against brute-force counts in
tests/test_core.py, and the engine's :class:`workbench.rules.die.StageDie` against them in
tests/test_dice_stagedie.py.

:class:`DieTest` and :class:`RollHigh` are the old per-die model (every result counted over
face tuples, rolled through a face table); the oracles of tests/reference build on them.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from workbench.dice import faces_text, roll_faces

__all__ = ["DieTest", "RollHigh", "RollUnder", "rates", "roll_faces", "faces_text"]


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



def rates(test: DieTest, label: str | None = None) -> np.ndarray:
    """Float probabilities of one label (default: success) for a test whose
    parameters are numpy arrays; shape = the parameters' broadcast shape.

    It enumerates faces through the same :meth:`DieTest.evaluate`, so a grid of
    thousands of stat cells is one vectorised call.
    """
    shape = np.broadcast_shapes(*(np.shape(getattr(test, f.name)) for f in fields(test)))
    faces = test.all_faces().reshape((-1,) + (1,) * len(shape) + (test.dice,))
    codes = test.evaluate(faces)
    codes = np.broadcast_to(codes, (faces.shape[0],) + shape)
    if label is None:
        mask = np.isin(codes, test.success_codes())
    else:
        mask = codes == test.labels.index(label)
    return mask.mean(axis=0)



@dataclass(frozen=True)
class RollUnder(DieTest):
    """The antares stat test: a d10 at or under ``value`` succeeds.

    Seed (004): "a roll of a 10 is always a failure regardless, and if you need
    to roll any number less than 1 to succeed you need a 1 followed by another
    1"; "so long as you are testing against a value of 2 or greater any roll of
    a 1 on the D10 is considered a critical success". Two dice are rolled; the
    second only matters when the value is below 1 and the first die is a 1.
    """

    value: Any
    sides: int = 10

    labels: ClassVar[tuple[str, ...]] = ("fail", "success", "critical")
    success_labels: ClassVar[frozenset[str]] = frozenset({"success", "critical"})
    dice: ClassVar[int] = 2

    def evaluate(self, faces: np.ndarray) -> np.ndarray:
        first, second = faces[..., 0], faces[..., 1]
        value = np.asarray(self.value)
        ordinary = (first <= value) & (first != self.sides)
        double_one = (first == 1) & (second == 1)
        ok = np.where(value < 1, double_one, ordinary)
        crit = ok & (first == 1) & (value >= 2)
        # codes 0 fail, 1 success, 2 critical (a critical is a success with its own code)
        return ok.view(np.int8) + crit.view(np.int8)

    def describe(self, die: str | None = None) -> str:
        die = die or f"d{self.sides}"
        val = int(self.value)
        if val < 1:
            return f"value {val} is below 1: needs a 1 on a {die} then another 1"
        top = min(val, self.sides - 1)
        crit = ", a 1 is a critical" if val >= 2 else ", no critical possible"
        return f"needs {top} or less on a {die} (a {self.sides} always fails{crit})"
