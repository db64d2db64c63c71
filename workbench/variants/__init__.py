"""Variants of a rule system side by side: what one rule change does, over every stat.

A :class:`Variant` is a system plus settings (40k Changes with
``heavy_shot="flat_4"``), an immutable value checked when it is made. :func:`diff`
sets two variants side by side over a grid of stats, each one vectorised sweep
(the systems' ``TABLES``); :func:`movers` finds the profile matchups the change
moves most; :func:`verdict` says it in one line; :func:`diff_figure` draws it as
heatmaps; :func:`to_markdown`, :func:`to_bbcode` and :func:`figure_png` make a
forum post of it.
"""
from .heatmap import diff_figure, figure_png, heatmap_values
from .movers import movers
from .post import to_bbcode, to_markdown
from .sweep import VALUE_COLUMNS, diff, parse_range, verdict
from .variant import Variant, stat_words, variant

__all__ = ["Variant", "variant", "diff", "movers", "verdict", "diff_figure", "to_markdown", "to_bbcode",
           "figure_png", "heatmap_values", "stat_words", "parse_range", "VALUE_COLUMNS"]
