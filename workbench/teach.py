"""Forum-ready text from any outcome: the math in plain words, Markdown, BBCode.

* :func:`explain` walks through the per-attack stages with their fractions
  as a player counts them ("8/12": eight faces of a D12), multiplies them
  ("8/12 × 5/12 × 6/12 = 5/36 (13.9 %)"), then states the expected removals,
  the chances of at least one removal and the most likely count, the side
  effects and the interpretations of the seed the result relied on.
* :func:`to_markdown` and :func:`to_bbcode`: a post that opens with the
  matchup in one readable line (:func:`matchup_line`), then the per-stage
  math and the per-attack product, then a table of N, P(exactly N),
  P(at least N); the full list of settings comes last (``inputs=False``
  leaves it out). Given a mapping of outcomes (the four systems of the
  compare page) they write one side-by-side table instead, one column per
  outcome, under one matchup line per outcome.
* The BBCode uses only the tags a stock phpBB 3 board knows
  (:data:`PHPBB_TAGS`): the tables are aligned text in a ``[code]`` block.
  ``tables=True`` writes ``[table]`` / ``[tr]`` / ``[td]`` for boards that
  have installed those tags.

Everything is built from the :class:`~workbench.outcome.Outcome` alone
(``stages[].detail``, ``.probability``, ``attacks``, ``inputs``, ``effects``,
``notes``), so it works for every system, function and variant.
"""
from __future__ import annotations

import inspect
import math
import re
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence, cast

import numpy as np

from .errors import InputError
from .outcome import Outcome

__all__ = ["explain", "to_markdown", "to_bbcode", "ratio", "pct", "title", "input_lines", "plain_note",
           "dashboard_link",
           "matchup_line", "per_attack_line", "PHPBB_TAGS", "effect_is_probability"]

#: the BBCode tags of a stock phpBB 3 board (no [table]: that needs an extension)
PHPBB_TAGS = ("b", "i", "u", "quote", "code", "list", "*", "url", "img", "color", "size")


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


def title(outcome: Outcome) -> str:
    """'40k Changes: shooting (exact)' / '... (sampled, 100000 samples)'."""
    o = _check(outcome)
    how = o.method if o.method == "exact" else f"sampled, {o.samples:,} samples"
    return f"{o.system_name}: {o.function.replace('_', ' ')} ({how})"


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
        return "{" + ", ".join(f"{k.replace('_', ' ')} {_show(v)}" for k, v in value.items()) + "}"
    return str(value).replace("_", " ")


def _controls(o: Outcome) -> dict[str, Any]:
    """The dashboard controls of the outcome's function by argument name (their
    labels and option words are the words every page and post uses); empty
    for a system or function no description lists."""
    try:
        from . import systems
        desc = systems.get(o.system)
    except Exception:  # noqa: BLE001 - an outcome built elsewhere: its argument names in words
        return {}
    return {c.name: c for m in desc.modes if m.function == o.function for c in m.controls}


def _setting(controls: Mapping[str, Any], key: str, value: Any) -> str:
    """One setting as the dashboard labels it: "heavy weapon in a SHOT action: BS +4"."""
    c = controls.get(key)
    if c is not None:
        return c.setting(value)
    if key == "attackers" and isinstance(value, (list, tuple)):  # a volley: each unit as its controls say
        return "; ".join(
            f"unit {i}: " + ", ".join(
                (controls[f"u{i}_{k}"].text[len(f"unit {i} "):] + " " + controls[f"u{i}_{k}"].say(v))
                if f"u{i}_{k}" in controls else f"{k.replace('_', ' ')} {_show(v)}"
                for k, v in unit.items())
            for i, unit in enumerate(value, 1) if isinstance(unit, Mapping))
    return f"{key.replace('_', ' ')}: {_show(value)}"


