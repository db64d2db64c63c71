"""Forum-ready text from any outcome: the math in plain words, Markdown, BBCode.

:func:`explain` walks through the stages with their fractions as a player
counts them; :func:`to_markdown` and :func:`to_bbcode` write a forum post of
one outcome, or of several side by side (each function says what it holds).

Everything is built from the :class:`~workbench.outcome.Outcome` alone
(``stages[].detail``, ``.probability``, ``attacks``, ``inputs``, ``effects``,
``notes``), so it works for every system, function and variant (the modules: docs/architecture.md);
this package gives :class:`~workbench.outcome.Outcome` its words.
"""
from functools import partialmethod

from ..outcome import Outcome
from .math import explain, per_attack_line
from .matchup import dashboard_link, matchup_line
from .posts import PHPBB_TAGS, to_bbcode, to_markdown
from .words import effect_is_probability, input_lines, pct, plain_note, ratio, title

__all__ = ["explain", "to_markdown", "to_bbcode", "ratio", "pct", "title", "input_lines", "plain_note",
           "dashboard_link", "matchup_line", "per_attack_line", "PHPBB_TAGS", "effect_is_probability"]


# methods patched onto Outcome here (outcome.py cannot import teach, which imports it); a notebook
# shows an Outcome as its Markdown post without the settings
for _name, _method in (("explain", explain), ("to_markdown", to_markdown), ("to_bbcode", to_bbcode),
                       ("_repr_markdown_", partialmethod(to_markdown, inputs=False))):
    setattr(Outcome, _name, _method)
