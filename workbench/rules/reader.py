"""Reading the values of a rule file's TOML tables, each checked as it is read: the core format's
checks (:mod:`workbench.rules.loader`) and every named mechanism's reading of its ``[mechanism]``
table are written with :class:`Reader`'s typed getters.

``tomllib`` reports the line of a syntax error but not where a parsed value came from, so an error
finds the line of its field (``stages[1].target``, ``stats.bs.max``) in :func:`key_lines`: table
headers (``[stats.bs]``, ``[[stages]]``, counting the array entries) and ``key =`` lines, nothing
inside multi-line strings. A field not written in the file (a missing required key) falls back to
its table's header line.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NoReturn, overload

from .errors import ExpressionError, RuleFileError
from .expr import Expr, parse

__all__ = ["Reader", "key_lines", "line_of"]

_ARRAY = re.compile(r"^\s*\[\[\s*([^\[\]]+?)\s*\]\]")
_TABLE = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]")
_KEY = re.compile(r"^\s*((?:[A-Za-z0-9_\-]+|\"[^\"]*\"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_\-]+|\"[^\"]*\"|'[^']*'))*)\s*=")


def _dotted(name: str) -> str:
    parts = re.findall(r"[A-Za-z0-9_\-]+|\"[^\"]*\"|'[^']*'", name)
    return ".".join(p.strip("\"'") for p in parts)


def key_lines(text: str) -> dict[str, int]:
    """Map each field path written in ``text`` to its 1-based line."""
    out: dict[str, int] = {}
    counts: dict[str, int] = {}
    current = ""
    in_string = None
    for number, line in enumerate(text.splitlines(), start=1):
        if in_string:
            if in_string in line:
                in_string = None
            continue
        m = _ARRAY.match(line)
        if m:
            name = _dotted(m.group(1))
            i = counts.get(name, 0)
            counts[name] = i + 1
            current = f"{name}[{i}]"
            out.setdefault(current, number)
            continue
        m = _TABLE.match(line)
        if m:
            current = _dotted(m.group(1))
            out.setdefault(current, number)
            continue
        m = _KEY.match(line)
        if m:
            key = _dotted(m.group(1))
            out.setdefault(f"{current}.{key}" if current else key, number)
            rest = line[m.end():]
            for quote in ('"""', "'''"):
                if rest.count(quote) == 1:
                    in_string = quote
    return out


def line_of(lines: dict[str, int], field: str) -> int | None:
    """The line of ``field``, or of the nearest enclosing key or table that is written."""
    path = field
    while path:
        if path in lines:
            return lines[path]
        cut = max(path.rfind("."), path.rfind("["))
        if cut <= 0:
            break
        path = path[:cut]
    return lines.get(path)


class Reader:
    """One rule file's path and the line of every key (:func:`key_lines`); its
    getters return a value or raise :class:`~workbench.rules.errors.RuleFileError` naming the file,
    the field, what is allowed, what was found and the field's line."""

    def __init__(self, path: Path, text: str):
        self.path = path
        self.lines = key_lines(text)

    def fail(self, field: str, expected: str, got: Any) -> NoReturn:
        raise RuleFileError(self.path, field, expected, got, line_of(self.lines, field))

    def value(self, data: dict, key: str, field: str, expected: str, ok, default: Any, wrong: str = "") -> Any:
        """``data[key]`` if ``ok`` of it, else refused as not ``wrong or expected``; a key not
        written gives ``default``, or (``...``) a refusal saying ``expected`` is required."""
        if key not in data:
            if default is ...:
                self.fail(f"{field}.{key}", f"{expected} (required)", "nothing")
            return default
        x = data[key]
        if not ok(x):
            self.fail(f"{field}.{key}", wrong or expected, x)
        return x

    # -- typed getters ---------------------------------------------------
    def table(self, data: Any, field: str, keys: tuple[str, ...] | None = None) -> dict:
        """``data`` if it is a table (with ``keys``: of those keys only, :meth:`known`)."""
        if not isinstance(data, dict):
            self.fail(field, "a table", data)
        if keys is not None:
            self.known(data, field, keys)
        return data

    def entries(self, data: Any, field: str, expected: str, most: int, what: str, keys: tuple[str, ...]):
        """The tables of the array of tables ``field`` (``[[forbid]]``: at most ``most`` of ``what``), one
        at a time with their field (``forbid[2]``), each checked by :meth:`table`."""
        if not isinstance(data, list):
            self.fail(field, expected, data)
        if len(data) > most:
            self.fail(field, f"at most {most} {what}", len(data))
        for i, x in enumerate(data):
            yield i, f"{field}[{i}]", self.table(x, f"{field}[{i}]", keys)

    def known(self, data: dict, field: str, keys: tuple[str, ...]):
        for k in data:
            if k not in keys:
                self.fail(f"{field}.{k}" if field else k, "one of the keys " + ", ".join(keys), k)

    def integer(self, data: dict, key: str, field: str, lo: int, hi: int, default: Any = ...) -> int:
        return self.value(data, key, field, f"a whole number from {lo} to {hi}",
                         lambda x: not isinstance(x, bool) and isinstance(x, int) and lo <= x <= hi, default)

    def string(self, data: dict, key: str, field: str, default: Any = ..., *, nonempty=True) -> str:
        return self.value(data, key, field, "a string", lambda x: isinstance(x, str) and (x.strip() or not nonempty),
                         default, "a non-empty string" if nonempty else "a string")

    def option(self, data: dict, key: str, field: str, allowed: tuple[str, ...], default: Any = ...) -> str:
        return self.value(data, key, field, "one of " + ", ".join(f'"{a}"' for a in allowed),
                         lambda x: isinstance(x, str) and x in allowed, default)

    def boolean(self, data: dict, key: str, field: str, default: Any) -> bool:
        """``data[key]``, true or false (``default``: ``...`` when it is required)."""
        return self.value(data, key, field, "true or false", lambda x: isinstance(x, bool), default)

    @overload
    def expr(self, data: dict, key: str, field: str, names, default: None) -> Expr | None: ...
    @overload
    def expr(self, data: dict, key: str, field: str, names, default: str = ...) -> Expr: ...

    def expr(self, data: dict, key: str, field: str, names, default: Any = ...) -> Expr | None:
        """The expression at ``data[key]``; without one ``default`` parsed (``...``: required,
        ``None``: None)."""
        if key not in data:
            source = self.value(data, key, field, "an expression", None, default)
            return None if source is None else parse(source, names)
        try:
            return parse(data[key], names)
        except ExpressionError as exc:
            self.fail(f"{field}.{key}", exc.expected, exc.got)

    def faces(self, data: dict, key: str, field: str, die: int) -> tuple[int, ...]:
        x = data.get(key, [])
        if not isinstance(x, list):
            self.fail(f"{field}.{key}", f"a list of faces from 1 to {die}", x)
        for i, f in enumerate(x):
            if isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= die:
                self.fail(f"{field}.{key}[{i}]", f"a face from 1 to {die}", f)
        return tuple(sorted(set(x)))
