"""Forum posts of one outcome or of several side by side: Markdown
(:func:`to_markdown`) and the BBCode of a stock phpBB 3 board
(:func:`to_bbcode`)."""
from __future__ import annotations

from typing import Any, Mapping, Sequence, cast

from ..errors import InputError
from ..outcome import Outcome
from .math import _of_tokens_line, _per_attack_cell, _sampled_text, _stage_texts, _totals_text, per_attack_line
from .matchup import dashboard_link, matchup_line
from .tables import BBCODE, MARKDOWN, Marks
from .words import _attack_word, _check, _effect_text, _is_outcome, _ratio_in, input_lines, pct, plain_note

__all__ = ["to_markdown", "to_bbcode", "PHPBB_TAGS"]

#: the BBCode tags of a stock phpBB 3 board (no [table]: that needs an extension)
PHPBB_TAGS = ("b", "i", "u", "quote", "code", "list", "*", "url", "img", "color", "size")

def _rows(o: Outcome, digits: int) -> list[tuple[str, str, str]]:
    tail = o.at_least_curve.copy()
    tail[0] = 1.0  # P(at least 0) is certain, whatever the float sum says
    return [(str(n), pct(o.pmf[n], digits), pct(min(1.0, tail[n]), digits)) for n in range(o.pmf.size)]


def _trailer(o: Outcome, inputs: bool, notes: bool = True) -> list[str]:
    out = []
    if o.effects:
        out.append("Side effects: " + "; ".join(_effect_text(o, k) for k in o.effects) + ".")
    out.append(_sampled_text(o) if o.method == "sampled" else "Exact: every face of every die counted, no sampling.")
    if o.notes and notes:
        plain = [plain_note(o, n) for n in o.notes]
        out.append("Rules as read: " + " ".join(n if n.endswith(".") else n + "." for n in plain))
    if inputs and input_lines(o):
        out.append("Settings: " + "; ".join(input_lines(o)) + ".")
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
    (:func:`_compare`). ``names``: (firer, weapon, target) names
    for :func:`matchup_line` (for a mapping: a mapping of the same keys).
    """
    return _post(outcome, MARKDOWN, digits, names, inputs, False, link_base)


def to_bbcode(outcome: Outcome | Mapping[str, Outcome], digits: int = 2, *,
              names: Sequence[str] | Mapping[str, Sequence[str]] | None = None, inputs: bool = True,
              tables: bool = False, link_base: str = "") -> str:
    """The post of :func:`to_markdown` for a stock phpBB board: the per-stage math as a [list], the
    table as aligned text in a [code] block (``tables=True``: a [table], for boards that have that
    tag). Only the tags of :data:`PHPBB_TAGS` are used, every one closed."""
    return _post(outcome, BBCODE, digits, names, inputs, tables, link_base)


def _post(outcome: Any, m: Marks, digits: int, names: Any, inputs: bool, tables: bool, link_base: str) -> str:
    """The post of :func:`to_markdown` or :func:`to_bbcode`, in the marks ``m`` of its format."""
    many = _outcomes(outcome)
    if many is not None:
        return _compare(many, m, digits, names, inputs, tables)
    o = _check(outcome)
    # one outcome takes (firer, weapon, target) names; matchup_line refuses anything else
    stages, per = _stage_texts(o), per_attack_line(o)
    lines = [m.bold.format(matchup_line(o, cast("Sequence[str] | None", names))), *m.gap, *m.items(stages)]
    lines += [m.per.format(line) for line in (per, _of_tokens_line(o)) if line is not None]
    if stages or per is not None:
        lines += m.gap
    head = (f"N ({o.label})", "P(exactly N)", "P(at least N)")
    lines += [_totals_text(o), *m.gap, *m.table(head, _rows(o, digits), tables=tables), *m.gap]
    lines += [x for t in _trailer(o, inputs) for x in (m.small.format(t), *m.gap)]
    link = dashboard_link(o, link_base)
    if link is not None:
        lines.append(m.link.format(link))
    return "\n".join(lines).rstrip("\n") + "\n"


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
    counted = next(iter(labels)) if len(labels) == 1 else "removed"
    rows = [["counts"] + [o.label for o in outs]] if len(labels) > 1 else []

    def mean(o: Outcome) -> str:
        se = f" ± {o.mean_stderr:.2g}" if o.method == "sampled" and o.mean_stderr is not None else ""
        return f"{o.mean:.2f}{se}"

    rows.append([f"expected {counted}"] + [mean(o) for o in outs])
    rows.append(["P(at least 1)"] + [pct(o.at_least(1), digits) for o in outs])
    words = {o.token or _attack_word(o, 1) for o in outs}
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


def _compare(many: Mapping[str, Outcome], m: Marks, digits: int, names: Any, inputs: bool, tables: bool) -> str:
    if names is not None and not isinstance(names, Mapping):
        raise InputError("names", "a mapping of the outcomes' names to (firer, weapon, target) names",
                         type(names).__name__)
    head, rows = _compare_rows(many, digits)
    lines = [m.bold.format("Side by side: " + ", ".join(_column_name(k, o) for k, o in many.items())), *m.gap]
    lines += m.items([f"{m.bold.format(_column_name(k, o))}: {matchup_line(o, (names or {}).get(k), system=False)}"
                      for k, o in many.items()])
    lines += [*m.gap, *m.table(head, rows, left=1, tables=tables), *m.gap]
    for k, o in many.items():
        trailer = " ".join(_trailer(o, inputs, notes=inputs))
        lines += [m.small.format(f"{m.italic.format(_column_name(k, o))}: {trailer}"), *m.gap]
    return "\n".join(lines).rstrip("\n") + "\n"
