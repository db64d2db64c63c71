"""Command line: ``dice-workbench`` (also ``python -m workbench``).

The subcommands (each has ``--help``, their words in :func:`build_parser`): ``table`` (the
default), ``explain`` and ``post`` (one matchup from a dashboard link's query, read by
:func:`workbench.ui.query.parse_query`), ``sweep`` (:func:`workbench.compare.sweep`), ``diff``
(:mod:`workbench.cli_diff`), ``serve`` and ``deploy`` (:func:`workbench.serve.main`,
:func:`workbench.deploy.main`, which own their options).

A usage mistake, a value the library refuses or a file that cannot be written
exits with status 2 and one line saying why (:data:`EXIT_STATUSES`; files:
:func:`workbench.cli_files.output_path`); a PNG or SVG this computer has no browser to draw, with
:data:`EXIT_NO_BROWSER`. ``-`` as ``--out`` or ``--csv`` is standard output.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from fractions import Fraction
from typing import Any, Sequence

from . import profiles, systems
from .dice import percent
from .cli_files import output_path, write_output
from .errors import InputError, WorkbenchError
from .export import ExportError
from .grid import MAX_SWEEP_ROWS, parse_grid
from .teach import ratio
from .teach.tables import code_table

__all__ = ["main", "build_parser", "comparison_rows", "comparison_table", "matchup_outcome", "parse_grid",
           "POST_FORMATS"]

PROG = "dice-workbench"
#: the formats of ``post``: text ones from workbench.teach, pictures and pages from workbench.export
POST_FORMATS = ("text", "md", "bbcode", "png", "svg", "html")

SHOT_COUNTS = (1, 10)
#: the exit status of a picture that cannot be drawn (no browser, or the browser failed)
EXIT_NO_BROWSER = 3
#: what ``--out``/``--csv`` take to mean standard output
EXIT_STATUSES = (f"Exit status: 0 done; 2 a usage mistake, a value refused or a file that cannot be written; "
                 f"{EXIT_NO_BROWSER} a PNG/SVG that needs a browser this computer does not have.")


def comparison_rows(shot_counts: Sequence[int] = SHOT_COUNTS) -> list[dict]:
    """One dict per system: the matchup, its outcome for one shot (stages,
    per-shot probability) and the expected removals for each shot count
    (uncapped: ``models=None``, so the numbers compare across systems)."""
    rows = []
    for key in profiles.profile_systems():
        attacker, weapon, target = profiles.basic_matchup(key)
        module = systems.get(key)
        outcomes = {n: module.shooting(**profiles.matchup_kwargs(key, attacker, weapon, target, shots=n, models=None))
                    for n in {1, *shot_counts}}
        one = outcomes[1]
        rows.append({"system": key, "name": module.name,
                     "matchup": f"{attacker.name} ({weapon.name}) at {target.name}",
                     "stages": [(s.name, ratio(s.probability, s.detail, s.faces), s.probability, s.detail)
                                for s in one.stages],
                     "per_shot": one.per_attack if one.per_attack is not None else Fraction(0),
                     "expected": {n: outcomes[n].mean for n in shot_counts},
                     "effects": dict(one.effects)})
    return rows


def comparison_table(shot_counts: Sequence[int] = SHOT_COUNTS) -> str:
    """The text printed by ``python -m workbench table``."""
    rows = comparison_rows(shot_counts)
    lines = ["The rule systems, a basic trooper firing at a basic trooper (seed profiles, exact)", ""]
    head = ["system", "matchup", "per shot", "%"] + [f"E[removed] {n} shot{'s' if n > 1 else ''}"
                                                     for n in shot_counts]
    body = [[r["system"], r["matchup"], str(r["per_shot"]), percent(r["per_shot"])]
            + [f"{r['expected'][n]:.3f}" for n in shot_counts] for r in rows]
    lines += code_table(head, body, left=len(head))
    lines += ["", "Per-shot stages:"]
    name_w = max([len("effects (1 shot)")] + [len(st[0]) for r in rows for st in r.get("stages", [])])
    for r in rows:
        lines.append(f"  {r['system']} ({r['name']}): {r['matchup']}")
        for name, faces, p, detail in r["stages"]:
            lines.append(f"    {name:<{name_w}} {faces:>7}  {percent(p):>6}  {detail}")
        lines.append(f"    {'per shot':<{name_w}} {str(r['per_shot']):>7}  {percent(r['per_shot']):>6}")
        if r["effects"]:
            eff = ", ".join(f"{k} {v:.3f}" for k, v in r["effects"].items())
            lines.append(f"    {'effects (1 shot)':<{name_w}} {eff}")
    lines += ["", "Expected removals are uncapped (models=None); profiles in profiles/<system>/*.toml."]
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# explain / post: one matchup from a dashboard link's query
# ---------------------------------------------------------------------------
def matchup_outcome(system: str, query: str = "", *, samples: int | None = None, seed: int = 1):
    """The outcome a dashboard shows for the link query ``query`` of ``system``.

    The query picks the function (``mode=``, else the dashboard's first one)
    and sets stats; every stat it leaves out keeps the dashboard's default
    (:func:`workbench.ui.query.modes_for`). A key the chosen function does not take
    raises :class:`~workbench.errors.InputError`. ``samples``: resolve by
    sampling that many volleys with ``seed`` instead of exactly.
    """
    from .ui.query import MODE_KEY, modes_for, parse_query

    description = systems.get(system)
    values = parse_query(system, query)
    modes = {m.key: m for m in modes_for(description)}
    mode = modes[values.pop(MODE_KEY, next(iter(modes)))]
    names = [c.name for c in mode.controls]
    for key in values:
        if key not in names:
            raise InputError("query key", f"one of {', '.join(names)} (the {mode.key} controls)", key)
    args = {c.name: c.default for c in mode.controls}
    args.update(values)
    extra = {} if samples is None else dict(method="sampled", samples=samples, seed=seed)
    return mode.run(description.module, args, **extra)


def _post_bytes(outcome, fmt: str) -> bytes:
    from . import teach

    text = {"text": lambda o: teach.explain(o) + "\n", "md": teach.to_markdown, "bbcode": teach.to_bbcode}
    if fmt in text:
        return text[fmt](outcome).encode("utf-8")
    from .export import figure_bytes
    return figure_bytes(outcome, fmt)


# ---------------------------------------------------------------------------
# the parser
# ---------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog=PROG, description="Dice design workbench: exact and sampled dice odds for four wargame rule systems.",
        epilog="Run '%(prog)s COMMAND --help' for the options of one command. "
               "With no command, the comparison table is printed. " + EXIT_STATUSES)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.set_defaults(parser=parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("table", help="the four systems side by side for their seed profiles",
                       description="The four systems side by side: a basic trooper firing at a basic trooper "
                                   "(seed profiles, exact odds).")

    matchup = argparse.ArgumentParser(add_help=False)  # the arguments of explain and post
    matchup.add_argument("system", choices=systems.keys(), help="the rule system")
    matchup.add_argument("query", nargs="?", default="",
                         help="the values of a dashboard link, e.g. 'bs=4&shots=10' or '?mode=melee&ws=3' "
                              "(quote it: & means something to the shell); left out: the dashboard's defaults")
    matchup.add_argument("--sampled", type=int, metavar="VOLLEYS", default=None,
                         help="resolve by simulating this many volleys instead of exactly")
    matchup.add_argument("--seed", type=int, default=1, help="the seed of --sampled (default 1)")
    sub.add_parser("explain", parents=[matchup], help="the math of one matchup, step by step",
                   description="The math of one matchup, step by step, with fractions.")
    p = sub.add_parser("post", parents=[matchup],
                       help="a forum post of one matchup (text, Markdown, BBCode, PNG, SVG, HTML)",
                       description="A forum post of one matchup: text, Markdown or BBCode to paste, "
                                   "a PNG or SVG picture, or an HTML page that works offline.",
                       epilog=EXIT_STATUSES)
    p.add_argument("--format", "-f", choices=POST_FORMATS, default="text", help="default: text")
    p.add_argument("--out", "-o", default=None, metavar="FILE",
                   help="the file to write, in a folder that exists; - is standard output (text formats: "
                        "standard output when left out; png/svg/html need it)")

    p = sub.add_parser("sweep", help="one function over a grid of stats, as a table or CSV",
                       description="Evaluate one function over every combination of the given stat values.",
                       epilog="Example: %(prog)s changes shooting bs=1..6 s=5 ap=5 t=2 sv=3 --csv bs.csv")
    p.add_argument("system", choices=systems.keys(), help="the rule system")
    p.add_argument("function", help="the function, e.g. shooting or melee")
    p.add_argument("stats", nargs="+", metavar="STAT=VALUES",
                   help="a value (5), a range (1..6, both ends included) or a list (snap,aimed); "
                        f"{MAX_SWEEP_ROWS:,} combinations at most")
    p.add_argument("--csv", default=None, metavar="FILE",
                   help="write the table as CSV to this file, in a folder that exists; - is standard output")

    from .cli_diff import add_parser as add_diff_parser
    add_diff_parser(sub)

    sub.add_parser("serve", help="serve the read-only dashboards (options: serve --help)", add_help=False,
                   description="Serve the dashboards; see 'serve --help'.")
    sub.add_parser("deploy", help="write the nginx configuration for several server processes (deploy --help)",
                   add_help=False, description="nginx in front of several server processes; see 'deploy --help'.")
    for p in sub.choices.values():   # each subcommand's own parser, so that its errors carry its name
        p.set_defaults(parser=p)
    return parser


def check_grid_size(grid: dict[str, Any], limit: int = MAX_SWEEP_ROWS) -> int:
    """The number of combinations ``grid`` makes; refused past ``limit``, before any is built."""
    sizes = {name: len(v) for name, v in grid.items() if isinstance(v, list)}
    total = math.prod(sizes.values())
    if total > limit:
        counts = " x ".join(f"{n} {name}" for name, n in sizes.items())
        raise InputError("sweep grid", f"at most {limit:,} combinations", f"{counts} = {total:,}",
                         "narrow a range, or sweep it in parts")
    return total


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 a usage mistake or a refused value)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("serve", "deploy"):  # workbench.serve and workbench.deploy own their options
        import importlib.util
        if argv[0] == "serve" and importlib.util.find_spec("voila") is None:
            print(f"{PROG} serve: error: the dashboards need Voila, which is not installed here: "
                  "pip install 'dice-workbench[dashboard]'", file=sys.stderr)
            return 1
        return importlib.import_module(f"{__package__}.{argv[0]}").main(argv[1:], prog=f"{PROG} {argv[0]}")
    try:
        return _run(argv)
    except BrokenPipeError:  # `dice-workbench table | head`: the reader left, nothing is wrong
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _run(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command = args.command or "table"
    sub = args.parser  # the subcommand's own parser, so that its errors carry its name
    try:
        if command == "table":
            print(comparison_table())
        elif command == "explain":
            from .teach import explain
            print(explain(matchup_outcome(args.system, args.query, samples=args.sampled, seed=args.seed)))
        elif command == "post":
            if args.format in ("png", "svg", "html") and args.out is None:
                sub.error(f"--format {args.format} needs --out FILE (or --out - for standard output)")
            out = output_path("--out", args.out)
            outcome = matchup_outcome(args.system, args.query, samples=args.sampled, seed=args.seed)
            write_output("--out", out, _post_bytes(outcome, args.format))
        elif command == "sweep":
            from .compare import sweep
            out = output_path("--csv", args.csv)
            grid = parse_grid(args.stats)
            check_grid_size(grid)
            df = sweep(args.system, args.function, progress=False, **grid)
            if args.csv is None:
                print(df.to_string(index=False))
            else:
                write_output("--csv", out, df.to_csv(index=False).encode("utf-8"), f" ({len(df)} rows)")
        elif command == "diff":
            from .cli_diff import run as run_diff
            run_diff(args, sub)
    except ExportError as exc:  # the command was right; this computer lacks the browser a picture needs
        sub.exit(EXIT_NO_BROWSER, f"{sub.prog}: error: {exc}\n")
    except WorkbenchError as exc:
        sub.exit(2, f"{sub.prog}: error: {exc}\n")
    return 0
