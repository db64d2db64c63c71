"""Variants of a rule system side by side: what one rule change does, over every stat.

A :class:`Variant` is a system plus settings: a registered system (a built-in
or a rule file, :func:`workbench.systems.get`) with some switches or stats
fixed (40k Changes with ``heavy_shot="flat_4"``), or a rule file read from
its path. It is an immutable value: :func:`variant` (or
:meth:`Variant.parse`, for ``"changes:heavy_shot=flat_4"`` as a command line
and a link write it) checks the system, the names and the values, and an
unknown one is an :class:`~workbench.errors.InputError` naming it.

:func:`diff` sets two variants side by side over a grid of stats (any of
the stats both take, the rest at a matchup): per cell, the expected models
removed and the chance of at least one, before (``a``) and after (``b``),
and the signed change ``after - before``. Each variant is one vectorised
sweep (:func:`workbench.compare.evaluate`, the systems' ``TABLES``), so a
12 x 12 grid costs two sweeps.

:func:`movers` finds the profile matchups (the shipped and the designer's
unit profiles, :mod:`workbench.profiles`, in each situation a dashboard
offers) that the change moves most; :func:`verdict` says what the change
does in one line; :func:`diff_figure` draws both changes as heatmaps on a
diverging scale centred on zero; :func:`to_markdown`, :func:`to_bbcode` and
:func:`figure_png` make a forum post of a change.
"""
from .heatmap import diff_figure, figure_png, heatmap_values
from .movers import movers
from .post import to_bbcode, to_markdown
from .sweep import VALUE_COLUMNS, diff, parse_range, verdict
from .variant import Variant, stat_words, variant

__all__ = ["Variant", "variant", "diff", "movers", "verdict", "diff_figure", "to_markdown", "to_bbcode",
           "figure_png", "heatmap_values", "stat_words", "parse_range", "VALUE_COLUMNS"]
