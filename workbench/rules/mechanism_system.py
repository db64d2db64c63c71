"""A rule file resolved by a named mechanism (:mod:`workbench.rules.mechanisms`), or made into a page
of its rule folder by one (:class:`MechanismPage`)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .. import pipeline
from ..outcome import Outcome
from .errors import BudgetError
from .frozen import Immutable
from .mechanisms import MECHANISMS
from .plan import readonly
from .system import StatChecks

__all__ = ["MechanismSystem", "MechanismPage"]


class MechanismSystem(StatChecks, Immutable):
    """A rule file resolved by a named mechanism: its stats (ranges, labels, help), switches,
    forbids and notes are the file's, as in any :class:`~workbench.rules.RuleSystem`; the
    ``[mechanism]`` table says which mechanism adds up the dice and, as expressions of the
    stats, what each die rolls. ``attack(**stats)`` resolves it, exactly or by sampling.
    Attributes: ``key``, ``name``, ``die``, ``notes``, ``path``, ``source``, ``stats``,
    ``forbids``, ``mechanism`` (the name), ``spec`` (the mechanism's reading of its table)."""

    # the attributes __init__ writes into __dict__ (declared only, for the type checker)
    mechanism: str
    spec: Any
    _module: Any

    def __init__(self, parts: Mapping[str, Any], path: str | Path, source: str):
        self._read_parts(parts, path, source)
        d = self.__dict__
        d["mechanism"], d["spec"] = parts["mechanism"], parts["spec"]
        d["_module"] = MECHANISMS[self.mechanism]
        d["attack"] = self._entry("attack", f"{self.name}: one resolution ({self.mechanism}; missing stats take "
                                  "their defaults).")

    def __repr__(self) -> str:
        return f"MechanismSystem({self.key!r}, {self.mechanism!r}, {str(self.path)!r})"

    def fractions(self, **stats) -> dict:
        """The mechanism's exact answer for these stats, in Fractions (what :meth:`attack` rounds
        to floats): for a caller that shows probabilities as a person reads them."""
        _inputs, env = self._check(stats, arrays=False)
        self._forbid(env)
        return self._module.exact(self.spec, env, self.die)

    def _attack(self, method, samples, seed, given) -> Outcome:
        env, method, rng, record = self._begin(given, method, samples, seed)
        words: dict[str, Any] = dict(trial=self.view.trial, system_title=self.name, effect_labels=self.effect_labels,
                                     notes=self.notes_for(env), label=self.view.label or self.spec.label)
        if method == "exact":
            got = self._module.exact(self.spec, env, self.die)
            pmfs = {name: readonly([float(p) for p in x]) for name, x in got["stage_pmfs"].items()}
            return Outcome(system=self.key, function="attack", inputs=record, pmf=np.array([float(p) for p in got["pmf"]]),
                           effects={k: float(x) for k, x in got["effects"].items()}, stage_pmfs=pmfs,
                           effect_kinds=_kinds(got["effects"]), stages=got["stages"], attacks=got["attacks"], **words)
        per_sample, one_chunk = self._module.sampled(self.spec, env, self.die, rng)
        tally = pipeline.tally_sampled(record["samples"], per_sample, one_chunk, 2)
        try:   # the stages' Fractions are the exact path's, whose work has a budget the sampled path has not
            exact = self._module.exact(self.spec, env, self.die)
            stages, attacks = exact["stages"], exact["attacks"]
        except BudgetError:
            stages, attacks = (), None
        return pipeline.tally_outcome(self.key, "attack", record, tally, stages, effect_kinds=_kinds(tally.sums),
                                      attacks=attacks, **words)


def _kinds(effects) -> dict[str, str]:
    """A mechanism's side effects are chances, but for the rounds fought (an expected count)."""
    return {k: "expected" if k == "rounds_fought" else "probability" for k in effects}


class MechanismPage(StatChecks, Immutable):
    """A rule file of a page mechanism (``PAGE = True``: the Changes turn): a page of its rule
    folder, which no view resolves. Its stats (ranges, labels, help), notes and ``[view]`` are the
    file's, as in any rule file; the ``[mechanism]`` table, read by the mechanism, says what only the
    page has. ``values(**stats)`` checks settings as a resolution checks its stats. Attributes:
    ``key``, ``name``, ``die``, ``notes``, ``path``, ``source``, ``stats``, ``view``, ``mechanism``
    (the name), ``spec`` (the mechanism's reading of its table)."""

    mechanism: str
    spec: Any

    def __init__(self, parts: Mapping[str, Any], path: str | Path, source: str):
        self._read_parts(parts, path, source)
        self.__dict__["mechanism"], self.__dict__["spec"] = parts["mechanism"], parts["spec"]

    def __repr__(self) -> str:
        return f"MechanismPage({self.key!r}, {self.mechanism!r}, {str(self.path)!r})"

    def values(self, **stats) -> dict[str, Any]:
        """Every stat of the file at ``stats`` (checked as a resolution checks them; an unknown name
        or a value out of its range is an InputError naming it), the others at their defaults."""
        inputs, env = self._check(stats, arrays=False)
        self._forbid(env)
        return inputs
