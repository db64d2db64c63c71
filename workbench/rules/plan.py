"""The plan of one scalar resolution: everything it needs from the stages' dice, made once for
each set of dice (:meth:`~workbench.rules.RuleSystem._plan` keeps it by the dice)."""
from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from ..engine import binomial_pmf
from ..outcome import Stage
from .engine import stage_dice, stage_probabilities
from .spec import RuleStage
from .tokens import expected_tokens, per_attack, per_attack_figures, stage_pass_pmfs, trim
from .words import outcome_stages, passing_name

__all__ = ["Plan", "make_plan", "StagePmfs", "readonly"]


@dataclasses.dataclass(frozen=True)
class Plan:
    """One scalar resolution's stages and dice, and what follows from them alone."""
    #: the stages as rolled (a stage's ``die`` expression read)
    staged: tuple[RuleStage, ...]
    #: the stages as played: ``on_critical = "none"`` where the stats switch it off
    played: tuple[RuleStage, ...]
    dice: tuple
    #: per stage, (P(fail), P(success), P(critical)) arrays (3, 1)
    probs: tuple
    #: one attack's distribution of final successes (1, k)
    g0: np.ndarray
    #: expected tokens passing each stage per attack
    passes: tuple[float, ...]
    #: expected critical rolls per attack
    crits: float
    #: the outcome's stages, in words
    stages: tuple[Stage, ...]
    #: the outcome's per-attack figures (see :func:`make_plan`)
    figures: dict
    #: :func:`engine.prepare` for these dice, by the tokens die (None: one token), filled on first use
    prepared: dict = dataclasses.field(default_factory=dict)


def make_plan(staged: tuple[RuleStage, ...], on_critical: Sequence[bool], env: Mapping[str, Any]) -> Plan:
    """The plan of the stages ``staged`` at the (scalar) stats ``env``; ``on_critical[i]``: does
    stage i's ``on_critical`` apply at these stats."""
    played = tuple(st if on else dataclasses.replace(st, on_critical="none")
                   for st, on in zip(staged, on_critical))
    dice = stage_dice(staged, env)
    probs, counts = stage_probabilities(dice, 1)
    fractions = tuple(tuple(Fraction(int(c), denom) for c in np.ravel(cs)) for cs, denom in counts)
    passes, crits = expected_tokens(played, probs)
    # one token's (one attack's, unless the file rolls its tokens) expected final successes and P(at least one)
    # where criticals add tokens or skip stages: the product of the stage chances is then neither
    figures: dict = {}
    if any(st.critical and st.passes_on != "fail" and st.on_critical != "none" for st in played):
        mean, any_ = per_attack_figures(played, fractions)
        figures = {"per_attack_mean": mean, "per_attack_any": any_, "success_label": passing_name(played[-1])}
    return Plan(staged=staged, played=played, dice=tuple(dice), probs=tuple(probs),
                g0=trim(per_attack(played, probs)), passes=tuple(float(x[0]) for x in passes),
                crits=float(crits[0]), stages=outcome_stages(staged, dice, fractions, on_critical), figures=figures)


class StagePmfs(Mapping):
    """``Outcome.stage_pmfs`` of a rule file: stage name -> P(k tokens pass it over all
    attacks), each computed on first reading (a plain dict when pickled). ``save``: the
    removal's save where it is a stage (:func:`~workbench.rules.words.save_stage`): the final
    successes it lets through, each independently."""

    def __init__(self, stages, probs, count: int, n_tokens: int | None = None, save: Stage | None = None):
        self._args = (stages, probs, np.array([count]), None if n_tokens is None else np.array([n_tokens]))
        self._save = save
        self._names = [st.name for st in stages] + ([save.name] if save is not None else [])

    @functools.cached_property
    def _all(self) -> dict:
        pmfs = {k: v[0] for k, v in stage_pass_pmfs(*self._args).items()}
        if self._save is not None:
            last = pmfs[self._args[0][-1].name]
            q = float(self._save.probability)
            pmfs[self._save.name] = sum(p * np.pad(binomial_pmf(n, q), (0, last.size - n - 1))
                                        for n, p in enumerate(last))
        return {k: readonly(v) for k, v in pmfs.items()}

    def __getitem__(self, name):
        return self._all[name]

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __reduce__(self):
        return (dict, (self._all,))


def readonly(a) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a
