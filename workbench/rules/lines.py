"""Where a key sits in a TOML text: the line an error message points at.

``tomllib`` reports the line of a syntax error but not where a parsed value
came from, so the loader asks :func:`key_lines` for the line of a field such
as ``stages[1].target`` or ``stats.bs.max``. It reads table headers
(``[stats.bs]``, ``[[stages]]``, counting the array entries) and ``key =``
lines; inside multi-line strings nothing is matched. A field that is not
written in the file (a missing required key) falls back to its table's
header line.
"""
from __future__ import annotations

import re

__all__ = ["key_lines", "line_of"]

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
