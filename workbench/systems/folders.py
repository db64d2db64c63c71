"""The description of a rule folder: one system of several rule files, one dashboard mode per file.

A :class:`~workbench.rules.RuleFolder`'s description is made of its parts'
(:func:`~workbench.systems.description.describe_rules` of each file): a mode per
part, named by the part's file (``melee.toml``: the mode and function
``melee``, titled "Melee"), with that file's controls; the side effects of
every part with their words; and, from the first part, the landing page's
title, blurb and colour, the diagnostics' stats, the seed matchup, the
granularity and equivalence grids and the compare page's concepts (a system's
diagnostics and its place on the compare page read its first mode).
"""
from __future__ import annotations

from typing import Any

import attrs

from .description import SystemDescription, describe_rules

__all__ = ["describe_folder", "mode_title"]


def mode_title(part: str) -> str:
    """A part's name as its dashboard mode reads: ``close_combat`` -> "Close combat"."""
    words = part.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def describe_folder(folder: Any, colour: str) -> SystemDescription:
    """The description of the loaded rule folder ``folder`` (see the module docstring)."""
    parts = {name: describe_rules(part, colour) for name, part in folder.parts.items()}
    first = parts[folder.functions[0]]
    modes = tuple(attrs.evolve(d.modes[0], key=name, function=name, title=mode_title(name))
                  for name, d in parts.items())
    effects: dict[str, str] = {}
    words: dict[str, str] = {}
    for d in parts.values():
        effects.update(d.effects)
        words.update(d.effect_words)
    return SystemDescription(
        key=folder.key, name=folder.name, module=folder, die=folder.die,
        title=first.title if first.title != first.name else folder.name, blurb=first.blurb,
        colour=first.colour, modes=modes, concepts=first.concepts, effects=effects, effect_words=words, stats=first.stats,
        seed_matchup=first.seed_matchup, granularity_grid=first.granularity_grid,
        equivalence_search=first.equivalence_search, path=folder.path, functions=folder.functions)
