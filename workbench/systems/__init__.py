"""The registry of rule systems: the four built-ins and the designers' rule files.

``get(key)`` returns a system's :class:`~workbench.systems.description.SystemDescription`
(its functions, dashboards, diagnostics, profiles...; see docs/rules.md for
the rules themselves); ``keys()`` lists every system that loaded, built-ins
first. The built-ins are the modules named in :data:`BUILTINS`, each ending in
``SYSTEM = SystemDescription(...)``. Rule files (``*.toml``, format
``RULEFILE.md``) are read from the checkout's ``rules/`` folder and from each
folder of the ``WORKBENCH_RULES`` environment variable (separated by
``os.pathsep``, as ``PATH``), through ``workbench.rules.load`` when that
module is installed. A rule file that does not load is kept in
:func:`broken` with its message and never stops the others. A shipped file
(in :data:`CHECKOUT_RULES`) whose key is a built-in's is that built-in's own
rule file (its module resolves through it): it is not listed a second time.
A built-in may ship more than one such file, ``<key>_<part>.toml`` for a part
its first file does not say (40k Changes' melee, ``changes_melee.toml``,
keyed "changes"): none of them is listed, served or counted as broken.
A designer's file using a built-in's key is refused; a copy of a built-in's
file under a new key is a new system (the way a designer starts a variant).

Adding a built-in system: write its module with its ``SYSTEM`` description
at the end and add its key to :data:`BUILTINS`.
"""
from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType

from ..errors import InputError, WorkbenchError
from ..resources import data_dir
from .description import BrokenSystem, SystemDescription, describe_rules

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
    """Where rule files are looked for: the shipped ``rules/`` (the checkout's, or the copy inside an
    installed wheel), then each folder of ``$WORKBENCH_RULES``."""
    folders = [CHECKOUT_RULES]
    folders += [Path(p) for p in os.environ.get(RULES_ENV, "").split(os.pathsep) if p.strip()]
    return folders


def _rule_files() -> list[Path]:
    out, seen = [], set()
    for folder in rule_folders():
        if folder.is_dir():
            for path in sorted(folder.glob("*.toml")):
                real = path.resolve()
                if real not in seen:
                    seen.add(real)
                    out.append(path)
    return out


#: (path, modification time, size) of every rule file -> what they loaded to
_CACHE: dict[tuple, tuple[dict[str, SystemDescription], tuple[BrokenSystem, ...]]] = {}


def _load_rules() -> tuple[dict[str, SystemDescription], tuple[BrokenSystem, ...]]:
    files = _rule_files()
    if not files:
        return {}, ()
    try:
        from .. import rules
    except ImportError:  # the rule-file engine is not installed: built-ins only
        return {}, ()
    entries: list[tuple[str, int | None, int | None]] = []
    for p in files:
        try:
            st = p.stat()
            entries.append((str(p), st.st_mtime_ns, st.st_size))
        except OSError:
            entries.append((str(p), None, None))
    stamp = tuple(entries)
    if stamp in _CACHE:
        return _CACHE[stamp]
    taken = set(BUILTINS)
    found: dict[str, SystemDescription] = {}
    bad: list[BrokenSystem] = []
    for path in files:
        key = None
        try:
            rs = rules.load_any(path)
            key = rs.key
            if key in BUILTINS and path.parent.resolve() == CHECKOUT_RULES.resolve():  # a built-in's own file
                continue
            rules.require_stages(rs)  # a file of a named mechanism is a built-in's part only, as yet
            if key in taken:
                where = "a built-in system" if key in BUILTINS else str(found[key].path)
                raise WorkbenchError(f"{path}: system.key: expected a key no other system uses, "
                                     f"got {key!r} (already used by {where})")
            desc = describe_rules(rs, RULE_COLOURS[len(found) % len(RULE_COLOURS)])
        except (WorkbenchError, OSError) as exc:
            bad.append(BrokenSystem(path=path, message=str(exc) or type(exc).__name__, key=key))
            continue
        taken.add(rs.key)
        found[rs.key] = desc
    _CACHE.clear()
    _CACHE[stamp] = (found, tuple(bad))
    return _CACHE[stamp]


def _all() -> dict[str, SystemDescription]:
    return {**builtins(), **_load_rules()[0]}


def keys() -> tuple[str, ...]:
    """Every system that loaded: the built-ins, then the rule files (by folder, then file name)."""
    return tuple(_all())


def broken() -> tuple[BrokenSystem, ...]:
    """The rule files that did not load, each with its path and message."""
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
