"""``dice-workbench diff A B --grid bs=1..12 t=-2..4``: what a rule change does, on the command line.

``A`` and ``B`` are variants (:class:`workbench.variants.Variant`): a system's
key, optionally with settings (``changes:heavy_shot=flat_4,action=shot``), or
a rule file's path. It prints the verdict, the matchups that move most and the
change of expected models removed over the grid; ``--csv FILE`` writes the
tidy table of :func:`workbench.compare.diff` instead (``--csv -``: standard
output), ``--png FILE`` the heatmaps.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

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
    p.add_argument("--png", type=Path, default=None, metavar="FILE", help="write the heatmaps as a PNG picture")
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
    df = variants.diff(args.a, args.b, grid=grid, matchup=matchup)
    if args.png is not None:
        args.png.parent.mkdir(parents=True, exist_ok=True)
        args.png.write_bytes(variants.figure_png(df))
        print(f"wrote {args.png}", file=sys.stderr)
    if args.csv == "-":
        df.to_csv(sys.stdout, index=False)
    elif args.csv is not None:
        out = Path(args.csv)
        out.parent.mkdir(parents=True, exist_ok=True)
        df.to_csv(out, index=False)
        print(f"wrote {out} ({len(df)} rows)", file=sys.stderr)
    elif args.png is None:
        print(diff_text(df))