def input_lines(outcome: Outcome) -> list[str]:
    """'label: value' for every input except the method (the title says it), in
    the dashboard's words: its controls' labels and option words
    ("heavy weapon in a SHOT action: BS +4", "firer gone to ground: no")."""
    o = _check(outcome)
    controls = _controls(o)
    return [_setting(controls, k, v) for k, v in o.inputs.items() if k not in ("method", "samples", "seed")]


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
    word = o.trial
    if word is None:  # only an Outcome built around __post_init__, which fills it in
        raise RuntimeError("Outcome.trial was never set (__post_init__ did not run)")
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


# ---------------------------------------------------------------------------
# the pieces of the math, shared by explain() and the posts
# ---------------------------------------------------------------------------
def _stage_texts(o: Outcome) -> list[str]:
    """'To hit: BS 5+ against cover +0 needs 5+ on a D12: 8/12.' per stage."""
    out = []
    for st in o.stages:
        name = st.name[:1].upper() + st.name[1:]
        detail = st.detail.strip().rstrip(".")
        if detail and _has_ratio(detail, st.probability):
            out.append(f"{name}: {detail}.")
        elif detail:
            out.append(f"{name}: {detail}: {ratio(st.probability, detail, st.faces)}.")
        else:
            out.append(f"{name}: {ratio(st.probability, '', st.faces)}.")
    return out


def _fraction_text(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator)


def _product(o: Outcome) -> str | None:
    """'8/12 × 5/12 × 6/12 = 5/36 (13.9 %)' (None without stages)."""
    per = o.per_attack
    if per is None:
        return None
    parts = [_ratio_in(st.detail, st.probability, st.faces) for st in o.stages]
    reduced = _fraction_text(per)
    chain = " × ".join(parts)
    product = reduced if len(parts) == 1 and parts[0] == reduced else f"{chain} = {reduced}"
    return f"{product} ({pct(per)})"


def _exact_text(x: Fraction | float) -> str:
    """A Fraction as a fraction when a reader can take it in, with its decimal; a float alone."""
    if isinstance(x, Fraction) and x.denominator < 10 ** 7:
        return f"{_fraction_text(x)} = {float(x):.3f}" if x.denominator != 1 else str(x.numerator)
    return f"{float(x):.3f}"


def _any_text(p: Fraction | float) -> str:
    if isinstance(p, Fraction) and p.denominator < 10 ** 7:
        return f"{_fraction_text(p)} ({pct(p)})"
    return pct(p)


def per_attack_line(outcome: Outcome) -> str | None:
    """'Per shot: 8/12 × 5/12 × 6/12 = 5/36 (13.9 %).' (None when the outcome has no stages).

    Where criticals add successes or skip stages (``per_attack_mean`` is set) the product of
    the stage chances means nothing, and the line gives the two figures that do, each
    labelled: 'Per attack: expected unsaved 14/81 = 0.173; P(at least one unsaved) = 119/729
    (16.3 %).'"""
    o = _check(outcome)
    mean = getattr(o, "per_attack_mean", None)
    any_one = getattr(o, "per_attack_any", None)
    if mean is not None and any_one is not None:
        what = o.success_label or "successes"
        return (f"Per {_attack_word(o, 1)}: expected {what} {_exact_text(mean)}; "
                f"P(at least one {what}) = {_any_text(any_one)}.")
    product = _product(o)
    return None if product is None else f"Per {_attack_word(o, 1)}: {product}."


def _per_attack_cell(o: Outcome, digits: int) -> str:
    """The compare table's per-attack cell: the product, or P(at least one) where criticals add."""
    any_one = getattr(o, "per_attack_any", None)
    if any_one is not None:
        return f"{pct(any_one, digits)} at least one"
    if o.per_attack is None:
        return "–"
    return f"{_fraction_text(o.per_attack)} ({pct(o.per_attack, digits)})"


def _totals_text(o: Outcome) -> str:
    start = f"With {o.attacks} {_attack_word(o, o.attacks)}: " if o.attacks is not None else "In all: "
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
    per = per_attack_line(o)
    if per is not None:
        out.append(per)
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


