"""Argument checks shared by every rule system.

Each check returns the cleaned value or raises :class:`~workbench.errors.InputError`
naming the argument, the allowed values and the value given. Booleans are not
integers here, NaN is never a number, and numpy scalars are accepted.
"""
from __future__ import annotations

import difflib
import functools
import inspect
import math
import numbers
from typing import Any, Callable, Iterable

import numpy as np

from .errors import InputError, UnknownArgumentError

__all__ = [
    "integer", "optional_integer", "real", "choice", "boolean", "method_args",
    "stat_function", "did_you_mean", "forbid", "integers", "optional_integers", "integer_checks", "broadcastable",
    "table_size", "MAX_TABLE_SIZE",
]

#: probabilities one vectorised table call may hold (cells x counts): 40 MB a float array
MAX_TABLE_SIZE = 5_000_000


def _range_text(lo: int | float | None, hi: int | float | None) -> str:
    if lo is not None and hi is not None:
        return f"from {lo} to {hi}"
    if lo is not None:
        return f"{lo} or more"
    if hi is not None:
        return f"{hi} or less"
    return "any value"


def _as_float(value: Any) -> float:
    """``float(value)``, or NaN for a number too large for a float (10**400,
    Fraction(10**400)): it is then rejected like any non-finite number."""
    try:
        return float(value)
    except (OverflowError, ValueError, TypeError):
        return math.nan


