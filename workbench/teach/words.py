"""An outcome's numbers and settings in a playtester's words: a chance as a
percentage (:func:`pct`), a stage chance as a player counts it
(:func:`ratio`), the title, the settings in the dashboard's labels
(:func:`input_lines`), a rule note without code (:func:`plain_note`) and
the side effects.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any, Mapping

from ..controls import RESERVED, value_words
from ..errors import InputError
from ..outcome import Outcome

__all__ = ["pct", "ratio", "title", "input_lines", "plain_note", "effect_is_probability", "value_words"]


_DIE = re.compile(r"\b[dD](\d{1,3})\b")
_FRACTION = re.compile(r"(?<![\d/])(\d+)/(\d+)(?![\d/])")


def _is_outcome(x: Any) -> bool:
    # an Outcome is recognised by what it carries (a look-alike from another process works too)
    return all(hasattr(x, a) for a in ("pmf", "stages", "effect_kinds", "trial", "system_name"))


def _check(outcome: Any) -> Outcome:
    if not _is_outcome(outcome):
        raise InputError("outcome", "a workbench Outcome (the result of a stat-level function)",
                         type(outcome).__name__)
    return outcome


#: below this many percent a chance is written as a bound ("< 0.000001 %")
PCT_FLOOR = 1e-6


def pct(p: float | Fraction, digits: int = 1) -> str:
    """A chance as a percentage for a reader: ``0.13888`` -> ``'13.9 %'``.

    Only an impossible result reads "0.0 %" and only a certain one "100.0 %":
    a chance that would round to either is written with two significant
    digits of its distance from it (``0.00032`` -> ``'0.032 %'``,
    ``0.99968`` -> ``'99.968 %'``), or as a bound beyond
    :data:`PCT_FLOOR` (``'< 0.000001 %'``, ``'> 99.999999 %'``), so a forum
    reader never takes a rare result for an impossible one.
    """
    x = float(p) * 100
    text = f"{x:.{digits}f}"
    if 0 < x < 100 and float(text) in (0.0, 100.0):
        gap = x if float(text) == 0.0 else 100 - x
        if gap < PCT_FLOOR:
            bound = f"{PCT_FLOOR:.{-int(math.floor(math.log10(PCT_FLOOR)))}f}"
            return f"< {bound} %" if x < 50 else f"> {100 - PCT_FLOOR:.{len(bound) - 2}f} %"
        text = f"{x:.{max(digits, 1 - int(math.floor(math.log10(gap))))}f}"
    return f"{text} %"


def ratio(p: Fraction, detail: str = "", faces: int | None = None) -> str:
    """A stage probability as a player counts it: out of the die's faces named
    in ``detail`` ("8/12" for "on a D12"), or out of faces squared for a
    two-dice test ("1/100"); otherwise reduced ("5/36")."""
    p = Fraction(p)
    sides = ([faces] if faces else []) + [int(m) for m in _DIE.findall(detail)]
    for s in sides:
        for d in (s, s * s):
            if d > 1 and (p * d).denominator == 1:
                return f"{int(p * d)}/{d}"
    if p.denominator == 1:
        return str(p.numerator)
    return f"{p.numerator}/{p.denominator}"


def _shown_ratio(detail: str, p: Fraction) -> str | None:
    """The ratio the detail already shows for ``p`` (e.g. "5/10"), or None."""
    return next((f"{a}/{b}" for a, b in _FRACTION.findall(detail) if int(b) and Fraction(int(a), int(b)) == p),
                None)


def _ratio_in(detail: str, p: Fraction, faces: int | None = None) -> str:
    """The ratio the detail already shows for ``p``, else :func:`ratio`."""
    return _shown_ratio(detail, p) or ratio(p, detail, faces)


def title(outcome: Outcome) -> str:
    """'40k Changes: shooting (exact)' / '... (sampled, 100000 samples)'."""
    o = _check(outcome)
    how = o.method if o.method == "exact" else f"sampled, {o.samples:,} samples"
    return f"{o.system_name}: {o.function.replace('_', ' ')} ({how})"


def _description(o: Outcome) -> Any:
    """The description of the outcome's system; None for a system no registry
    lists (an outcome built elsewhere: its argument names are said in words)."""
    try:
        from .. import systems
        return systems.get(o.system)
    except Exception:  # noqa: BLE001 - an unknown or broken system: nothing to read from it
        return None


def _controls(o: Outcome) -> dict[str, Any]:
    """The dashboard controls of the outcome's function by argument name (their
    labels and option words are the words every page and post uses); empty
    for a system or function no description lists."""
    desc = _description(o)
    return {} if desc is None else {c.name: c for c in desc.controls(o.function)}


def _setting(controls: Mapping[str, Any], key: str, value: Any) -> str:
    """One setting as the dashboard labels it: "heavy weapon in a SHOT action: BS +4"."""
    c = controls.get(key)
    if c is not None:
        return c.setting(value)
    if key == "attackers" and isinstance(value, (list, tuple)):  # a volley: each unit as its controls say
        return "; ".join(
            f"unit {i}: " + ", ".join(
                (controls[f"u{i}_{k}"].text[len(f"unit {i} "):] + " " + controls[f"u{i}_{k}"].say(v))
                if f"u{i}_{k}" in controls else f"{k.replace('_', ' ')} {value_words(v)}"
                for k, v in unit.items())
            for i, unit in enumerate(value, 1) if isinstance(unit, Mapping))
    return f"{key.replace('_', ' ')}: {value_words(value)}"


def input_lines(outcome: Outcome) -> list[str]:
    """'label: value' for every input except the method (the title says it), in
    the dashboard's words: its controls' labels and option words
    ("heavy weapon in a SHOT action: BS +4", "firer gone to ground: no")."""
    o = _check(outcome)
    controls = _controls(o)
    return [_setting(controls, k, v) for k, v in o.inputs.items() if k not in RESERVED]


def _is(p: float | Fraction, digits: int = 1) -> str:
    """The end of an equation of a chance: "= 13.9 %", or the bound itself ("< 0.000001 %")."""
    text = pct(p, digits)
    return text if text[:1] in "<>" else f"= {text}"


_EFFECT_REF = re.compile(r"effects\[['\"]([A-Za-z0-9_]+)(?:\[\d+\])?['\"]\]")


_UNIT_REF = re.compile(r"\battackers\[(\d+)\]")


def plain_note(outcome: Outcome, note: str, controls: Mapping[str, Any] | None = None) -> str:
    """A rule note as a playtester reads it: a side effect cited as code
    ("(effects['wasted_wounds'])") becomes its words ("(the side effect
    \"wounds wasted beyond the unit\")"), a volley's unit ("attackers[0]")
    its number ("unit 1"), an argument name ("melee_phys") the label of its
    control ("PHYS rolled against")."""
    o = _check(outcome)
    note = _EFFECT_REF.sub(lambda m: f'the side effect "{o.effect_words(m.group(1))}"', note)
    note = _UNIT_REF.sub(lambda m: f"unit {int(m.group(1)) + 1}", note)
    controls = _controls(o) if controls is None else controls
    for name, c in controls.items():
        if "_" in name and name in note:
            def said(m: re.Match[str], c: Any = c) -> str:
                return f'"{_said(c, m.group(1))}"'
            note = re.sub(rf"\b{re.escape(name)}=('[^']*'|\w+)", said, note)
            note = re.sub(rf"\b{re.escape(name)}\b", c.text, note)
    for name in o.inputs:  # an argument no control shows: its name in words
        if "_" in name and name not in controls:
            note = re.sub(rf"\b{re.escape(name)}\b", name.replace("_", " "), note)
    return note


def _said(c: Any, raw: str) -> str:
    """A setting a note writes as code (``heavy_shot='flat_4'``) as the control says it."""
    try:
        return c.setting(c.parse(raw.strip("'")))
    except Exception:  # noqa: BLE001 - a value the control does not know: kept, in words
        return f"{c.text}: {raw.strip(chr(39)).replace('_', ' ')}"


def _label(label: str, n: int) -> str:
    """'models removed' -> 'model removed' (and 'successes' -> 'success') for exactly one."""
    if n != 1 or not label:
        return label
    first, _, rest = label.partition(" ")
    if first.endswith(("sses", "ches", "shes")):
        first = first[:-2]
    elif first.endswith("s") and not first.endswith("ss"):
        first = first[:-1]
    return f"{first} {rest}".strip()


def _attack_word(o: Outcome, n: int | None = None) -> str:
    word = o.trial or "test"  # __post_init__ fills trial in ("test" when the system names none)
    return word if n == 1 else word + "s"


def effect_is_probability(o: Outcome, name: str) -> bool:
    """Whether side effect ``name`` of ``o`` is a probability (else an expected count).

    The one place teach classifies effects: shown as "P(shock) = 50.0 %" or
    "expected hits: 0.500"."""
    return o.effect_kind(name) == "probability"


def _effect_text(o: Outcome, name: str) -> str:
    value, stderr = o.effects[name], o.effects_stderr.get(name)
    words = o.effect_words(name)
    if effect_is_probability(o, name):
        se = f" (± {100 * stderr:.2g} points)" if stderr else ""
        return f"P({words}) {_is(value)}{se}"
    se = f" (± {stderr:.2g})" if stderr else ""
    return f"expected {words}: {value:.3f}{se}"
