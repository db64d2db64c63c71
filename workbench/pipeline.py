"""Turning per-die tests into outcomes: the steps every system shares.

* exact: per-attack probabilities (Fractions or float grids) -> binomial
  count distributions -> a mapping of counts to models removed;
* sampled: every die rolled with a seeded Generator, in chunks that bound
  memory, then counted the same way.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from . import engine
from .dice import DieTest
from .outcome import Outcome, Stage

__all__ = ["chunks", "passes_all", "exact_outcome", "sampled_outcome", "removed_index"]

#: dice held in memory at once by the sampled path (one byte each)
CHUNK_DICE = 8_000_000


def chunks(samples: int, dice_per_sample: int) -> Iterator[int]:
    """Sizes of the sample chunks so that a chunk rolls about CHUNK_DICE dice."""
    size = max(1, CHUNK_DICE // max(1, dice_per_sample))
    done = 0
    while done < samples:
        n = min(size, samples - done)
        yield n
        done += n


def passes_all(rng: np.random.Generator, tests: Sequence[DieTest], shape: tuple[int, ...]) -> np.ndarray:
    """Roll each test's dice for every attack in ``shape``; True where an
    attack passes every test in order (later dice of a failed attack are
    rolled and ignored, which changes no probability)."""
    ok = np.ones(shape, dtype=bool)
    for t in tests:
        ok &= t.roll_success(rng, shape)
    return ok


def removed_index(counts: int, models: int | None, per_model: int = 1) -> np.ndarray:
    """Models removed for 0..counts successes: min(models, k // per_model)."""
    k = np.arange(counts + 1) // per_model
    return k if models is None else np.minimum(k, models)


def exact_outcome(system: str, function: str, inputs: Mapping[str, Any], pmf: np.ndarray,
                  stages: Sequence[Stage], effects: Mapping[str, float], *,
                  attacks: int | None = None, notes: Sequence[str] = (),
                  label: str = "models removed") -> Outcome:
    return Outcome(system=system, function=function, inputs=inputs, pmf=pmf, stages=tuple(stages),
                   effects=dict(effects), method="exact", attacks=attacks, notes=tuple(notes), label=label)


def sampled_outcome(system: str, function: str, inputs: Mapping[str, Any], removed: np.ndarray,
                    width: int, stages: Sequence[Stage], effect_samples: Mapping[str, np.ndarray], *,
                    attacks: int | None = None, notes: Sequence[str] = (),
                    label: str = "models removed") -> Outcome:
    """Build a sampled outcome from one value per sample: models removed and
    each side effect (a bool or a number per sample; its mean is reported)."""
    removed = np.asarray(removed)
    n = removed.size
    pmf, pmf_se = engine.sample_pmf(removed, width)
    mean_se = float(removed.std(ddof=1) / np.sqrt(n)) if n > 1 else float("inf")
    effects, effects_se = {}, {}
    for name, values in effect_samples.items():
        values = np.asarray(values, dtype=float).ravel()
        effects[name] = float(values.mean())
        effects_se[name] = float(values.std(ddof=1) / np.sqrt(n)) if n > 1 else float("inf")
    return Outcome(system=system, function=function, inputs=inputs, pmf=pmf, stages=tuple(stages),
                   effects=effects, method="sampled", samples=n, pmf_stderr=pmf_se,
                   mean_stderr=mean_se, effects_stderr=effects_se, attacks=attacks,
                   notes=tuple(notes), label=label)


def run_sampled(samples: int, dice_per_sample: int,
                one_chunk: Callable[[int], Mapping[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Call ``one_chunk(n)`` for chunks of the samples and concatenate what it
    returns (a mapping name -> one value per sample)."""
    from .progress import bar

    sizes = list(chunks(samples, dice_per_sample))
    parts: dict[str, list[np.ndarray]] = {}
    # a bar appears only when the run lasts over a second (and never inside a sweep's bar)
    for n in bar(sizes, total=len(sizes), desc="sampling", unit="chunk", enabled=len(sizes) > 1):
        for k, arr in one_chunk(n).items():
            parts.setdefault(k, []).append(np.asarray(arr))
    return {k: np.concatenate(v) for k, v in parts.items()}
