"""The one outcome type every resolution returns, whatever the system."""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from .dice import percent
from .errors import InputError
from .validate import choice, integer

__all__ = ["Stage", "Outcome", "EFFECT_KINDS"]

#: what a side effect is: a probability or an expected count
EFFECT_KINDS = ("probability", "expected")


@dataclass(frozen=True)
class Stage:
    """One per-attack step: its name, exact probability, and how it is reached.

    ``detail`` is plain words, e.g. "BS 5+ against cover +0 needs 5+ on a D12".
    ``faces``: the number of faces of the die the step rolls (None when it is
    not one die's roll), so that its probability reads as a player counts it
    ("3/6" on a d6, "8/12" on a D12).
    """

    name: str
    probability: Fraction
    detail: str = ""
    faces: int | None = None

    def __post_init__(self):
        if not isinstance(self.probability, Fraction) or not 0 <= self.probability <= 1:
            raise InputError("Stage.probability", "a Fraction from 0 to 1", self.probability)
        if self.faces is not None and (isinstance(self.faces, bool) or not isinstance(self.faces, int)
                                       or self.faces < 2):
            raise InputError("Stage.faces", "a whole number of faces, 2 or more, or None", self.faces)

    def __str__(self) -> str:
        return f"{self.name}: {self.probability} ({percent(self.probability)})"


