"""Tables as text: Markdown, aligned plain text for a [code] block, and
BBCode ([code] or, for boards that have it, [table]); and the marks of the two post
formats (:data:`MARKDOWN`, :data:`BBCODE`), so that one writer serves both."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

__all__ = ["md_table", "code_table", "bb_block", "Marks", "MARKDOWN", "BBCODE"]


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


def bb_block(head: Sequence[str], rows: Sequence[Sequence[str]], tables: bool, left: int = 0) -> list[str]:
    """A BBCode table: a [table] for boards that have it, else :func:`code_table` in a [code] block."""
    if tables:
        out = ["[table]", "[tr]" + "".join(f"[td][b]{h}[/b][/td]" for h in head) + "[/tr]"]
        out += ["[tr]" + "".join(f"[td]{c}[/td]" for c in r) + "[/tr]" for r in rows]
        return out + ["[/table]"]
    body = code_table(head, rows, left)  # a head and its rule at least
    body[0], body[-1] = "[code]" + body[0], body[-1] + "[/code]"
    return body


@dataclass(frozen=True)
class Marks:
    """How one post format writes bold, italic, a list, small print and a table; ``gap``
    is the blank line between blocks (Markdown) or nothing (BBCode); ``per`` the
    per-attack line (Markdown lists it with the stages, BBCode after the [list])."""

    bold: str
    per: str
    italic: str
    item: str
    small: str
    link: str
    gap: tuple[str, ...]
    open: tuple[str, ...]
    close: tuple[str, ...]
    bbcode: bool

    def table(self, head: Sequence[str], rows: Sequence[Sequence[str]], left: int = 0,
              tables: bool = False) -> list[str]:
        return bb_block(head, rows, tables, left) if self.bbcode else md_table(head, rows, left)

    def items(self, texts: Sequence[str]) -> list[str]:
        """A list of ``texts`` (nothing at all for none)."""
        return [*self.open, *(self.item.format(t) for t in texts), *self.close] if texts else []


MARKDOWN = Marks(bold="**{}**", per="- **{}**", italic="*{}*", item="- {}", small="{}", link="[See it on the dashboard]({})",
                 gap=("",), open=(), close=(), bbcode=False)
BBCODE = Marks(bold="[b]{}[/b]", per="[b]{}[/b]", italic="[i]{}[/i]", item="[*]{}", small="[size=85]{}[/size]",
               link="[url={}]See it on the dashboard[/url]", gap=(), open=("[list]",), close=("[/list]",),
               bbcode=True)