# ---------------------------------------------------------------------------
# the matchup in one line
# ---------------------------------------------------------------------------
_STYLE: dict[str, Callable[[Any], str]] = {"plus": lambda v: f"{v}+", "mod": lambda v: f"{v:+d}", "plain": str}


def _sides(o: Outcome):
    """How ``o``'s keywords read in the matchup line: its mode's
    :class:`~workbench.systems.description.Sides` in the system's description
    (None: every keyword is the situation)."""
    try:
        from . import systems
        modes = systems.get(o.system).modes
    except Exception:  # noqa: BLE001 - a system that is not registered: no sides known
        return None
    return next((m.sides for m in modes if m.function == o.function), None)


#: counts written in the parentheses: (keyword, side, singular, plural)
_COUNTS = (("shots", 0, "shot", "shots"), ("attacks", 0, "attack", "attacks"),
           ("models", 2, "model", "models"))
_HIDDEN = ("method", "samples", "seed")


def _defaults(o: Outcome) -> dict[str, Any]:
    try:
        from . import systems
        fn = getattr(systems.get(o.system), o.function)
        params = inspect.signature(fn).parameters.values()
    except Exception:  # noqa: BLE001 - a system or function defined elsewhere: every setting counts as chosen
        return {}
    return {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}


def _stat_text(items: tuple, values: Mapping[str, Any], defaults: Mapping[str, Any] | None = None) -> list[str]:
    """The stats of one side as read at the table ("BS 5+", "T +2"); a stat at
    its function's default (Inv +0, W 1, armour 0) says nothing and is left out."""
    out = []
    defaults = defaults or {}
    for key, label, style in items:
        value = values.get(key)
        if value is None or key not in values:
            continue
        if key in defaults and defaults[key] == value and type(defaults[key]) is type(value):
            continue
        if label == "armour" and isinstance(value, str):
            out.append(f"{value} armour")
        else:
            out.append(f"{label} {_STYLE[style](value)}")
    return out


def _situation(controls: Mapping[str, Any], key: str, value: Any) -> str:
    """A setting of the matchup line: a checkbox by its label ("target gone to
    ground", "no ..."), anything else as :func:`input_lines` writes it."""
    if isinstance(value, bool):
        words = controls[key].text if key in controls else key.replace("_", " ")
        return words if value else f"no {words}"
    return _setting(controls, key, value)


