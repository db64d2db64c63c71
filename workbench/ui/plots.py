"""The dashboards' plots, updated in place, and the helpers of their widget trees.

Every plot on a dashboard is a :class:`workbench.ui.plotwidget.Plot`: a
figure (plotly JSON) drawn by the vendored plotly.js, built once and then
given each new figure with ``show()``, which sends the browser only what
changed. :func:`figure_widget`, :func:`live_figure` and
:func:`replace_figure` are the dashboards' ways to make and change one.
"""
from __future__ import annotations

from typing import Any, Iterator

import ipywidgets as W

from .plotwidget import Feed, Plot

__all__ = ["live_figure", "replace_figure", "widgets_in", "no_null_tooltips", "show_widget",
           "figure_widget", "Plot"]


def figure_widget(figure: Any = None, *, bundle: str | None = None, feed: Feed | None = None) -> Plot:
    """A :class:`Plot` of ``figure`` (a :mod:`workbench.figures` dict or a
    plotly figure), CSS class ``wb-plot``, as wide as its place on the page.
    ``bundle``: ``"cartesian"`` on a page that shows a heatmap (one library per page);
    ``feed``: the page's :class:`~workbench.ui.plotwidget.Feed`, which then carries its numbers."""
    return Plot(figure, bundle=bundle, feed=feed)


def live_figure(figure: Any, feed: Feed | None = None) -> tuple[Plot, Plot]:
    """``(figure, widget)``: the object to update and the widget to put on the
    page (the same :class:`Plot`; the pair keeps the dashboards' code
    independent of how figures are shown)."""
    fw = figure_widget(figure, feed=feed)
    return fw, fw


def replace_figure(fw: Plot, figure: Any) -> None:
    """Show another figure in the same widget. When it has as many traces of
    the same types, only what differs is sent and the browser restyles the
    plot in place (it never draws an empty plot in between); otherwise the
    whole figure replaces the old one."""
    fw.show(figure)


def widgets_in(widget: W.Widget) -> Iterator[W.Widget]:
    """Every widget of a widget tree, ``widget`` first."""
    yield widget
    for child in getattr(widget, "children", ()) or ():
        if isinstance(child, W.Widget):
            yield from widgets_in(child)


def no_null_tooltips(widget: W.Widget) -> None:
    """ipywidgets shows a tooltip of ``None`` as the word "null" on the
    page: give every widget without one an empty tooltip (no tooltip)."""
    for w in widgets_in(widget):
        if w.has_trait("tooltip") and w.tooltip is None:
            w.tooltip = ""


def show_widget(widget: W.Widget) -> None:
    """Display a dashboard's widget with no "null" tooltip."""
    from IPython.display import display
    no_null_tooltips(widget)
    display(widget)
