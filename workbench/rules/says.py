"""What a stage says it rolls against, in the file's own words: a stage's ``says`` key.

``says = "BS {bs}+ against cover {cover:+}"`` puts the designer's words before the engine's
"needs 8+ on a d12": each ``{...}`` is an expression of the stats (the file's expression
language), shown as a whole number, or signed with ``:+`` (``+2``, ``-1``, ``+0``); ``{{`` and
``}}`` are braces. A list of pieces, each a string or ``{ text, when }`` (shown where ``when`` is
true), is joined with spaces, so a rule that applies only sometimes says so only then::

    says = ["BS {bs}+", { text = "{4:+} (heavy weapon, shot action)", when = "weapon == 1 and action == 1" },
            "against cover {cover:+}"]
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from .errors import ExpressionError
from .expr import Expr, parse
from .frozen import remember

__all__ = ["Says", "read_says", "text_when", "MAX_PIECES"]

#: pieces one stage's ``says`` may hold
MAX_PIECES = 16
#: a placeholder: ``{expression}`` or ``{expression:+}``; ``{{`` and ``}}`` are literal braces
_PART = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")


@dataclass(frozen=True)
class _Piece:
    #: literal texts and (expression, signed) placeholders, in order
    parts: tuple[str | tuple[Expr, bool], ...]
    when: Expr | None


@dataclass(frozen=True)
class Says:
    """A stage's ``says``: pieces of text with placeholders, each shown where its ``when`` holds."""

    pieces: tuple[_Piece, ...]

    @functools.cached_property
    def order(self) -> tuple[str, ...]:
        """The names its placeholders and conditions read, sorted: the key of its words remembered."""
        exprs = [p[0] for piece in self.pieces for p in piece.parts if not isinstance(p, str)]
        return tuple(sorted(set().union(*(e.names for e in exprs + [piece.when for piece in self.pieces
                                                                    if piece.when is not None]))))

    def text(self, env: Mapping[str, Any], field: str) -> str:
        """The words at the scalar stats ``env`` (a placeholder's refusal names ``field``), remembered
        by the values of the stats they read (a dashboard asks again at every move)."""
        key = (field, *(_scalar_key(env.get(n)) for n in self.order))
        return remember(self._texts, key, lambda: self._text(env, field), 256)

    @functools.cached_property
    def _texts(self) -> dict:
        """:meth:`text` by the field and the values of the stats it reads (this object's own)."""
        return {}

    def _text(self, env: Mapping[str, Any], field: str) -> str:
        out = []
        for piece in self.pieces:
            if piece.when is not None and not piece.when.scalar(env, f"{field}.when"):
                continue
            words = "".join(p if isinstance(p, str) else
                            (f"{p[0].scalar(env, field):+d}" if p[1] else str(p[0].scalar(env, field)))
                            for p in piece.parts)
            if words.strip():
                out.append(words.strip())
        return " ".join(out)


def _scalar_key(x: Any) -> Any:
    """A stat's value as a key: numpy scalars and 0-d arrays as Python numbers."""
    return x.item() if hasattr(x, "item") else x


def _template(r: Any, text: str, field: str, names) -> tuple[str | tuple[Expr, bool], ...]:
    parts: list[str | tuple[Expr, bool]] = []
    at = 0
    for m in _PART.finditer(text):
        parts.append(text[at:m.start()])
        at = m.end()
        token = m.group(0)
        if token in ("{{", "}}"):
            parts.append(token[0])
            continue
        if m.group(1) is None:
            r.fail(field, 'text whose braces hold an expression ("{bs}", "{cover:+}"; "{{" for a brace)', text)
        source, signed = m.group(1), m.group(1).rstrip().endswith(":+")
        if signed:
            source = source.rstrip()[:-2]
        try:
            parts.append((parse(source, names), signed))
        except ExpressionError as exc:
            r.fail(field, f"an expression in {{{m.group(1)}}}: {exc.expected}", exc.got)
    parts.append(text[at:])
    return tuple(p for p in parts if p != "")


def read_says(r: Any, sd: Mapping[str, Any], field: str, names, key: str = "says") -> Says | None:
    """A stage's ``says`` (or the table's ``key``; None: not written), read with the
    :class:`~workbench.rules.reader.Reader` ``r``."""
    if key not in sd:
        return None
    data, field = sd[key], f"{field}.{key}"
    listed = data if isinstance(data, list) else [data]
    if not isinstance(data, (str, list)) or not listed or len(listed) > MAX_PIECES:
        r.fail(field, f"a string, or a list of 1 to {MAX_PIECES} strings or {{ text, when }} tables", data)
    pieces = []
    for i, piece in enumerate(listed):
        where = f"{field}[{i}]" if isinstance(data, list) else field
        pieces.append(_Piece(*text_when(r, piece, where, names, lambda text, at: _template(r, text, at, names))))
    return Says(tuple(pieces))


def text_when(r: Any, item: Any, field: str, names, read: Callable[[str, str], Any] = lambda text, at: text
              ) -> tuple[Any, Expr | None]:
    """(text, condition or None) of one item of a list of ``says`` pieces or of ``system.notes``: a
    string, or a ``{ text, when }`` table; read with the :class:`~workbench.rules.reader.Reader` ``r``,
    the text passed through ``read`` with its field before the condition is read."""
    if isinstance(item, str):
        return read(item, field), None
    if not isinstance(item, dict):
        r.fail(field, "a string or a { text, when } table", item)
    r.known(item, field, ("text", "when"))
    text = read(r.string(item, "text", field), f"{field}.text")
    return text, r.expr(item, "when", field, names)