def matchup_line(outcome: Outcome, names: Sequence[str] | None = None, *, system: bool = True) -> str:
    """The matchup in one readable line, e.g.

    ``Space Marine (BS 5+, Boltgun S 5+ AP 5+, 10 shots) at Space Marine
    (T +2, Sv +3, 5 models) - 40k Changes, shooting, action: aimed``

    A side's stat at its function's default (Inv +0, W 1) is left out.

    ``names``: optional (firer, weapon, target) names, e.g. a profile
    matchup's unit and weapon names; without them the line says "Firer" and
    "target". ``system=False`` leaves out the system's name (the compare post
    writes it in front). Settings the line does not place with a side (range,
    cover, variants...) follow the function's name when they differ from its
    default.
    """
    o = _check(outcome)
    inputs = {k: v for k, v in o.inputs.items() if k not in _HIDDEN}
    if names is not None:
        if isinstance(names, str) or len(names) != 3 or not all(isinstance(n, str) for n in names):
            raise InputError("names", "three names: (firer, weapon, target)", names)
    hand_to_hand = o.function in ("melee", "close_combat")
    firer_name, weapon_name, target_name = names or (("Attacker", "", "defender") if hand_to_hand
                                                     else ("Firer", "", "target"))
    sides = _sides(o)
    defaults = _defaults(o)
    used: set[str] = set()
    parts_firer: list[str] = []
    parts_target: list[str] = []
    if sides is not None:
        firer, weapon, target = sides.firer, sides.weapon, sides.target
        parts_firer = _stat_text(firer, inputs, defaults)
        wtext = _stat_text(weapon, inputs, defaults)
        if wtext or weapon_name:
            parts_firer.append(" ".join(([weapon_name] if weapon_name else []) + wtext))
        parts_target = _stat_text(target, inputs, defaults)
        used |= {k for k, _l, _h in firer + weapon + target}
    if isinstance(inputs.get("attackers"), (list, tuple)):  # several firing units (a volley)
        units = [u for u in inputs["attackers"] if isinstance(u, Mapping)]
        unit = sides.unit if sides is not None else ()
        parts_firer = [" ".join(_stat_text(unit, u) + [f"{u.get('shots')} shots"]) for u in units]
        firer_name = firer_name if names else f"{len(units)} firing units"
        used.add("attackers")
    for key, side, one, many in _COUNTS:
        if key in inputs and inputs[key] is not None:
            n = inputs[key]
            (parts_firer if side == 0 else parts_target).append(f"{n} {one if n == 1 else many}")
            used.add(key)
        elif key in inputs:
            used.add(key)  # no unit size: no cap, nothing to say
    always = sides.always if sides is not None else ()
    controls = _controls(o)
    situation = [_situation(controls, k, v) for k, v in inputs.items()
                 if k not in used and (k in always or k not in defaults or defaults[k] != v)]
    head = []
    if parts_firer or parts_target:
        head.append(f"{firer_name} ({', '.join(parts_firer)})" if parts_firer else firer_name)
        head.append(f"at {target_name} ({', '.join(parts_target)})" if parts_target else f"at {target_name}")
    tail = ([o.system_name] if system else []) + [o.function.replace("_", " ")] + situation
    line = " ".join(head)
    return f"{line} - {', '.join(tail)}" if line else ", ".join(tail)


def _settings_text(o: Outcome) -> str:
    return "Settings: " + "; ".join(input_lines(o)) + "." if input_lines(o) else ""


