"""A variant: a system plus settings, an immutable value checked when it is
made (:func:`variant`, :meth:`Variant.parse`), and how its stats, settings
and the change between two of them read in a designer's words.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import systems
from ..controls import RESERVED, Control, value_words
from ..errors import InputError, UnknownArgumentError
from ..grid import scalar_text
from ..systems.description import SystemDescription
from ..systems.records import styled
from ..teach.matchup import _query_value
from ..validate import did_you_mean

__all__ = ["Variant", "variant", "stat_words", "change_words", "setting_words"]


@dataclass(frozen=True)
class Variant:
    """A system with some of its function's arguments fixed.

    ``description``: the system; ``function``: the stat-level function
    compared (its first dashboard mode's by default); ``settings``: the fixed
    ``(argument, value)`` pairs, sorted; ``label``: how a reader names it
    (default: the system's name and the settings in words).
    """

    description: SystemDescription = field(compare=False, hash=False, repr=False)
    function: str
    settings: tuple[tuple[str, Any], ...] = ()
    label: str = ""
    #: the system's key and, for a rule file read from a path, that path (what equality compares)
    key: str = ""
    path: str = ""

    def __deepcopy__(self, memo: dict) -> "Variant":
        return self  # immutable (pandas deep-copies a DataFrame's attrs, which hold variants)

    @property
    def name(self) -> str:
        """The label, or the system's name with the settings in words."""
        if self.label:
            return self.label
        if not self.settings:
            return self.description.name
        return f"{self.description.name} with " + ", ".join(
            setting_words(self.description, self.function, k, v) for k, v in self.settings)

    @property
    def spec(self) -> str:
        """The variant as the command line and a link write it: ``changes:heavy_shot=flat_4``."""
        head = self.path or self.key
        if not self.settings:
            return head
        controls = _controls(self.description, self.function)
        return head + ":" + ",".join(f"{k}={_query_value(controls.get(k), v)}" for k, v in self.settings)

    def arguments(self) -> dict[str, Any]:
        """Keyword -> default of the function (``inspect.Parameter.empty`` when required)."""
        return self.description.arguments(self.function)

    def replace(self, label: str | None = None, **settings: Any) -> "Variant":
        """The same system with more (or other) settings (and another label, if given)."""
        return variant(self.description, self.function, label=self.label if label is None else label,
                       path=self.path or None,
                       **{**dict(self.settings), **settings})

    @classmethod
    def parse(cls, text: str, label: str = "") -> "Variant":
        """``"changes"``, ``"changes:heavy_shot=flat_4,action=shot"`` or a rule file's path
        (``"my_rules/kill6.toml:bs=3"``)."""
        if not isinstance(text, str) or not text.strip():
            raise InputError("variant", "a system key, optionally with settings: changes:heavy_shot=flat_4",
                             text)
        head, _, rest = text.strip().partition(":")
        if len(head) == 1 and rest[:1] in ("\\", "/"):  # a Windows drive letter, C:\...
            drive, _, rest2 = rest.partition(":")
            head, rest = head + ":" + drive, rest2
        desc, path = _describe(head)
        function = desc.modes[0].function
        controls = _controls(desc, function)
        settings = {}
        for item in (x for x in rest.split(",") if x.strip()):
            name, sep, value = item.partition("=")
            name = name.strip()
            if not sep or not name or not value.strip():
                raise InputError("variant", "settings written name=value, separated by commas "
                                 "(changes:heavy_shot=flat_4,action=shot)", item)
            if name in settings:
                raise InputError(name, "one value per setting", item)
            settings[name] = controls[name].parse(value) if name in controls else scalar_text(value)
        return variant(desc, function, label=label, path=path, **settings)


def _is_path(text: str) -> bool:
    return text.endswith(".toml") or os.sep in text or "/" in text


def _describe(system: Any) -> tuple[SystemDescription, str | None]:
    """A registered system by key or description (and None), or a rule file by path (and its path)."""
    if isinstance(system, (str, os.PathLike)) and _is_path(str(system)):
        from .. import rules
        from ..systems.description import describe_rules
        if not Path(system).is_file():
            raise InputError("variant", "a registered system's key or a rule file that exists", str(system))
        return describe_rules(rules.load(Path(system)), systems.RULE_COLOURS[0]), str(system)  # on no shared plot
    return systems.get(system), None


def _controls(desc: SystemDescription, function: str) -> dict[str, Control]:
    return {c.name: c for c in desc.controls(function)}


def variant(system: Any, function: str | None = None, *, label: str = "", path: str | None = None,
            **settings: Any) -> Variant:
    """A :class:`Variant` of ``system`` (a key, a description or a rule file's path).

    Each setting must be an argument of ``function`` (did-you-mean on a
    typo) and a value its dashboard control can show (one of a switch's
    choices, a stat within its range); ``method``/``samples``/``seed`` are
    not settings.
    """
    desc, found = _describe(system)
    path = found if path is None else path
    function = desc.modes[0].function if function is None else function
    desc.function(function)  # an unknown name raises, listing the system's functions
    if not isinstance(label, str):
        raise InputError("label", "a text naming the variant", label)
    accepted = [k for k in desc.arguments(function) if k not in RESERVED]
    controls = _controls(desc, function)
    checked = {}
    for name, value in settings.items():
        if name not in accepted:
            raise UnknownArgumentError("setting", f"an argument of {desc.key}.{function}: " + ", ".join(accepted),
                                       name, did_you_mean(name, accepted))
        checked[name] = controls[name].check(value) if name in controls else value
    return Variant(description=desc, function=function, settings=tuple(sorted(checked.items())),
                   label=label.strip(), key=desc.key, path=str(path) if path else "")


def _as_variant(x: Any, role: str) -> Variant:
    if isinstance(x, Variant):
        return x
    if isinstance(x, str):
        return Variant.parse(x)
    if isinstance(x, SystemDescription):
        return variant(x)
    raise InputError(role, "a Variant, or a system key with settings such as 'changes:heavy_shot=flat_4'",
                     type(x).__name__)


def _sides(desc: SystemDescription, function: str) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for m in desc.modes:
        if m.function == function and m.sides is not None:
            for name, label, style in (*m.sides.firer, *m.sides.weapon, *m.sides.target):
                out.setdefault(name, (label, style))
    return out


def stat_words(desc: SystemDescription, function: str, name: str, value: Any) -> str:
    """How one argument's value reads: "BS 6+", "T +2", "10 shots", "action shot"."""
    if isinstance(value, np.generic):
        value = value.item()
    sides = _sides(desc, function)
    if name in sides and isinstance(value, int) and not isinstance(value, bool):
        label, style = sides[name]
        return f"{label} {styled(value, style)}"
    if name in ("shots", "attacks") and isinstance(value, int):
        return f"{value} {name if value != 1 else name[:-1]}"
    control = _controls(desc, function).get(name)
    label = (control.label if control is not None and control.label else name.replace("_", " "))
    if control is not None and control.kind == "bool":
        return label if value else f"not {label}"
    return f"{label} {value_words(value)}"


def change_words(a: Variant, b: Variant) -> str:
    """How a reader names the change from ``a`` to ``b``: ``b``'s label when it has one, else the
    settings of ``b`` that differ from ``a`` ("heavy weapon in a SHOT action: flat 4") when both are
    the same system, else ``b``'s name."""
    if b.label or a.key != b.key or a.path != b.path:
        return b.name
    before = dict(a.settings)
    changed = [(k, v) for k, v in b.settings if k not in before or before[k] != v]
    dropped = [k for k in before if k not in dict(b.settings)]
    if not changed and not dropped:
        return b.name
    words = [setting_words(b.description, b.function, k, v) for k, v in changed]
    defaults = b.arguments()
    words += [setting_words(b.description, b.function, k, defaults[k]) for k in dropped]
    return ", ".join(words)


def setting_words(desc: SystemDescription, function: str, name: str, value: Any) -> str:
    """How a variant's setting reads: "heavy weapon in a SHOT action: flat 4"."""
    control = _controls(desc, function).get(name)
    if control is not None and control.kind == "choice":
        return f"{control.label or name.replace('_', ' ')}: {value_words(value)}"
    return stat_words(desc, function, name, value)
