"""The expression language of rule files: a whitelisted subset of Python syntax on integers.

An expression is parsed with :func:`ast.parse` (``mode="eval"``) and only
these nodes are accepted: integer literals, names of the file's stats, the
binary operators ``+ - * //``, unary ``-``, comparisons (``== != < <= > >=``,
giving 1 or 0; chains as in Python), ``and``, ``or``, ``not``,
``A if CONDITION else B`` and calls of ``min``, ``max``, ``abs``. The
accepted tree is copied into plain tuples and evaluated by a small
interpreter over numpy int64 arrays, so a whole sweep of stat values is one
evaluation. Nothing is ever passed to ``eval`` or ``compile``.

``and``/``or`` return one of their operands as in Python (``2 and 3`` is 3);
``not`` gives 1 or 0. A floor division by zero is an error only in the cells
where that branch of the expression is actually taken.

Bounds keep a file from doing unbounded work: at most ``MAX_SOURCE``
characters, ``MAX_NODES`` syntax nodes, ``MAX_DEPTH`` levels of nesting,
integer literals up to ``MAX_LITERAL`` and intermediate values up to
``MAX_VALUE`` in size.
"""
from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ..errors import InputError
from ..validate import did_you_mean
from .errors import ExpressionError

__all__ = ["Expr", "parse", "FUNCTIONS", "MAX_SOURCE", "MAX_NODES", "MAX_DEPTH", "MAX_LITERAL",
           "MAX_VALUE"]

MAX_SOURCE = 500
MAX_NODES = 200
MAX_DEPTH = 30
MAX_LITERAL = 1_000_000
MAX_VALUE = 10 ** 12

FUNCTIONS = ("min", "max", "abs")
ALLOWED = ("integer literals, stat names, + - * // (floor division), unary -, parentheses, "
           "comparisons (== != < <= > >=), and, or, not, A if CONDITION else B, min(), max(), abs()")

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//"}
_CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_REFUSED = {
    ast.Div: "'/' (use // for floor division)", ast.Pow: "'**' (powers)", ast.Mod: "'%'",
    ast.MatMult: "'@'", ast.LShift: "'<<'", ast.RShift: "'>>'", ast.BitOr: "'|' (use or)",
    ast.BitAnd: "'&' (use and)", ast.BitXor: "'^'", ast.UAdd: "unary '+' (write the number alone)",
    ast.Invert: "'~'", ast.Is: "'is'", ast.IsNot: "'is not'", ast.In: "'in'", ast.NotIn: "'not in'",
}


def _describe(node: ast.AST, source: str) -> str:
    part = ast.get_source_segment(source, node)
    kind = {
        ast.Attribute: "attribute access", ast.Subscript: "a subscript", ast.Lambda: "a lambda",
        ast.JoinedStr: "an f-string", ast.Starred: "a starred argument", ast.Tuple: "a tuple",
        ast.List: "a list", ast.Dict: "a dict", ast.Set: "a set", ast.ListComp: "a comprehension",
        ast.SetComp: "a comprehension", ast.DictComp: "a comprehension",
        ast.GeneratorExp: "a generator", ast.NamedExpr: "an assignment (:=)", ast.Await: "await",
        ast.Yield: "yield", ast.YieldFrom: "yield", ast.Slice: "a slice",
    }.get(type(node), type(node).__name__)
    return f"{kind} {part!r}" if part else kind


@dataclass(frozen=True)
class Expr:
    """A checked expression: ``source`` text, ``names`` it reads, and its tree."""

    source: str
    names: frozenset
    tree: tuple

    def evaluate(self, env: Mapping[str, Any], field: str = "expression") -> np.ndarray:
        """The integer value(s) for stat values ``env`` (ints or int arrays broadcasting together).

        A division by zero or a value beyond ``MAX_VALUE`` raises
        :class:`~workbench.errors.InputError` naming ``field`` and the stats read.
        """
        with np.errstate(all="ignore"):
            out = _eval(self.tree, env, np.True_, self, field)
        return np.asarray(out, dtype=np.int64)

    def scalar(self, env: Mapping[str, Any], field: str = "expression") -> int:
        return int(self.evaluate(env, field))

    @functools.cached_property
    def order(self) -> tuple[str, ...]:
        """The names it reads, sorted: the key of a value remembered by the stats it reads."""
        return tuple(sorted(self.names))

    def __str__(self) -> str:
        return self.source


