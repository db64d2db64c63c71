"""Forum-ready text from any outcome: the math in plain words, Markdown, BBCode.

* :func:`explain` walks through the per-attack stages with their fractions
  as a player counts them ("8/12": eight faces of a D12), multiplies them
  ("8/12 × 5/12 × 6/12 = 5/36 (13.9 %)"), then states the expected removals,
  the chances of at least one removal and the most likely count, the side
  effects and the interpretations of the seed the result relied on.
* :func:`to_markdown` and :func:`to_bbcode`: the inputs, then a table of N,
  P(exactly N), P(at least N) for every N the pmf holds.

Everything is built from the :class:`~workbench.outcome.Outcome` alone
(``stages[].detail``, ``.probability``, ``.faces``, ``attacks``, ``inputs``,
``effects`` with ``effect_kinds``, ``trial``, ``system_name``, ``notes``),
so it works for every system, function and variant; what the outcome says
about its system comes from that system's description.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

import numpy as np

from .errors import InputError

__all__ = ["explain", "to_markdown", "to_bbcode", "ratio", "pct", "title", "input_lines"]

_DIE = re.compile(r"\b[dD](\d{1,3})\b")
_FRACTION = re.compile(r"(?<![\d/])(\d+)/(\d+)(?![\d/])")


def _check(outcome: Any):
    # an Outcome is recognised by what it carries: importing the class would tie
    # workbench.outcome (whose explain() calls this module) and this module in a circle
    if not all(hasattr(outcome, a) for a in ("pmf", "stages", "effect_kinds", "trial", "system_name")):
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
    """A stage probability as a player counts it: out of the die's ``faces``
    or the faces named in ``detail`` ("8/12" for "on a D12"), or out of faces
    squared for a two-dice test ("1/100"); otherwise reduced ("5/36")."""
    p = Fraction(p)
    sides = ([faces] if faces else []) + [int(m) for m in _DIE.findall(detail)]
    for s in sides:
        for d in (s, s * s):
            if d > 1 and (p * d).denominator == 1:
                return f"{int(p * d)}/{d}"
    if p.denominator == 1:
        return str(p.numerator)
    return f"{p.numerator}/{p.denominator}"


def _has_ratio(detail: str, p: Fraction) -> bool:
    for a, b in _FRACTION.findall(detail):
        if int(b) and Fraction(int(a), int(b)) == p:
            return True
    return False


def _ratio_in(detail: str, p: Fraction, faces: int | None = None) -> str:
    """The ratio the detail already shows for ``p`` (e.g. "5/10"), else :func:`ratio`."""
    for a, b in _FRACTION.findall(detail):
        if int(b) and Fraction(int(a), int(b)) == p:
            return f"{a}/{b}"
    return ratio(p, detail, faces)


def title(outcome) -> str:
    """'40k Changes: shooting (exact)' / '... (sampled, 100000 samples)'."""
    o = _check(outcome)
    how = o.method if o.method == "exact" else f"sampled, {o.samples:,} samples"
    return f"{o.system_name}: {o.function} ({how})"


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return "; ".join(_show(v) for v in value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={_show(v)}" for k, v in value.items()) + "}"
    return str(value)


def input_lines(outcome) -> list[str]:
    """'name: value' for every input except the method (the title says it)."""
    o = _check(outcome)
    return [f"{k}: {_show(v)}" for k, v in o.inputs.items() if k not in ("method", "samples", "seed")]


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


def _attack_word(o, n: int | None = None) -> str:
    word = o.trial
    return word if n == 1 else word + "s"


def _effect_text(name: str, kind: str, value: float, stderr: float | None) -> str:
    words = name.replace("_", " ")
    if kind == "probability":
        se = f" (± {100 * stderr:.2g} points)" if stderr else ""
        return f"P({words}) = {pct(value)}{se}"
    se = f" (± {stderr:.2g})" if stderr else ""
    return f"expected {words}: {value:.3f}{se}"


def explain(outcome) -> str:
    """The math of ``outcome`` step by step, in plain words with fractions.

    One line per stage ("To hit: BS 5+ against cover +0 needs 5+ on a D12:
    8/12."), the per-attack product ("Per shot: 8/12 × 5/12 × 6/12 = 5/36
    (13.9 %)."), then the totals ("With 10 shots: expected 1.39 models
    removed; P(at least 1) = 77.6 %."), the most likely count, side effects
    and the interpretations used.
    """
    o = _check(outcome)
    out = [title(o) + "."]
    inputs = input_lines(o)
    if inputs:
        out.append("Inputs: " + ", ".join(inputs) + ".")
    for st in o.stages:
        name = st.name[:1].upper() + st.name[1:]
        detail = st.detail.strip().rstrip(".")
        if detail and _has_ratio(detail, st.probability):
            out.append(f"{name}: {detail}.")
        elif detail:
            out.append(f"{name}: {detail}: {ratio(st.probability, detail, st.faces)}.")
        else:
            out.append(f"{name}: {ratio(st.probability, '', st.faces)}.")
    per = o.per_attack
    word = _attack_word(o, 1)
    if per is not None:
        parts = [_ratio_in(st.detail, st.probability, st.faces) for st in o.stages]
        reduced = f"{per.numerator}/{per.denominator}" if per.denominator != 1 else str(per.numerator)
        chain = " × ".join(parts)
        product = reduced if len(parts) == 1 and parts[0] == reduced else f"{chain} = {reduced}"
        out.append(f"Per {word}: {product} ({pct(per)}).")
    label = o.label
    start = f"With {o.attacks} {_attack_word(o, o.attacks)}: " if o.attacks is not None else "In all: "
    se = f" (± {o.mean_stderr:.2g})" if o.method == "sampled" and o.mean_stderr is not None else ""
    out.append(f"{start}expected {o.mean:.2f} {label}{se}; P(at least 1) = {pct(o.at_least(1))}.")
    mode = int(np.argmax(o.pmf))
    out.append(f"Most likely: {mode} {_label(label, mode)}, P(exactly {mode}) = {pct(o.pmf[mode])}; "
               f"the most possible, {o.max_removed} {_label(label, o.max_removed)}, "
               f"has P = {pct(o.pmf[-1])}.")
    if o.effects:
        texts = [_effect_text(k, o.effect_kind(k), val, o.effects_stderr.get(k)) for k, val in o.effects.items()]
        out.append("Side effects: " + "; ".join(texts) + ".")
    if o.method == "sampled":
        out.append(f"Sampled: {o.samples:,} simulated volleys, every die rolled as a player would; "
                   f"the numbers carry sampling error (standard errors shown with ±).")
    if o.notes:
        out.append("Rules as read:")
        out.extend(f"- {n}" for n in o.notes)
    return "\n".join(out)


def _rows(o, digits: int) -> list[tuple[str, str, str]]:
    tail = o.at_least_curve
    return [(str(n), pct(o.pmf[n], digits), pct(min(1.0, tail[n]), digits)) for n in range(o.pmf.size)]


def _summary(o) -> str:
    parts = []
    if o.per_attack is not None:
        per = o.per_attack
        parts.append(f"per {_attack_word(o, 1)} {per.numerator}/{per.denominator} ({pct(per)})")
    parts.append(f"expected {o.mean:.2f} {o.label}")
    if o.attacks is not None:
        parts.append(f"{o.attacks} {_attack_word(o, o.attacks)}")
    return ", ".join(parts)


def to_markdown(outcome, digits: int = 2) -> str:
    """The inputs as a list, then a table of N, P(exactly N), P(at least N) (percent)."""
    o = _check(outcome)
    lines = [f"**{title(o)}**", ""]
    lines += [f"- {line}" for line in input_lines(o)]
    lines += ["", _summary(o) + ".", ""]
    lines += [f"| N ({o.label}) | P(exactly N) | P(at least N) |", "|---:|---:|---:|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in _rows(o, digits)]
    return "\n".join(lines) + "\n"


def to_bbcode(outcome, digits: int = 2) -> str:
    """The inputs, then a [table] of N, P(exactly N), P(at least N) (percent); every tag closed."""
    o = _check(outcome)
    lines = [f"[b]{title(o)}[/b]"]
    lines += input_lines(o)
    lines += [_summary(o) + "."]
    head = "".join(f"[td][b]{h}[/b][/td]" for h in (f"N ({o.label})", "P(exactly N)", "P(at least N)"))
    lines += ["[table]", f"[tr]{head}[/tr]"]
    lines += ["[tr]" + "".join(f"[td]{x}[/td]" for x in row) + "[/tr]" for row in _rows(o, digits)]
    lines += ["[/table]"]
    return "\n".join(lines) + "\n"
