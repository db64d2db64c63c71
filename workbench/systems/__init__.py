"""The registry of rule systems: the four built-ins and the designers' rule files.

``get(key)`` returns a system's :class:`~workbench.systems.description.SystemDescription`
(docs/rules.md for the rules themselves); ``keys()`` lists every system that loaded,
built-ins first. The built-ins are the modules named in :data:`BUILTINS`, each ending in
``SYSTEM = ownfile.describe(...)``. Rule systems (docs/rulefiles.md) are read from the
checkout's ``rules/`` folder and from each folder of ``$WORKBENCH_RULES`` (separated by
``os.pathsep``): each ``*.toml`` file is one system, each folder holding ``*.toml`` files
one system of several parts, a dashboard mode per file. A file or folder that does not
load is kept in :func:`broken` with the message of the file at fault and never stops the
others. A shipped file or folder whose key is a built-in's is that built-in's own
(:mod:`workbench.systems.ownfile`) and is not listed twice; a designer's using a built-in's
key is refused; a copy under a new key is a new system.

Adding a built-in system: write its rule file (its stats and ``[view]``), its module with
``SYSTEM = ownfile.describe(...)`` at the end and add its key to :data:`BUILTINS`.
"""
from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType

from ..errors import InputError, WorkbenchError
from ..resources import data_dir
from .description import BrokenSystem, SystemDescription, describe_folder, describe_rules

__all__ = ["get", "keys", "broken", "builtins", "rule_folders", "BUILTINS", "RULES_ENV", "CHECKOUT_RULES",
           "SystemDescription", "BrokenSystem"]

#: the built-in systems, in display order: one module each, named by its key
BUILTINS = ("changes", "forgotten", "gunfire", "antares")
#: the environment variable naming more folders of rule files
RULES_ENV = "WORKBENCH_RULES"
#: the checkout's own folder of rule files
CHECKOUT_RULES = data_dir("rules")
#: colours of the rule-file systems on shared plots, in turn
RULE_COLOURS = ("#8172B3", "#937860", "#DA8BC3", "#8C8C8C", "#CCB974", "#64B5CD")


def builtins() -> dict[str, SystemDescription]:
    """The built-in systems' descriptions, in :data:`BUILTINS` order."""
    return {k: importlib.import_module(f"{__name__}.{k}").SYSTEM for k in BUILTINS}


def rule_folders() -> list[Path]:
    """Where rule files and rule folders are looked for: the shipped ``rules/`` (the checkout's, or the
    copy inside an installed wheel), then each folder of ``$WORKBENCH_RULES``."""
    folders = [CHECKOUT_RULES]
    folders += [Path(p) for p in os.environ.get(RULES_ENV, "").split(os.pathsep) if p.strip()]
    return folders


def _rule_entries() -> list[Path]:
    """Every rule system's path, by folder then name: a ``*.toml`` file, or a folder holding some."""
    out, seen = [], set()
    for folder in rule_folders():
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            a_file = path.suffix == ".toml" and path.is_file()
            if path.name.startswith(".") or not (a_file or (path.is_dir() and any(path.glob("*.toml")))):
                continue
            real = path.resolve()
            if real not in seen:
                seen.add(real)
                out.append(path)
    return out


def _stamp(entries: list[Path]) -> tuple:
    """(path, modification time, size) of every rule file the entries hold."""
    stamp: list[tuple[str, int | None, int | None]] = []
    for entry in entries:
        for p in sorted(entry.glob("*.toml")) if entry.is_dir() else [entry]:
            try:
                st = p.stat()
                stamp.append((str(p), st.st_mtime_ns, st.st_size))
            except OSError:
                stamp.append((str(p), None, None))
    return tuple(stamp)


#: (path, modification time, size) of every rule file -> what they loaded to
_CACHE: dict[tuple, tuple[dict[str, SystemDescription], tuple[BrokenSystem, ...]]] = {}


def _load_rules() -> tuple[dict[str, SystemDescription], tuple[BrokenSystem, ...]]:
    from .. import rules

    entries = _rule_entries()
    stamp = _stamp(entries)
    if stamp in _CACHE:
        return _CACHE[stamp]
    found: dict[str, SystemDescription] = {}
    bad: list[BrokenSystem] = []
    shipped = CHECKOUT_RULES.resolve()
    for path in entries:
        key = None
        try:
            rs = rules.load_system(path)
            key = rs.key
            if key in BUILTINS and path.parent.resolve() == shipped:  # a built-in's own file or folder
                continue
            if key in BUILTINS or key in found:
                where = "a built-in system" if key in BUILTINS else str(found[key].path)
                raise WorkbenchError(f"{path}: system.key: expected a key no other system uses, "
                                     f"got {key!r} (already used by {where})")
            colour = RULE_COLOURS[len(found) % len(RULE_COLOURS)]
            desc = describe_folder(rs, colour) if path.is_dir() else describe_rules(rs, colour)
        except (WorkbenchError, OSError) as exc:
            # a folder's broken file, by its own path
            at = Path(exc.path) if path.is_dir() and isinstance(exc, rules.RuleFileError) else path
            bad.append(BrokenSystem(path=at, message=str(exc) or type(exc).__name__, key=key))
            continue
        found[rs.key] = desc
    _CACHE.clear()
    _CACHE[stamp] = (found, tuple(bad))
    return _CACHE[stamp]


def _all() -> dict[str, SystemDescription]:
    return {**builtins(), **_load_rules()[0]}


def keys() -> tuple[str, ...]:
    """Every system that loaded: the built-ins, then the rule files and rule folders (by folder, then name)."""
    return tuple(_all())


def broken() -> tuple[BrokenSystem, ...]:
    """The rule files that did not load, each with its path and message (a rule folder's: the file at fault)."""
    return _load_rules()[1]


def get(key: str | SystemDescription | ModuleType) -> SystemDescription:
    """The description of one system, by key (an unknown key is an
    :class:`~workbench.errors.InputError` listing the keys); a description
    or a built-in system's module gives its own description."""
    if isinstance(key, SystemDescription):
        return key
    own = getattr(key, "SYSTEM", None)
    if isinstance(own, SystemDescription):  # a built-in system's module
        return own
    if isinstance(key, str) and key in BUILTINS:
        return importlib.import_module(f"{__name__}.{key}").SYSTEM
    systems = _all()
    if not isinstance(key, str) or key not in systems:
        raise InputError("system", "one of " + ", ".join(repr(k) for k in systems), key)
    return systems[key]
