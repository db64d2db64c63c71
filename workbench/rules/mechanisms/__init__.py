"""Named mechanisms: what a rule file cannot say as data, as a small Python
module registered under a name (docs/rulefiles.md, "Mechanisms").

A mechanism holds only arithmetic: the dice it rolls are
:class:`~workbench.rules.die.StageDie` dice its caller builds from the file's
stats, and every stat, range, label and help stays in the file.
"""
from __future__ import annotations

from types import MappingProxyType, ModuleType
from typing import Any

from ..errors import RuleFileError
from . import two_sided_close_combat

__all__ = ["MECHANISMS", "get"]

#: mechanism name -> its module
MECHANISMS = MappingProxyType({"two_sided_close_combat": two_sided_close_combat})


def get(name: Any, path: Any = "<rule file>", field: str = "mechanism.name") -> ModuleType:
    """The module registered under ``name``; a :class:`RuleFileError` naming the field,
    the names allowed and the name given otherwise."""
    if not isinstance(name, str) or name not in MECHANISMS:
        raise RuleFileError(path, field, "one of " + ", ".join(repr(n) for n in MECHANISMS), name)
    return MECHANISMS[name]
