"""The Numbers table of a dashboard: expected counts and chances, each said as such.

A side effect of an :class:`~workbench.outcome.Outcome` is either an expected count ("Expected
hits: 6.67") or a chance ("Chance the unit is destroyed: 0.0 %", always as a percentage), as
:func:`is_chance` says.
"""
from __future__ import annotations

from fractions import Fraction

from .. import teach
from ..outcome import Outcome

__all__ = ["is_chance", "effect_label", "effect_value", "number_rows"]


def is_chance(outcome: Outcome, name: str) -> bool:
    """Whether effect ``name`` of ``outcome`` is a chance (else an expected
    count), as the system's description says (``Outcome.effect_kind``); a
    volley's per-unit value ``"unsaved_wounds[0]"`` is read by its name."""
    return outcome.effect_kind(name.split("[", 1)[0]) == "probability"


def effect_label(outcome: Outcome, name: str) -> str:
    """"Chance the unit is suppressed" or "Expected hits"."""
    base, _, index = name.partition("[")
    words = outcome.effect_words(base)
    if index:  # per-unit values of a volley: "unsaved_wounds[0]" -> "... (unit 1)"
        try:
            words += f" (unit {int(index.rstrip(']')) + 1})"
        except ValueError:
            words += f" ({index.rstrip(']')})"
    return f"Chance {words}" if is_chance(outcome, name) else f"Expected {words}"


def expected_text(x: float) -> str:
    """An expected count for a reader: two decimals (``6.67``), ``0`` for none."""
    return "0" if x == 0 else f"{x:.2f}"


def effect_value(outcome: Outcome, name: str, value: float) -> str:
    return teach.pct(value) if is_chance(outcome, name) else expected_text(value)


def number_rows(out: Outcome) -> list[tuple[str, str, str]]:
    """``(css class, label, value)`` for the totals of ``out``: expected
    result, the chance of at least one, and per attack either the chance it
    gets through every step or, where criticals add successes or skip steps
    (so that the product of the steps' chances is neither), the expected
    successes of one attack and its chance of at least one, each named by the
    system's own words for a success."""
    label = out.label
    rows = [("wb-mean", f"Expected {label}", expected_text(out.mean)),
            ("wb-p-any", _at_least_one(label), teach.pct(out.at_least(1)))]
    one = out.token or out.trial   # what the stages say one of: an attack, or one of its rolled tokens
    if out.per_attack_mean is not None and out.per_attack_any is not None:
        what = out.success_label or "successes"
        mean = Fraction(out.per_attack_mean)
        rows.append(("wb-per-attack-mean", f"Expected {what} per {one}",
                     f"{mean.numerator}/{mean.denominator} ({expected_text(float(mean))})"))
        rows.append(("wb-per-attack", f"Chance one {one} gets at least one {what}",
                     _fraction_pct(out.per_attack_any)))
    elif out.per_attack is not None and out.stages:
        rows.append(("wb-per-attack", f"Chance one {one} gets through every step",
                     _fraction_pct(out.per_attack)))
    return rows


def _fraction_pct(p: Fraction | float) -> str:
    """``7/48 (14.6 %)``; a float as its percentage alone."""
    if isinstance(p, float):
        return teach.pct(p)
    p = Fraction(p)
    return f"{p.numerator}/{p.denominator} ({teach.pct(p)})"


def _at_least_one(label: str) -> str:
    """"models removed" -> "Chance at least one model is removed"."""
    words = label.split()
    if len(words) == 2:
        noun = words[0][:-1] if words[0].endswith("s") else words[0]
        return f"Chance at least one {noun} is {words[1]}"
    return f"Chance of at least one ({label})"
