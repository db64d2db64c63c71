"""Tables as text: Markdown, aligned plain text for a [code] block, and
BBCode ([code] or, for boards that have it, [table])."""
from __future__ import annotations

from typing import Sequence

__all__ = ["md_table", "code_table", "bb_block"]


def md_table(head: Sequence[str], rows: Sequence[Sequence[str]], left: int = 0) -> list[str]:
    """A Markdown table: the first ``left`` columns left-aligned, the others right-aligned."""
    esc = [[str(c).replace("|", "\\|") for c in r] for r in [head, *rows]]
    align = "|" + "|".join(":---" if i < left else "---:" for i in range(len(head))) + "|"
    return ["| " + " | ".join(esc[0]) + " |", align] + ["| " + " | ".join(r) + " |" for r in esc[1:]]


def code_table(head: Sequence[str], rows: Sequence[Sequence[str]], left: int = 0) -> list[str]:
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


def bb_block(head: Sequence[str], rows: Sequence[Sequence[str]], tables: bool, left: int = 0) -> list[str]:
    if tables:
        return _bb_table(head, rows)
    body = code_table(head, rows, left)
    return ["[code]" + body[0]] + body[1:-1] + [body[-1] + "[/code]"] if len(body) > 1 else [f"[code]{body[0]}[/code]"]
