"""``dice-workbench diff A B --grid bs=1..12 t=-2..4``: what a rule change does, on the command line.

``A`` and ``B`` are variants (:class:`workbench.variants.Variant`): a system's
key, optionally with settings (``changes:heavy_shot=flat_4,action=shot``), or
a rule file's path. It prints the verdict, the matchups that move most and the
change of expected models removed over the grid; ``--csv FILE`` writes the
tidy table of :func:`workbench.compare.diff` instead (``--csv -``: standard
output), ``--png FILE`` the heatmaps; each file is checked before the work starts, and a folder
that does not exist is refused, not created.
"""
from __future__ import annotations

import argparse

from .cli_files import STDOUT, output_path, write_output

__all__ = ["add_parser", "run", "diff_text"]

EPILOG = ("Example: %(prog)s changes:weapon=heavy,action=shot changes:weapon=heavy,action=shot,heavy_shot=flat_4 "
          "--grid bs=1..12 t=-2..4 --csv -")


def add_parser(sub) -> argparse.ArgumentParser:
    """The ``diff`` subcommand's parser, added to ``sub`` (the command line's subparsers)."""
    p = sub.add_parser("diff", help="what a rule change does: two variants over a grid of two stats",
                       description="Two variants of a rule system side by side over a grid of stats: the change "
                                   "of expected models removed and of the chance of at least one, the matchups "
                                   "that move most and a one-line verdict.", epilog=EPILOG)
    p.add_argument("a", metavar="A", help="before: a system key with optional settings, e.g. changes or "
                                          "changes:action=shot, or a rule file's path")
    p.add_argument("b", metavar="B", help="after, written the same way, e.g. changes:heavy_shot=flat_4")
    p.add_argument("--grid", nargs="+", required=True, metavar="STAT=VALUES",
                   help="one or two stats both variants take: a range (1..12, both ends included) or a list (3,4,5)")
    p.add_argument("--matchup", nargs="+", default=[], metavar="STAT=VALUE",
                   help="the other stats (default: each system's seed matchup), e.g. shots=10 sv=3")
    p.add_argument("--csv", default=None, metavar="FILE", help="write the grid as CSV to FILE ('-': standard output)")
    p.add_argument("--png", default=None, metavar="FILE", help="write the heatmaps as a PNG picture to FILE ('-': standard output)")
    return p


def diff_text(df) -> str:
    """The verdict, the movers and the change of expected removals over the grid, as printed."""
    from . import variants
    from .teach.tables import code_table
    from .variants.movers import MOVER_HEAD, mover_rows

    a, b = df.attrs["a"], df.attrs["b"]
    lines = [f"Before: {a.name}", f"After:  {b.name}", "", variants.verdict(df), ""]
    table = variants.movers(a, b, df)
    if len(table):
        lines.append("The matchups that move most (expected models removed):")
        lines += ["  " + x for x in code_table(MOVER_HEAD, mover_rows(table), left=1)]
    else:
        lines.append("No matchup moves.")
    keys = list(df.attrs["grid"])
    lines += ["", "Change of expected models removed:"]
    if len(keys) == 2:
        x, y = keys
        pivot = df.pivot(index=y, columns=x, values="mean_diff")
        head = [f"{y} \\ {x}"] + [str(c) for c in pivot.columns]
        rows = [[str(i)] + [f"{v:+.2f}" for v in row] for i, row in zip(pivot.index, pivot.to_numpy())]
    else:
        head = [keys[0], "change"]
        rows = [[str(k), f"{v:+.2f}"] for k, v in zip(df[keys[0]], df["mean_diff"])]
    lines += ["  " + x for x in code_table(head, rows, left=1)]
    return "\n".join(lines)


def run(args, sub: argparse.ArgumentParser) -> None:
    """Run ``diff``; a refused value raises the library's InputError (the caller exits with 2)."""
    from . import variants
    from .grid import parse_grid

    grid = parse_grid(args.grid)
    matchup = parse_grid(args.matchup)
    for k, val in matchup.items():
        if isinstance(val, list):
            sub.error(f"--matchup {k}: one value (the swept stats go in --grid)")
    if args.png == args.csv == STDOUT:
        sub.error("--png and --csv cannot both write to standard output: name a file for one of them")
    png, csv = output_path("--png", args.png), output_path("--csv", args.csv)  # checked before the work
    df = variants.diff(args.a, args.b, grid=grid, matchup=matchup)
    if args.png is not None:
        write_output("--png", png, variants.figure_png(df))
    if args.csv is not None:
        write_output("--csv", csv, df.to_csv(index=False).encode("utf-8"), f" ({len(df)} rows)")
    elif args.png is None:
        print(diff_text(df))
