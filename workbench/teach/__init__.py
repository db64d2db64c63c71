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
``notes``), so it works for every system, function and variant. The
modules: :mod:`~workbench.teach.words` (numbers and settings in words),
:mod:`~workbench.teach.math` (:func:`explain`), :mod:`~workbench.teach.matchup`
(the one line and the dashboard link), :mod:`~workbench.teach.tables` (tables as
text), :mod:`~workbench.teach.posts` (the posts); this package gives
:class:`~workbench.outcome.Outcome` its words.
"""
from ..outcome import Outcome
from .math import explain, per_attack_line
from .matchup import dashboard_link, matchup_line
from .posts import PHPBB_TAGS, to_bbcode, to_markdown
from .words import effect_is_probability, input_lines, pct, plain_note, ratio, title

__all__ = ["explain", "to_markdown", "to_bbcode", "ratio", "pct", "title", "input_lines", "plain_note",
           "dashboard_link",
           "matchup_line", "per_attack_line", "PHPBB_TAGS", "effect_is_probability"]


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
