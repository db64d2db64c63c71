"""Named mechanisms: what a rule file cannot say as data, as a small Python
module registered under a name (docs/rulefiles.md, "Named mechanisms").

A mechanism holds only arithmetic: the dice it rolls are
:class:`~workbench.rules.die.StageDie` dice built from the file's expressions,
and every stat, range, label and help stays in the file. A module here has
``read(reader, table, names)``, ``exact(spec, env, sides)`` and
``sampled(spec, env, sides, rng)``; a file of a mechanism is resolved by
:class:`~workbench.rules.mechanism_system.MechanismSystem`. A module with ``PAGE = True`` makes a
page of its rule folder instead, which no view resolves (:mod:`.changes_turn`, played by
:mod:`workbench.turn`): it has ``read`` and ``check(reader, spec, stats)``, and its file is a
:class:`~workbench.rules.mechanism_system.MechanismPage`.
"""
from __future__ import annotations

from types import MappingProxyType

from . import changes_turn, two_sided_close_combat

__all__ = ["MECHANISMS"]

#: mechanism name -> its module
MECHANISMS = MappingProxyType({"two_sided_close_combat": two_sided_close_combat, "changes_turn": changes_turn})
