"""Rule files: a designer's own rule system as a TOML file, with no Python.

``load(path)`` reads and checks a file in the core format
(``docs/rulefiles.md``) and returns a :class:`RuleSystem`, resolved exactly
and by sampling like the built-in systems::

    from workbench import rules
    kill6 = rules.load("rules/kill6.toml")
    kill6.attack(bs=3, shots=10).mean

Modules: ``expr`` (the expression language), ``lines`` (where a key sits in
the text), ``loader`` (TOML and checks), ``spec`` (the parsed records),
``die`` (one stage's die, shared by both paths), ``engine`` (exact), ``tally``
(tokens per attack, switched criticals, tallies, chances),
``sampled`` (dice rolled), ``system`` (the RuleSystem), ``errors``.
"""
from __future__ import annotations

from pathlib import Path

from .errors import BudgetError, ForbiddenError, RuleFileError
from .loader import parse_text, read_file
from .spec import RuleStage, RuleStat
from .system import RuleSystem

__all__ = ["load", "loads", "RuleSystem", "RuleStat", "RuleStage", "RuleFileError", "ForbiddenError", "BudgetError"]

def load(path: str | Path) -> RuleSystem:
    """The rule system of the TOML file at ``path`` (raises :class:`RuleFileError` if it is broken)."""
    parts, text = read_file(path)
    return RuleSystem(parts, Path(path), text)


def loads(text: str, path: str | Path = "<rule file>") -> RuleSystem:
    """The rule system of a TOML text (the editor's live copy); ``path`` names it in errors."""
    if not isinstance(text, str):
        raise RuleFileError(path, "file", "TOML text", type(text).__name__)
    return RuleSystem(parse_text(text, path), Path(str(path)), text)
