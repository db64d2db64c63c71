"""A rule folder: one system of several rule files, one dashboard mode per file.

Every file of the folder (``rules/changes/shooting.toml``, ``melee.toml``) is a complete rule file
with the same ``[system] key`` and a part of the system named by its file name: a function of the
system and a mode of its dashboard; a file of a page mechanism (``rules/changes/turn.toml``) is a
page instead (``folder.pages``), which no view resolves. The parts come in ``[system] order`` (1
first; a tie, and the parts without one after them, in file-name order); the first part's name, die
and notes are the system's. See "A system of several files" in docs/rulefiles.md.

A folder is checked as a whole: whatever is wrong raises the
:class:`~workbench.rules.errors.RuleFileError` of the file at fault (its field and line), so the
registry lists that file among the broken ones.
"""
from __future__ import annotations

import inspect
import keyword
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable

from ..outcome import Outcome
from .frozen import Immutable
from .errors import RuleFileError
from .loader import IDENT, RESERVED, parse_text, read_file
from .mechanism_system import MechanismPage, MechanismSystem
from .mechanisms import MECHANISMS
from .reader import Reader
from .system import RuleSystem

__all__ = ["RuleFolder", "load_folder", "loads_folder", "MAX_PARTS", "TAKEN"]

#: the most files one rule folder may hold
MAX_PARTS = 16
#: names a part's file may not have: the folder system's own attributes
TAKEN = ("key", "name", "die", "notes", "path", "parts", "pages", "stats", "source", "sources", "functions", "attack",
         "attack_table")


def _part_name(path: Path) -> str:
    name = path.stem
    if not IDENT.match(name) or keyword.iskeyword(name) or name in RESERVED or name in TAKEN:
        raise RuleFileError(path, "file", "a file name that names a part of the system: a lower-case identifier "
                            "([a-z][a-z0-9_]*, such as melee.toml), not " + ", ".join(sorted(set(TAKEN) | set(RESERVED))),
                            path.name)
    return name


def _part(parts: dict, path: Path, text: str) -> RuleSystem | MechanismSystem | MechanismPage:
    if "mechanism" not in parts:
        return RuleSystem(parts, path, text)
    if getattr(MECHANISMS[parts["mechanism"]], "PAGE", False):
        return MechanismPage(parts, path, text)
    return MechanismSystem(parts, path, text)


def load_folder(path: str | Path) -> "RuleFolder":
    """The system of the rule folder at ``path`` (its ``*.toml`` files; see the module docstring)."""
    folder = Path(path)
    files = sorted(folder.glob("*.toml"))
    if len(files) > MAX_PARTS:
        raise RuleFileError(folder, "folder", f"at most {MAX_PARTS} rule files in one folder", f"{len(files)} files")
    return RuleFolder(folder, [(_part_name(file), file, *read_file(file)) for file in files])


def loads_folder(texts: Mapping[str, str], path: str | Path = "<rule folder>") -> "RuleFolder":
    """:func:`load_folder` of texts: part file name (``melee.toml``) -> its TOML text."""
    folder = Path(str(path))
    files = [(folder / name, text) for name, text in sorted(texts.items())]
    return RuleFolder(folder, [(_part_name(file), file, parse_text(text, file), text) for file, text in files])


class RuleFolder(Immutable):
    """The system of a rule folder: its parts, each a :class:`~workbench.rules.RuleSystem` or a
    :class:`~workbench.rules.mechanism_system.MechanismSystem`, and a function per part, named by
    the part (``folder.melee(**stats)``: that file's ``attack``, its outcome's function the
    part's name). Attributes: ``key``, ``name``, ``die``, ``notes`` (the first part's), ``path``
    (the folder), ``parts`` (part name -> system, in order), ``functions`` (the part names),
    ``pages`` (part name -> :class:`~workbench.rules.mechanism_system.MechanismPage`),
    ``TABLES`` (the vectorised twins of the parts of stages). Immutable."""

    key: str
    name: str
    die: int
    notes: tuple[str, ...]
    path: Path
    parts: Mapping[str, RuleSystem | MechanismSystem]
    pages: Mapping[str, MechanismPage]
    functions: tuple[str, ...]
    TABLES: Mapping[str, Callable]

    def __init__(self, path: Path, read: list[tuple[str, Path, dict, str]]):
        if not read:
            raise RuleFileError(path, "folder", "a folder holding one or more rule files (*.toml)", "no rule file")
        order = sorted(read, key=lambda x: (x[2]["order"] is None, x[2]["order"] or 0, x[1].name))
        first = order[0]
        for _name, file, parts, text in order:
            if parts["key"] != first[2]["key"]:
                Reader(file, text).fail("system.key", f"the key of every file of the folder {path.name} "
                                        f"({first[2]['key']!r}, in {first[1].name})", parts["key"])
        d = self.__dict__
        every = {name: _part(parts, file, text) for name, file, parts, text in order}
        built = {name: part for name, part in every.items() if not isinstance(part, MechanismPage)}
        if not built:
            raise RuleFileError(first[1], "mechanism.name", f"a folder ({path.name}) with a file of stages or of a "
                                "mechanism that resolves an attack beside its pages", first[2]["mechanism"])
        head = next(iter(built.values()))
        d["key"], d["name"], d["die"], d["notes"] = head.key, head.name, head.die, head.notes
        d["path"] = Path(path)
        d["parts"] = MappingProxyType(built)
        d["pages"] = MappingProxyType({n: p for n, p in every.items() if isinstance(p, MechanismPage)})
        d["functions"] = tuple(built)
        d["_sources"] = {file.name: text for _, file, _, text in order}
        for name, part in built.items():
            d[name] = _function(self.key, name, part)
        d["TABLES"] = MappingProxyType({n: p.TABLES["attack"] for n, p in built.items()  # type: ignore[attr-defined]
                                        if isinstance(p, RuleSystem)})  # (RuleSystem sets TABLES in its __dict__)
        d["KEY"], d["NAME"], d["DIE"], d["SEED"] = self.key, self.name, self.die, None
        d["__all__"] = self.functions

    def __repr__(self) -> str:
        return f"RuleFolder({self.key!r}, {list(self.functions)!r}, {str(self.path)!r})"

    def __reduce__(self):
        # pickled as its texts (for worker processes): loading them again gives the same system
        return (loads_folder, (dict(self._sources), str(self.path)))

    def part(self, name: str) -> RuleSystem | MechanismSystem:
        """One part by name (an unknown name is a RuleFileError listing them)."""
        if name not in self.parts:
            raise RuleFileError(self.path, "part", "one of " + ", ".join(self.functions), name)
        return self.parts[name]


def _function(key: str, name: str, part: Any) -> Callable[..., Outcome]:
    """The part's ``attack`` as the system's function ``name``: the same arguments, its outcome
    saying which function of the system it is (a dashboard link names the mode by it)."""

    def resolve(*args, **stats) -> Outcome:
        return part.attack(*args, **stats).replace(function=name)

    resolve.__signature__ = inspect.signature(part.attack)  # type: ignore[attr-defined]  # read by inspect.signature
    resolve.__name__ = name
    resolve.__qualname__ = f"{key}.{name}"
    resolve.__doc__ = f"{part.name}: one resolution of the part {name} (missing stats take their defaults)."
    return resolve