def parse(source: Any, names: frozenset | set | tuple) -> Expr:
    """Check ``source`` against the whitelist; ``names`` are the names it may read.

    Raises :class:`~workbench.rules.errors.ExpressionError` naming the
    offending part. An int (TOML ``target = 4``) is accepted as its text.
    """
    if isinstance(source, bool) or not isinstance(source, (str, int)):
        raise ExpressionError("an expression as a string (e.g. \"bs + 1\") or an integer", source)
    if isinstance(source, int):
        if abs(source) > MAX_LITERAL:
            raise ExpressionError(f"integers up to {MAX_LITERAL} in size", source)
        source = str(source)
    if len(source) > MAX_SOURCE:
        raise ExpressionError(f"an expression of at most {MAX_SOURCE} characters", f"{len(source)} characters")
    if not source.strip():
        raise ExpressionError("an expression", source)
    try:
        node = ast.parse(source.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"an expression in Python syntax ({exc.msg})", source) from None
    except (ValueError, RecursionError, MemoryError):
        raise ExpressionError("an expression in Python syntax", source) from None
    names = frozenset(names)
    used: set[str] = set()
    count = [0]
    tree = _check(node.body, source.strip(), names, used, 1, count)
    return Expr(source, frozenset(used), tree)


def _check(node: ast.AST, src: str, names: frozenset, used: set, depth: int, count: list) -> tuple:
    count[0] += 1
    if count[0] > MAX_NODES:
        raise ExpressionError(f"an expression of at most {MAX_NODES} parts", src)
    if depth > MAX_DEPTH:
        raise ExpressionError(f"at most {MAX_DEPTH} levels of nesting", src)

    def sub(n):
        return _check(n, src, names, used, depth + 1, count)

    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool):
            raise ExpressionError(f"only integers ({ALLOWED}): write 1 or 0 instead", repr(node.value))
        if not isinstance(node.value, int):
            raise ExpressionError(f"only integers ({ALLOWED})", _describe(node, src) if not isinstance(
                node.value, str) else f"the string {node.value!r}")
        if abs(node.value) > MAX_LITERAL:
            raise ExpressionError(f"integers up to {MAX_LITERAL} in size", node.value)
        return ("const", int(node.value))
    if isinstance(node, ast.Name):
        if node.id not in names:
            hint = did_you_mean(node.id, sorted(names))
            allowed = ", ".join(sorted(names)) or "none"
            raise ExpressionError(f"a stat name ({allowed})" + (f" ({hint})" if hint else ""), node.id)
        used.add(node.id)
        return ("name", node.id)
    if isinstance(node, ast.BinOp):
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise ExpressionError(f"only {ALLOWED}", _REFUSED.get(type(node.op), type(node.op).__name__))
        return ("bin", op, sub(node.left), sub(node.right))
    if isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.USub):
            return ("neg", sub(node.operand))
        if isinstance(node.op, ast.Not):
            return ("not", sub(node.operand))
        raise ExpressionError(f"only {ALLOWED}", _REFUSED.get(type(node.op), type(node.op).__name__))
    if isinstance(node, ast.Compare):
        ops = []
        for cmp in node.ops:
            sym = _CMPOPS.get(type(cmp))
            if sym is None:
                raise ExpressionError(f"only {ALLOWED}", _REFUSED.get(type(cmp), type(cmp).__name__))
            ops.append(sym)
        return ("cmp", tuple(ops), tuple(sub(n) for n in [node.left, *node.comparators]))
    if isinstance(node, ast.BoolOp):
        kind = "and" if isinstance(node.op, ast.And) else "or"
        return (kind, tuple(sub(n) for n in node.values))
    if isinstance(node, ast.IfExp):
        return ("if", sub(node.test), sub(node.body), sub(node.orelse))
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            what = ast.get_source_segment(src, node.func) or "?"
            raise ExpressionError("calls of min, max or abs only", f"a call of {what}")
        fn = node.func.id
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise ExpressionError(f"plain arguments to {fn}()", ast.get_source_segment(src, node))
        if fn == "abs" and len(node.args) != 1:
            raise ExpressionError("abs() of one argument", ast.get_source_segment(src, node))
        if fn != "abs" and len(node.args) < 2:
            raise ExpressionError(f"{fn}() of two or more arguments", ast.get_source_segment(src, node))
        return ("call", fn, tuple(sub(a) for a in node.args))
    raise ExpressionError(f"only {ALLOWED}", _describe(node, src))


