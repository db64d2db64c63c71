"""The one error family of the workbench.

Every bad input ends in a :class:`WorkbenchError`, a ``ValueError`` subclass
whose message names the field, what was expected and what was found, so that
a notebook or a dashboard can show it as it is.
"""
from __future__ import annotations

from typing import Any

__all__ = ["WorkbenchError", "InputError", "UnknownArgumentError", "ProfileError"]


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class WorkbenchError(ValueError):
    """Base class of every error the workbench raises on purpose."""


class InputError(WorkbenchError):
    """A stat-level argument is of the wrong type, out of range, or forbidden.

    ``field`` is the argument's name, ``expected`` says what is allowed,
    ``got`` is the value given; ``hint`` (optional) says how to fix it.
    """

    def __init__(self, field: str, expected: str, got: Any, hint: str | None = None):
        self.field = field
        self.expected = expected
        self.got = got
        self.hint = hint
        message = f"{field}: expected {expected}, got {_show(got)}"
        if hint:
            message += f" ({hint})"
        super().__init__(message)


class UnknownArgumentError(InputError, TypeError):
    """An argument name the function does not take (also a ``TypeError``)."""


class ProfileError(WorkbenchError):
    """A profile file is missing, unreadable or has a bad field."""

    def __init__(self, path: Any, field: str, expected: str, got: Any):
        self.path = str(path)
        self.field = field
        self.expected = expected
        self.got = got
        super().__init__(f"{self.path}: {field}: expected {expected}, got {_show(got)}")
