"""The error a broken rule file raises: the file, the field, what is allowed, what was found, the line."""
from __future__ import annotations

from typing import Any

from ..errors import InputError, WorkbenchError, _show

__all__ = ["RuleFileError", "ExpressionError", "ForbiddenError", "BudgetError"]


class RuleFileError(WorkbenchError):
    """A rule file cannot be read or has a bad field.

    ``path`` the file, ``field`` the key path (``stages[1].target``,
    ``stats.bs.max``), ``expected`` what is allowed, ``got`` what was found,
    ``line`` the 1-based line in the file (None when it cannot be located).
    """

    def __init__(self, path: Any, field: str, expected: str, got: Any, line: int | None = None):
        self.path = str(path)
        self.field = field
        self.expected = expected
        self.got = got
        self.line = line
        where = f"{self.path}, line {line}" if line else self.path
        super().__init__(f"{where}: {field}: expected {expected}, got {_show(got)}")


class ExpressionError(WorkbenchError):
    """An expression uses syntax outside the rule-file language (raised by the
    parser without a file; the loader turns it into a :class:`RuleFileError`)."""

    def __init__(self, expected: str, got: Any):
        self.expected = expected
        self.got = got
        super().__init__(f"expected {expected}, got {_show(got)}")


class ForbiddenError(InputError):
    """A resolution whose stats make a ``[[forbid]]`` rule true: the message
    is the designer's, followed by the stats it tested."""

    def __init__(self, field: str, message: str, when: str, values: dict):
        self.field = field
        self.expected = f"stats for which '{when}' is false"
        self.got = values
        self.hint = message
        shown = ", ".join(f"{k}={v!r}" for k, v in values.items())
        ValueError.__init__(self, f"{message} ({field}: '{when}' is true for {shown})")


class BudgetError(InputError, RuleFileError):
    """A resolution refused before it starts: the work it would take (tokens,
    unit states, dice rolled) passes a budget of docs/rulefiles.md.

    Both a :class:`RuleFileError` (``path``, ``field``, ``expected``, ``got``,
    ``line`` None) and an :class:`~workbench.errors.InputError` (``hint``), so
    that a caller catching either sees it."""

    def __init__(self, path: Any, field: str, expected: str, got: Any, hint: str | None = None):
        RuleFileError.__init__(self, path, field, expected, got)
        self.hint = hint
        if hint:
            ValueError.__init__(self, f"{self} ({hint})")
