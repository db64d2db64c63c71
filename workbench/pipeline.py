"""The sampled path's tally and its :class:`~workbench.outcome.Outcome`.

:func:`tally_sampled` rolls in chunks of about :data:`CHUNK_DICE` dice and keeps only running
counts and sums between them, so a call's memory does not grow with ``samples``; its time does:
a call may roll at most :data:`MAX_SAMPLED_DICE` dice, 10 to 40 s at the 30 to 100 million dice
per second that benchmarks/bench_core.py (c) measures on one core.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from .errors import InputError
from .outcome import Outcome, Stage
from .progress import bar

__all__ = ["chunks", "Tally", "tally_sampled", "tally_outcome", "check_cost", "MAX_SAMPLED_DICE"]

#: dice held in memory at once by the sampled path (one byte each)
CHUNK_DICE = 8_000_000
#: samples per chunk at most (each holds a few 8-byte counts): about 50 MB a chunk
CHUNK_SAMPLES = 1_000_000
#: the most dice one sampled call may roll (samples x dice per sample)
MAX_SAMPLED_DICE = 1_000_000_000


def chunks(samples: int, dice_per_sample: int) -> Iterator[int]:
    """Sizes of the sample chunks so that a chunk rolls about CHUNK_DICE dice."""
    size = max(1, min(CHUNK_SAMPLES, CHUNK_DICE // max(1, dice_per_sample)))
    return (min(size, samples - done) for done in range(0, samples, size))


def check_cost(samples: int, dice_per_sample: int) -> None:
    """Refuse a sampled call that would roll more than :data:`MAX_SAMPLED_DICE` dice."""
    dice_per_sample = max(1, int(dice_per_sample))
    if samples * dice_per_sample > MAX_SAMPLED_DICE:
        most = MAX_SAMPLED_DICE // dice_per_sample
        raise InputError("samples", f"at most {most:,} for this call ({dice_per_sample:,} dice per sample; "
                         f"a sampled call rolls at most {MAX_SAMPLED_DICE:,} dice, 10 to 40 s on one core)",
                         samples, "use fewer samples, or method='exact'")


class Tally:
    """Running counts of a sampled call: the histogram of ``removed`` and the
    sum and sum of squares of every side effect, so that memory stays bounded
    by one chunk whatever the number of samples."""

    def __init__(self, width: int):
        self.width = int(width)
        self.counts = np.zeros(self.width, dtype=np.int64)
        self.n = 0
        self.sums: dict[str, float] = {}
        self.sumsq: dict[str, float] = {}

    def add(self, removed: np.ndarray, effects: Mapping[str, np.ndarray]) -> None:
        removed = np.asarray(removed).ravel().astype(np.intp)
        self.counts += np.bincount(removed, minlength=self.width)[: self.width]
        self.n += removed.size
        for name, values in effects.items():
            x = np.asarray(values, dtype=float).ravel()
            self.sums[name] = self.sums.get(name, 0.0) + float(x.sum())
            self.sumsq[name] = self.sumsq.get(name, 0.0) + float(np.dot(x, x))

    def trim(self) -> "Tally":
        """The histogram cut after the most removed in a sample (for a count without a cap)."""
        self.width = int(np.flatnonzero(self.counts).max(initial=0)) + 1
        self.counts = self.counts[: self.width]
        return self

    def mean_and_stderr(self, name: str) -> tuple[float, float]:
        return mean_and_stderr(self.n, self.sums[name], self.sumsq[name])


def mean_and_stderr(n: int, total: float, squares: float) -> tuple[float, float]:
    """The mean of ``n`` sampled values and its standard error, from their sum and their sum of
    squares (an infinite error below two values)."""
    mean = total / n
    if n < 2:
        return mean, float("inf")
    return mean, float(np.sqrt(max(0.0, (squares - n * mean * mean) / (n - 1)) / n))


def tally_sampled(samples: int, dice_per_sample: int, one_chunk: Callable[[int], Mapping[str, np.ndarray]],
                  width: int) -> Tally:
    """Call ``one_chunk(n)`` for chunks of the samples; each returns one value
    per sample under ``"removed"`` (the count of the outcome's pmf, 0..width-1)
    and under each side effect's name. Only their histogram and sums are kept."""
    check_cost(samples, dice_per_sample)
    tally = Tally(width)
    sizes = list(chunks(samples, dice_per_sample))
    for n in bar(sizes, total=len(sizes), desc="sampling", unit="chunk", enabled=len(sizes) > 1):
        part = dict(one_chunk(n))
        tally.add(part.pop("removed"), part)
    return tally


def tally_outcome(system: str, function: str, inputs: Mapping[str, Any], tally: Tally,
                  stages: Sequence[Stage], *, attacks: int | None = None, notes: Sequence[str] = (),
                  label: str = "models removed", **fields) -> Outcome:
    """A sampled :class:`Outcome` from a :class:`Tally`: its pmf and standard errors, the mean
    and standard error of every side effect (``fields``: more of the Outcome's optional fields)."""
    n = tally.n
    pmf = tally.counts / n
    pmf_se = np.sqrt(pmf * (1.0 - pmf) / n)
    k = np.arange(tally.width)
    _, mean_se = mean_and_stderr(n, float(tally.counts @ k), float(tally.counts @ (k * k)))
    effects, effects_se = {}, {}
    for name in tally.sums:
        effects[name], effects_se[name] = tally.mean_and_stderr(name)
    return Outcome(system=system, function=function, inputs=inputs, pmf=pmf, stages=tuple(stages),
                   effects=effects, method="sampled", samples=n, pmf_stderr=pmf_se,
                   mean_stderr=mean_se, effects_stderr=effects_se, attacks=attacks,
                   notes=tuple(notes), label=label, **fields)
