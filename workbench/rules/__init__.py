"""Rule files: a designer's own rule system as a TOML file, with no Python.

``load(path)`` reads and checks a file in the core format
(``docs/rulefiles.md``) and returns a :class:`RuleSystem`, resolved exactly
and by sampling like the built-in systems::

    from workbench import rules
    kill6 = rules.load("rules/kill6.toml")
    kill6.attack(bs=3, shots=10).mean

The modules are mapped in docs/architecture.md. :func:`load_system` loads any system as the
registry does: a folder of rule files, a file of stages or a file of a named mechanism.
"""
from __future__ import annotations

from pathlib import Path

from .errors import BudgetError, ForbiddenError, RuleFileError
from .folder import RuleFolder, load_folder, loads_folder
from .folder import _part as _system
from .loader import parse_text, read_file
from .mechanism_system import MechanismPage, MechanismSystem
from .spec import RuleStage, RuleStat
from .system import RuleSystem

__all__ = ["load", "loads", "load_any", "loads_any", "load_system", "load_folder", "loads_folder", "require_stages",
           "MechanismSystem", "MechanismPage", "RuleFolder", "RuleSystem", "RuleStat", "RuleStage", "RuleFileError", "ForbiddenError",
           "BudgetError"]

def load(path: str | Path) -> RuleSystem:
    """The rule system of the TOML file of stages at ``path`` (raises :class:`RuleFileError` if it is
    broken, or if it is a file of a named mechanism: the rule editor and the variants take files of
    stages; :func:`load_any` and :func:`load_system` take the others)."""
    return require_stages(load_any(path))


def loads(text: str, path: str | Path = "<rule file>") -> RuleSystem:
    """The rule system of a TOML text (the editor's live copy); ``path`` names it in errors."""
    return require_stages(loads_any(text, path))


def load_any(path: str | Path):
    """:func:`load`, or for a file of a named mechanism its
    :class:`~workbench.rules.mechanism_system.MechanismSystem` (a system of its own, or a part of
    a rule folder's)."""
    parts, text = read_file(path)
    return _system(parts, Path(path), text)


def loads_any(text: str, path: str | Path = "<rule file>"):
    """:func:`load_any` of a TOML text."""
    return _system(parse_text(text, path), Path(str(path)), text)


def load_system(path: str | Path):
    """The system at ``path`` as the registry reads it: a folder is a :class:`RuleFolder` (one
    system of several files), a file a :class:`RuleSystem` or a :class:`MechanismSystem`. A file of
    a page mechanism alone is refused: it is a page of a folder, beside the files it plays."""
    if Path(path).is_dir():
        return load_folder(path)
    system = load_any(path)
    if isinstance(system, MechanismPage):
        raise RuleFileError(system.path, "mechanism.name", "a mechanism that resolves an attack, in a file of its "
                            "own (a page's file, such as the Changes turn's, goes in a rule folder beside the "
                            "files whose dice it rolls)", system.mechanism)
    return system


def require_stages(system) -> RuleSystem:
    """``system`` if it is a file of stages; a file of a named mechanism refused, naming it."""
    if not isinstance(system, RuleSystem):
        raise RuleFileError(system.path, "mechanism", "a file of [[stages]] here (the rule editor and the variants "
                            "read stages; a file of a named mechanism is served and resolved as a system of its own, "
                            "not edited here)", system.mechanism)
    return system
