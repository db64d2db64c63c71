"""One stage's die: the single per-die rule that both the exact and the sampled path use.

:meth:`StageDie.classify` turns natural faces into results (0 fail, 1 success, 2 critical,
``LONG`` a long shot's best face, which succeeds only if a second die shows it too) in the order
of docs/rulefiles.md, "How the workbench reads the rules": a ``critical`` face (where
``critical_on``) first, then ``always_fail`` and ``always_succeed``, then the target test
(``roll = "high"``: face + modifier >= target; ``"low"``: <= target). :meth:`StageDie.rerolled`
says which first rolls are rolled again once (``"ones"``: a natural 1; ``"failed"``: a roll whose
own result is a failure); the second roll stands.

Exact: :meth:`StageDie.counts`, integer counts over a known denominator, vectorised over stat
grids. Sampled: :meth:`StageDie.roll`. A single test outside a rule file's stages (a stat test, a
leadership test, a charge reaching its distance) is a :class:`DieRoll`: the same StageDie, with
the labels, exact Fractions and dice rolling of one player's roll.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

__all__ = ["StageDie", "DieRoll", "roll_high", "need_text", "FAIL", "SUCCESS", "CRITICAL", "LONG", "NEAR"]

FAIL, SUCCESS, CRITICAL = 0, 1, 2
#: a first face that succeeds only if a second die shows the best face too (``long_shot``)
LONG = 3
#: a failed roll one short of the target (returned by :meth:`StageDie.roll` only with ``near_miss``)
NEAR = 4


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
    critical_on: Any = True
    long_shot: bool = False
    near_miss: bool = False

    @property
    def key(self) -> tuple:
        """The die's fields in order: what its chances are remembered by (when they are plain values)."""
        return tuple(getattr(self, f) for f in _DIE_FIELDS)

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
        if self.long_shot:
            best = 1 if not self.roll_high else self.sides
            need = target - np.asarray(self.modifier, dtype=np.int64)
            out_of_reach = need < 1 if not self.roll_high else need > self.sides
            plain = (f == best) & ~self._flags(self.always_fail + self.always_succeed)[f]   # not a fixed face
            code = np.where(out_of_reach & plain, np.int8(LONG), code)
        if self.critical:
            crit = self._flags(self.critical)[f] & np.asarray(self.critical_on, dtype=bool)
            code = np.where(crit, np.int8(CRITICAL), code)
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
    def _every_face(self) -> tuple[np.ndarray, np.ndarray]:
        """Every natural face (sides, 1, ...) and its result code in every cell of the stats."""
        shape = np.broadcast_shapes(np.shape(self.target), np.shape(self.modifier), np.shape(self.critical_on))
        faces = np.arange(1, self.sides + 1).reshape((self.sides,) + (1,) * len(shape))
        return faces, np.broadcast_to(self.classify(faces), (self.sides,) + shape)

    def counts(self) -> tuple[np.ndarray, int]:
        """``(counts, denominator)``: counts[k] (shape (3,) + the stats' shape)
        of rolls giving result k, out of ``denominator`` equally likely rolls."""
        return self._results(False)

    def _results(self, near: bool) -> tuple[np.ndarray, int]:
        """:meth:`counts`, with ``near`` a fourth result, the near misses, taken out of the
        failures. Every first face has ``q`` equally likely second faces, read only by a ``LONG``
        first face (a long shot: 1 success, q - 1 fails; q = 1 without long shots); a re-rolled
        first face (:meth:`rerolled`; "failed": a near miss is a failure) counts its share again
        over a whole second roll."""
        faces, codes = self._every_face()
        q = self.sides if self.long_shot else 1
        long = codes == LONG
        missed = np.broadcast_to(self.near(faces, codes), codes.shape) if near else np.zeros(codes.shape, bool)
        rows = [q * ((codes == FAIL) & ~missed) + (q - 1) * long, q * (codes == SUCCESS) + long,
                q * (codes == CRITICAL)] + ([q * missed] if near else [])
        per = np.stack(rows).astype(np.int64)          # (results, sides) + the stats' shape
        once, denom = per.sum(axis=1), self.sides * q
        if self.reroll == "none":
            return once, denom
        again = np.zeros(per.shape, dtype=bool)
        if self.reroll == "ones":
            again[:] = np.broadcast_to(faces == 1, codes.shape)
        else:
            again[FAIL] = True
            again[3:] = True
        kept = np.where(again, 0, per).sum(axis=1)
        weight = np.where(again, per, 0).sum(axis=(0, 1))
        return denom * kept + weight * once, denom * denom

    def near(self, faces: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Which first rolls are near misses: a failure whose score is one short of the
        target (face + modifier = target - 1 rolling high, target + 1 rolling low)."""
        score = np.asarray(faces, dtype=np.int64) + np.asarray(self.modifier, dtype=np.int64)
        short = np.asarray(self.target, dtype=np.int64) + (-1 if self.roll_high else 1)
        return (codes == FAIL) & (score == short)

    def near_counts(self) -> tuple[np.ndarray, int]:
        """``(count, denominator)`` of rolls whose final result is a near miss, over
        the same denominator as :meth:`counts` (a re-rolled near miss counts its second roll)."""
        counts, denom = self._results(True)
        return counts[3], denom

    # -- sampled -------------------------------------------------------------
    def roll(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """Roll ``n`` dice as a player would (re-rolling where the rule says) and return the codes
        (scalar stats only)."""
        table = np.asarray(self.classify(np.arange(self.sides + 1)), dtype=np.int8)
        faces = rng.integers(1, self.sides + 1, size=n, dtype=np.int16)
        first = table[faces]
        near = self.near(faces, first) if self.near_miss else None
        codes = self._second(rng, first)
        again = self.rerolled(faces, codes)
        k = int(again.sum())
        if k:
            codes = codes.copy()
            more = rng.integers(1, self.sides + 1, size=k, dtype=np.int16)
            codes[again] = self._second(rng, table[more])
            if near is not None:
                near[again] = self.near(more, table[more])
        if near is not None:
            codes = np.where(near, np.int8(NEAR), codes).astype(np.int8)
        return codes

    def _second(self, rng: np.random.Generator, codes: np.ndarray) -> np.ndarray:
        """A long shot's first best face rolls a second die: success on the best face again."""
        if not self.long_shot:
            return codes
        long = codes == LONG
        k = int(long.sum())
        if not k:
            return codes
        best = 1 if not self.roll_high else self.sides
        codes = codes.copy()
        codes[long] = np.where(rng.integers(1, self.sides + 1, size=k) == best, SUCCESS, FAIL)
        return codes


@dataclass(frozen=True)
class DieRoll:
    """One test made with a :class:`StageDie`, as a player rolls it: its results
    are labelled "fail", "success", then "critical" when the die has critical
    faces and "near_miss" (a failure one short of the target) when it counts
    near misses; a label's index is its code in :meth:`roll`.

    A test is rolled once (:attr:`dice` faces: two for a long shot): a die with a
    re-roll belongs to a rule file's stage.
    """

    die: StageDie

    def __post_init__(self) -> None:
        if self.die.reroll != "none":
            raise ValueError(f"a DieRoll rolls once; this die re-rolls {self.die.reroll!r}")

    @property
    def sides(self) -> int:
        return self.die.sides

    @property
    def target(self) -> Any:
        return self.die.target

    @property
    def dice(self) -> int:
        """Dice rolled a test: a long shot always rolls its second die."""
        return 2 if self.die.long_shot else 1

    @property
    def labels(self) -> tuple[str, ...]:
        return _labels(self.die)

    # -- exact ---------------------------------------------------------------
    @cached_property
    def probabilities(self) -> dict[str, Fraction]:
        """Exact probability of each label (scalar stats); near misses are not in "fail"."""
        key = self.die.key
        try:
            return dict(_probabilities(key))   # the same die's faces again: remembered
        except TypeError:                      # a field that is an array: counted afresh
            return _probabilities.__wrapped__(key)

    @property
    def success(self) -> Fraction:
        """Exact P(success), a critical included."""
        return self.probabilities["success"] + self.probabilities.get("critical", Fraction(0))

    def p(self, label: str) -> Fraction:
        return self.probabilities[label]

    def describe(self, die: str | None = None) -> str:
        """What the roll needs, in a player's words: 'needs 7+ on a D12' and the like."""
        die = die or f"D{self.sides}"
        need = int(self.die.target) - int(self.die.modifier)
        text = need_text(need, self.sides, self.die.roll_high, die, f"succeeds on any roll of a {die}")
        extra = ([f"a natural {f} always succeeds" for f in self.die.always_succeed]
                 + [f"a natural {f} always fails" for f in self.die.always_fail])
        return text + ("; " + ", ".join(extra) if extra else "")

    # -- sampled -------------------------------------------------------------
    def evaluate(self, faces: np.ndarray) -> np.ndarray:
        """Result codes (indices into :attr:`labels`) of ``faces[..., i]`` = die i."""
        first = np.asarray(faces)[..., 0]
        codes = self.die.classify(first)
        if self.die.long_shot:
            best = self.sides if self.die.roll_high else 1
            again = np.where(np.asarray(faces)[..., 1] == best, np.int8(SUCCESS), np.int8(FAIL))
            codes = np.where(codes == LONG, again, codes)
        if self.die.near_miss:
            near = self.die.near(first, codes)
            codes = np.where(near, np.int8(self.labels.index("near_miss")), codes)
        return np.asarray(codes, dtype=np.int8)

    @cached_property
    def _table(self) -> np.ndarray:
        """Result code of every face tuple, indexed by its faces (index 0 unused)."""
        table = self.evaluate(np.maximum(np.moveaxis(np.indices((self.sides + 1,) * self.dice), 0, -1), 1))
        table.setflags(write=False)
        return table

    def roll(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """Roll the test ``shape`` times (fair dice, one byte a die) and return the result codes."""
        faces = rng.integers(1, self.sides + 1, size=tuple(shape) + (self.dice,), dtype=np.uint8)
        if np.ndim(self.die.target) or np.ndim(self.die.modifier) or np.ndim(self.die.critical_on):
            return self.evaluate(faces)
        return self._table[tuple(np.moveaxis(faces, -1, 0))]

    def roll_success(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """Which of ``shape`` rolled tests succeed: the same draws as :meth:`roll`."""
        return self.is_success(self.roll(rng, shape))

    def is_success(self, codes: np.ndarray) -> np.ndarray:
        """Boolean mask of the success codes among ``codes``."""
        ok = codes == SUCCESS
        return ok | (codes == CRITICAL) if self.die.critical else ok


def need_text(need: int, sides: int, high: bool, die: str, any_roll: str) -> str:
    """What a roll needs, in a player's words: "needs 4+ on a d6", "needs 3 or less on a D10",
    either with ", which no roll reaches"; ``any_roll`` when every roll succeeds."""
    out_of_reach = ", which no roll reaches"
    if high:
        return any_roll if need <= 1 else f"needs {need}+ on a {die}" + (out_of_reach if need > sides else "")
    return any_roll if need >= sides else f"needs {need} or less on a {die}" + (out_of_reach if need < 1 else "")


def roll_high(target: Any, sides: int, *, natural_max_always_succeeds: bool = False,
              natural_1_always_fails: bool = False) -> DieRoll:
    """Roll one die of ``sides`` faces; ``target`` or more succeeds, a roll one short
    is a near miss. ``natural_max_always_succeeds``: the highest face succeeds
    whatever the target; ``natural_1_always_fails``: a 1 fails whatever the target."""
    return DieRoll(StageDie(sides=sides, roll_high=True, target=target,
                            always_succeed=(sides,) if natural_max_always_succeeds else (),
                            always_fail=(1,) if natural_1_always_fails else (), near_miss=True))


_DIE_FIELDS = tuple(f.name for f in fields(StageDie))


@lru_cache(maxsize=4096)
def _probabilities(key: tuple) -> dict[str, Fraction]:
    """:attr:`DieRoll.probabilities` of the die with these fields (in :class:`StageDie`'s order)."""
    die = StageDie(*key)
    counts, denom = die.counts()
    near = int(die.near_counts()[0]) if die.near_miss else 0
    got = {"fail": int(counts[FAIL]) - near, "success": int(counts[SUCCESS]),
           "critical": int(counts[CRITICAL]), "near_miss": near}
    return {k: Fraction(got[k], denom) for k in _labels(die)}


def _labels(die: StageDie) -> tuple[str, ...]:
    """A die's result labels: "fail", "success", then "critical" and "near_miss" where it has them."""
    return ("fail", "success") + (("critical",) if die.critical else ()) + (("near_miss",) if die.near_miss else ())
