"""Command line: ``python -m workbench [table | serve ...]``.

* ``table`` (also the default with no argument): a comparison of the systems
  with profiles, a basic trooper firing at a basic trooper (each
  description's basic matchup): per-shot stage probabilities as
  fractions and percentages, and expected removals for 1 and 10 shots.
* ``serve``: the dashboards, handed to ``workbench.serve.main(argv)``.
"""
from __future__ import annotations

import sys
from fractions import Fraction
from typing import Sequence

from . import profiles, systems
from .dice import percent
from .errors import WorkbenchError
from .teach import ratio

__all__ = ["main", "comparison_rows", "comparison_table"]

USAGE = """usage: python -m workbench [table | serve ...]

  table   print the systems side by side for their seed profiles (default)
  serve   serve the dashboards (see workbench/serve.py)
"""

SHOT_COUNTS = (1, 10)


def comparison_rows(shot_counts: Sequence[int] = SHOT_COUNTS) -> list[dict]:
    """One dict per system: the matchup, its outcome for one shot (stages,
    per-shot probability) and the expected removals for each shot count
    (uncapped: ``models=None``, so the numbers compare across systems)."""
    rows = []
    for key in profiles.profile_systems():
        attacker, weapon, target = profiles.basic_matchup(key)
        module = systems.get(key)
        row = {"system": key, "name": module.name,
               "matchup": f"{attacker.name} ({weapon.name}) at {target.name}"}
        one = module.shooting(**profiles.matchup_kwargs(key, attacker, weapon, target, shots=1, models=None))
        row["stages"] = [(s.name, ratio(s.probability, s.detail, s.faces), s.probability, s.detail)
                         for s in one.stages]
        row["per_shot"] = one.per_attack if one.per_attack is not None else Fraction(0)
        row["expected"] = {}
        for n in shot_counts:
            out = one if n == 1 else module.shooting(
                **profiles.matchup_kwargs(key, attacker, weapon, target, shots=n, models=None))
            row["expected"][n] = out.mean
        row["effects"] = dict(one.effects)
        rows.append(row)
    return rows


def comparison_table(shot_counts: Sequence[int] = SHOT_COUNTS) -> str:
    """The text printed by ``python -m workbench table``."""
    rows = comparison_rows(shot_counts)
    lines = ["The rule systems, a basic trooper firing at a basic trooper (seed profiles, exact)", ""]
    head = ["system", "matchup", "per shot", "%"] + [f"E[removed] {n} shot{'s' if n > 1 else ''}"
                                                     for n in shot_counts]
    body = [[r["system"], r["matchup"], str(r["per_shot"]), percent(r["per_shot"])]
            + [f"{r['expected'][n]:.3f}" for n in shot_counts] for r in rows]
    widths = [max(len(b[i]) if i < len(b) else 0 for b in [head] + body) for i in range(len(head))]
    fmt = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
    lines += [fmt(head), fmt(["-" * w for w in widths])] + [fmt(b) for b in body]
    lines.append("")
    lines.append("Per-shot stages:")
    name_w = max([len("effects (1 shot)")] + [len(st[0]) for r in rows for st in r.get("stages", [])])
    for r in rows:
        lines.append(f"  {r['system']} ({r['name']}): {r['matchup']}")
        for name, faces, p, detail in r["stages"]:
            lines.append(f"    {name:<{name_w}} {faces:>7}  {percent(p):>6}  {detail}")
        lines.append(f"    {'per shot':<{name_w}} {str(r['per_shot']):>7}  {percent(r['per_shot']):>6}")
        if r["effects"]:
            eff = ", ".join(f"{k} {v:.3f}" for k, v in r["effects"].items())
            lines.append(f"    {'effects (1 shot)':<{name_w}} {eff}")
    lines.append("")
    lines.append("Expected removals are uncapped (models=None); profiles in profiles/<system>/*.toml.")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv else "table"
    if command in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    if command == "table":
        try:
            print(comparison_table())
        except WorkbenchError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        return 0
    if command == "serve":
        from . import serve
        return serve.main(argv[1:]) or 0
    print(f"unknown command {command!r}\n\n{USAGE}", file=sys.stderr)
    return 2
