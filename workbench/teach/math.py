"""The math of an outcome step by step (:func:`explain`): one line per stage,
the per-attack product (:func:`per_attack_line`), the totals, the most
likely count, side effects and the rules as read.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..outcome import Outcome
from .words import _attack_word, _check, _effect_text, _shown_ratio, _is, _label, _ratio_in, input_lines, pct, \
    plain_note, ratio, title

__all__ = ["explain", "per_attack_line"]


def _stage_texts(o: Outcome) -> list[str]:
    """'To hit: BS 5+ against cover +0 needs 5+ on a D12: 8/12.' per stage."""
    out = []
    for st in o.stages:
        name = st.name[:1].upper() + st.name[1:]
        detail = st.detail.strip().rstrip(".")
        if not (detail and _shown_ratio(detail, st.probability)):  # the detail's words, then the ratio
            detail = ": ".join(x for x in (detail, ratio(st.probability, detail, st.faces)) if x)
        out.append(f"{name}: {detail}.")
    return out


def _product(o: Outcome) -> str | None:
    """'8/12 × 5/12 × 6/12 = 5/36 (13.9 %)' (None without stages)."""
    per = o.per_attack
    if per is None:
        return None
    parts = [_ratio_in(st.detail, st.probability, st.faces) for st in o.stages]
    reduced = ratio(per)
    product = reduced if parts == [reduced] else f"{' × '.join(parts)} = {reduced}"
    return f"{product} ({pct(per)})"


def _figures_text(what: str, mean: Fraction | float, any_one: Fraction | float) -> str:
    """'expected unsaved 14/81 = 0.173; P(at least one unsaved) = 119/729 (16.3 %)': a Fraction as a
    fraction when a reader can take it in (with its decimal), a float alone."""
    exact, chance = f"{float(mean):.3f}", pct(any_one)
    if isinstance(mean, Fraction) and mean.denominator < 10 ** 7:
        exact = str(mean.numerator) if mean.denominator == 1 else f"{ratio(mean)} = {exact}"
    if isinstance(any_one, Fraction) and any_one.denominator < 10 ** 7:
        chance = f"{ratio(any_one)} ({chance})"
    return f"expected {what} {exact}; P(at least one {what}) = {chance}"


def per_attack_line(outcome: Outcome) -> str | None:
    """'Per shot: 8/12 × 5/12 × 6/12 = 5/36 (13.9 %).' (None when the outcome has no stages).

    Where criticals add successes or skip stages (``per_attack_mean`` is set) the product of
    the stage chances means nothing, and the line gives the two figures that do, each
    labelled: 'Per attack: expected unsaved 14/81 = 0.173; P(at least one unsaved) = 119/729
    (16.3 %).'

    Where the rule rolls how many tokens an attack makes (``Outcome.tokens``) the stages say
    what one token does, and so does this line ('Per shot: 5/10 × 6/10 = 3/10 (30.0 %).'), in
    the file's word for one; :func:`_of_tokens_line` says what one attack does."""
    o = _check(outcome)
    word = o.token or _attack_word(o, 1)
    mean = getattr(o, "per_attack_mean", None)
    any_one = getattr(o, "per_attack_any", None)
    if mean is not None and any_one is not None:
        what = o.success_label or "successes"
        line = f"Per {word}: {_figures_text(what, mean, any_one)}"
    else:
        product = _product(o)
        if product is None:
            return None
        line = f"Per {word}: {product}" + (" gets through every step" if o.blows_vary else "")
    if o.blows_vary:
        line += (f"; what that does to the unit depends on the ones before it (tough models, wounded models "
                 f"saving otherwise), so there is no one chance per {word} of a {_label(o.label, 1)}")
    return line + "."


def _tokens_text(o: Outcome) -> str:
    """'1 to 6 shots' (an attack of 1..tokens tokens)."""
    return f"1 to {o.tokens} {o.token}s"


def _of_tokens_line(o: Outcome) -> str | None:
    """'Per attack (1 to 3 hits, each number equally likely): expected unsaved 9/10 = 0.900;
    P(at least one unsaved) = ...' where attacks of random tokens are more than one (one attack's
    figures are the totals' own)."""
    figures = o.per_attack_of_tokens()
    if figures is None or o.attacks is None or o.attacks < 2:
        return None
    mean, any_one = figures
    what = o.success_label or (o.stages[-1].name if o.stages else "successes")
    return (f"Per {_attack_word(o, 1)} ({_tokens_text(o)}, each number equally likely): "
            f"{_figures_text(what, mean, any_one)}.")


def _per_attack_cell(o: Outcome, digits: int) -> str:
    """The compare table's per-attack cell: the product, or P(at least one) where criticals add."""
    any_one = getattr(o, "per_attack_any", None)
    if any_one is not None:
        return f"{pct(any_one, digits)} at least one"
    if o.per_attack is None:
        return "–"
    return f"{ratio(o.per_attack)} ({pct(o.per_attack, digits)})"


def _totals_text(o: Outcome) -> str:
    if o.attacks is None or (o.token and not o.tokens):
        start = "In all: "
    elif o.tokens and o.attacks == 1:
        start = f"In all ({_tokens_text(o)}, each number equally likely): "
    elif o.tokens:
        start = f"With {o.attacks} {_attack_word(o, o.attacks)} of {_tokens_text(o)} each: "
    else:
        start = f"With {o.attacks} {_attack_word(o, o.attacks)}: "
    se = f" (± {o.mean_stderr:.2g})" if o.method == "sampled" and o.mean_stderr is not None else ""
    return f"{start}expected {o.mean:.2f} {o.label}{se}; P(at least 1) {_is(o.at_least(1))}."


def _sampled_text(o: Outcome) -> str:
    return (f"Sampled: {o.samples:,} simulated volleys, every die rolled as a player would; "
            f"the numbers carry sampling error (standard errors shown with ±).")


def explain(outcome: Outcome) -> str:
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
        out.append("Inputs: " + "; ".join(inputs) + ".")
    out += _stage_texts(o)
    out += [line for line in (per_attack_line(o), _of_tokens_line(o)) if line is not None]
    label = o.label
    out.append(_totals_text(o))
    mode = int(np.argmax(o.pmf))
    out.append(f"Most likely: {mode} {_label(label, mode)}, P(exactly {mode}) {_is(o.pmf[mode])}; "
               f"the most possible, {o.max_removed} {_label(label, o.max_removed)}, "
               f"has P(exactly {o.max_removed}) {_is(o.pmf[-1])}.")
    if o.effects:
        out.append("Side effects: " + "; ".join(_effect_text(o, k) for k in o.effects) + ".")
    if o.method == "sampled":
        out.append(_sampled_text(o))
    if o.notes:
        out.append("Rules as read:")
        out.extend(f"- {plain_note(o, n)}" for n in o.notes)
    return "\n".join(out)
