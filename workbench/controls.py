"""What one argument of a stat-level function may hold, and how a page shows it.

A :class:`Control` is one argument as a playtester meets it: its kind, range, starting value,
label ("BS (roll needed)") and a line of help; it also reads and writes the value as text (the
shareable link's ``?bs=4``). Every system's description (:mod:`workbench.systems`) lists its
controls; the dashboards only draw them. :func:`slider`, :func:`optional_slider`, :func:`toggle`,
:func:`dropdown` and :func:`fine_slider` keep a system's list of controls readable.
"""
from __future__ import annotations

import math

from dataclasses import dataclass
from typing import Any

from .errors import InputError
from .validate import choice

__all__ = ["Control", "NONE_TOKEN", "RESERVED", "KINDS", "slider", "optional_slider", "toggle", "dropdown",
           "fine_slider", "value_words"]

#: how ``None`` is written in a query string and shown in a dropdown
NONE_TOKEN = "none"

#: arguments every stat-level function ends with; never a control
RESERVED = ("method", "samples", "seed")


#: the kinds of control
KINDS = ("int", "float", "optint", "bool", "choice")

#: the words a query string may write a checkbox's value in
_TRUTH = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}


@dataclass(frozen=True)
class Control:
    """One dashboard control for one stat-level argument.

    * ``kind``: ``"int"`` (slider), ``"float"`` (slider), ``"optint"`` (a
      slider whose lowest position, ``lo - 1``, means ``None``: "no cap",
      "not used"), ``"bool"`` (checkbox) or ``"choice"`` (dropdown of
      ``options``).
    * ``default``: the dashboard's starting value (``None`` allowed for
      ``optint`` and for a choice that lists ``None``).
    """

    name: str
    kind: str
    default: Any
    lo: float | None = None
    hi: float | None = None
    step: float = 1
    options: tuple = ()
    label: str = ""
    help: str = ""
    #: how a dropdown's options read, ``((option, words), ...)`` ("bs_plus_4" -> "BS +4"); an option
    #: not listed reads as itself with spaces for underscores
    words: tuple = ()

    def __post_init__(self):
        choice(f"{self.name}.kind", self.kind, KINDS)
        if self.kind in ("int", "float", "optint") and not (
                isinstance(self.lo, (int, float)) and isinstance(self.hi, (int, float)) and self.lo <= self.hi):
            raise InputError(f"{self.name}.lo/hi", "two numbers with lo <= hi", (self.lo, self.hi))
        if not self.help.strip():
            raise InputError(f"{self.name}.help", "a line of help in a playtester's words", self.help)
        if self.kind == "choice" and self.default not in self.options:
            raise InputError(f"{self.name}.default", "one of " + ", ".join(map(repr, self.options)),
                             self.default)
        for pair in self.words:
            if not (isinstance(pair, tuple) and len(pair) == 2 and pair[0] in self.options
                    and isinstance(pair[1], str) and pair[1].strip()):
                raise InputError(f"{self.name}.words", "(option, words) pairs of the control's options", pair)

    @property
    def bounds(self) -> tuple[float, float]:
        """``(lo, hi)`` of a slider control (``int``, ``float`` or ``optint``: __post_init__
        makes sure it has both); a control of another kind has none."""
        if self.lo is None or self.hi is None:
            raise InputError(f"{self.name}.lo/hi", "two numbers with lo <= hi", (self.lo, self.hi))
        return self.lo, self.hi

    @property
    def text(self) -> str:
        """The control's label ("BS (roll needed)"), else its name in words."""
        return self.label or self.name.replace("_", " ")

    def say(self, value: Any) -> str:
        """``value`` as a playtester reads it beside the label: "yes"/"no" for
        a checkbox, "none" for no value, an option's words ("BS +4"), a number
        as written."""
        if value is not None and not isinstance(value, bool):
            for option, words in self.words:
                if option == value and type(option) is type(value):
                    return words
        return value_words(value)

    def setting(self, value: Any) -> str:
        """"label: value" in words ("heavy weapon in a SHOT action: BS +4")."""
        return f"{self.text}: {self.say(value)}"

    # -- values <-> query text ---------------------------------------------
    def check(self, value: Any) -> Any:
        """``value`` if this control can show it, else :class:`InputError`."""
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            raise InputError(self.name, "true or false", value)
        if self.kind == "choice":
            for o in self.options:
                if o == value and type(o) is type(value):
                    return o
            raise InputError(self.name, "one of " + ", ".join(_token(o) for o in self.options), value)
        if self.kind == "optint" and value is None:
            return None
        whole = self.kind != "float"
        number_ok = (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and math.isfinite(value) and (not whole or value.is_integer()))
        lo, hi = self.bounds
        if not number_ok or not (lo <= value <= hi):
            expected = f"a {'whole ' if whole else ''}number from {lo:g} to {hi:g}"
            if self.kind == "optint":
                expected += f" or {NONE_TOKEN!r}"
            raise InputError(self.name, expected, value)
        if self.kind == "int" and self.step != 1 and (value - lo) % self.step:
            raise InputError(self.name, f"a number from {lo:g} to {hi:g} in steps of {self.step:g}", value)
        return float(value) if self.kind == "float" else int(value)

    def parse(self, text: str) -> Any:
        """The value written ``text`` in a query string (checked)."""
        raw = text.strip()
        if self.kind == "bool":
            return self.check(_TRUTH.get(raw.lower(), raw))   # check refuses a word that is neither
        if self.kind == "choice":
            for o in self.options:
                if _token(o) == raw:
                    return o
            return self.check(raw)  # raises with the options
        if self.kind == "optint" and raw.lower() == NONE_TOKEN:
            return None
        try:
            number = float(raw)
        except ValueError:
            number = None
        if number is None or not math.isfinite(number):
            return self.check(raw)  # raises with the expected text, naming the text given
        if self.kind != "float" and number.is_integer():
            number = int(number)
        return self.check(number)

    def format(self, value: Any) -> str:
        """The query-string text of ``value``."""
        if self.kind == "bool":
            return "true" if value else "false"
        if self.kind == "float":
            return f"{value:g}"
        return _token(value)


