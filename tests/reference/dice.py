"""The per-die tests the built-ins used before they rolled the rule engine's die, kept as
reference oracles: :class:`RollUnder` (the Antares stat test) and :func:`rates` (float
grids of any :class:`DieTest`). Their results are checked against brute-force counts in
tests/test_core.py, and the engine's :class:`workbench.rules.die.StageDie` against them in
tests/test_dice_stagedie.py.

:class:`DieTest` and :class:`RollHigh` still live in :mod:`workbench.dice` for Forgotten's
close combat; they are re-exported here so the oracles name one place.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

import numpy as np

from workbench.dice import DieTest, RollHigh, faces_text, roll_faces

__all__ = ["DieTest", "RollHigh", "RollUnder", "rates", "roll_faces", "faces_text"]


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