# ---------------------------------------------------------------------------
# the interpreter
# ---------------------------------------------------------------------------
def _cells(env: Mapping[str, Any], expr: Expr, mask) -> str:
    """The stat values of the first cell where something went wrong, for the message."""
    parts = []
    for name in sorted(expr.names):
        val = np.asarray(env[name])
        if val.ndim:
            m = np.broadcast_to(mask, np.broadcast_shapes(val.shape, np.shape(mask)))
            idx = np.argwhere(m)
            val = np.broadcast_to(val, m.shape)[tuple(idx[0])] if idx.size else val.ravel()[0]
        parts.append(f"{name}={int(val)}")
    return ", ".join(parts)


def _refuse(bad, mask, expected: str, expr: Expr, env, field: str) -> None:
    """Raise naming the first cell where ``bad`` holds and the branch is taken (``mask``)."""
    if np.any(bad & mask):
        raise InputError(field, expected, _cells(env, expr, bad & mask))


def _bounded(x, mask, expr: Expr, env, field: str):
    x = np.asarray(x, dtype=np.int64)
    if _largest(x) > MAX_VALUE:  # the common case is one reduction, no mask
        _refuse(np.abs(x) > MAX_VALUE, mask, f"values up to {MAX_VALUE} in size from '{expr.source}'", expr, env,
                field)
    return x


def _largest(x: np.ndarray) -> int:
    """The largest size of the values of ``x`` (a Python integer: no overflow)."""
    return abs(int(x.item())) if x.size == 1 else int(np.abs(x).max(initial=0))


_COMPARE = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
            ">=": np.greater_equal}
_ARITH = {"+": np.add, "-": np.subtract, "*": np.multiply}


def _eval(t: tuple, env, mask, expr: Expr, field: str):
    kind = t[0]
    if kind == "const":
        return np.int64(t[1])
    if kind == "name":
        return np.asarray(env[t[1]], dtype=np.int64)
    if kind == "neg":
        return -_eval(t[1], env, mask, expr, field)
    if kind == "not":
        return (_eval(t[1], env, mask, expr, field) == 0).astype(np.int64)
    if kind == "bin":
        _, op, left, right = t
        a = _eval(left, env, mask, expr, field)
        b = _eval(right, env, mask, expr, field)
        if op == "//":
            zero = b == 0
            if zero.item() if zero.size == 1 else zero.any():
                _refuse(zero, mask, f"a divisor other than 0 in '{expr.source}'", expr, env, field)
                b = np.where(zero, 1, b)
            return a // b        # no larger than a (every operand is bounded already)
        if op == "*" and _largest(a) * _largest(b) > MAX_VALUE:   # a product may be too large
            _refuse(np.abs(a.astype(float) * b) > MAX_VALUE, mask, f"values up to {MAX_VALUE} in size from "
                    f"'{expr.source}'", expr, env, field)
        return _bounded(_ARITH[op](a, b), mask, expr, env, field)
    if kind == "cmp":
        _, ops, operands = t
        left = _eval(operands[0], env, mask, expr, field)
        result = None
        for op, right_t in zip(ops, operands[1:]):
            right = _eval(right_t, env, mask, expr, field)
            one = _COMPARE[op](left, right)
            result = one if result is None else result & one
            left = right
        return np.asarray(result).astype(np.int64)
    if kind in ("and", "or"):
        values = t[1]
        out = _eval(values[0], env, mask, expr, field)
        live = mask & ((out != 0) if kind == "and" else (out == 0))
        for v in values[1:]:
            nxt = _eval(v, env, live, expr, field)
            out = np.where(live, nxt, out)
            live = live & ((nxt != 0) if kind == "and" else (nxt == 0))
        return np.asarray(out, dtype=np.int64)
    if kind == "if":
        _, cond_t, body_t, else_t = t
        cond = _eval(cond_t, env, mask, expr, field) != 0
        body = _eval(body_t, env, mask & cond, expr, field)
        other = _eval(else_t, env, mask & ~cond, expr, field)
        return np.asarray(np.where(cond, body, other), dtype=np.int64)
    if kind == "call":
        _, fn, args = t
        vals = [_eval(a, env, mask, expr, field) for a in args]
        if fn == "abs":
            return np.abs(vals[0])
        return np.asarray(functools.reduce(np.minimum if fn == "min" else np.maximum, vals), dtype=np.int64)
    raise AssertionError(kind)  # pragma: no cover - the parser builds only the kinds above