def value_words(value: Any) -> str:
    """A value as a reader writes it: "none", "yes"/"no", a number, words for a name (a list and a
    dict item by item)."""
    if value is None:
        return NONE_TOKEN
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return "; ".join(value_words(v) for v in value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k.replace('_', ' ')} {value_words(v)}" for k, v in value.items()) + "}"
    return str(value).replace("_", " ")


def _token(value: Any) -> str:
    return NONE_TOKEN if value is None else str(value)


def slider(name: str, default: int, lo: int, hi: int, label: str, help: str, step: int = 1) -> Control:
    """A whole-number slider from ``lo`` to ``hi`` (by ``step``: a value off its steps is refused)."""
    return Control(name, "int", default, lo, hi, step, label=label, help=help)


def optional_slider(name: str, default: int | None, lo: int, hi: int, label: str, help: str) -> Control:
    """A whole-number slider whose lowest notch (``lo - 1``) means "none" (no cap, not used)."""
    return Control(name, "optint", default, lo, hi, 1, label=label, help=help)


def toggle(name: str, default: bool, label: str, help: str) -> Control:
    """A yes/no checkbox."""
    return Control(name, "bool", default, label=label, help=help)


def dropdown(name: str, default: Any, options, label: str, help: str, words: dict | None = None) -> Control:
    """A dropdown of ``options`` (``None`` among them reads "none"); ``words``:
    option -> how it reads, for an option whose value is not a word."""
    return Control(name, "choice", default, options=tuple(options), label=label, help=help,
                   words=tuple((words or {}).items()))


def fine_slider(name: str, default: float, lo: float, hi: float, step: float, label: str, help: str) -> Control:
    """A slider of decimal numbers."""
    return Control(name, "float", default, lo, hi, step, label=label, help=help)
