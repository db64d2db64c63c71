"""One stage's die: the single per-die rule that both the exact and the sampled path use.

:meth:`StageDie.classify` turns natural faces into results (0 fail,
1 success, 2 critical success) in this order:

1. a face in ``critical`` is a critical success (a critical always succeeds);
2. a face in ``always_fail`` fails, a face in ``always_succeed`` succeeds;
3. otherwise ``roll = "high"`` succeeds when face + modifier >= target and
   ``roll = "low"`` when face + modifier <= target.

:meth:`StageDie.rerolled` says which first rolls are rolled again once
(``"ones"``: a natural 1, whatever it would give; ``"failed"``: a roll whose
result is a failure); the second roll stands. "Failed" is the roll's own
result: on a ``passes_on = "fail"`` stage (a save the target makes) it is the
target re-rolling its failed saves.

Exact: :meth:`counts` classifies every face once (vectorised over stat
grids: ``target`` and ``modifier`` may be int arrays) and counts results
over ``die`` first faces, or ``die``\\ ² face pairs with a re-roll, so the
probabilities are integer counts over a known denominator (Fractions).
Sampled: :meth:`roll` rolls faces with a Generator and looks them up in a
table that :meth:`classify` filled, rolling the second die only for the
rolls that are re-rolled.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["StageDie", "FAIL", "SUCCESS", "CRITICAL"]

FAIL, SUCCESS, CRITICAL = 0, 1, 2


@dataclass(frozen=True, eq=False)
class StageDie:
    sides: int
    roll_high: bool
    target: Any
    modifier: Any = 0
    always_fail: tuple[int, ...] = ()
    always_succeed: tuple[int, ...] = ()
    critical: tuple[int, ...] = ()
    reroll: str = "none"

    def classify(self, faces: np.ndarray) -> np.ndarray:
        """Result codes of natural ``faces`` (broadcast against target and modifier)."""
        f = np.asarray(faces, dtype=np.int64)
        score = f + np.asarray(self.modifier, dtype=np.int64)
        target = np.asarray(self.target, dtype=np.int64)
        ok = score >= target if self.roll_high else score <= target
        if self.always_succeed:
            ok = ok | self._flags(self.always_succeed)[f]
        if self.always_fail:
            ok = ok & ~self._flags(self.always_fail)[f]
        code = ok.astype(np.int8)
        if self.critical:
            code = np.where(self._flags(self.critical)[f], np.int8(CRITICAL), code)
        return code

    def _flags(self, faces: tuple[int, ...]) -> np.ndarray:
        """A lookup by natural face (index 0 unused): is the face in ``faces``."""
        out = np.zeros(self.sides + 1, dtype=bool)
        out[list(faces)] = True
        return out

    def rerolled(self, faces: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Which first rolls are rolled again."""
        if self.reroll == "ones":
            return np.broadcast_to(np.asarray(faces) == 1, np.shape(codes))
        if self.reroll == "failed":
            return codes == FAIL
        return np.zeros(np.shape(codes), dtype=bool)

    # -- exact -------------------------------------------------------------
    def counts(self) -> tuple[np.ndarray, int]:
        """``(counts, denominator)``: counts[k] (shape (3,) + the stats' shape)
        of rolls giving result k, out of ``denominator`` equally likely rolls."""
        shape = np.broadcast_shapes(np.shape(self.target), np.shape(self.modifier))
        faces = np.arange(1, self.sides + 1).reshape((self.sides,) + (1,) * len(shape))
        codes = np.broadcast_to(self.classify(faces), (self.sides,) + shape)
        once = np.stack([(codes == k).sum(axis=0) for k in (FAIL, SUCCESS, CRITICAL)]).astype(np.int64)
        if self.reroll == "none":
            return once, self.sides
        again = self.rerolled(faces, codes)
        kept = np.stack([((codes == k) & ~again).sum(axis=0) for k in (FAIL, SUCCESS, CRITICAL)])
        n_again = again.sum(axis=0)
        return self.sides * kept.astype(np.int64) + n_again * once, self.sides * self.sides

    def fractions(self) -> tuple[Fraction, Fraction, Fraction]:
        """P(fail), P(success), P(critical) as Fractions (scalar stats only)."""
        counts, denom = self.counts()
        return tuple(Fraction(int(c), denom) for c in counts)

    # -- sampled -------------------------------------------------------------
    def table(self) -> np.ndarray:
        """Result code of each face 1..sides (index 0 unused), scalar stats only."""
        faces = np.arange(self.sides + 1)
        out = self.classify(faces)
        return np.asarray(out, dtype=np.int8)

    def roll(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """Roll ``n`` dice as a player would (re-rolling where the rule says) and return the codes."""
        table = self.table()
        faces = rng.integers(1, self.sides + 1, size=n, dtype=np.int16)
        codes = table[faces]
        again = self.rerolled(faces, codes)
        k = int(again.sum())
        if k:
            codes = codes.copy()
            codes[again] = table[rng.integers(1, self.sides + 1, size=k, dtype=np.int16)]
        return codes
