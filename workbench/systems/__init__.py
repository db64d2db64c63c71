"""The four rule systems, one module each (see docs/rules.md).

``SYSTEMS`` maps each key to its module; every module exposes ``KEY``,
``NAME``, ``SEED`` (the seed file it implements), its stat-level functions,
and ``TABLES``: vectorised twins of some functions for sweeps.
"""
from __future__ import annotations

import importlib
from types import ModuleType

KEYS = ("changes", "forgotten", "gunfire", "antares")


def get(key: str) -> ModuleType:
    """The module of one rule system, by key."""
    from ..validate import choice
    key = choice("system", key, KEYS)
    return importlib.import_module(f"{__name__}.{key}")


def all_systems() -> dict[str, ModuleType]:
    return {k: get(k) for k in KEYS}