def _query_value(c: Any, value: Any) -> str:
    if c is not None:
        return c.format(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return "none" if value is None else (f"{value:g}" if isinstance(value, float) else str(value))


def dashboard_link(outcome: Outcome, base: str = "") -> str | None:
    """The address of the dashboard showing ``outcome``'s matchup, relative to
    the server's root unless ``base`` (e.g. ``"https://host/"``) is given:
    ``voila/render/changes.ipynb?bs=6&s=5`` (the dashboard's link scheme,
    :mod:`workbench.ui.query`: ``mode`` for a function other than the
    first, then every value that differs from the dashboard's default).
    None for an outcome whose system has no dashboard."""
    import urllib.parse

    o = _check(outcome)
    try:
        from . import systems
        desc = systems.get(o.system)
    except Exception:  # noqa: BLE001 - a system no server shows
        return None
    modes = [m for m in desc.modes if m.function == o.function]
    if not modes:
        return None
    mode = modes[0]
    controls = {c.name: c for c in mode.controls}
    values = {k: v for k, v in o.inputs.items() if k not in _HIDDEN}
    if isinstance(values.get("attackers"), (list, tuple)):  # a volley: its units as the dashboard's u1_bs, ...
        units = [u for u in values.pop("attackers") if isinstance(u, Mapping)]
        values["units"] = len(units)
        for i, unit in enumerate(units, 1):
            values.update({f"u{i}_{k}": v for k, v in unit.items()})
    pairs = [("mode", mode.key)] if mode is not desc.modes[0] else []
    for k, v in values.items():
        c = controls.get(k)
        if c is not None and c.default == v and type(c.default) is type(v):
            continue
        pairs.append((k, _query_value(c, v)))
    query = urllib.parse.urlencode(pairs)
    return f"{base}voila/render/{o.system}.ipynb" + (f"?{query}" if query else "")


def _method_text(o: Outcome) -> str:
    if o.method == "sampled":
        return _sampled_text(o)
    return "Exact: every face of every die counted, no sampling."


# ---------------------------------------------------------------------------
# tables as text
# ---------------------------------------------------------------------------
def _rows(o: Outcome, digits: int) -> list[tuple[str, str, str]]:
    tail = o.at_least_curve.copy()
    tail[0] = 1.0  # P(at least 0) is certain, whatever the float sum says
    return [(str(n), pct(o.pmf[n], digits), pct(min(1.0, tail[n]), digits)) for n in range(o.pmf.size)]


def _md_table(head: Sequence[str], rows: Sequence[Sequence[str]], left: int = 0) -> list[str]:
    """A Markdown table: the first ``left`` columns left-aligned, the others right-aligned."""
    esc = [[str(c).replace("|", "\\|") for c in r] for r in [head, *rows]]
    align = "|" + "|".join(":---" if i < left else "---:" for i in range(len(head))) + "|"
    return ["| " + " | ".join(esc[0]) + " |", align] + ["| " + " | ".join(r) + " |" for r in esc[1:]]


def _code_table(head: Sequence[str], rows: Sequence[Sequence[str]], left: int = 0) -> list[str]:
    """An aligned plain-text table (for a [code] block): columns padded to one width."""
    cells = [[str(c) for c in r] for r in [head, *rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]

    def line(r):
        return "  ".join(c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()

    return [line(cells[0]), "  ".join("-" * w for w in widths)] + [line(r) for r in cells[1:]]


def _bb_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A [table] for boards that have it."""
    out = ["[table]", "[tr]" + "".join(f"[td][b]{h}[/b][/td]" for h in head) + "[/tr]"]
    out += ["[tr]" + "".join(f"[td]{c}[/td]" for c in r) + "[/tr]" for r in rows]
    return out + ["[/table]"]


def _bb_block(head: Sequence[str], rows: Sequence[Sequence[str]], tables: bool, left: int = 0) -> list[str]:
    if tables:
        return _bb_table(head, rows)
    body = _code_table(head, rows, left)
    return ["[code]" + body[0]] + body[1:-1] + [body[-1] + "[/code]"] if len(body) > 1 else [f"[code]{body[0]}[/code]"]


def _table_head(o: Outcome) -> tuple[str, str, str]:
    return (f"N ({o.label})", "P(exactly N)", "P(at least N)")


# ---------------------------------------------------------------------------
# one outcome
# ---------------------------------------------------------------------------
def _post_parts(o: Outcome, names: Sequence[str] | Mapping[str, Sequence[str]] | None
                ) -> tuple[str, list[str], str | None, str]:
    # one outcome takes (firer, weapon, target) names; matchup_line refuses anything else
    line = matchup_line(o, cast("Sequence[str] | None", names))
    return line, _stage_texts(o), per_attack_line(o), _totals_text(o)


def _trailer(o: Outcome, inputs: bool, notes: bool = True) -> list[str]:
    out = []
    if o.effects:
        out.append("Side effects: " + "; ".join(_effect_text(o, k) for k in o.effects) + ".")
    out.append(_method_text(o))
    if o.notes and notes:
        plain = [plain_note(o, n) for n in o.notes]
        out.append("Rules as read: " + " ".join(n if n.endswith(".") else n + "." for n in plain))
    if inputs and _settings_text(o):
        out.append(_settings_text(o))
    return out


def _outcomes(x: Any) -> Mapping[str, Outcome] | None:
    """A mapping of names to outcomes (a side-by-side post), else None."""
    if isinstance(x, Mapping):
        if not x or not all(_is_outcome(v) for v in x.values()):
            raise InputError("outcome", "a workbench Outcome or a mapping of names to Outcomes",
                             f"a mapping of {', '.join(sorted({type(v).__name__ for v in x.values()})) or 'nothing'}")
        return x
    return None


def to_markdown(outcome: Outcome | Mapping[str, Outcome], digits: int = 2, *,
                names: Sequence[str] | Mapping[str, Sequence[str]] | None = None, inputs: bool = True,
                link_base: str = "") -> str:
    """A Markdown post: the matchup in one bold line, the per-stage math and
    the per-attack product, the totals, then a table of N, P(exactly N),
    P(at least N) (percent); side effects, the method, the rules as read and
    (unless ``inputs=False``) every setting come last, in the dashboard's
    words, and the link to the dashboard showing it (:func:`dashboard_link`,
    below ``link_base``) ends the post.

    A mapping of outcomes gives one side-by-side table instead
    (:func:`_compare_markdown`). ``names``: (firer, weapon, target) names
    for :func:`matchup_line` (for a mapping: a mapping of the same keys).
    """
    many = _outcomes(outcome)
    if many is not None:
        return _compare_markdown(many, digits, names, inputs)
    o = _check(outcome)
    line, stages, per, totals = _post_parts(o, names)
    lines = [f"**{line}**", ""]
    lines += [f"- {s}" for s in stages]
    if per is not None:
        lines.append(f"- **{per}**")
    if stages or per is not None:
        lines.append("")
    lines += [totals, ""]
    lines += _md_table(_table_head(o), _rows(o, digits))
    lines += [""] + [x for t in _trailer(o, inputs) for x in (t, "")]
    link = dashboard_link(o, link_base)
    if link is not None:
        lines.append(f"[See it on the dashboard]({link})")
    return "\n".join(lines).rstrip("\n") + "\n"


def to_bbcode(outcome: Outcome | Mapping[str, Outcome], digits: int = 2, *,
              names: Sequence[str] | Mapping[str, Sequence[str]] | None = None, inputs: bool = True,
              tables: bool = False, link_base: str = "") -> str:
    """A BBCode post for a stock phpBB board: the matchup in one bold line,
    the per-stage math as a [list] and the product, the totals, then the
    table of N, P(exactly N), P(at least N) as aligned text in a [code]
    block; every setting last (unless ``inputs=False``). Only the tags of
    :data:`PHPBB_TAGS` are used, every one closed. ``tables=True`` writes a
    [table] instead of the [code] block, for boards that have that tag.

    A mapping of outcomes gives one side-by-side table instead."""
    many = _outcomes(outcome)
    if many is not None:
        return _compare_bbcode(many, digits, names, inputs, tables)
    o = _check(outcome)
    line, stages, per, totals = _post_parts(o, names)
    lines = [f"[b]{line}[/b]"]
    if stages:
        lines += ["[list]"] + [f"[*]{s}" for s in stages] + ["[/list]"]
    if per is not None:
        lines.append(f"[b]{per}[/b]")
    lines.append(totals)
    lines += _bb_block(_table_head(o), _rows(o, digits), tables)
    trailer = _trailer(o, inputs)
    lines += [f"[size=85]{t}[/size]" for t in trailer]
    link = dashboard_link(o, link_base)
    if link is not None:
        lines.append(f"[url={link}]See it on the dashboard[/url]")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# several outcomes side by side (the compare page)
# ---------------------------------------------------------------------------
def _column_name(key: str, o: Outcome) -> str:
    """A column's title: the system's name for a system key ("antares (input)" -> "Antares-style d10 (input)")."""
    if key == o.system:
        return o.system_name
    if key.startswith(o.system + " "):
        return o.system_name + key[len(o.system):]
    return key


def _compare_rows(many: Mapping[str, Outcome], digits: int) -> tuple[list[str], list[list[str]]]:
    outs = list(many.values())
    head = [""] + [_column_name(k, o) for k, o in many.items()]
    labels = {o.label for o in outs}
    counted = labels.pop() if len(labels) == 1 else "removed"
    rows: list[list[str]] = []
    if len({o.label for o in outs}) > 1:
        rows.append(["counts"] + [o.label for o in outs])

    def mean(o: Outcome) -> str:
        se = f" ± {o.mean_stderr:.2g}" if o.method == "sampled" and o.mean_stderr is not None else ""
        return f"{o.mean:.2f}{se}"

    rows.append([f"expected {counted}"] + [mean(o) for o in outs])
    rows.append(["P(at least 1)"] + [pct(o.at_least(1), digits) for o in outs])
    words = {_attack_word(o, 1) for o in outs}
    word = words.pop() if len(words) == 1 else "attack"
    rows.append([f"per {word}"] + [_per_attack_cell(o, digits) for o in outs])
    stage_names = list(dict.fromkeys(st.name for o in outs for st in o.stages))
    for name in stage_names:
        row = [name]
        for o in outs:
            st = next((s for s in o.stages if s.name == name), None)
            row.append("–" if st is None else _ratio_in(st.detail, st.probability, st.faces))
        rows.append(row)
    rows.append(["attacks"] + ["–" if o.attacks is None else str(o.attacks) for o in outs])
    return head, rows


def _names_for(names: Any, key: str) -> Sequence[str] | None:
    if names is None:
        return None
    if not isinstance(names, Mapping):
        raise InputError("names", "a mapping of the outcomes' names to (firer, weapon, target) names",
                         type(names).__name__)
    return names.get(key)


def _compare_title(many: Mapping[str, Outcome]) -> str:
    return "Side by side: " + ", ".join(_column_name(k, o) for k, o in many.items())


def _compare_markdown(many: Mapping[str, Outcome], digits: int, names: Any, inputs: bool) -> str:
    head, rows = _compare_rows(many, digits)
    lines = [f"**{_compare_title(many)}**", ""]
    lines += [f"- **{_column_name(k, o)}**: {matchup_line(o, _names_for(names, k), system=False)}"
              for k, o in many.items()]
    lines += [""] + _md_table(head, rows, left=1) + [""]
    for k, o in many.items():
        trailer = _trailer(o, inputs, notes=inputs)
        lines += [f"*{_column_name(k, o)}*: " + " ".join(trailer), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _compare_bbcode(many: Mapping[str, Outcome], digits: int, names: Any, inputs: bool, tables: bool) -> str:
    head, rows = _compare_rows(many, digits)
    lines = [f"[b]{_compare_title(many)}[/b]", "[list]"]
    lines += [f"[*][b]{_column_name(k, o)}[/b]: {matchup_line(o, _names_for(names, k), system=False)}"
              for k, o in many.items()]
    lines += ["[/list]"]
    lines += _bb_block(head, rows, tables, left=1)
    for k, o in many.items():
        lines.append(f"[size=85][i]{_column_name(k, o)}[/i]: " + " ".join(_trailer(o, inputs, notes=inputs)) + "[/size]")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# the words of an Outcome: its methods, attached here (an Outcome is numbers)
# ---------------------------------------------------------------------------
def _explain_method(self) -> str:
    """The math step by step in plain words with fractions (:func:`workbench.teach.explain`)."""
    return explain(self)


def _markdown_method(self, **options) -> str:
    """A Markdown forum post: the matchup, the math, the table of P(exactly N), P(at least N)
    (:func:`workbench.teach.to_markdown`, which takes the ``options``)."""
    return to_markdown(self, **options)


def _bbcode_method(self, **options) -> str:
    """A BBCode forum post for a stock phpBB board (:func:`workbench.teach.to_bbcode`, which
    takes the ``options``; ``tables=True`` for a board with [table])."""
    return to_bbcode(self, **options)


def _repr_markdown(self) -> str:
    """What a notebook shows for an Outcome: the matchup, the stages and the table."""
    return to_markdown(self, inputs=False)


# methods patched onto Outcome here (outcome.py cannot import teach, which imports it)
Outcome.explain = _explain_method  # type: ignore[attr-defined]  # patched in at import
Outcome.to_markdown = _markdown_method  # type: ignore[attr-defined]  # patched in at import
Outcome.to_bbcode = _bbcode_method  # type: ignore[attr-defined]  # patched in at import
Outcome._repr_markdown_ = _repr_markdown  # type: ignore[attr-defined]  # patched in at import