def _frozen_array(a: Any, name: str) -> np.ndarray:
    arr = np.array(a, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise InputError(name, "a non-empty 1-D array", a)
    if not math.isfinite(float(arr.sum())):   # a NaN or an infinity anywhere makes the sum one
        raise InputError(name, "finite numbers", a)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class Outcome:
    """The result of one resolution.

    * ``pmf[k]`` = P(exactly k models removed) (``label`` says what is counted);
      a read-only float array that sums to 1.
    * ``stages``: the per-attack steps in order; the product of their
      probabilities is ``per_attack``, the chance one attack gets through the
      last step.
    * ``effects``: side effects (shock, suppression, wasted wounds, criticals...)
      as probabilities or expectations, named in each system's docs;
      ``effect_kinds`` says which: effect name -> "probability" or
      "expected" (an effect not listed is an expected count);
      ``effect_labels``: effect name -> how a playtester reads it ("the
      unit takes shock"; an effect not listed reads as its name).
    * ``trial``: the word for one attack ("shot", "attack"; "test" when not given).
    * ``method``: "exact" or "sampled"; a sampled outcome also carries
      ``samples``, ``pmf_stderr``, ``mean_stderr`` and ``effects_stderr``.
    * ``inputs``: the arguments after validation; ``notes``: the
      interpretations of the seed that this resolution relied on.
    * ``per_attack_mean`` and ``per_attack_any`` (optional): where criticals
      add successes or skip stages the product ``per_attack`` is neither,
      and these say what one attack does: the expected final successes of
      one attack and the chance it scores at least one (Fractions, or floats
      when exact ones would be too large); ``success_label`` names a final
      success in the system's words ("unsaved", "save failed").
    * ``tokens`` and ``token`` (optional): where the rule rolls how many
      tokens one attack makes (a blast weapon's D6 shots, a shot's D3 hits),
      an attack is 1..``tokens`` of them, each number equally likely, and
      ``token`` names one ("shot", "hit"). The stages, ``per_attack`` and
      ``per_attack_mean``/``per_attack_any`` then say what one token does;
      :meth:`per_attack_of_tokens` what one attack does.
    * ``blows_vary``: each final success is a blow to the model in front
      whose effect depends on the blows before it (a tough model's first
      only wounds it, a wounded model saves otherwise): no single chance per
      attack removes a model, and ``per_attack`` is the chance of a blow.
    * ``stage_pmfs`` (optional): stage name -> the exact distribution of how
      many pass that stage over all the attacks (index = count).
    * ``system_title``: the system's name ("40k Changes"; its key when not given).

    Every word an outcome says of itself is one of its fields, given by what
    made it (the engine from the rule file, a built-in from its description):
    an outcome depends on nothing but itself.
    """

    system: str
    function: str
    inputs: Mapping[str, Any]
    pmf: np.ndarray
    stages: tuple[Stage, ...] = ()
    effects: Mapping[str, float] = field(default_factory=dict)
    method: str = "exact"
    samples: int | None = None
    pmf_stderr: np.ndarray | None = None
    mean_stderr: float | None = None
    effects_stderr: Mapping[str, float] = field(default_factory=dict)
    attacks: int | None = None
    notes: tuple[str, ...] = ()
    label: str = "models removed"
    effect_kinds: Mapping[str, str] | None = None
    trial: str | None = None
    per_attack_mean: Fraction | float | None = None
    per_attack_any: Fraction | float | None = None
    success_label: str | None = None
    stage_pmfs: Mapping[str, np.ndarray] | None = None
    system_title: str | None = None
    effect_labels: Mapping[str, str] = field(default_factory=dict)
    tokens: int | None = None
    token: str | None = None
    blows_vary: bool = False

    def __post_init__(self):
        pmf = _frozen_array(self.pmf, "pmf")
        low = float(pmf.min())
        if low < -1e-12 or not math.isclose(float(pmf.sum()), 1.0, abs_tol=1e-9):
            raise InputError("pmf", "non-negative probabilities that sum to 1", pmf.tolist())
        if low < 0:
            pmf = np.clip(pmf, 0.0, None)
            pmf.setflags(write=False)
        if self.method not in ("exact", "sampled"):
            raise InputError("method", "'exact' or 'sampled'", self.method)
        frozen = {"pmf": pmf,
                  "pmf_stderr": None if self.pmf_stderr is None else _frozen_array(self.pmf_stderr, "pmf_stderr"),
                  "inputs": MappingProxyType(dict(self.inputs)),
                  "effects": MappingProxyType({k: float(x) for k, x in self.effects.items()}),
                  "effects_stderr": MappingProxyType({k: float(x) for k, x in self.effects_stderr.items()}),
                  "stages": tuple(self.stages), "notes": tuple(self.notes),
                  "effect_kinds": MappingProxyType(dict(self.effect_kinds or {})),
                  "effect_labels": MappingProxyType(dict(self.effect_labels)),
                  "trial": "test" if self.trial is None else self.trial}
        for effect, kind in frozen["effect_kinds"].items():
            choice(f"effect_kinds[{effect!r}]", kind, EFFECT_KINDS)
        if self.tokens is not None:
            integer("tokens", self.tokens, 2)
        for name, value in frozen.items():
            object.__setattr__(self, name, value)

    # -- reading ----------------------------------------------------------
    @property
    def mean(self) -> float:
        """Expected number removed."""
        return float(self.pmf @ np.arange(self.pmf.size))

    @property
    def system_name(self) -> str:
        """The system's name ("40k Changes"), or its key when none was given."""
        return self.system_title or self.system

    def effect_words(self, name: str) -> str:
        """How a playtester reads side effect ``name`` ("the unit takes
        shock"): its label, else its name in words."""
        return self.effect_labels.get(name, name.replace("_", " "))

    def effect_kind(self, name: str) -> str:
        """"probability" or "expected" (an expected count) for one side effect."""
        return (self.effect_kinds or {}).get(name, "expected")  # __post_init__ fills effect_kinds in

    @property
    def max_removed(self) -> int:
        return self.pmf.size - 1

    def exactly(self, k: int) -> float:
        """P(exactly k removed)."""
        k = integer("k", k, 0)
        return float(self.pmf[k]) if k < self.pmf.size else 0.0

    def at_least(self, k: int) -> float:
        """P(k or more removed)."""
        k = integer("k", k, 0)
        return float(self.pmf[k:].sum()) if k < self.pmf.size else 0.0

    @property
    def at_least_curve(self) -> np.ndarray:
        """``[P(>=0), P(>=1), ...]`` for every count of ``pmf``."""
        return np.cumsum(self.pmf[::-1])[::-1]

    @property
    def per_attack(self) -> Fraction | None:
        """Product of the stage probabilities (None when there are no stages)."""
        return math.prod((s.probability for s in self.stages), start=Fraction(1)) if self.stages else None

    def per_attack_of_tokens(self) -> tuple[Fraction | float, Fraction | float] | None:
        """(expected final successes of one attack, P(it scores at least one)) where an attack
        is 1..``tokens`` tokens, each number equally likely (None otherwise, or without stages):
        (n + 1) / 2 times one token's mean, and 1 minus the mean over j of the chance of nothing
        to the power j. One token's figures are ``per_attack_mean``/``per_attack_any``, or else
        the product of the stages."""
        if self.tokens is None:
            return None
        mean = self.per_attack_mean if self.per_attack_mean is not None else self.per_attack
        any_ = self.per_attack_any if self.per_attack_any is not None else self.per_attack
        if mean is None or any_ is None:
            return None
        n, none = self.tokens, 1 - any_
        if isinstance(mean, Fraction) and isinstance(none, Fraction):
            return mean * Fraction(n + 1, 2), 1 - sum((none ** j for j in range(1, n + 1)), Fraction(0)) / n
        return float(mean) * (n + 1) / 2, 1 - sum(float(none) ** j for j in range(1, n + 1)) / n

    def replace(self, **changes) -> "Outcome":
        """A copy with some fields changed (the outcome itself is immutable)."""
        return dataclasses.replace(self, **changes)

    # -- words: explain(), to_markdown(), to_bbcode() and the notebook display are
    # attached by workbench.teach (an Outcome is numbers; words are made from it)

    def __repr__(self) -> str:
        extra = f", samples={self.samples}" if self.samples else ""
        return (f"Outcome({self.system}.{self.function}, {self.method}{extra}, "
                f"mean={self.mean:.4f}, per_attack={self.per_attack}, "
                f"effects={dict(self.effects)})")