def integer(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    """A whole number in ``[lo, hi]`` (an integral float such as 5.0 is accepted)."""
    if type(value) is int and (lo is None or value >= lo) and (hi is None or value <= hi):
        return value             # the common case, before the numeric tower's checks
    out: int | None = None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        pass
    elif isinstance(value, numbers.Integral):
        out = int(value)
    elif isinstance(value, numbers.Rational) and not isinstance(value, float):
        out = int(value.numerator) if value.denominator == 1 else None
    else:
        f = _as_float(value)
        out = int(f) if math.isfinite(f) and f == int(f) else None
    if out is None or (lo is not None and out < lo) or (hi is not None and out > hi):
        raise InputError(name, f"a whole number {_range_text(lo, hi)}", value)
    return out


def optional_integer(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int | None:
    """``None`` or a whole number in ``[lo, hi]``."""
    if value is None:
        return None
    try:
        return integer(name, value, lo, hi)
    except InputError:
        raise InputError(name, f"None or a whole number {_range_text(lo, hi)}", value) from None


def real(name: str, value: Any, lo: float | None = None, hi: float | None = None,
         *, lo_open: bool = False) -> float:
    """A finite real number in ``[lo, hi]`` (``(lo, hi]`` with ``lo_open``)."""
    number = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
    f = _as_float(value) if number else math.nan
    if not math.isfinite(f) or (lo is not None and (f <= lo if lo_open else f < lo)) or (hi is not None and f > hi):
        if lo_open:
            raise InputError(name, f"a finite number above {lo}" + (f" and at most {hi}" if hi is not None else ""),
                             value)
        raise InputError(name, f"a finite number {_range_text(lo, hi)}", value)
    return f


def choice(name: str, value: Any, allowed: Iterable[Any]) -> Any:
    """One of ``allowed`` (compared with ``==``; strings are case-sensitive)."""
    allowed = tuple(allowed)
    for a in allowed:
        if (type(a) is type(value) or isinstance(a, str) and isinstance(value, str)) and a == value:
            return a
    raise InputError(name, "one of " + ", ".join(repr(a) for a in allowed), value, did_you_mean(value, allowed))


def did_you_mean(value: Any, names: Iterable[Any]) -> str | None:
    """"did you mean 'x'?" for the name among ``names`` closest to ``value`` (or the same but for
    its case), else None (also when ``names`` is no collection): the hint of an unknown name or option."""
    if not isinstance(value, str) or not isinstance(names, Iterable) or isinstance(names, str):
        return None
    words = [n for n in names if isinstance(n, str)]
    close = difflib.get_close_matches(value, words, n=1) or [n for n in words if n.lower() == value.lower()]
    return f"did you mean {close[0]!r}?" if close else None


def boolean(name: str, value: Any) -> bool:
    """``True`` or ``False`` (numpy booleans too; not 0/1, not strings)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InputError(name, "True or False", value)


def forbid(name: str, value: Any, expected: str, hint: str | None = None) -> None:
    """Raise the standard error for a combination the rules forbid."""
    raise InputError(name, expected, value, hint)


MAX_SAMPLES = 50_000_000


def method_args(method: Any, samples: Any, seed: Any) -> tuple[str, int, np.random.Generator | None]:
    """Check ``method``/``samples``/``seed``; return them with the seed as a Generator.

    ``seed`` is an int (a fresh ``numpy.random.default_rng(seed)``) or a
    ``numpy.random.Generator`` that the caller owns.
    """
    method = choice("method", method, ("exact", "sampled"))
    # checked whatever the method, so that a bad value is never silently ignored
    samples = integer("samples", samples, 1, MAX_SAMPLES)
    if not (isinstance(seed, np.random.Generator)
            or (isinstance(seed, numbers.Integral) and not isinstance(seed, (bool, np.bool_))
                and int(seed) >= 0)):
        raise InputError("seed", "a whole number 0 or more, or a numpy.random.Generator", seed)
    if method == "exact":
        return method, 0, None
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(int(seed))
    return method, samples, rng


def stat_function(fn: Callable) -> Callable:
    """Decorate a stat-level function so that a wrong argument name or a
    missing argument raises :class:`UnknownArgumentError` (a ``ValueError``
    and a ``TypeError``) listing the accepted names, with a close match.
    A function that takes ``**kwargs`` checks the names it gathers there itself;
    only a missing argument or a clash is checked for it here."""
    if not callable(fn):
        raise InputError("fn", "a function", fn)
    sig = inspect.signature(fn)
    names = [p for p in sig.parameters if sig.parameters[p].kind is not inspect.Parameter.VAR_KEYWORD]
    open_names = len(names) < len(sig.parameters)  # a **kwargs takes any other name

    known = frozenset(names)

    def bad_arguments(args, kwargs) -> UnknownArgumentError | None:
        for key in kwargs:
            if key not in known and not open_names:
                return UnknownArgumentError("argument name", f"one of {', '.join(names)} for {fn.__qualname__}()",
                                            key, did_you_mean(key, names))
        try:
            sig.bind(*args, **kwargs)
        except TypeError as exc:
            return UnknownArgumentError(
                "arguments", f"keyword arguments as in {fn.__qualname__}{sig}", str(exc))
        return None

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        # Fast path: names are checked against a set; the signature is only
        # bound (slow) when the names are wrong or the call itself fails.
        if not open_names and not known.issuperset(kwargs):
            raise bad_arguments(args, kwargs)
        try:
            return fn(*args, **kwargs)
        except TypeError:
            error = bad_arguments(args, kwargs)
            if error is not None:
                raise error from None
            raise

    wrapper.__signature__ = sig  # type: ignore[attr-defined]  # read by inspect.signature; typeshed's function types do not declare it
    return wrapper


def integers(name: str, value: Any, lo: int, hi: int):
    """A whole number in ``[lo, hi]`` (returned as int), or an array or list of
    them (returned as an int64 array): the check behind the vectorised tables.
    The error names the first offending element."""
    if not isinstance(value, (np.ndarray, list, tuple)):
        return integer(name, value, lo, hi)
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001 - ragged lists and the like
        raise InputError(name, f"a whole number from {lo} to {hi}, or an array of them (not a ragged list)",
                         value) from None
    expected = f"whole numbers from {lo} to {hi}"
    if arr.ndim == 0:
        return integer(name, arr.item(), lo, hi)
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise InputError(name, expected, value)
    if arr.size == 0:
        raise InputError(name, "a non-empty array of " + expected, value)
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            raise InputError(name, expected, arr[bad].ravel()[0].item())
    bad = (arr < lo) | (arr > hi)   # before the cast, which would wrap numbers beyond int64
    if bad.any():
        raise InputError(name, expected, arr[bad].ravel()[0].item())
    return arr.astype(np.int64)


def optional_integers(name: str, value: Any, lo: int, hi: int):
    """``None``, or what :func:`integers` accepts."""
    if value is None:
        return None
    if not isinstance(value, (np.ndarray, list, tuple)):
        return optional_integer(name, value, lo, hi)
    return integers(name, value, lo, hi)


def integer_checks(arrays: bool):
    """``(whole, optional)``, the two integer checks of a system's argument
    check: :func:`integers` and :func:`optional_integers` for its vectorised
    tables (arrays allowed), :func:`integer` and :func:`optional_integer` for a
    scalar call."""
    return (integers, optional_integers) if boolean("arrays", arrays) else (integer, optional_integer)


def broadcastable(values: dict[str, Any]) -> tuple[int, ...]:
    """Check that the checked arrays of a vectorised table broadcast together;
    return the common shape. The error names the first argument that does not
    fit the ones before it."""
    if not isinstance(values, dict):
        raise InputError("values", "a dict of argument name -> checked value", values)
    shape: tuple[int, ...] = ()
    seen: list[str] = []
    for name, value in values.items():
        if not (isinstance(value, np.ndarray) and value.ndim):
            continue
        try:
            shape = np.broadcast_shapes(shape, value.shape)
        except ValueError:
            raise InputError(name, f"an array that broadcasts with {', '.join(seen)} (together shape {shape})",
                             f"an array of shape {value.shape}") from None
        seen.append(name)
    return shape


def table_size(shape: tuple[int, ...], width: int, name: str = "shots", limit: int = MAX_TABLE_SIZE) -> None:
    """Refuse a vectorised table whose cells x counts exceed ``limit`` (memory
    and time grow with it); the error names ``name`` (the count's argument)."""
    width = integer("width", width, 1)
    cells = int(np.prod(shape, dtype=np.int64))
    if cells * width > limit:
        most = max(0, limit // max(cells, 1) - 1)
        raise InputError(name, f"at most {most:,} with {cells:,} cells (a table holds at most {limit:,} "
                         f"probabilities: cells x counts)", f"{width - 1:,} as the largest count")
